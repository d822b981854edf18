// The CPU part of flopspy-demo: compute-bound and memory-bound fp64 kernels inside flopspy
// regions, for flopspy's CPU roofline.
#ifndef FLOPSPY_DEMO_CPU_WORKLOAD_H_
#define FLOPSPY_DEMO_CPU_WORKLOAD_H_

#include "options.h"

namespace flopspy_demo {

// Runs and prints the CPU table; false when a result check failed.
bool RunCpuWorkload(const CpuConfig& config);

}  // namespace flopspy_demo

#endif  // FLOPSPY_DEMO_CPU_WORKLOAD_H_
