// Compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM: cuda.h turns cuLaunchKernel into
// cuLaunchKernel_ptsz.
#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "build this file with CUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif
#include <cuda.h>

namespace launchtest {

int LaunchPerThread(CUfunction f) {
  int n = 41;
  float* out = nullptr;
  const float* in = nullptr;
  void* params[] = {&n, &out, &in};
  return cuLaunchKernel(f, 3, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr);
}

}  // namespace launchtest
