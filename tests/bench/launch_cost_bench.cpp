// Issue 3.8: the CPU cost flopspy adds to one kernel launch, against the fake libcuda.so.1 and
// libcudart.so.13 of tests/fakes/cuda, with GPU timing off (no CUPTI).
//
// LD_PRELOAD must be set before a process starts, so this program runs itself four times:
//   none         the fake driver and runtime alone (no flopspy)
//   passthrough  libflopspy_passthrough.so: the same hooks, recorder never started (baseline)
//   flopspy      libflopspy.so recording every launch (FLOPSPY_GPU_TIMING=off)
//   monotonic    the same with FLOPSPY_CLOCK=monotonic: what the TSC clock saves
// several rounds in turn (so that a busy machine slows all three alike), and prints the median
// time per launch of each, the cost recording adds (flopspy - passthrough, the figure),
// the whole cost of flopspy (flopspy - none) and the ratio against the baseline. It then reads
// the trace the recording runs wrote and checks that it holds every launch, none lost.
//
// Run: build/bin/flopspy_bench_launch [--rounds=N] [--benchmark_repetitions=N] [other
// Google Benchmark flags, passed to every run]. Numbers: docs/performance.md.
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_runs.h"
#include "fake_cuda.h"
#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/trace/reader.h"
#include "kernels.h"
#include "subprocess.h"

namespace {

namespace trace = flopspy::trace;
using flopspy::testing::ChildOptions;
using flopspy::testing::ChildResult;
using flopspy::testing::Median;
using flopspy::testing::ReadRepetitions;
using flopspy::testing::RunChild;
using flopspy::testing::SelfPath;
using flopspy::testing::TempDir;

constexpr char kVariantVar[] = "FLOPSPY_BENCH_VARIANT";
constexpr char kCountVar[] = "FLOPSPY_BENCH_COUNT_FILE";
constexpr int kIterations = 50'000;  // per repetition: bounds the trace the recording runs write
// The recording runs' thread buffer (FLOPSPY_BUFFER_KB), and launches (driver and runtime in
// turn) that fill it twice over: a launch record of this kernel takes 120 bytes in the buffer.
constexpr int kBufferKib = 65536;
constexpr int kWarmUpLaunches = kBufferKib * 1024 / 120;
constexpr int kCatchUpMs = 50;

// --- The measured process ----------------------------------------------------------------------

uint64_t g_launches = 0;  // every launch this process made, for the trace check

// cuLaunchKernel as the runtime gets it: dlopen, dlsym(cuGetProcAddress_v2), then a lookup.
struct Driver {
  PFN_cuLaunchKernel_v4000 launch = nullptr;
  CUfunction function = nullptr;
  std::string error;

  Driver() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW);
    if (h == nullptr) {
      error = std::string("no libcuda.so.1: ") + dlerror();
      return;
    }
    const auto get_proc =
        reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(h, "cuGetProcAddress_v2"));
    const auto load = reinterpret_cast<PFN_cuModuleLoadData_v2000>(dlsym(h, "cuModuleLoadData"));
    const auto get_function =
        reinterpret_cast<PFN_cuModuleGetFunction_v2000>(dlsym(h, "cuModuleGetFunction"));
    if (get_proc == nullptr || load == nullptr || get_function == nullptr) {
      error = "the driver lacks cuGetProcAddress_v2, cuModuleLoadData or cuModuleGetFunction";
      return;
    }
    void* p = nullptr;
    CUdriverProcAddressQueryResult found;
    if (get_proc("cuInit", &p, 2000, 0, &found) != CUDA_SUCCESS ||
        reinterpret_cast<PFN_cuInit_v2000>(p)(0) != CUDA_SUCCESS ||
        get_proc("cuLaunchKernel", &p, 4000, 0, &found) != CUDA_SUCCESS) {
      error = "cuInit or the cuLaunchKernel lookup failed";
      return;
    }
    launch = reinterpret_cast<PFN_cuLaunchKernel_v4000>(p);
    static const char image[] = "fake module";
    CUmodule module = nullptr;
    if (load(&module, image) != CUDA_SUCCESS ||
        get_function(&function, module, fakecuda::kAtenMul) != CUDA_SUCCESS) {
      error = "cannot load the fake module";
      launch = nullptr;
    }
  }
};

