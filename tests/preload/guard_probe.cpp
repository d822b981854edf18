// A program that does what daemons, servers, JVMs and plugin hosts do to their own process:
// closes every descriptor, dup2s over numbers it did not open, forks while threads record, takes
// faults by the thousand, dlcloses libraries, changes folder or user, ends by quick_exit or
// daemon(). Run under LD_PRELOAD by guarantees_test.cpp; each mode checks nothing itself, it
// leaves what flopspy must not have touched (its own files, its exit status) for the test.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using RegionFn = void (*)(const char*);
RegionFn g_begin = nullptr;
RegionFn g_end = nullptr;

// The marker API of the preloaded library, if any (the plain run has none).
void FindMarkers(void* handle) {
  g_begin = reinterpret_cast<RegionFn>(dlsym(handle, "flopspy_region_begin"));
  g_end = reinterpret_cast<RegionFn>(dlsym(handle, "flopspy_region_end"));
}

void Regions(const char* name, int n) {
  for (int i = 0; i < n && g_begin != nullptr; ++i) {
    g_begin(name);
    g_end(name);
  }
}

void SleepMs(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// Every descriptor from `first` up, as daemons and servers do (close_range, or a loop).
void CloseFrom(int first) {
  if (close_range(static_cast<unsigned>(first), ~0U, 0) == 0) return;
  for (int fd = first; fd < 65536; ++fd) close(fd);
}

std::vector<int> OpenDescriptors() {
  std::vector<int> fds;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  const int own = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    if (entry->d_name[0] != '.' && fd != own) fds.push_back(fd);
  }
  closedir(dir);
  return fds;
}

bool WriteText(int fd, const std::string& text) {
  return write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

// closefrom-copy IN OUT: close everything above stderr, then copy IN to OUT in blocks while
// recording, with flusher passes in between.
int CloseFromCopy(const char* in_path, const char* out_path) {
  Regions("before", 100);
  SleepMs(50);  // the trace holds the first records: flopspy's descriptor is in use
  CloseFrom(3);
  const int in = open(in_path, O_RDONLY);
  const int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0) return 10;
  char block[1024];
  for (;;) {
    const ssize_t n = read(in, block, sizeof(block));
    if (n < 0) return 11;
    if (n == 0) break;
    if (write(out, block, static_cast<size_t>(n)) != n) return 12;
    Regions("during", 10);
    SleepMs(2);
  }
  close(in);
  close(out);
  Regions("after", 100);
  return 0;
}

// dup2-log LOG: the program's log is dup2'd over every descriptor above stderr it did not
// open, as some daemons "sanitise" inherited descriptors; then the program logs 8 bytes.
int Dup2Log(const char* log_path) {
  Regions("before", 100);
  SleepMs(50);
  const int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (log < 0) return 10;
  for (int fd : OpenDescriptors()) {
    if (fd > 2 && fd != log) dup2(log, fd);
  }
  if (!WriteText(log, "8 bytes\n")) return 11;
  Regions("after", 100);
  SleepMs(50);
  return 0;
}

