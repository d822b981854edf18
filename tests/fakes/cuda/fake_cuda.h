// What the fake CUDA libraries (libcuda.so.1, libcudart.so.12/.13 built from tests/fakes/cuda)
// know and what they offer tests beyond the CUDA API: the kernels they can "launch", with names
// and parameter layouts, and call counters.
//
// The fakes verify what reaches them (a known handle, parameters readable by the kernel's
// layout, a valid stream) and count every call per exported name, so a program that prints the
// counters shows whether an interposer passed each call on exactly once and unchanged.
//
// Environment read by the fakes (once, at first use):
//   FAKECUDA_LAUNCH_RESULT    CUresult every driver launch returns (default 0)
//   FAKECUDA_API_RESULT       CUresult every driver sync/copy/set/graph call returns (default 0)
//   FAKECUDA_INIT_RESULT      CUresult of cuInit (default 0)
//   FAKECUDA_DEVICE_COUNT     devices, each with a primary context (default 4, at most 16)
//   FAKECUDA_LOG_LOOKUPS      1: print every cuGetProcAddress lookup on stderr
//   FAKECUDA_PROC_INTERNAL    1: cuGetProcAddress returns internal functions, not the exports
//   FAKECUDART_LAUNCH_RESULT  cudaError_t every runtime launch returns without calling the
//                             driver (unset: the runtime launches through the driver)
#pragma once

#include <cstdint>
#include <cstdio>

extern "C" {
// libcuda.so.1 (fake): prints "driver <exported name> <calls>" for every entry point called,
// "kernel <name> launches <n> sumN <sum>" per kernel launched (N = the kernel's count
// parameter, summed over launches) and "procaddress flags <f> <lookups>" per lookup flag value.
void fakecuda_report(FILE* out);
// Calls of one exported driver function so far (0 for an unknown name).
uint64_t fakecuda_calls(const char* exported_name);
// libcudart.so.N (fake): "runtime <exported name> <calls>" for every entry point called.
void fakecudart_report(FILE* out);
}

namespace fakecuda {

inline constexpr int kMaxParams = 6;

struct KernelSpec {
  const char* name;  // as cuFuncGetName/cuKernelGetName/cudaFuncGetName return it
  int params;
  uint16_t offset[kMaxParams];
  uint16_t size[kMaxParams];
  int count_param;  // index of the int32 element count (ATen's N), -1 if none
  uint16_t total;   // packed size of all parameters
};

// An ATen elementwise kernel (N is parameter 0: docs/kernel-catalog.md, family
// elementwise_vectorized).
inline constexpr const char* kAtenMul =
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13AUnaryFunctorIfffNS0_15binary_"
    "internal10MulFunctorIfEEEESt5arrayIPcLm2EEEEviT0_T1_";
inline constexpr const char* kAtenMulDemangled =
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, "
    "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, "
    "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> "
    ">, std::array<char*, 2ul>)";
// A Triton kernel: a C name, the element count last.
inline constexpr const char* kTritonAdd = "triton_poi_fused_add_0";
// A program's own kernel: add_kernel(int, float*, float const*).
inline constexpr const char* kAddKernel = "_Z10add_kerneliPfPKf";
inline constexpr const char* kAddKernelDemangled = "add_kernel(int, float*, float const*)";
// No parameters at all.
inline constexpr const char* kEmptyKernel = "_Z12empty_kernelv";
// A cooperative kernel: grid_sync_kernel(int*, int).
inline constexpr const char* kGridSync = "_Z16grid_sync_kernelPii";
// An ATen reduction whose catalog model reads past the default 20 parameter bytes: a double
// mean, ReduceOp<double, MeanOps<double, double, double, double>, unsigned int, double, 4, 4>
// by value (ReduceConfig's sizes end at byte 28). Real ReduceOps are larger; 200 bytes suffice.
inline constexpr const char* kAtenMeanDouble =
    "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIdNS0_7MeanOpsIddddEEjdLi4ELi4EEEEEvT1_";
inline constexpr uint16_t kReduceOpBytes = 200;
// FlashAttention 2's forward kernel (bf16, not causal), which takes Flash_fwd_params by value: its
// shape fields end at byte 208 (tests/support/attention_params.h mirrors the layout). Named as
// the demangled name reads, which the flusher's demangler passes through. The real struct is
// larger than what is captured; 400 bytes stand for it.
inline constexpr const char* kFlashAttnFwd =
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
    "false, false, false, false, true, false, false>(flash::Flash_fwd_params)";
inline constexpr uint16_t kFlashParamsBytes = 400;

inline constexpr KernelSpec kKernels[] = {
    {kAtenMul, 3, {0, 4, 16}, {4, 8, 16}, 0, 32},
    {kTritonAdd, 4, {0, 8, 16, 24}, {8, 8, 8, 4}, 3, 28},
    {kAddKernel, 3, {0, 8, 16}, {4, 8, 8}, 0, 24},
    {kEmptyKernel, 0, {}, {}, -1, 0},
    {kGridSync, 2, {0, 8}, {8, 4}, 1, 12},
    {kAtenMeanDouble, 1, {0}, {kReduceOpBytes}, -1, kReduceOpBytes},
    {kFlashAttnFwd, 1, {0}, {kFlashParamsBytes}, -1, kFlashParamsBytes},
};
inline constexpr int kKernelCount = sizeof(kKernels) / sizeof(kKernels[0]);

}  // namespace fakecuda
