// Fatal signals: flush what is safe, then hand the signal on exactly as the program expects.
//
// flopspy installs its handler for the signals whose default action ends the process (faults,
// SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1/2, SIGXCPU, SIGXFSZ) and
// keeps it installed: when the program installs its own handler (sigaction, signal), flopspy
// records it as the program's disposition and calls it from its own handler, mirroring the
// program's flags (SA_RESTART, SA_NODEFER, SA_RESETHAND, SA_SIGINFO) and mask. The program sees
// its own disposition when it asks. A signal the program ignores is ignored by the kernel itself.
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "hooks.h"
#include "real_symbols.h"
#include "recorder.h"

namespace flopspy::interpose {
namespace {

// SIGKILL and SIGSTOP cannot be caught; SIGTRAP, SIGPROF, SIGVTALRM and SIGSYS belong to
// debuggers, profilers and sandboxes and are left alone.
constexpr int kManagedSignals[] = {SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGABRT,
                                   SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGPIPE,
                                   SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ};
// A dying process writes its last records, but a flusher stuck on a frozen or hung file system
// must not keep it from dying: at most 2 s, and no more than 100 ms without progress.
constexpr Recorder::Wait kFatalWait{.stall_ms = 100, .total_ms = 2000};

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

struct Slot {
  struct sigaction program;  // what the program believes is installed
  bool managed = false;
};

Slot g_slots[NSIG];
std::atomic<bool> g_installed{false};
std::atomic_flag g_slots_lock = ATOMIC_FLAG_INIT;

class SlotsLock {
 public:
  SlotsLock() {
    while (g_slots_lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~SlotsLock() { g_slots_lock.clear(std::memory_order_release); }
  SlotsLock(const SlotsLock&) = delete;
  SlotsLock& operator=(const SlotsLock&) = delete;
};

int RealSigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  static SigactionFn real = nullptr;
  if (real == nullptr) real = reinterpret_cast<SigactionFn>(NextSymbol("sigaction"));
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return real(sig, act, old);
}

bool IsManaged(int sig) {
  return sig > 0 && sig < NSIG && g_slots[sig].managed;
}

bool IsFault(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

void Handler(int sig, siginfo_t* info, void* context);

// Puts flopspy's handler (or the program's SIG_IGN) into the kernel for `sig`.
void Apply(int sig) {
  const struct sigaction& program = g_slots[sig].program;
  if (!(program.sa_flags & SA_SIGINFO) && program.sa_handler == SIG_IGN) {
    RealSigaction(sig, &program, nullptr);
    return;
  }
  struct sigaction ours {};
  ours.sa_sigaction = Handler;
  ours.sa_mask = program.sa_mask;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK | (program.sa_flags & (SA_RESTART | SA_NODEFER));
  RealSigaction(sig, &ours, nullptr);
}

void Handler(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  struct sigaction program = g_slots[sig].program;
  const bool siginfo = (program.sa_flags & SA_SIGINFO) != 0;
  const bool is_default = !siginfo && program.sa_handler == SIG_DFL;
  const bool is_ignored = !siginfo && program.sa_handler == SIG_IGN;
  if (is_ignored) {
    errno = saved_errno;
    return;
  }
  if (is_default) {
    Recorder* recorder = Recorder::OfThisProcess();
    // The process is about to die: write everything and the end record, then let it die.
    if (recorder != nullptr) {
      recorder->Finish(trace::EndReason::kSignal, sig, kFatalWait, /*from_signal=*/true);
    }
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    RealSigaction(sig, &dfl, nullptr);
    // A fault raised by an instruction recurs when we return; anything sent (kill, raise,
    // abort) must be sent again. Blocked while we run, it arrives as soon as we return.
    if (!(IsFault(sig) && info != nullptr && info->si_code > 0)) raise(sig);
    errno = saved_errno;
    return;
  }
  // The program handles it, and may well return: JVMs, garbage collectors and sandboxes take
  // faults by the thousand. Nothing is flushed here; if the handler ends the process, it does
  // so through _exit, abort or the default action, and each of those flushes. SIGABRT is the
  // exception: when its handler returns, abort() restores the default action behind every hook
  // and raises it again, so the process is as good as dead: its trace ends here.
  if (sig == SIGABRT) {
    if (Recorder* recorder = Recorder::OfThisProcess()) {
      recorder->Finish(trace::EndReason::kSignal, sig, kFatalWait, /*from_signal=*/true);
    }
  }
  if (program.sa_flags & SA_RESETHAND) {
    SlotsLock lock;
    g_slots[sig].program.sa_handler = SIG_DFL;
    g_slots[sig].program.sa_flags &= ~SA_SIGINFO;
    Apply(sig);
  }
  errno = saved_errno;
  if (siginfo) {
    program.sa_sigaction(sig, info, context);
  } else {
    program.sa_handler(sig);
  }
}

}  // namespace

void InstallSignalHandlers() {
  SlotsLock lock;
  for (int sig : kManagedSignals) {
    struct sigaction current {};
    if (RealSigaction(sig, nullptr, &current) != 0) continue;
    // Ignored at start (e.g. SIGINT of a background job): it cannot end the process, leave it.
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;
    g_slots[sig].program = current;
    g_slots[sig].managed = true;
    Apply(sig);
  }
  g_installed.store(true, std::memory_order_release);
}

}  // namespace flopspy::interpose

using namespace flopspy::interpose;  // NOLINT(google-build-using-namespace): hook definitions

extern "C" __attribute__((visibility("default"))) int sigaction(int sig,
                                                                const struct sigaction* act,
                                                                struct sigaction* old) {
  if (!g_installed.load(std::memory_order_acquire) || !IsManaged(sig)) {
    return RealSigaction(sig, act, old);
  }
  SlotsLock lock;
  if (old != nullptr) *old = g_slots[sig].program;
  if (act != nullptr) {
    g_slots[sig].program = *act;
    Apply(sig);
  }
  return 0;
}

namespace {

// glibc's signal() has BSD semantics: SA_RESTART, the signal itself blocked while handled.
sighandler_t SetHandler(int sig, sighandler_t handler, int flags) {
  struct sigaction act {};
  struct sigaction old {};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (!(flags & SA_NODEFER)) sigaddset(&act.sa_mask, sig);
  act.sa_flags = flags;
  if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
  // sa_handler and sa_sigaction share storage: this is the previous handler either way.
  return old.sa_handler;
}

template <class F>
F NextSignalFunction(const char* name) {
  return NextFunction<F>(name);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int sig,
                                                                      sighandler_t handler) {
  if (!g_installed.load(std::memory_order_acquire) || !IsManaged(sig)) {
    static auto real = NextSignalFunction<sighandler_t (*)(int, sighandler_t)>("signal");
    return real != nullptr ? real(sig, handler) : SIG_ERR;
  }
  return SetHandler(sig, handler, SA_RESTART);
}

extern "C" __attribute__((visibility("default"))) sighandler_t bsd_signal(int sig,
                                                                          sighandler_t handler) {
  return signal(sig, handler);
}

extern "C" __attribute__((visibility("default"))) sighandler_t sysv_signal(int sig,
                                                                           sighandler_t handler) {
  if (!g_installed.load(std::memory_order_acquire) || !IsManaged(sig)) {
    static auto real = NextSignalFunction<sighandler_t (*)(int, sighandler_t)>("sysv_signal");
    return real != nullptr ? real(sig, handler) : SIG_ERR;
  }
  return SetHandler(sig, handler, SA_RESETHAND | SA_NODEFER);
}
