// Item 4: the real libcudart.so.13 with no driver on the machine. Launches fail with
// cudaErrorInsufficientDriver (35), but every hooked entry point is called with real arguments
// (docs/cuda-notes.md, "Real cudart without a driver"): flopspy must record them and return
// cudart's error unchanged.
#include <cuda_runtime_api.h>

#include <cstdio>

#include "app_util.h"

extern "C" cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* stub);
extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                          size_t smem, cudaStream_t stream);

namespace {
volatile int g_sink = 0;
void KernelStub() {
  g_sink = 1;
}
}  // namespace

int main() {
  int n = 77;
  void* args[] = {&n};
  const cudaError_t r1 = cudaLaunchKernel(reinterpret_cast<const void*>(&KernelStub), dim3(3, 2),
                                          dim3(64), args, 0, nullptr);
  std::printf("cudaLaunchKernel -> %d\n", r1);
  cudaKernel_t kernel = nullptr;
  const cudaError_t r2 = __cudaGetKernel(&kernel, reinterpret_cast<const void*>(&KernelStub));
  std::printf("__cudaGetKernel -> %d\n", r2);
  int m = 88;
  void* args2[] = {&m};
  const cudaError_t r3 = __cudaLaunchKernel(kernel, dim3(5), dim3(32), args2, 16, nullptr);
  std::printf("__cudaLaunchKernel -> %d\n", r3);
  std::printf("cudaGetErrorString %s\n", cudaGetErrorString(r1));
  launchtest::PrintFakeReports();  // when run on the fake driver
  return 0;
}
