// Start at load, flush at every way a process can end or be replaced: exit() from any thread,
// _exit(), quick_exit(), daemon(), execve() and its siblings, fork() (the child gets its own
// trace).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <vector>

#include "cpu_sampling.h"
#include "cupti_session.h"
#include "hooks.h"
#include "nvtx_injection.h"
#include "real_symbols.h"
#include "recorder.h"

#define FLOPSPY_EXPORT extern "C" __attribute__((visibility("default")))

namespace flopspy::interpose {
namespace {

// exit()'s status, when the program called exit() itself (returning from main does not).
std::atomic<int> g_exit_status{-1};
std::atomic<bool> g_exit_flushed{false};

// exit() and exec() wait for the last records, but not for a file system that has stopped
// answering: at most 5 s, and no more than 500 ms without progress.
constexpr Recorder::Wait kExitWait{.stall_ms = 500, .total_ms = 5000};

void FinishOnExit(int status) {
  Recorder* r = Recorder::OfThisProcess();
  if (r == nullptr || g_exit_flushed.exchange(true)) return;
  StopCpuSampling();  // its last points go into the final flush
  r->Finish(trace::EndReason::kExit, status, kExitWait, /*from_signal=*/false);
  g_recording.store(false, std::memory_order_release);
}

void AtExit() {
  FinishOnExit(g_exit_status.load());
}

// Nothing is locked before fork(): fork() never waits for the flusher, whose write may be stuck
// on a frozen or hung file system, nor for threads marking regions (docs/guarantees.md). The
// child starts its own state over.
void AfterForkChild() {
  // getpid() changed: Recorder::pid() is the parent's until AfterForkInChild runs.
  if (Recorder* r = Recorder::Get()) {
    r->AfterForkInChild();
    g_exit_flushed.store(false);
    g_exit_status.store(-1);
    CpuSamplingAfterForkInChild(r->config().follow_fork);
  }
}

void BeforeExec() {
  if (Recorder* r = Recorder::OfThisProcess()) {
    r->Finish(trace::EndReason::kExec, 0, kExitWait, /*from_signal=*/false);
  }
}

__attribute__((constructor)) void Initialize() {
#ifdef FLOPSPY_PASSTHROUGH
  // libflopspy_passthrough.so (the launch-cost benchmark's baseline): nothing starts, so
  // g_recording stays false and every hook calls its real function straight away.
  return;
#endif
  Recorder::Start();
  Recorder* r = Recorder::Get();
  if (r == nullptr) return;
  pthread_atfork(nullptr, nullptr, AfterForkChild);
  atexit(AtExit);
  at_quick_exit(AtExit);
  if (r->config().handle_signals) InstallSignalHandlers();
  PrepareNvtxInjection(r->config());
  StartCpuSampling(*r);
}

template <class F>
F Next(F& cache, const char* name) {
  if (cache == nullptr) cache = NextFunction<F>(name);
  return cache;
}

// Runs an exec function: flush first, and if exec fails (it returned), carry on recording.
template <class Call>
int RunExec(Call&& call) {
  BeforeExec();
  const int rc = call();
  return rc;  // errno is the exec's
}

std::vector<char*> CollectArgs(const char* first, va_list ap, char*** envp_out) {
  std::vector<char*> args;
  args.push_back(const_cast<char*>(first));
  while (args.back() != nullptr) args.push_back(va_arg(ap, char*));
  if (envp_out != nullptr) *envp_out = va_arg(ap, char**);
  return args;
}

}  // namespace
}  // namespace flopspy::interpose

using namespace flopspy::interpose;  // NOLINT(google-build-using-namespace): hook definitions

// Returning from main() reaches exit() inside libc, where no hook sees the status: wrap main to
// learn it. The program's main runs unchanged, one frame deeper.
namespace {
using MainFn = int (*)(int, char**, char**);
MainFn g_program_main = nullptr;
int MainWrapper(int argc, char** argv, char** envp) {
  const int status = g_program_main(argc, argv, envp);
  g_exit_status.store(status & 0xFF);
  return status;
}
}  // namespace

