#include "report/crash_handler.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/stacktrace.hpp>
#include <iostream>

namespace flopspy::tools {
namespace {

const char* g_program = "flopspy";

// Room for the handler: iostreams, and a symbolised stack trace of at most kFramesShown frames.
constexpr size_t kCrashStackBytes = 256 * 1024;
// A stack overflow leaves tens of thousands of frames; the innermost ones say where.
constexpr size_t kFramesShown = 64;

void OnCrash(int sig) {
  // Not async-signal-safe, but the tool is dying anyway; a stack trace is worth the risk.
  std::cerr << g_program << ": internal error (signal " << sig << ", " << strsignal(sig)
            << "). Please report it with this stack trace:\n"
            << boost::stacktrace::stacktrace(0, kFramesShown) << std::flush;
  signal(sig, SIG_DFL);
  raise(sig);
}

// The calling thread's alternate signal stack, from its first use until the thread ends.
class CrashStack {
 public:
  CrashStack() {
    size_ = std::max<size_t>(kCrashStackBytes, static_cast<size_t>(sysconf(_SC_SIGSTKSZ)));
    void* memory = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;  // no alternate stack: the handler still runs otherwise
    stack_t stack{};
    stack.ss_sp = memory;
    stack.ss_size = size_;
    if (sigaltstack(&stack, nullptr) != 0) {
      munmap(memory, size_);
      return;
    }
    memory_ = memory;
  }
  ~CrashStack() {
    if (memory_ == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(memory_, size_);
  }
  CrashStack(const CrashStack&) = delete;
  CrashStack& operator=(const CrashStack&) = delete;

 private:
  void* memory_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

void UseCrashStackOnThisThread() {
  static thread_local CrashStack stack;
  (void)stack;
}

void InstallCrashHandler(const char* program_name) {
  g_program = program_name;
  UseCrashStackOnThisThread();
  struct sigaction action {};
  action.sa_handler = OnCrash;
  action.sa_flags = SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &action, nullptr);
}

}  // namespace flopspy::tools
