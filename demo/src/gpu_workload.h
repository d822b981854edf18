// The GPU part of flopspy-demo. Built from gpu_workload.cpp with CUDA, or from
// gpu_unavailable.cpp when no CUDA compiler was found.
#ifndef FLOPSPY_DEMO_GPU_WORKLOAD_H_
#define FLOPSPY_DEMO_GPU_WORKLOAD_H_

#include "options.h"

namespace flopspy_demo {

enum class GpuOutcome {
  kPassed,  // ran, every check passed
  kNotRun,  // no CUDA build, no usable GPU or too little GPU memory: said so in one line
  kFailed,  // a result check failed or a CUDA/cuBLAS call failed on a usable GPU
};

// Runs and prints the GPU table. cpu_follows only changes the wording of the "no GPU" line.
// Never throws and never aborts.
GpuOutcome RunGpuWorkload(const GpuConfig& config, bool cpu_follows);

}  // namespace flopspy_demo

#endif  // FLOPSPY_DEMO_GPU_WORKLOAD_H_