// daemon-logs PREFIX: close everything, open four logs, fork; the child writes to each.
int DaemonLogs(const std::string& prefix) {
  Regions("before", 50);
  SleepMs(30);
  CloseFrom(3);
  int logs[4];
  for (int i = 0; i < 4; ++i) {
    logs[i] = open((prefix + "." + std::to_string(i)).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (logs[i] < 0) return 10;
  }
  const pid_t child = fork();
  if (child == 0) {
    Regions("child", 20);
    for (int i = 0; i < 4; ++i) {
      if (!WriteText(logs[i], "child " + std::to_string(i) + "\n")) {
        std::fprintf(stderr, "child: write to fd %d: %s\n", logs[i], std::strerror(errno));
        _exit(1);
      }
    }
    SleepMs(30);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  for (int i = 0; i < 4; ++i) {
    if (!WriteText(logs[i], "parent " + std::to_string(i) + "\n")) return 11;
  }
  Regions("after", 50);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 20;
}

// stderr-taken OUT: the program closes every descriptor, stderr included, and its own output
// file becomes descriptor 2; then it records on (flopspy's trace descriptor is gone too).
int StderrTaken(const char* out_path) {
  Regions("before", 100);
  SleepMs(50);
  CloseFrom(0);
  const int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);  // lowest free: 0
  const int err = dup(out);                                            // 1
  const int third = dup(out);                                          // 2, "stderr"
  if (out != 0 || err != 1 || third != 2) return 10;
  if (!WriteText(2, "program\n")) return 11;
  Regions("after", 100);
  SleepMs(50);
  return 0;
}

void ReturningAbortHandler(int) {}

// abort-handled: a SIGABRT handler that returns (abort() then kills the process anyway).
int AbortHandled() {
  struct sigaction act {};
  act.sa_handler = ReturningAbortHandler;
  sigaction(SIGABRT, &act, nullptr);
  Regions("before-abort", 30);
  std::abort();
}

// sigpipe N: N regions, then a write to a pipe nobody reads, with SIGPIPE's default action.
int DieOfSigpipe(int n) {
  Regions("before-pipe", n);
  int fds[2];
  if (pipe(fds) != 0) return 10;
  close(fds[0]);
  signal(SIGPIPE, SIG_DFL);
  (void)!write(fds[1], "x", 1);
  return 11;  // not reached
}

sigjmp_buf g_fault_jump;
void OnFault(int, siginfo_t*, void*) {
  siglongjmp(g_fault_jump, 1);
}

// handled-faults N: N faults on a PROT_NONE page, each caught and left with siglongjmp.
int HandledFaults(int n) {
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 10;
  struct sigaction act {};
  act.sa_sigaction = OnFault;
  act.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &act, nullptr);
  int faults = 0;
  for (int i = 0; i < n; ++i) {
    Regions("fault", 1);
    if (sigsetjmp(g_fault_jump, 1) == 0) {
      *static_cast<volatile int*>(page) = 1;
    } else {
      ++faults;
    }
  }
  std::printf("faults %d\n", faults);
  return faults == n ? 0 : 1;
}

// dlclose LIB: a plugin host loads flopspy, records through it, unloads it and goes on.
int DlcloseLibrary(const char* library) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 10;
  }
  FindMarkers(handle);
  Regions("plugin", 50);
  g_begin = g_end = nullptr;
  dlclose(handle);
  SleepMs(100);  // several flusher passes, had its code gone
  std::printf("survived\n");
  return 4;
}

// daemon MARKER: records, becomes a daemon (the parent ends inside daemon()), records on.
int Daemonize(const char* marker) {
  Regions("before-daemon", 30);
  if (daemon(/*nochdir=*/1, /*noclose=*/0) != 0) return 10;
  Regions("daemon-child", 20);
  std::ofstream(marker) << "done\n";
  return 0;
}

// chdir-away DIR: records, changes folder before anything was flushed, records on.
int ChdirAway(const char* dir) {
  Regions("before", 10);
  if (chdir(dir) != 0) return 10;
  Regions("after", 10);
  return 0;
}

// drop-privileges: as root, becomes nobody before the first record.
int DropPrivileges() {
  if (setgid(65534) != 0 || setuid(65534) != 0) return 10;
  Regions("as-nobody", 10);
  return 0;
}

// thread-churn AS_MIB THREADS MALLOC_MIB: under an address-space limit, many short threads one
// after another, then a large allocation the program makes fine without flopspy.
int ThreadChurn(int as_mib, int threads, int malloc_mib) {
  const rlimit limit{static_cast<rlim_t>(as_mib) << 20, static_cast<rlim_t>(as_mib) << 20};
  if (setrlimit(RLIMIT_AS, &limit) != 0) return 10;
  for (int i = 0; i < threads; ++i) {
    std::thread t([] { Regions("thread", 5); });
    t.join();
  }
  void* block = std::malloc(static_cast<size_t>(malloc_mib) << 20);
  std::printf("malloc=%s\n", block != nullptr ? "ok" : "FAILED");
  std::free(block);
  return block != nullptr ? 0 : 1;
}

