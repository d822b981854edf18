// flopspy run [options] -- CMD ARGS: runs CMD with libflopspy.so preloaded. CMD keeps its
// stdin, stdout and stderr; flopspy's own lines go to stderr after CMD ends, and flopspy exits
// with CMD's status (or dies of CMD's signal).
#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>

#include "flopspy/commands.h"
#include "flopspy/platform/safe_file.h"
#include "flopspy/platform/terminal_text.h"
#include "flopspy/untraceable.h"
#include "report/cli_style.h"
#include "report/run_summary.h"
#include "report/text_report.h"
#include "report/text_style.h"

extern char** environ;

namespace flopspy::tools {
namespace {

struct RunOptions {
  std::string out_dir = "flopspy-out";
  std::map<std::string, std::string> env;  // FLOPSPY_* to set
  bool summary = true;
  bool full_report = false;
  bool verbose = false;
  std::string color = "auto";  // of --report's text
  std::vector<std::string> command;
};

pid_t g_child = -1;
std::vector<std::string> g_command_after_dashes;

void ForwardSignal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

// libflopspy.so is installed beside us: <prefix>/bin/flopspy and <prefix>/lib/libflopspy.so.
std::string FindLibrary(std::string* error) {
  if (const char* override_path = std::getenv("FLOPSPY_LIBRARY")) return override_path;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    *error = "cannot locate the flopspy executable: " + ec.message();
    return "";
  }
  for (const fs::path& candidate : {self.parent_path().parent_path() / "lib" / "libflopspy.so",
                                    self.parent_path() / "libflopspy.so"}) {
    if (fs::exists(candidate, ec)) return fs::canonical(candidate, ec).string();
  }
  *error = "libflopspy.so is not in " + (self.parent_path().parent_path() / "lib").string() +
           " (set FLOPSPY_LIBRARY to its path)";
  return "";
}

std::string NewRunId() {
  std::random_device random;
  const uint64_t id = (uint64_t{random()} << 32) | random();
  return fmt::format("{:x}", id == 0 ? 1 : id);
}

std::vector<std::string> ChildEnvironment(const RunOptions& options, const std::string& library,
                                          const std::string& run_id) {
  std::map<std::string, std::string> vars = options.env;
  vars["FLOPSPY_OUT"] = options.out_dir;
  vars["FLOPSPY_RUN_ID"] = run_id;
  if (!options.verbose) vars["FLOPSPY_QUIET"] = "1";
  const char* preload = std::getenv("LD_PRELOAD");
  vars["LD_PRELOAD"] = library + (preload && *preload ? ":" + std::string(preload) : "");
  // Each NVTX loader of the child finds the library here (docs/nvtx.md); a tool already named
  // (nsys) is left alone, and the library says so.
  const char* nvtx = std::getenv("NVTX_INJECTION64_PATH");
  const auto nvtx_switch = vars.find("FLOPSPY_NVTX");
  const char* nvtx_env = std::getenv("FLOPSPY_NVTX");
  const bool nvtx_off = nvtx_switch != vars.end()
                            ? nvtx_switch->second == "0"
                            : nvtx_env != nullptr && std::string(nvtx_env) == "0";
  if ((nvtx == nullptr || *nvtx == '\0') && !vars.contains("NVTX_INJECTION64_PATH") && !nvtx_off) {
    vars["NVTX_INJECTION64_PATH"] = library;
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (!vars.contains(name)) env.push_back(entry);
  }
  for (const auto& [name, value] : vars) env.push_back(name + "=" + value);
  return env;
}

int Run(RunOptions& options) {
  if (options.command.empty()) {
    return UsageError("run", "no command given: flopspy run [options] -- CMD ARGS");
  }
  std::string error;
  const std::string library = FindLibrary(&error);
  if (library.empty()) {
    std::cerr << "flopspy run: " << error << "\n";
    return 2;
  }
  std::error_code ec;
  options.out_dir = std::filesystem::absolute(options.out_dir, ec).lexically_normal().string();
  // A folder that cannot be made is said before the program runs, not after it ran untraced.
  std::string folder_error;
  if (!platform::PrepareFolderFor(options.out_dir + "/", platform::Destination::kUserNamed,
                                  &folder_error)) {
    std::cerr << "flopspy run: cannot write traces to " << platform::EscapeControls(options.out_dir)
              << ": " << platform::EscapeControls(folder_error) << "\n";
    return 1;
  }
  const std::string run_id = NewRunId();
  std::vector<std::string> env_strings = ChildEnvironment(options, library, run_id);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (auto& s : options.command) argv.push_back(s.data());
  argv.push_back(nullptr);
  // Looked at before it starts, said after it ends: the program runs either way.
  const std::string executable = ResolveExecutable(options.command[0], std::getenv("PATH"));
  const std::string untraceable = executable.empty() ? "" : WhyUntraceable(executable);

  // Like a shell running a foreground job: the terminal's ^C and ^\ reach the program; flopspy
  // waits for it and then reports. Signals sent to flopspy alone are passed on.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_int {
  }, old_quit{};
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t child = fork();
  if (child < 0) {
    std::cerr << "flopspy run: fork failed: " << std::strerror(errno) << "\n";
    return 2;
  }
  if (child == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    execvpe(argv[0], argv.data(), envp.data());
    const int err = errno;
    const std::string msg =
        fmt::format("flopspy run: cannot run '{}': {}\n", argv[0], std::strerror(err));
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(err == ENOENT ? 127 : 126);
  }
  g_child = child;
  // No PR_SET_PDEATHSIG for the child: the program comes first, and a launcher killed with
  // SIGKILL must not take the program with it (it runs on, as under a shell).
  struct sigaction forward {};
  forward.sa_handler = ForwardSignal;
  sigemptyset(&forward.sa_mask);
  for (int sig : {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) sigaction(sig, &forward, nullptr);

  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      std::cerr << "flopspy run: waitpid failed: " << std::strerror(errno) << "\n";
      return 2;
    }
  }
  g_child = -1;

  if (options.summary) {
    std::vector<TraceReport> traces;
    for (const auto& path : FindRunTraces(options.out_dir, std::stoull(run_id, nullptr, 16))) {
      traces.push_back(AnalyzeTrace(path));
    }
    if (!untraceable.empty()) {
      std::cerr << "flopspy: " << platform::EscapeControls(executable) << " ran untraced: it "
                << platform::EscapeControls(untraceable)
                << (traces.empty() ? "; no trace was written\n"
                                   : "; the traces are of programs it started\n");
    }
    if (options.full_report) {
      WriteTextReport(
          traces,
          TextOptions{.color = UseColor(options.color, isatty(STDERR_FILENO) != 0), .view = {}},
          std::cerr);
    }
    // "Nothing was recorded" would suggest it ran traced and did nothing.
    if (untraceable.empty() || !traces.empty()) {
      WriteRunSummary(options.out_dir, traces, std::cerr);
    }
  }

  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    // Die of the same signal, without leaving a core file of flopspy itself.
    const int sig = WTERMSIG(status);
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    raise(sig);
    return 128 + sig;
  }
  return 2;
}

