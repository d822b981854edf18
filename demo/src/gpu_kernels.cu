#include "gpu_kernels.cuh"
#include "gpu_kernels.h"

namespace flopspy_demo {
namespace {

template <class Op>
cudaError_t Unary(LaunchShape shape, Op op, int n, const float* in, float* out) {
  unary_kernel<<<shape.blocks, kThreadsPerBlock, 0, shape.stream>>>(n, op, in, out);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFill(LaunchShape shape, int n, float value, float* out) {
  fill_kernel<<<shape.blocks, kThreadsPerBlock, 0, shape.stream>>>(n, value, out);
  return cudaGetLastError();
}

cudaError_t LaunchUnary(LaunchShape shape, UnaryOp op, float exponent, int n, const float* in,
                        float* out) {
  switch (op) {
    case UnaryOp::kPow:
      return Unary(shape, PowOp{exponent}, n, in, out);
    case UnaryOp::kSin:
      return Unary(shape, SinOp{}, n, in, out);
    case UnaryOp::kSqrt:
      return Unary(shape, SqrtOp{}, n, in, out);
    case UnaryOp::kSigmoid:
      return Unary(shape, SigmoidOp{}, n, in, out);
    case UnaryOp::kLog10:
      return Unary(shape, Log10Op{}, n, in, out);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchMul(LaunchShape shape, int n, const float* a, const float* b, float* out) {
  binary_kernel<<<shape.blocks, kThreadsPerBlock, 0, shape.stream>>>(n, MulOp{}, a, b, out);
  return cudaGetLastError();
}

cudaError_t LaunchSum(LaunchShape shape, int n, const float* in, float* partial) {
  if (shape.blocks < 1 || shape.blocks > kMaxSumBlocks) return cudaErrorInvalidValue;
  sum_kernel<kThreadsPerBlock><<<shape.blocks, kThreadsPerBlock, 0, shape.stream>>>(n, in, partial);
  return cudaGetLastError();
}

}  // namespace flopspy_demo