// ATen's vectorized_elementwise_kernel(int N, functor, array<char*, 2>): three parameters, the
// first 20 bytes captured per launch, as for most PyTorch kernels.
void BM_CuLaunchKernel(benchmark::State& state) {
  static Driver driver;
  if (driver.launch == nullptr) {
    state.SkipWithError(driver.error.c_str());
    return;
  }
  launchtest::AtenMulArgs args(4096);
  CUresult result = CUDA_SUCCESS;
  for (auto _ : state) {
    result = static_cast<CUresult>(result | driver.launch(driver.function, 4, 1, 1, 128, 1, 1, 0,
                                                          nullptr, args.args, nullptr));
  }
  g_launches += state.iterations();
  if (result != CUDA_SUCCESS) state.SkipWithError("a launch failed");
}
// Before every repetition: time for the recording runs' flusher to empty the thread buffer,
// which a busy machine may not give it while launches come every few nanoseconds (a program's
// real launches, 2 to 5 µs apart, leave it plenty).
void LetTheFlusherCatchUp(const benchmark::State&) {
  std::this_thread::sleep_for(std::chrono::milliseconds(kCatchUpMs));
}

BENCHMARK(BM_CuLaunchKernel)->Iterations(kIterations)->Setup(LetTheFlusherCatchUp);

// The same kernel through the fake runtime's cudaLaunchKernel, which launches through the
// driver pointer it got from cuGetProcAddress (a runtime hook, then a driver wrapper).
void BM_CudaLaunchKernel(benchmark::State& state) {
  launchtest::AtenMulArgs args(4096);
  const void* stub = launchtest::StubAddress(launchtest::AtenMulStub);
  cudaError_t result = cudaSuccess;
  for (auto _ : state) {
    result = static_cast<cudaError_t>(
        result | cudaLaunchKernel(stub, dim3(4), dim3(128), args.args, 0, nullptr));
  }
  g_launches += state.iterations();
  if (result != cudaSuccess) state.SkipWithError("a launch failed");
}
BENCHMARK(BM_CudaLaunchKernel)->Iterations(kIterations)->Setup(LetTheFlusherCatchUp);

// Launches before any measurement, in every variant alike: the kernel is named once (flopspy's
// only slow step per kernel) and the recording runs' thread buffer has been written all the way
// round once, so that no page of it is touched for the first time while measured (a running
// program reaches that state after its first few thousand launches).
void WarmUp(int launches) {
  static Driver driver;
  launchtest::AtenMulArgs args(4096);
  const void* stub = launchtest::StubAddress(launchtest::AtenMulStub);
  for (int i = 0; i < launches && driver.launch != nullptr; ++i) {
    driver.launch(driver.function, 4, 1, 1, 128, 1, 1, 0, nullptr, args.args, nullptr);
    cudaLaunchKernel(stub, dim3(4), dim3(128), args.args, 0, nullptr);
    g_launches += 2;
  }
}

int RunMeasured(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  WarmUp(kWarmUpLaunches);
  std::this_thread::sleep_for(std::chrono::milliseconds(10 * kCatchUpMs));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (const char* count_file = std::getenv(kCountVar)) {
    std::ofstream(count_file) << g_launches << "\n";
  }
  return 0;
}

// --- The parent: runs, medians, ratios --------------------------------------------------------

struct Variant {
  const char* name;
  const char* preload;  // empty: none
  const char* what;
  const char* clock = "auto";  // FLOPSPY_CLOCK
};

const Variant kVariants[] = {
    {"none", "", "fake driver and runtime, no flopspy"},
    {"passthrough", FLOPSPY_PASSTHROUGH_PATH, "libflopspy_passthrough.so (baseline)"},
    {"flopspy", FLOPSPY_LIBRARY_PATH, "libflopspy.so recording, GPU timing off"},
    {"monotonic", FLOPSPY_LIBRARY_PATH, "the same, FLOPSPY_CLOCK=monotonic", "monotonic"},
};
const char* const kBenchmarks[] = {"BM_CuLaunchKernel", "BM_CudaLaunchKernel"};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

// Launch records and losses in the traces of one folder.
struct TraceCount {
  uint64_t launches = 0;
  uint64_t lost = 0;
  int files = 0;
  bool read_ok = true;
};

TraceCount CountTraces(const TempDir& dir) {
  TraceCount count;
  for (const std::string& path : dir.Files(".fspy")) {
    ++count.files;
    trace::TraceReader reader = trace::TraceReader::OpenFile(path);
    flopspy::analyzers::TraceSummarizer summarizer;
    const flopspy::analyzers::StringLookup strings = [&reader](uint32_t id) {
      return reader.String(id);
    };
    const trace::ReadSummary read =
        reader.ForEachRecord([&](const trace::RecordView& r) { summarizer.Add(r, strings); });
    count.read_ok = count.read_ok && read.status == trace::ReadStatus::kOk;
    const auto summary = summarizer.Take();
    count.launches += summary.record_counts[static_cast<int>(trace::RecordType::kKernelLaunch)];
    count.lost += summary.TotalLost();
  }
  return count;
}

