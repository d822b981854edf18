// A program whose life ends in every way a traced program can: run under LD_PRELOAD by
// preload_test.cpp. Each mode records marker regions so its trace has known content.
#include <flopspy/flopspy.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

void Regions(const char* name, int n) {
  for (int i = 0; i < n; ++i) {
    flopspy_region_begin(name);
    flopspy_region_end(name);
  }
}

void Say(const char* text) {
  std::printf("%s\n", text);
  std::fflush(stdout);
}

volatile sig_atomic_t g_flag = 0;
void SetFlag(int) {
  g_flag = 1;
}
void HandledSegv(int) {
  const char msg[] = "handled\n";
  (void)!write(STDOUT_FILENO, msg, sizeof(msg) - 1);
  _exit(42);
}
void OtherHandler(int) {}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto arg = [&](int i, int fallback) { return argc > i ? std::atoi(argv[i]) : fallback; };

  if (mode == "regions") {
    Regions("work", arg(2, 10));
    Say("regions done");
    return arg(3, 0);
  }
  if (mode == "regions-named") {
    Regions(argv[2], arg(3, 10));
    Say("named done");
    return 0;
  }
  if (mode == "wait") {
    Regions("work", 100);
    Say("ready");
    for (;;) pause();
  }
  if (mode == "segv") {
    Regions("work", 100);
    Say("before crash");
    *static_cast<volatile int*>(nullptr) = 1;
    return 0;
  }
  if (mode == "segv-handled") {
    struct sigaction act {};
    act.sa_handler = HandledSegv;
    sigaction(SIGSEGV, &act, nullptr);
    Regions("work", 100);
    *static_cast<volatile int*>(nullptr) = 1;
    return 0;
  }
  if (mode == "abort") {
    Regions("work", 100);
    Say("before abort");
    std::abort();
  }
  if (mode == "thread-exit") {
    // The second thread exits the process while the main thread is still recording.
    std::atomic<int> main_regions{0};
    std::thread t([&] {
      while (main_regions < 10) usleep(100);
      Regions("thread", 50);
      Say("thread exits");
      std::exit(7);
    });
    for (;;) {
      Regions("main", 1);
      ++main_regions;
      usleep(100);
    }
  }
  if (mode == "fork") {
    Regions("parent-before", 10);
    const pid_t child = fork();
    if (child == 0) {
      Regions("child", 20);
      Say("child done");
      std::exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    Regions("parent-after", 10);
    std::printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
  }
  if (mode == "fork-exit-underscore") {
    const pid_t child = fork();
    if (child == 0) {
      Regions("child", 20);
      _exit(3);  // as Python's multiprocessing workers end
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
  }
  if (mode == "exec") {
    Regions("before-exec", 10);
    Say("execing");
    char* args[] = {argv[0], const_cast<char*>("regions-named"), const_cast<char*>("after-exec"),
                    const_cast<char*>("5"), nullptr};
    execv(argv[0], args);
    std::perror("execv");
    return 99;
  }
  if (mode == "exec-fails") {
    Regions("before-exec", 10);
    char* args[] = {const_cast<char*>("/nonexistent/program"), nullptr};
    execv(args[0], args);
    Regions("after-failed-exec", 5);
    Say("exec failed as expected");
    return 0;
  }
  if (mode == "sigint-continue") {
    struct sigaction act {};
    act.sa_handler = SetFlag;
    sigaction(SIGINT, &act, nullptr);
    Regions("before", 10);
    Say("ready");
    while (!g_flag) pause();
    Regions("after", 10);
    Say("continued");
    return 0;
  }
  if (mode == "sigaction-view") {
    struct sigaction act {
    }, seen{};
    act.sa_handler = OtherHandler;
    act.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &act, nullptr);
    sigaction(SIGTERM, nullptr, &seen);
    const bool handler_ok = seen.sa_handler == OtherHandler && (seen.sa_flags & SA_RESTART);
    const sighandler_t previous = signal(SIGTERM, SIG_IGN);
    sigaction(SIGTERM, nullptr, &seen);
    const bool ignore_ok = previous == OtherHandler && seen.sa_handler == SIG_IGN;
    raise(SIGTERM);  // ignored: we live on
    signal(SIGTERM, SIG_DFL);
    Say(handler_ok && ignore_ok ? "view ok" : "view wrong");
    return 0;
  }
  if (mode == "stress") {
    const int threads = arg(2, 16), per_thread = arg(3, 1000000);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([per_thread] {
        for (int i = 0; i < per_thread; ++i) flopspy_region_begin("s");
      });
    }
    for (auto& t : pool) t.join();
    std::printf("attempted %lld\n", static_cast<long long>(threads) * per_thread);
    return 0;
  }
  std::fprintf(stderr, "lifecycle_probe: unknown mode '%s'\n", mode.c_str());
  return 2;
}
