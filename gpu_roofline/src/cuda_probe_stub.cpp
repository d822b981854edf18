// Without CUDA headers (report-only builds) the probe says so and finds nothing.
#include "flopspy/gpu_roofline/cuda_probe.h"

#ifndef FLOPSPY_HAVE_CUDA_HEADERS
namespace flopspy::gpuroof {

CudaProbe ProbeCuda() {
  CudaProbe probe;
  probe.driver.error = "flopspy was built without CUDA headers";
  return probe;
}

}  // namespace flopspy::gpuroof
#endif
