// Issue 19: what call stacks add to a kernel launch (docs/performance.md, "Call sites"), against
// the fake libcuda.so.1 of tests/fakes/cuda, under libflopspy.so with GPU timing off.
//
// The program runs itself once per variant (LD_PRELOAD and the policy are read at start):
//   off      FLOPSPY_STACKS=off: the baseline
//   default  the default policy (native here, no Python; FLOPSPY_STACK_SAMPLE=32)
//   every    FLOPSPY_STACKS=native FLOPSPY_STACK_SAMPLE=1: stacks on every launch
// and each runs two loops:
//   BM_Repeated  one kernel signature launched again and again from one call path
//   BM_NewStack  every launch from a call path not seen before (32768 paths, three levels of
//                32 functions), so every launch in `every` walks and writes a new stack
// and, without launching, three ways to take the same 16-frame native stack: Boost.Stacktrace's
// safe_dump_to, a plain _Unwind_Backtrace walk, and flopspy's walker confirming a stack it
// walked before (native_frames.h).
// It prints the median CPU time per launch of each and the cost stacks add against `off`:
// default on BM_Repeated (budget 20 ns), every on BM_Repeated (a known stack, budget 150 ns),
// every on BM_NewStack (a new stack, budget 5 µs). Times are printed, never asserted.
//
// Run: build/bin/flopspy_bench_stack_capture [--rounds=N] [Google Benchmark flags].
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>
#include <unwind.h>

#include <algorithm>
#include <array>
#include <boost/stacktrace/safe_dump_to.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bench_runs.h"
#include "fake_cuda.h"
#include "native_frames.h"
#include "subprocess.h"