// frozen-fork READY GO RESULT: records; says READY; waits for GO (the test freezes the trace's
// file system meanwhile); records more, so the flusher blocks in a write; forks and writes how
// long fork() took into RESULT.
int FrozenFork(const char* ready, const char* go, const char* result) {
  Regions("before", 100);
  SleepMs(100);
  std::ofstream(ready) << "ready\n";
  while (access(go, F_OK) != 0) SleepMs(5);
  Regions("frozen", 1000);
  SleepMs(200);
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) _exit(0);
  const auto took = std::chrono::steady_clock::now() - start;
  std::ofstream(result) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                        << "\n";
  waitpid(child, nullptr, 0);
  return 0;
}

// fork-latency THREADS FORKS: THREADS threads record flat out while the main thread forks FORKS
// times; prints the mean and worst fork() time in microseconds.
int ForkLatency(int threads, int forks) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&stop] {
      while (!stop.load(std::memory_order_relaxed)) Regions("busy", 64);
    });
  }
  SleepMs(50);
  // Wall time, and the forking thread's own CPU time: the work fork() does in this process,
  // apart from the time the machine gave the other threads and the child meanwhile.
  const auto cpu_us = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
  };
  double total_us = 0, worst_us = 0, total_cpu_us = 0;
  for (int i = 0; i < forks; ++i) {
    const double cpu_start = cpu_us();
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) _exit(0);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    total_cpu_us += cpu_us() - cpu_start;
    waitpid(child, nullptr, 0);
    total_us += us;
    worst_us = us > worst_us ? us : worst_us;
  }
  stop = true;
  for (auto& t : pool) t.join();
  std::printf("fork_mean_us %.1f\nfork_worst_us %.1f\nfork_cpu_mean_us %.1f\n", total_us / forks,
              worst_us, total_cpu_us / forks);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  FindMarkers(RTLD_DEFAULT);
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto arg = [&](int i) { return argc > i ? argv[i] : ""; };
  const auto number = [&](int i, int fallback) { return argc > i ? std::atoi(argv[i]) : fallback; };
  if (mode == "regions") {
    Regions("work", number(2, 10));
    return 0;
  }
  if (mode == "idle") {  // records nothing, waits to be killed
    std::printf("ready\n");
    std::fflush(stdout);
    for (;;) pause();
  }
  if (mode == "abort-handled") return AbortHandled();
  if (mode == "sigpipe") return DieOfSigpipe(number(2, 10));
  if (mode == "closefrom-copy") return CloseFromCopy(arg(2), arg(3));
  if (mode == "dup2-log") return Dup2Log(arg(2));
  if (mode == "daemon-logs") return DaemonLogs(arg(2));
  if (mode == "stderr-taken") return StderrTaken(arg(2));
  if (mode == "handled-faults") return HandledFaults(number(2, 200));
  if (mode == "dlclose") return DlcloseLibrary(arg(2));
  if (mode == "quick-exit") {
    Regions("work", 50);
    std::quick_exit(5);
  }
  if (mode == "daemon") return Daemonize(arg(2));
  if (mode == "chdir-away") return ChdirAway(arg(2));
  if (mode == "drop-privileges") return DropPrivileges();
  if (mode == "thread-churn") return ThreadChurn(number(2, 1024), number(3, 3000), number(4, 256));
  if (mode == "frozen-fork") return FrozenFork(arg(2), arg(3), arg(4));
  if (mode == "fork-latency") return ForkLatency(number(2, 8), number(3, 100));
  std::fprintf(stderr, "guard_probe: unknown mode '%s'\n", mode.c_str());
  return 2;
}