FLOPSPY_EXPORT int __libc_start_main(MainFn main, int argc, char** argv, void (*init)(),
                                     void (*fini)(), void (*rtld_fini)(), void* stack_end) {
  using StartFn = int (*)(MainFn, int, char**, void (*)(), void (*)(), void (*)(), void*);
  static StartFn real = nullptr;
  g_program_main = main;
  return Next(real, "__libc_start_main")(MainWrapper, argc, argv, init, fini, rtld_fini, stack_end);
}

FLOPSPY_EXPORT void exit(int status) {
  static void (*real)(int) = nullptr;
  g_exit_status.store(status);
  Next(real, "exit")(status);
  __builtin_unreachable();
}

FLOPSPY_EXPORT void quick_exit(int status) {
  static void (*real)(int) = nullptr;
  g_exit_status.store(status);  // the at_quick_exit handler writes the end record
  Next(real, "quick_exit")(status);
  __builtin_unreachable();
}

// glibc's daemon() ends the parent with its internal _exit, which no hook sees: the parent's last
// records and its end record would be lost. The same steps, through the hooked fork and _exit.
FLOPSPY_EXPORT int daemon(int nochdir, int noclose) {
  const pid_t child = fork();
  if (child < 0) return -1;
  if (child > 0) _exit(0);
  if (setsid() < 0) return -1;
  if (nochdir == 0) (void)!chdir("/");  // as daemon(3): a failed chdir is not an error
  if (noclose == 0) {
    const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0) return -1;
    struct stat st {};
    if (fstat(null_fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
      close(null_fd);
      errno = ENODEV;
      return -1;
    }
    for (int fd = 0; fd <= 2; ++fd) dup2(null_fd, fd);  // dup2 leaves close-on-exec off
    if (null_fd > 2) close(null_fd);
  }
  return 0;
}

FLOPSPY_EXPORT void _exit(int status) {
  static void (*real)(int) = nullptr;
  FinishOnExit(status);
  Next(real, "_exit")(status);
  __builtin_unreachable();
}

FLOPSPY_EXPORT void _Exit(int status) {
  static void (*real)(int) = nullptr;
  FinishOnExit(status);
  Next(real, "_Exit")(status);
  __builtin_unreachable();
}

FLOPSPY_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  static int (*real)(const char*, char* const*, char* const*) = nullptr;
  return RunExec([&] { return Next(real, "execve")(path, argv, envp); });
}

FLOPSPY_EXPORT int execv(const char* path, char* const argv[]) {
  static int (*real)(const char*, char* const*) = nullptr;
  return RunExec([&] { return Next(real, "execv")(path, argv); });
}

FLOPSPY_EXPORT int execvp(const char* file, char* const argv[]) {
  static int (*real)(const char*, char* const*) = nullptr;
  return RunExec([&] { return Next(real, "execvp")(file, argv); });
}

FLOPSPY_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  static int (*real)(const char*, char* const*, char* const*) = nullptr;
  return RunExec([&] { return Next(real, "execvpe")(file, argv, envp); });
}

FLOPSPY_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  static int (*real)(int, char* const*, char* const*) = nullptr;
  return RunExec([&] { return Next(real, "fexecve")(fd, argv, envp); });
}

FLOPSPY_EXPORT int execveat(int dirfd, const char* path, char* const argv[], char* const envp[],
                            int flags) {
  static int (*real)(int, const char*, char* const*, char* const*, int) = nullptr;
  return RunExec([&] { return Next(real, "execveat")(dirfd, path, argv, envp, flags); });
}

// The execl family is variadic and calls the kernel directly inside libc: rebuild the argument
// vector and go through the vector forms above.
FLOPSPY_EXPORT int execl(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  std::vector<char*> args = CollectArgs(arg, ap, nullptr);
  va_end(ap);
  return execv(path, args.data());
}

FLOPSPY_EXPORT int execlp(const char* file, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  std::vector<char*> args = CollectArgs(arg, ap, nullptr);
  va_end(ap);
  return execvp(file, args.data());
}

FLOPSPY_EXPORT int execle(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char** envp = nullptr;
  std::vector<char*> args = CollectArgs(arg, ap, &envp);
  va_end(ap);
  return execve(path, args.data(), envp);
}