namespace {

using flopspy::testing::ChildOptions;
using flopspy::testing::ChildResult;
using flopspy::testing::Median;
using flopspy::testing::ReadRepetitions;
using flopspy::testing::RunChild;
using flopspy::testing::SelfPath;
using flopspy::testing::TempDir;

constexpr char kVariantVar[] = "FLOPSPY_BENCH_VARIANT";
constexpr int kRepeatedIterations = 200'000;
// Per repetition; all repetitions of a process together stay under the 32768 paths.
constexpr int kNewStackIterations = 4096;
constexpr int kRepetitions = 5;

// --- The measured process ----------------------------------------------------------------------

CUfunction g_function = nullptr;
int g_n = 4096;
float* g_out = nullptr;
const float* g_in = nullptr;
void* g_params[3] = {&g_n, &g_out, &g_in};

__attribute__((noinline)) int Launch() {
  const CUresult r = cuLaunchKernel(g_function, 4, 1, 1, 128, 1, 1, 0, nullptr, g_params, nullptr);
  asm volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
  return static_cast<int>(r);
}

// Three levels of 32 functions: path j goes through Level1<j/1024>, Level2<j/32%32>, Level3<j%32>.
using Step = int (*)(int);
volatile int g_sink = 0;  // a store per function that differs: none is folded into another
template <int I>
__attribute__((noinline)) int Level3(int) {
  g_sink = I;
  const int r = Launch();
  asm volatile("" ::: "memory");
  return r;
}
template <size_t... I>
constexpr std::array<Step, sizeof...(I)> Table3(std::index_sequence<I...>) {
  return {&Level3<static_cast<int>(I)>...};
}
constexpr auto kLevel3 = Table3(std::make_index_sequence<32>());

template <int I>
__attribute__((noinline)) int Level2(int path) {
  g_sink = I;
  const int r = kLevel3[static_cast<size_t>(path) % 32](path);
  asm volatile("" ::: "memory");
  return r;
}
template <size_t... I>
constexpr std::array<Step, sizeof...(I)> Table2(std::index_sequence<I...>) {
  return {&Level2<static_cast<int>(I)>...};
}
constexpr auto kLevel2 = Table2(std::make_index_sequence<32>());

template <int I>
__attribute__((noinline)) int Level1(int path) {
  g_sink = I;
  const int r = kLevel2[static_cast<size_t>(path) / 32 % 32](path);
  asm volatile("" ::: "memory");
  return r;
}
template <size_t... I>
constexpr std::array<Step, sizeof...(I)> Table1(std::index_sequence<I...>) {
  return {&Level1<static_cast<int>(I)>...};
}
constexpr auto kLevel1 = Table1(std::make_index_sequence<32>());

__attribute__((noinline)) int LaunchFromPath(int path) {
  const int r = kLevel1[static_cast<size_t>(path) / 1024 % 32](path);
  asm volatile("" ::: "memory");
  return r;
}

void BM_Repeated(benchmark::State& state) {
  int failed = 0;
  for (auto _ : state) failed |= LaunchFromPath(0);
  if (failed != 0) state.SkipWithError("a launch failed");
}
BENCHMARK(BM_Repeated)->Iterations(kRepeatedIterations);

int g_next_path = 1;  // path 0 is BM_Repeated's
void BM_NewStack(benchmark::State& state) {
  int failed = 0;
  for (auto _ : state) failed |= LaunchFromPath(g_next_path++);
  if (failed != 0) state.SkipWithError("a launch failed");
}
BENCHMARK(BM_NewStack)->Iterations(kNewStackIterations);

// --- Taking one native stack, without a launch ------------------------------------------------

constexpr int kWalkDepth = 16;
uint64_t g_frames[256];

_Unwind_Reason_Code CollectFrame(_Unwind_Context* context, void* arg) {
  auto* n = static_cast<int*>(arg);
  if (*n == 256) return _URC_END_OF_STACK;
  g_frames[(*n)++] = _Unwind_GetIP(context);
  return _URC_NO_REASON;
}

enum class Walk { kBoost, kUnwind, kConfirmed };
flopspy::interpose::NativeFrameWalker g_walker;

__attribute__((noinline)) int WalkAtDepth(Walk how, int depth) {
  int n = 0;
  if (depth > 0) {
    n = WalkAtDepth(how, depth - 1);
  } else if (how == Walk::kBoost) {
    n = static_cast<int>(boost::stacktrace::safe_dump_to(g_frames, sizeof(g_frames)));
  } else if (how == Walk::kUnwind) {
    _Unwind_Backtrace(CollectFrame, &n);
  } else {
    n = g_walker.Capture().depth;
  }
  asm volatile("" ::: "memory");
  return n;
}

void BM_Walk(benchmark::State& state) {
  const auto how = static_cast<Walk>(state.range(0));
  if (how == Walk::kConfirmed) {
    pthread_attr_t attr;
    void* base = nullptr;
    size_t size = 0;
    pthread_getattr_np(pthread_self(), &attr);
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
    const auto low = reinterpret_cast<uint64_t>(base);
    g_walker.Init(0, 0, low, low + size);
  }
  int frames = 0;
  for (auto _ : state) frames = WalkAtDepth(how, kWalkDepth);
  state.counters["frames"] = frames;
}
BENCHMARK(BM_Walk)
    ->Arg(static_cast<int>(Walk::kBoost))
    ->Arg(static_cast<int>(Walk::kUnwind))
    ->Arg(static_cast<int>(Walk::kConfirmed))
    ->Iterations(20'000);

int RunMeasured(int argc, char** argv) {
  CUmodule module = nullptr;
  if (cuInit(0) != CUDA_SUCCESS || cuModuleLoadData(&module, "cubin") != CUDA_SUCCESS ||
      cuModuleGetFunction(&g_function, module, fakecuda::kAddKernel) != CUDA_SUCCESS) {
    std::fprintf(stderr, "no fake driver\n");
    return 3;
  }
  // The kernel named, the signature seen, path 0's stack walked: what a running program has.
  for (int i = 0; i < 1000; ++i) LaunchFromPath(0);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// --- The parent: runs, medians, deltas ----------------------------------------------------------

struct Variant {
  const char* name;
  std::map<std::string, std::string> env;
};

int RunParent(int argc, char** argv) {
  int rounds = 3;
  std::vector<std::string> passed = {"--benchmark_repetitions=" + std::to_string(kRepetitions)};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--rounds=", 0) == 0) {
      rounds = std::max(1, std::atoi(arg.c_str() + 9));
    } else {
      passed.push_back(arg);
    }
  }
  const std::vector<Variant> variants = {
      {"off", {{"FLOPSPY_STACKS", "off"}}},
      {"default", {}},
      {"every", {{"FLOPSPY_STACKS", "native"}, {"FLOPSPY_STACK_SAMPLE", "1"}}},
  };
  const std::string self = SelfPath();
  std::map<std::string, std::map<std::string, std::vector<double>>> times;  // variant, bench
  TempDir work;
  for (int round = 0; round < rounds; ++round) {
    for (const Variant& v : variants) {
      TempDir traces;
      const std::string json = work.path() + "/" + v.name + std::to_string(round) + ".json";
      std::vector<std::string> args = {self, "--benchmark_out=" + json,
                                       "--benchmark_out_format=json"};
      args.insert(args.end(), passed.begin(), passed.end());
      ChildOptions options;
      options.timeout = std::chrono::minutes(10);
      options.env = {{kVariantVar, v.name},
                     {"LD_PRELOAD", FLOPSPY_LIBRARY_PATH},
                     {"LD_LIBRARY_PATH", FAKECUDA_DRIVER_DIR},
                     {"FLOPSPY_OUT", traces.path()},
                     {"FLOPSPY_GPU_TIMING", "off"},
                     {"FLOPSPY_CPU_ROOFLINE", "off"},
                     {"FLOPSPY_QUIET", "1"},
                     {"FLOPSPY_BUFFER_KB", "65536"},
                     {"FLOPSPY_FLUSH_MS", "2"}};
      options.unset = {"FLOPSPY_STACKS", "FLOPSPY_STACK_SAMPLE"};
      for (const auto& [k, value] : v.env) options.env[k] = value;
      const ChildResult child = RunChild(args, options);
      if (!child.exited || child.exit_code != 0 || !ReadRepetitions(json, times[v.name])) {
        std::fprintf(stderr, "the %s run failed (exit %d, signal %d):\n%s%s\n", v.name,
                     child.exit_code, child.signal, child.out.c_str(), child.err.c_str());
        return 1;
      }
      std::fprintf(stderr, "round %d/%d: %s done\n", round + 1, rounds, v.name);
    }
  }
  std::printf(
      "\nCPU time per kernel launch under libflopspy.so: median of %d rounds x %d "
      "repetitions\n\n%-9s %14s %14s\n",
      rounds, kRepetitions, "variant", "BM_Repeated", "BM_NewStack");
  std::map<std::string, std::map<std::string, double>> m;
  for (const Variant& v : variants) {
    for (const char* b : {"BM_Repeated", "BM_NewStack"}) m[v.name][b] = Median(times[v.name][b]);
    std::printf("%-9s %11.1f ns %11.1f ns\n", v.name, m[v.name]["BM_Repeated"],
                m[v.name]["BM_NewStack"]);
  }
  const auto line = [&](const char* what, const char* variant, const char* bench, double budget) {
    const double base = m["off"][bench];
    const double with = m[variant][bench];
    std::printf("%-58s %+9.1f ns per launch (budget %+.0f ns), ratio %.2fx\n", what, with - base,
                budget, base > 0 ? with / base : 0.0);
  };
  std::printf("\nagainst the same loop with stacks off:\n");
  line("default policy, repeated launches (auto, N=32):", "default", "BM_Repeated", 20);
  line("a known native stack on every launch (N=1):", "every", "BM_Repeated", 150);
  line("a new native stack on every launch (N=1):", "every", "BM_NewStack", 5000);
  std::printf(
      "\none native stack of %d program frames and the benchmark's own, no launch "
      "(the off runs):\n",
      kWalkDepth);
  const char* walks[] = {"Boost.Stacktrace safe_dump_to", "_Unwind_Backtrace",
                         "flopspy's walker, a stack walked before"};
  for (int i = 0; i < 3; ++i) {
    std::printf("  %-42s %9.1f ns\n", walks[i],
                Median(times["off"]["BM_Walk/" + std::to_string(i)]));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv(kVariantVar) != nullptr) return RunMeasured(argc, argv);
  return RunParent(argc, argv);
}
