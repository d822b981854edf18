// The report's crash handler says "internal error" even when the crash is a stack overflow (deep
// input once overflowed a reading thread's stack, audit case B7): it runs on an alternate signal
// stack, since it cannot run on the stack that is full. Each case runs in a child process that
// overflows its stack on purpose.
#include "report/crash_handler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace flopspy::tools {
namespace {

// Recursion the compiler cannot turn into a loop: each frame keeps a buffer it reads after the
// call returns (which it never does).
int Overflow(int depth) {
  if (depth < 0) return 0;  // never: the stack ends first
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  return Overflow(depth + 1) + frame[0];
}

// Runs `crash` in a child whose stderr is captured; returns what it wrote and how it ended.
struct Crash {
  std::string err;
  bool signaled = false;
  int signal = 0;
};
Crash InChild(void (*crash)()) {
  int pipe_fds[2];
  EXPECT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    InstallCrashHandler("crash-test");
    crash();
    _exit(0);
  }
  close(pipe_fds[1]);
  Crash result;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) result.err.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.signaled = WIFSIGNALED(status);
  result.signal = result.signaled ? WTERMSIG(status) : 0;
  return result;
}

#if defined(__SANITIZE_ADDRESS__)
#define FLOPSPY_SKIP_UNDER_ASAN() GTEST_SKIP() << "AddressSanitizer handles stack overflows itself"
#else
#define FLOPSPY_SKIP_UNDER_ASAN() (void)0
#endif

TEST(CrashHandler, StackOverflowOnTheMainThreadIsReported) {
  FLOPSPY_SKIP_UNDER_ASAN();
  const Crash c = InChild([] { Overflow(0); });
  EXPECT_TRUE(c.signaled);
  EXPECT_EQ(c.signal, SIGSEGV);
  EXPECT_EQ(c.err.rfind("crash-test: internal error (signal 11, ", 0), 0u) << c.err;
}

TEST(CrashHandler, StackOverflowOnAReadingThreadIsReported) {
  FLOPSPY_SKIP_UNDER_ASAN();
  const Crash c = InChild([] {
    std::thread reader([] {
      UseCrashStackOnThisThread();  // as every thread that reads traces does
      Overflow(0);
    });
    reader.join();
  });
  EXPECT_TRUE(c.signaled);
  EXPECT_EQ(c.signal, SIGSEGV);
  EXPECT_EQ(c.err.rfind("crash-test: internal error (signal 11, ", 0), 0u) << c.err;
}

}  // namespace
}  // namespace flopspy::tools
