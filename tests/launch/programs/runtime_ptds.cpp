// Compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM, as nvcc --default-stream per-thread does:
// cuda_runtime_api.h turns cudaLaunchKernel into cudaLaunchKernel_ptsz, cudaStreamSynchronize
// into cudaStreamSynchronize_ptsz and cudaMemcpy into cudaMemcpy_ptds.
#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "build this file with CUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

#include "app_util.h"
#include "kernels.h"

namespace launchtest {

void RunPerThreadDefaultStream() {
  AtenMulArgs a(2048);
  Print("cudaLaunchKernel stream 0",
        cudaLaunchKernel(StubAddress(AtenMulStub), dim3(16), dim3(256), a.args, 0, nullptr));
  AtenMulArgs b(2049);
  Print("cudaLaunchKernel cudaStreamPerThread",
        cudaLaunchKernel(StubAddress(AtenMulStub), dim3(16), dim3(256), b.args, 0,
                         cudaStreamPerThread));
  AtenMulArgs c(2050);
  Print(
      "cudaLaunchKernel cudaStreamLegacy",
      cudaLaunchKernel(StubAddress(AtenMulStub), dim3(16), dim3(256), c.args, 0, cudaStreamLegacy));
  AddArgs d(6);
  Print("<<<>>> stream 0",
        LaunchLikeNvcc13<AddKernelStub>(dim3(3), dim3(96), 0, nullptr, d.args, true));
  Print("cudaStreamSynchronize 0", cudaStreamSynchronize(nullptr));
  static char host[64];
  void* device = nullptr;
  Print("cudaMalloc", cudaMalloc(&device, sizeof(host)));
  Print("cudaMemcpy H2D 64", cudaMemcpy(device, host, sizeof(host), cudaMemcpyHostToDevice));
  Print("cudaFree", cudaFree(device));
}

}  // namespace launchtest