// A number of seconds from 0 to a day ("5", "2.5"), passed on as it was written.
CLI::Option* Seconds(CLI::Option* option) {
  option->type_name("SECONDS");
  option->check(CLI::Validator(
      [](std::string& value) -> std::string {
        double seconds = -1;
        if (!CLI::detail::lexical_cast(value, seconds) || !(seconds >= 0) || seconds > 86400) {
          return "must be a number of seconds from 0 to 86400, not '" + value + "'";
        }
        return "";
      },
      ""));
  return option;
}

// region:NAME or nvtx:NAME; step:N-M is named as not there yet.
CLI::Option* CaptureRange(CLI::Option* option) {
  option->type_name("region:NAME|nvtx:NAME");
  option->check(CLI::Validator(
      [](std::string& value) -> std::string {
        for (std::string_view kind : {"region:", "nvtx:"}) {
          if (value.starts_with(kind) && value.size() > kind.size()) return "";
        }
        if (value.starts_with("step:")) {
          return "step ranges are not supported yet; use region:NAME or nvtx:NAME";
        }
        return "must be region:NAME or nvtx:NAME, not '" + value + "'";
      },
      ""));
  return option;
}

}  // namespace

void SetCommandAfterDashes(std::vector<std::string> command) {
  g_command_after_dashes = std::move(command);
}

