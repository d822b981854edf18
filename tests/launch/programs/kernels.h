// The kernels of the runtime test programs: host stubs registered with the (fake) runtime under
// the fake driver's kernel names, as nvcc's generated host code registers them, and argument
// blocks laid out as fake_cuda.h says.
#pragma once

#include <cuda_runtime_api.h>

#include "cudart_private.h"

namespace launchtest {

// Host stubs: distinct functions whose addresses the runtime maps to device kernels.
void AtenMulStub();
void TritonAddStub();
void AddKernelStub();
void EmptyKernelStub();
void GridSyncStub();

// Registers the stubs with the runtime this code is linked with (also done by a constructor).
void RegisterKernels();

struct MulFunctor {
  float b;
  float pad;
};
struct TwoPointers {
  char* p[2];
};

// Arguments of vectorized_elementwise_kernel(int N, functor, std::array<char*, 2>).
struct AtenMulArgs {
  explicit AtenMulArgs(int count) : n(count) {}
  AtenMulArgs(const AtenMulArgs&) = delete;
  AtenMulArgs& operator=(const AtenMulArgs&) = delete;
  int n;
  MulFunctor f{2.5f, 0.0f};
  TwoPointers data{{nullptr, nullptr}};
  void* args[3] = {&n, &f, &data};
};

// triton_poi_fused_add_0(in_ptr0, in_ptr1, out_ptr0, xnumel).
struct TritonAddArgs {
  explicit TritonAddArgs(int count) : xnumel(count) {}
  TritonAddArgs(const TritonAddArgs&) = delete;
  TritonAddArgs& operator=(const TritonAddArgs&) = delete;
  void* in0 = nullptr;
  void* in1 = nullptr;
  void* out = nullptr;
  int xnumel;
  void* args[4] = {&in0, &in1, &out, &xnumel};
};

// add_kernel(int n, float* out, const float* in).
struct AddArgs {
  explicit AddArgs(int count) : n(count) {}
  AddArgs(const AddArgs&) = delete;
  AddArgs& operator=(const AddArgs&) = delete;
  int n;
  float* out = nullptr;
  const float* in = nullptr;
  void* args[3] = {&n, &out, &in};
};

// grid_sync_kernel(int* flags, int n).
struct GridSyncArgs {
  explicit GridSyncArgs(int count) : n(count) {}
  GridSyncArgs(const GridSyncArgs&) = delete;
  GridSyncArgs& operator=(const GridSyncArgs&) = delete;
  int* flags = nullptr;
  int n;
  void* args[2] = {&flags, &n};
};

// What nvcc 13 makes of kernel<<<grid, block, smem, stream>>>(args): the call site pushes the
// configuration, the host stub gets its cudaKernel_t once, pops the configuration and calls
// __cudaLaunchKernel (or _ptsz under --default-stream per-thread). Returns that call's result.
template <void (*Stub)()>
cudaError_t LaunchLikeNvcc13(dim3 grid, dim3 block, size_t smem, cudaStream_t stream, void** args,
                             bool per_thread) {
  __cudaPushCallConfiguration(grid, block, smem, stream);
  static cudaKernel_t handle = nullptr;
  static const bool found =
      __cudaGetKernel(&handle, reinterpret_cast<const void*>(Stub)) == cudaSuccess;
  (void)found;
  dim3 g, b;
  size_t s = 0;
  cudaStream_t st = nullptr;
  if (__cudaPopCallConfiguration(&g, &b, &s, &st) != cudaSuccess) return cudaErrorUnknown;
  return per_thread ? __cudaLaunchKernel_ptsz(handle, g, b, args, s, st)
                    : __cudaLaunchKernel(handle, g, b, args, s, st);
}

inline const void* StubAddress(void (*stub)()) {
  return reinterpret_cast<const void*>(stub);
}

}  // namespace launchtest
