// Running the GPU ceilings microbenchmarks on one device: FMA-chain kernels for the CUDA-core
// peaks, cuBLASLt GEMMs for the tensor peaks, a device-to-device copy and a read-only kernel for
// DRAM, a read-only kernel over half the L2 for L2. The driver and cuBLASLt are loaded at run
// time (dlopen), the kernels from a fatbin built into this library by nvcc; nothing here links a
// CUDA library. Clocks are never changed. docs/flopspy-ceilings.md describes every benchmark.
#pragma once

#include <functional>
#include <string>

#include "flopspy/gpu_roofline/ceilings_results.h"

namespace flopspy::gpuroof {

struct GpuCeilingsOptions {
  int device_index = 0;
  bool quick = false;   // fewer repetitions and shorter runs (about 10 s instead of about 30 s)
  bool kernels = true;  // FMA chains and the bandwidth kernels
  bool gemms = true;    // cuBLASLt GEMMs
  // Called with a line as each benchmark starts ("fma_fp32", ...), for progress on stderr.
  std::function<void(const std::string&)> progress;
};

// Whether this build carries the CUDA kernels (nvcc was found when it was built).
bool CeilingsKernelsBuiltIn();

// Measures the device. When there is no driver or no such device, `error` says so (starting with
// "no CUDA device") and `results` is empty; a benchmark that cannot run is kept with `skipped`.
GpuCeilingsRun RunGpuCeilings(const GpuCeilingsOptions& options);

}  // namespace flopspy::gpuroof