void RegisterRun(CLI::App& app, CommandFn* run) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* sub =
      app.add_subcommand("run", "Run a program under flopspy: flopspy run [options] -- CMD ARGS");
  sub->prefix_command();
  sub->add_option("-o,--output", options->out_dir, "folder for the traces (default flopspy-out)")
      ->type_name("DIR");
  const auto env_option = [&](const std::string& flag, const std::string& var,
                              const std::string& help) {
    return sub->add_option_function<std::string>(
        flag, [options, var](const std::string& v) { options->env[var] = v; }, help);
  };
  const auto env_flag = [&](const std::string& flag, const std::string& var,
                            const std::string& value, const std::string& help) {
    return sub->add_flag_function(
        flag, [options, var, value](std::int64_t) { options->env[var] = value; }, help);
  };
  WholeNumber(env_option("--buffer-kb", "FLOPSPY_BUFFER_KB", "record buffer per thread, KiB"), 64,
              1 << 20);
  WholeNumber(env_option("--flush-ms", "FLOPSPY_FLUSH_MS", "how often records are written, ms"), 1,
              10000);
  WholeNumber(
      env_option("--param-bytes", "FLOPSPY_PARAM_BYTES", "kernel parameter bytes kept per launch"),
      0, 255);
  OneOf(env_option("--gpu-timing", "FLOPSPY_GPU_TIMING",
                   "auto, off (no CUPTI) or sampled (GPU times in windows only)"),
        {"auto", "off", "sampled"});
  env_option("--gpu-windows", "FLOPSPY_GPU_WINDOWS",
             "sampled GPU timing: seconds timed / period, such as 2/30")
      ->type_name("OPEN/PERIOD");
  OneOf(env_option("--gpu-join", "FLOPSPY_GPU_JOIN",
                   "correlation (CUPTI's external correlation per launch) or stream (by the "
                   "launch stream's order: no CUPTI call per launch)"),
        {"correlation", "stream"});
  env_option("--cupti", "FLOPSPY_CUPTI_PATH", "libcupti.so to use if the program loads none")
      ->type_name("FILE");
  env_flag("--counters", "FLOPSPY_COUNTERS", "1", "measure kernels with GPU hardware counters");
  WholeNumber(env_option("--counters-samples", "FLOPSPY_COUNTERS_SAMPLES",
                         "samples measured per kernel signature"),
              1, 1000);
  OneOf(env_option("--counters-replay", "FLOPSPY_COUNTERS_REPLAY",
                   "kernel (CUPTI replays a measured launch) or launches (experimental: one "
                   "one-pass metric group per launch)"),
        {"kernel", "launches"});
  env_option("--counters-metrics", "FLOPSPY_COUNTERS_METRICS",
             "all, or some of fp32,fp64,fp16,tensor,dram,l2,time")
      ->type_name("LIST");
  env_option("--cpu-roofline", "FLOPSPY_CPU_ROOFLINE",
             "off, auto, perf, pcm-http, pcm-csv or replay:<file>")
      ->type_name("SOURCE");
  WholeNumber(
      env_option("--cpu-interval-ms", "FLOPSPY_CPU_INTERVAL_MS", "CPU roofline sampling period"),
      10, 60000);
  env_option("--cpu-events", "FLOPSPY_CPU_EVENTS", "extra libpfm4 CPU events, comma separated")
      ->type_name("LIST");
  env_flag("--no-follow-fork", "FLOPSPY_FOLLOW_FORK", "0", "forked children write no trace");
  env_flag("--no-signals", "FLOPSPY_SIGNALS", "0", "install no signal handlers");
  // The capture window, as Nsight Systems spells it (docs/flopspy-run.md, "Capture window").
  CLI::Option* delay = Seconds(env_option(
      "--delay", "FLOPSPY_DELAY", "record nothing for the first SECONDS after the program starts"));
  Seconds(env_option("--duration", "FLOPSPY_DURATION",
                     "record for SECONDS from the window's start (after --delay, or from the "
                     "capture range's begin), then nothing"));
  CaptureRange(env_option("--capture-range", "FLOPSPY_CAPTURE_RANGE",
                          "record only inside the first region:NAME (flopspy_region_begin/end, "
                          "flopspy.region) or nvtx:NAME range (its push/pop or start/end)"))
      ->excludes(delay);
  sub->add_flag("--report", options->full_report, "print the full report after the summary");
  OneOf(sub->add_option("--color", options->color,
                        "colour in the --report text (default auto: on a terminal, unless "
                        "NO_COLOR is set)"),
        {"auto", "always", "never"});
  sub->add_flag_function(
      "--no-summary", [options](std::int64_t) { options->summary = false; },
      "print nothing after the program ends");
  sub->add_flag("-v,--verbose", options->verbose, "let libflopspy.so print its notices");
  *run = nullptr;
  sub->callback([options, sub, run] {
    // Parsing stops at the first word it does not know; that is the command (`flopspy run
    // python x.py`) unless it looks like an option, which is then a misspelt one of ours. A
    // command that starts with '-' goes after "--".
    options->command = sub->remaining();
    if (!options->command.empty() && options->command.front().size() > 1 &&
        options->command.front().front() == '-') {
      const std::string unknown = options->command.front();
      *run = [unknown] {
        return UsageError(
            "run", "unknown option " + unknown + "; a command that starts with '-' goes after --");
      };
      return;
    }
    options->command.insert(options->command.end(), g_command_after_dashes.begin(),
                            g_command_after_dashes.end());
    *run = [options] { return Run(*options); };
  });
}

}  // namespace flopspy::tools
