// Without CUDA headers (report-only builds) there is nothing to measure with.
#include "flopspy/gpu_roofline/ceilings_runner.h"

#ifndef FLOPSPY_HAVE_CUDA_HEADERS
namespace flopspy::gpuroof {

bool CeilingsKernelsBuiltIn() {
  return false;
}

GpuCeilingsRun RunGpuCeilings(const GpuCeilingsOptions& options) {
  GpuCeilingsRun run;
  run.device_index = options.device_index;
  run.quick = options.quick;
  run.error = "no CUDA device: flopspy was built without CUDA headers";
  return run;
}

}  // namespace flopspy::gpuroof
#endif
