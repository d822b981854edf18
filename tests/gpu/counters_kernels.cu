// Kernels with known FLOPs and bytes for the counter-mode GPU check (counters_check.py):
//   fma_fp32   K dependent FFMA per thread            2 N K FLOPs (fp32)
//   fma_fp64   K dependent DFMA per thread            2 N K FLOPs (fp64)
//   fma_half2  K dependent HFMA2 per thread           4 N K FLOPs (fp16: two lanes, FMA = 2)
//   mma_fp16   K wmma 16x16x16 per warp (fp16->fp32)  2*16*16*16 K per warp (tensor path)
//   copy_f4    a float4 copy of B bytes               B read + B written from DRAM, 0 FLOPs
// Each runs LAUNCHES times, so that counter mode measures some launches and reuses the rest.
// It prints one "expect" line per kernel; the check compares them with the report.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kLaunches = 40;  // 3 samples of up to 11 pass groups (GB202), one launch each
constexpr int kThreads = 256;
constexpr int kBlocks = 1024;
constexpr int kChain = 4096;  // FMAs per thread

#define CHECK(call)                                                          \
  do {                                                                       \
    const cudaError_t e = (call);                                            \
    if (e != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

}  // namespace

__global__ void fma_fp32(float* out, float b, float c, int chain) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = out[i];
  for (int k = 0; k < chain; ++k) a = fmaf(a, b, c);
  out[i] = a;
}

__global__ void fma_fp64(double* out, double b, double c, int chain) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a = out[i];
  for (int k = 0; k < chain; ++k) a = fma(a, b, c);
  out[i] = a;
}

__global__ void fma_half2(__half2* out, __half2 b, __half2 c, int chain) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 a = out[i];
  for (int k = 0; k < chain; ++k) a = __hfma2(a, b, c);
  out[i] = a;
}

__global__ void mma_fp16(const __half* a, const __half* b, float* c, int chain) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
  for (int k = 0; k < chain; ++k) wmma::mma_sync(acc, fa, fb, acc);
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  wmma::store_matrix_sync(c + 256 * (warp + 1), acc, 16, wmma::mem_row_major);
}

__global__ void copy_f4(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

int main() {
  const double threads = static_cast<double>(kBlocks) * kThreads;

  float* f32 = nullptr;
  CHECK(cudaMalloc(&f32, kBlocks * kThreads * sizeof(float)));
  CHECK(cudaMemset(f32, 0, kBlocks * kThreads * sizeof(float)));
  for (int i = 0; i < kLaunches; ++i) {
    fma_fp32<<<kBlocks, kThreads>>>(f32, 0.999f, 0.001f, kChain);
    CHECK(cudaGetLastError());
  }
  std::printf("expect fma_fp32 flops %.0f launches %d\n", 2.0 * threads * kChain, kLaunches);

  double* f64 = nullptr;
  CHECK(cudaMalloc(&f64, kBlocks * kThreads * sizeof(double)));
  CHECK(cudaMemset(f64, 0, kBlocks * kThreads * sizeof(double)));
  for (int i = 0; i < kLaunches; ++i) {
    fma_fp64<<<kBlocks, kThreads>>>(f64, 0.999, 0.001, kChain);
    CHECK(cudaGetLastError());
  }
  std::printf("expect fma_fp64 flops %.0f launches %d\n", 2.0 * threads * kChain, kLaunches);

  __half2* h2 = nullptr;
  CHECK(cudaMalloc(&h2, kBlocks * kThreads * sizeof(__half2)));
  CHECK(cudaMemset(h2, 0, kBlocks * kThreads * sizeof(__half2)));
  for (int i = 0; i < kLaunches; ++i) {
    fma_half2<<<kBlocks, kThreads>>>(h2, __floats2half2_rn(0.5f, 0.5f),
                                     __floats2half2_rn(0.25f, 0.25f), kChain);
    CHECK(cudaGetLastError());
  }
  std::printf("expect fma_half2 flops %.0f launches %d\n", 4.0 * threads * kChain, kLaunches);

  // One warp per block: 64 warps, each its own 16x16 output tile.
  constexpr int kMmaBlocks = 64;
  constexpr int kMmaChain = 1024;
  __half* ma = nullptr;
  __half* mb = nullptr;
  float* mc = nullptr;
  CHECK(cudaMalloc(&ma, 256 * sizeof(__half)));
  CHECK(cudaMalloc(&mb, 256 * sizeof(__half)));
  CHECK(cudaMalloc(&mc, 256 * (kMmaBlocks + 1) * sizeof(float)));
  CHECK(cudaMemset(ma, 0, 256 * sizeof(__half)));
  CHECK(cudaMemset(mb, 0, 256 * sizeof(__half)));
  CHECK(cudaMemset(mc, 0, 256 * (kMmaBlocks + 1) * sizeof(float)));
  for (int i = 0; i < kLaunches; ++i) {
    mma_fp16<<<kMmaBlocks, 32>>>(ma, mb, mc, kMmaChain);
    CHECK(cudaGetLastError());
  }
  std::printf("expect mma_fp16 tensor_flops %.0f launches %d\n",
              2.0 * 16 * 16 * 16 * kMmaChain * kMmaBlocks, kLaunches);

  // Far larger than any L2, so that DRAM traffic is the copy itself (within a few percent).
  size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  size_t bytes = std::min<size_t>(size_t{2} << 30, free_bytes / 3);
  bytes -= bytes % (16 * 1024 * 1024);
  const size_t n = bytes / sizeof(float4);
  float4* in = nullptr;
  float4* out = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMemset(in, 1, bytes));
  CHECK(cudaMemset(out, 0, bytes));
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < kLaunches; ++i) {
    copy_f4<<<4096, 256>>>(in, out, n);
    CHECK(cudaGetLastError());
  }
  std::printf("expect copy_f4 dram_bytes %zu flops 0 launches %d\n", 2 * bytes, kLaunches);

  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(ma));
  CHECK(cudaFree(mb));
  CHECK(cudaFree(mc));
  CHECK(cudaFree(h2));
  CHECK(cudaFree(f64));
  CHECK(cudaFree(f32));
  std::printf("done\n");
  return 0;
}
