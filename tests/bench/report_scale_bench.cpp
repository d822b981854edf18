// Issue 8.5: flopspy-report on 10 million records in at most 10 s and 1 GB on a 2-core machine.
// Writes a trace shaped like a training job (scale_trace.h) once, then runs flopspy-report on it
// as a user would, as a child process with its output thrown away, and measures the child's wall
// time and peak resident memory (wait4's ru_maxrss). Also four files of 2.5 million records in
// one run (the report reads files in parallel), and, as the baseline, the reader alone in this
// process (header, chunks, checksums, no analysis). The file is read once before the first
// measurement, so every figure is for a file in the page cache.
//
// Run: build/bin/flopspy_bench_report_scale [--records=N] [--dir=FOLDER] [Google Benchmark flags]
// Numbers: docs/performance.md. Counters: records_per_s, peak_rss_mib, cores_used (CPU time over
// wall time), and time_vs_limit, rss_vs_limit (the limits; at most 1 is within them).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "flopspy/trace/reader.h"
#include "scale_trace.h"

namespace {

namespace bench = flopspy::bench;
namespace trace = flopspy::trace;

constexpr double kTimeLimitS = 10;  // docs/performance.md, "flopspy-report at scale"
constexpr double kMemoryLimitBytes = 1024.0 * 1024 * 1024;  // 1 GB, read as 1 GiB
constexpr uint32_t kGeneratorVersion = 2;                   // part of the file name: bump on change

constexpr double kBytesPerLaunchGoal = 16;  // issue 23: on disk, everything over launches
uint64_t g_records = 10'000'000;
bool g_compressed = true;  // as the recorder writes by default (FLOPSPY_COMPRESS)
std::string g_dir = FLOPSPY_BENCH_DATA_DIR;

struct Input {
  std::string path;
  bench::ScaleTraceFacts facts;
};

// The trace of `records` records for `rank`, written once and kept for later runs.
const Input& Trace(uint64_t records, int32_t rank) {
  static std::deque<std::pair<std::pair<uint64_t, int32_t>, Input>> cache;  // stable addresses
  for (const auto& [key, input] : cache)
    if (key == std::make_pair(records, rank)) return input;
  std::filesystem::create_directories(g_dir);
  Input input;
  input.path = g_dir + "/scale-v" + std::to_string(kGeneratorVersion) + "-" +
               std::to_string(records) + "-rank" + std::to_string(rank) +
               (g_compressed ? "-zstd" : "-plain") + ".fspy";
  const std::string facts_path = input.path + ".facts";
  std::ifstream saved(facts_path);
  if (!(saved >> input.facts.records >> input.facts.launches >> input.facts.gpu_records >>
        input.facts.library_calls >> input.facts.bytes) ||
      !std::filesystem::exists(input.path) ||
      std::filesystem::file_size(input.path) != input.facts.bytes) {
    std::fprintf(stderr, "writing %s (%llu records)...\n", input.path.c_str(),
                 static_cast<unsigned long long>(records));
    std::string error;
    if (!bench::WriteScaleTrace(input.path, records, 1234 + static_cast<uint32_t>(rank), rank,
                                g_compressed, &input.facts, &error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      std::exit(1);
    }
    std::ofstream(facts_path) << input.facts.records << " " << input.facts.launches << " "
                              << input.facts.gpu_records << " " << input.facts.library_calls << " "
                              << input.facts.bytes << "\n";
  }
  // Into the page cache.
  std::ifstream in(input.path, std::ios::binary);
  std::vector<char> buffer(1 << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()))) {
  }
  cache.emplace_back(std::make_pair(records, rank), input);
  return cache.back().second;
}

struct ChildRun {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system, all threads
  double peak_rss_bytes = 0;
  int status = -1;
};