int RunParent(int argc, char** argv) {
  int rounds = 3;
  std::vector<std::string> passed;
  bool repetitions_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--rounds=", 0) == 0) {
      rounds = std::max(1, std::atoi(arg.c_str() + 9));
    } else {
      repetitions_given = repetitions_given || arg.rfind("--benchmark_repetitions=", 0) == 0;
      passed.push_back(arg);
    }
  }
  if (!repetitions_given) passed.emplace_back("--benchmark_repetitions=7");

  const std::string self = SelfPath();
  std::map<std::string, std::map<std::string, std::vector<double>>> times;  // variant, bench
  std::map<std::string, uint64_t> made;                                     // variant: launches
  TempDir work;
  TempDir traces;
  for (int round = 0; round < rounds; ++round) {
    for (const Variant& v : kVariants) {
      const std::string json = work.path() + "/" + v.name + std::to_string(round) + ".json";
      const std::string count_file = work.path() + "/" + v.name + std::to_string(round) + ".n";
      std::vector<std::string> args = {self, "--benchmark_out=" + json,
                                       "--benchmark_out_format=json"};
      args.insert(args.end(), passed.begin(), passed.end());
      ChildOptions options;
      options.timeout = std::chrono::minutes(20);
      options.env = {
          {kVariantVar, v.name},
          {kCountVar, count_file},
          {"LD_LIBRARY_PATH", std::string(FAKECUDA_DRIVER_DIR) + ":" + FAKECUDA_RUNTIME13_DIR},
          {"FLOPSPY_OUT", traces.path()},
          {"FLOPSPY_GPU_TIMING", "off"},
          {"FLOPSPY_CPU_ROOFLINE", "off"},
          {"FLOPSPY_QUIET", "1"},
          // Room for every record between two flushes, on a busy machine too: a full
          // buffer would drop records, and dropping costs less than writing.
          {"FLOPSPY_BUFFER_KB", std::to_string(kBufferKib)},
          {"FLOPSPY_FLUSH_MS", "2"},
          {"FLOPSPY_CLOCK", v.clock}};
      if (*v.preload != '\0') {
        options.env["LD_PRELOAD"] = v.preload;
      } else {
        options.unset.push_back("LD_PRELOAD");
      }
      const ChildResult child = RunChild(args, options);
      if (!child.exited || child.exit_code != 0 || !ReadRepetitions(json, times[v.name])) {
        std::fprintf(stderr, "the %s run failed (exit %d, signal %d):\n%s%s\n", v.name,
                     child.exit_code, child.signal, child.out.c_str(), child.err.c_str());
        return 1;
      }
      uint64_t n = 0;
      std::ifstream(count_file) >> n;
      made[v.name] += n;
      std::fprintf(stderr, "round %d/%d: %s done\n", round + 1, rounds, v.name);
    }
  }

  std::printf("\nCPU time per kernel launch: median over %d rounds x repetitions (p25-p75)\n\n",
              rounds);
  std::printf("%-13s %-42s %24s %24s\n", "variant", "", "cuLaunchKernel", "cudaLaunchKernel");
  std::map<std::string, std::map<std::string, double>> median;
  for (const Variant& v : kVariants) {
    std::printf("%-13s %-42s", v.name, v.what);
    for (const char* b : kBenchmarks) {
      const auto& t = times[v.name][b];
      median[v.name][b] = Median(t);
      std::printf(" %8.1f ns (%5.1f-%5.1f)", median[v.name][b], Percentile(t, 0.25),
                  Percentile(t, 0.75));
    }
    std::printf("\n");
  }
  std::printf("\n");
  for (const char* b : kBenchmarks) {
    const double none = median["none"][b];
    const double base = median["passthrough"][b];
    const double rec = median["flopspy"][b];
    const double goal = std::string(b) == "BM_CuLaunchKernel" ? 30 : 40;
    std::printf(
        "%s: recording adds %.1f ns per launch to the pass-through build (goal %.0f ns: %.2fx "
        "the goal), ratio %.2fx; flopspy in all adds %.1f ns to the bare fake (%.2fx); "
        "clock_gettime instead of the TSC adds %.1f ns more\n",
        b, rec - base, goal, (rec - base) / goal, base > 0 ? rec / base : 0.0, rec - none,
        none > 0 ? rec / none : 0.0, median["monotonic"][b] - rec);
  }

  const TraceCount count = CountTraces(traces);
  const uint64_t recorded_runs_made = made["flopspy"] + made["monotonic"];
  std::printf(
      "\ntraces of the recording runs: %d files, %llu launch records for %llu launches made, "
      "%llu records lost%s\n",
      count.files, static_cast<unsigned long long>(count.launches),
      static_cast<unsigned long long>(recorded_runs_made),
      static_cast<unsigned long long>(count.lost), count.read_ok ? "" : " (a trace did not read)");
  if (count.launches != recorded_runs_made || count.lost != 0 || !count.read_ok) {
    std::printf("the recording runs did not record every launch: their times are not valid\n");
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv(kVariantVar) != nullptr) return RunMeasured(argc, argv);
  return RunParent(argc, argv);
}
