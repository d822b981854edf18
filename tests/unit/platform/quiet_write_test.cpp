#include "flopspy/platform/quiet_write.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

namespace flopspy::platform {
namespace {

bool SigpipePending() {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, SIGPIPE) == 1;
}

TEST(WriteWithoutSigpipeTest, PipeWithoutReaderRaisesNothing) {
  // SIGPIPE keeps its default action: a plain write would kill this test program.
  struct sigaction dfl {
  }, old{};
  dfl.sa_handler = SIG_DFL;
  ASSERT_EQ(sigaction(SIGPIPE, &dfl, &old), 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  EXPECT_FALSE(WriteWithoutSigpipe(fds[1], "line\n", 5));
  EXPECT_EQ(errno, EPIPE);
  EXPECT_FALSE(SigpipePending());
  close(fds[1]);
  sigaction(SIGPIPE, &old, nullptr);
}

TEST(WriteWithoutSigpipeTest, TheProgramsPendingSigpipeIsLeftAlone) {
  sigset_t pipe_only, old_mask;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask), 0);
  raise(SIGPIPE);  // the program's own, pending while it keeps SIGPIPE blocked
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  EXPECT_FALSE(WriteWithoutSigpipe(fds[1], "x", 1));
  EXPECT_TRUE(SigpipePending());
  const timespec no_wait{0, 0};
  EXPECT_EQ(sigtimedwait(&pipe_only, nullptr, &no_wait), SIGPIPE);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  close(fds[1]);
}

TEST(WriteWithoutSigpipeTest, WritesEverything) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_TRUE(WriteWithoutSigpipe(fds[1], "hello", 5));
  char buffer[8] = {};
  EXPECT_EQ(read(fds[0], buffer, sizeof(buffer)), 5);
  EXPECT_STREQ(buffer, "hello");
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace flopspy::platform