// flopspy-report ARGS with stdout and stderr to /dev/null.
ChildRun RunReport(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::string report = FLOPSPY_REPORT_PATH;
  argv.push_back(report.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  ChildRun run;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::FILE* null = std::fopen("/dev/null", "w");
    dup2(fileno(null), STDOUT_FILENO);
    dup2(fileno(null), STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.peak_rss_bytes = static_cast<double>(usage.ru_maxrss) * 1024;
  const auto to_s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6;
  };
  run.cpu_seconds = to_s(usage.ru_utime) + to_s(usage.ru_stime);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

void MeasureReport(benchmark::State& state, const std::vector<const Input*>& inputs,
                   const std::vector<std::string>& flags) {
  std::vector<std::string> args;
  uint64_t records = 0, bytes = 0, launches = 0;
  for (const Input* input : inputs) {
    args.push_back(input->path);
    records += input->facts.records;
    bytes += input->facts.bytes;
    launches += input->facts.launches;
  }
  args.insert(args.end(), flags.begin(), flags.end());
  double peak = 0, seconds = 0, cpu_seconds = 0;
  for (auto _ : state) {
    const ChildRun run = RunReport(args);
    if (run.status != 0) {
      state.SkipWithError("flopspy-report failed");
      return;
    }
    state.SetIterationTime(run.seconds);
    peak = std::max(peak, run.peak_rss_bytes);
    seconds += run.seconds;
    cpu_seconds += run.cpu_seconds;
  }
  const double mean_s = seconds / static_cast<double>(state.iterations());
  state.counters["records"] = static_cast<double>(records);
  state.counters["file_mib"] = static_cast<double>(bytes) / (1 << 20);
  state.counters["bytes_per_launch"] = static_cast<double>(bytes) / static_cast<double>(launches);
  state.counters["bytes_vs_goal"] =
      static_cast<double>(bytes) / static_cast<double>(launches) / kBytesPerLaunchGoal;
  state.counters["records_per_s"] = static_cast<double>(records) / mean_s;
  state.counters["peak_rss_mib"] = peak / (1 << 20);
  // CPU time over wall time: how many cores the report kept busy (2 at most here); on a loaded
  // machine the wall time grows and this falls.
  state.counters["cores_used"] = cpu_seconds / seconds;
  state.counters["time_vs_limit"] = mean_s / kTimeLimitS;
  state.counters["rss_vs_limit"] = peak / kMemoryLimitBytes;
}

void BM_ReportText(benchmark::State& state) {
  MeasureReport(state, {&Trace(g_records, 0)}, {"--color", "never"});
}

void BM_ReportJson(benchmark::State& state) {
  MeasureReport(state, {&Trace(g_records, 0)}, {"--json"});
}

// The same number of records in four files (four ranks), read in parallel.
void BM_ReportFourFiles(benchmark::State& state) {
  std::vector<const Input*> inputs;
  for (int32_t rank = 0; rank < 4; ++rank) inputs.push_back(&Trace(g_records / 4, rank));
  MeasureReport(state, inputs, {"--color", "never"});
}

// The baseline: reading every record, checksums included, and nothing else.
void BM_ReaderOnly(benchmark::State& state) {
  const Input& input = Trace(g_records, 0);
  uint64_t records = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    trace::TraceReader reader = trace::TraceReader::OpenFile(input.path);
    records = reader.ForEachRecord(nullptr).records;
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (records != input.facts.records) state.SkipWithError("the reader did not read every record");
  state.counters["records_per_s"] = benchmark::Counter(
      static_cast<double>(records), benchmark::Counter::kIsIterationInvariantRate);
  const double per_launch =
      static_cast<double>(input.facts.bytes) / static_cast<double>(input.facts.launches);
  state.counters["bytes_per_launch"] = per_launch;
  state.counters["bytes_vs_goal"] = per_launch / kBytesPerLaunchGoal;
}

BENCHMARK(BM_ReaderOnly)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_ReportText)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ReportJson)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ReportFourFiles)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--records=", 0) == 0) {
      g_records = std::stoull(arg.substr(10));
    } else if (arg.rfind("--compress=", 0) == 0) {
      g_compressed = arg.substr(11) != "0";
    } else if (arg.rfind("--dir=", 0) == 0) {
      g_dir = arg.substr(6);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_count = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_count, rest.data());
  std::fprintf(stderr, "%llu records per run, %zu kernel names, %s chunks, trace files in %s\n",
               static_cast<unsigned long long>(g_records), bench::ScaleTraceKernelNames(),
               g_compressed ? "zstd" : "plain", g_dir.c_str());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
