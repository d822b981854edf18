// RunGpuWorkload for builds without a CUDA compiler.
#include <fmt/core.h>

#include <cstdio>

#include "gpu_workload.h"

namespace flopspy_demo {

GpuOutcome RunGpuWorkload(const GpuConfig& /*config*/, bool cpu_follows) {
  fmt::print(
      "flopspy-demo: built without CUDA (no CUDA compiler or cuBLAS at configure time); {}\n",
      cpu_follows ? "running the CPU workload only" : "nothing to run with --gpu-only");
  std::fflush(stdout);
  return GpuOutcome::kNotRun;
}

}  // namespace flopspy_demo
