// Device code of flopspy-demo. The shapes are a contract with flopspy's kernel catalog, which
// models these kernels by their demangled names: element count first, grid-stride loops, and
// elementwise kernels as templates over an operation functor.
#ifndef FLOPSPY_DEMO_GPU_KERNELS_CUH_
#define FLOPSPY_DEMO_GPU_KERNELS_CUH_

namespace flopspy_demo {

struct SinOp {
  __device__ float operator()(float x) const { return sinf(x); }
};
struct SqrtOp {
  __device__ float operator()(float x) const { return sqrtf(x); }
};
struct SigmoidOp {
  __device__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); }
};
struct Log10Op {
  __device__ float operator()(float x) const { return log10f(x); }
};
struct PowOp {
  float exponent;
  __device__ float operator()(float x) const { return powf(x, exponent); }
};
struct MulOp {
  __device__ float operator()(float a, float b) const { return a * b; }
};

// 64-bit indices: with n close to INT_MAX, i + stride would overflow an int.
__device__ inline long long FirstIndex() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline long long GridStride() {
  return static_cast<long long>(blockDim.x) * gridDim.x;
}

template <class Op>
__global__ void unary_kernel(int n, Op op, const float* in, float* out) {
  for (long long i = FirstIndex(); i < n; i += GridStride()) out[i] = op(in[i]);
}

template <class Op>
__global__ void binary_kernel(int n, Op op, const float* a, const float* b, float* out) {
  for (long long i = FirstIndex(); i < n; i += GridStride()) out[i] = op(a[i], b[i]);
}

__global__ void fill_kernel(int n, float value, float* out) {
  for (long long i = FirstIndex(); i < n; i += GridStride()) out[i] = value;
}

// One partial sum per block; launched with kBlock threads per block. A second launch with one
// block reduces the partials.
template <int kBlock>
__global__ void sum_kernel(int n, const float* in, float* partial) {
  static_assert(kBlock >= 32 && (kBlock & (kBlock - 1)) == 0, "kBlock: a power of two >= 32");
  __shared__ float shared[kBlock];
  float sum = 0.0f;
  for (long long i = FirstIndex(); i < n; i += GridStride()) sum += in[i];
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kBlock / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = shared[0];
}

}  // namespace flopspy_demo

#endif  // FLOPSPY_DEMO_GPU_KERNELS_CUH_
