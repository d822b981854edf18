#include "options.h"

#include <CLI/CLI.hpp>
#include <string>

namespace flopspy_demo {
namespace {

// n * n fp32 elements are indexed by an int in the kernels.
constexpr int kMaxGpuSize = 46340;
// The naive fp64 matmul at 4096 already takes minutes.
constexpr int kMaxCpuSize = 4096;

void ApplyQuick(Options& options) {
  options.gpu.n = 1024;
  options.gpu.repeats = 2;
  options.gpu.memory_loop_launches = 3;
  options.cpu.n = 128;
  options.cpu.naive_repeats = 1;
  options.cpu.blocked_repeats = 1;
  options.cpu.triad_bytes_per_array = std::size_t{4} << 20;
  options.cpu.triad_passes = 3;
}

}  // namespace

std::optional<Options> ParseOptions(int argc, char** argv, int* exit_status) {
  CLI::App app{
      "flopspy-demo: a small GPU and CPU workload to run under flopspy, e.g.\n"
      "  flopspy run -- flopspy-demo\n"
      "GPU part (fp32): fill, cublasSgemm, sum, pow, mul, sin, sqrt, sigmoid, log10, a\n"
      "launch-bound loop, a memory-bound loop and host<->device copies. CPU part (fp64): naive "
      "and\n"
      "blocked matmul and a STREAM triad. Exit status: 0 ok, 1 a check failed, 2 bad arguments.",
      "flopspy-demo"};
  bool quick = false;
  bool cpu_only = false;
  bool gpu_only = false;
  int gpu_size = 0;
  int cpu_size = 0;
  app.add_flag("--quick", quick,
               "CI-sized run: n = 1024 on the GPU, 128 on the CPU (well under 1 s)");
  auto* size =
      app.add_option("--size", gpu_size, "Side N of the GPU's N x N fp32 matrices (default 8192)")
          ->check(CLI::Range(1, kMaxGpuSize));
  auto* cpu_size_option = app.add_option("--cpu-size", cpu_size,
                                         "Side N of the CPU matmuls' fp64 matrices (default 512)")
                              ->check(CLI::Range(1, kMaxCpuSize));
  auto* cpu_only_flag = app.add_flag("--cpu-only", cpu_only, "Run the CPU workload only");
  auto* gpu_only_flag = app.add_flag("--gpu-only", gpu_only, "Run the GPU workload only");
  cpu_only_flag->excludes(gpu_only_flag);
  gpu_only_flag->excludes(cpu_only_flag);

  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return std::string("flopspy-demo: ") + error.what() +
           "\nRun with --help for more information.\n";
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // app.exit prints help (status 0) or the error and a hint on stderr (non-zero).
    *exit_status = app.exit(error) == 0 ? kExitOk : kExitBadArguments;
    return std::nullopt;
  }

  Options options;
  if (quick) ApplyQuick(options);
  if (size->count() > 0) options.gpu.n = gpu_size;
  if (cpu_size_option->count() > 0) options.cpu.n = cpu_size;
  options.run_cpu = !gpu_only;
  options.run_gpu = !cpu_only;
  return options;
}

}  // namespace flopspy_demo
