// Runtime entry points that cuda_runtime_api.h declares only for nvcc (crt/host_runtime.h,
// crt/device_functions.h) or only under CUDA_API_PER_THREAD_DEFAULT_STREAM. The fake runtime
// includes this so the compiler checks its definitions against what test programs call.
#pragma once

#include <cuda_runtime_api.h>

extern "C" {
// Registration, as nvcc's generated host code calls it.
void** __cudaRegisterFatBinary(void* fat_cubin);
void __cudaRegisterFatBinaryEnd(void** handle);
void __cudaUnregisterFatBinary(void** handle);
void __cudaRegisterFunction(void** handle, const char* host_function, char* device_function,
                            const char* device_name, int thread_limit, uint3* tid, uint3* bid,
                            dim3* block, dim3* grid, int* warp_size);

// The CUDA 13 <<<>>> sequence (docs/cuda-notes.md, "CUDA 12 and CUDA 13 launch sequences").
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem,
                                     struct CUstream_st* stream);
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* smem, void* stream);
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* stub);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t smem,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                    size_t smem, cudaStream_t stream);

// Per-thread default stream forms, separate exports (docs/cuda-notes.md).
cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args, size_t smem,
                                  cudaStream_t stream);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                     void** args);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                             size_t smem, cudaStream_t stream);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graph, cudaStream_t stream);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                 cudaStream_t stream);
}
