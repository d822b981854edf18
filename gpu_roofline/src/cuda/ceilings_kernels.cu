// The kernels of `flopspy ceilings --gpu`, compiled by nvcc into a fatbin that the library
// carries and loads with cuModuleLoadData (no CUDA runtime involved). extern "C" names are the
// ones gpu_roofline/src/ceilings_plan.cpp lists; chain counts and unrolls must match it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

namespace {

__device__ __forceinline__ float Fma(float a, float b, float c) {
  return __fmaf_rn(a, b, c);
}
__device__ __forceinline__ double Fma(double a, double b, double c) {
  return __fma_rn(a, b, c);
}
__device__ __forceinline__ __half2 Fma(__half2 a, __half2 b, __half2 c) {
  return __hfma2(a, b, c);
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__device__ __forceinline__ __nv_bfloat162 Fma(__nv_bfloat162 a, __nv_bfloat162 b,
                                              __nv_bfloat162 c) {
  return __hfma2(a, b, c);
}
#endif

template <class T>
struct Convert;
template <>
struct Convert<float> {
  __device__ static float From(float v) { return v; }
  __device__ static float To(float v) { return v; }
};
template <>
struct Convert<double> {
  __device__ static double From(float v) { return v; }
  __device__ static float To(double v) { return static_cast<float>(v); }
};
template <>
struct Convert<__half2> {
  __device__ static __half2 From(float v) { return __float2half2_rn(v); }
  __device__ static float To(__half2 v) { return __low2float(v) + __high2float(v); }
};
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
template <>
struct Convert<__nv_bfloat162> {
  __device__ static __nv_bfloat162 From(float v) { return __float2bfloat162_rn(v); }
  __device__ static float To(__nv_bfloat162 v) { return __low2float(v) + __high2float(v); }
};
#endif

// kChains independent chains x = x * b + c per thread; b < 1 keeps them bounded and away from
// denormals. Every thread writes its sum so that nothing is dead code; thread 0 of each block
// records clock64 at both ends, for the SM clock the kernel ran at.
template <class T, int kChains, int kUnroll>
__device__ __forceinline__ void FmaChains(float b_in, float c_in, long long iterations, float* out,
                                          long long* clocks) {
  using C = Convert<T>;
  const T b = C::From(b_in);
  const T c = C::From(c_in);
  T x[kChains];
#pragma unroll
  for (int i = 0; i < kChains; ++i) {
    x[i] = C::From(0.25f + 0.01f * static_cast<float>(i) + 1e-4f * (threadIdx.x & 31));
  }
  const long long start = clock64();
  for (long long it = 0; it < iterations; it += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int i = 0; i < kChains; ++i) x[i] = Fma(x[i], b, c);
    }
  }
  const long long end = clock64();
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < kChains; ++i) sum += C::To(x[i]);
  out[static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
  if (threadIdx.x == 0 && clocks != nullptr) {
    clocks[2 * blockIdx.x] = start;
    clocks[2 * blockIdx.x + 1] = end;
  }
}

__device__ __forceinline__ uint32_t Hash(uint64_t i, uint32_t seed) {
  uint32_t h = static_cast<uint32_t>(i) * 0x9E3779B1u ^ static_cast<uint32_t>(i >> 32) ^ seed;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

// Uniform in [-0.5, 0.5): varied bits (constant inputs would let the tensor cores draw less power
// and run faster than on real data), small enough that no sum overflows.
__device__ __forceinline__ float Uniform(uint64_t i, uint32_t seed) {
  return static_cast<float>(Hash(i, seed) >> 8) * (1.0f / 16777216.0f) - 0.5f;
}

}  // namespace

extern "C" __global__ void flopspy_fma_fp32(float b, float c, long long iterations, float* out,
                                            long long* clocks) {
  FmaChains<float, 8, 32>(b, c, iterations, out, clocks);
}

extern "C" __global__ void flopspy_fma_fp64(float b, float c, long long iterations, float* out,
                                            long long* clocks) {
  FmaChains<double, 8, 16>(b, c, iterations, out, clocks);
}

extern "C" __global__ void flopspy_fma_fp16(float b, float c, long long iterations, float* out,
                                            long long* clocks) {
  FmaChains<__half2, 8, 32>(b, c, iterations, out, clocks);
}

extern "C" __global__ void flopspy_fma_bf16(float b, float c, long long iterations, float* out,
                                            long long* clocks) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  FmaChains<__nv_bfloat162, 8, 32>(b, c, iterations, out, clocks);
#else
  // No bf16 arithmetic before sm_80; the host never launches this there.
  __trap();
#endif
}

// Reads `count` 16-byte vectors `passes` times, four independent loads in flight per thread,
// bypassing L1 (ld.global.cg) so that a working set smaller than the L2 is served by the L2 and
// not by each SM's L1. The sum is written so that the loads are not dead code.
extern "C" __global__ void flopspy_read(const uint4* __restrict__ data, unsigned long long count,
                                        int passes, unsigned* out) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long first =
      static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (int pass = 0; pass < passes; ++pass) {
    unsigned long long i = first;
    for (; i + 3 * stride < count; i += 4 * stride) {
      const uint4 a = __ldcg(data + i);
      const uint4 b = __ldcg(data + i + stride);
      const uint4 c = __ldcg(data + i + 2 * stride);
      const uint4 d = __ldcg(data + i + 3 * stride);
      acc += (a.x ^ a.y ^ a.z ^ a.w) + (b.x ^ b.y ^ b.z ^ b.w) + (c.x ^ c.y ^ c.z ^ c.w) +
             (d.x ^ d.y ^ d.z ^ d.w);
    }
    for (; i < count; i += stride) {
      const uint4 a = __ldcg(data + i);
      acc += a.x ^ a.y ^ a.z ^ a.w;
    }
  }
  out[first] = acc;
}

// GEMM inputs, one kernel per element type; grid-stride.
#define FLOPSPY_FILL(NAME, TYPE, EXPR)                                                         \
  extern "C" __global__ void NAME(TYPE* p, unsigned long long n, unsigned seed) {              \
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x; \
    for (unsigned long long i =                                                                \
             static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;           \
         i < n; i += stride) {                                                                 \
      const float u = Uniform(i, seed);                                                        \
      p[i] = (EXPR);                                                                           \
    }                                                                                          \
  }

FLOPSPY_FILL(flopspy_fill_f32, float, u)
FLOPSPY_FILL(flopspy_fill_f64, double, static_cast<double>(u))
FLOPSPY_FILL(flopspy_fill_f16, __half, __float2half_rn(u))
FLOPSPY_FILL(flopspy_fill_bf16, __nv_bfloat16, __float2bfloat16_rn(u))
FLOPSPY_FILL(flopspy_fill_e4m3, __nv_fp8_e4m3, __nv_fp8_e4m3(u))
FLOPSPY_FILL(flopspy_fill_i8, int8_t, static_cast<int8_t>(static_cast<int>(u * 127.0f)))
