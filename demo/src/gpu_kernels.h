// Host-side launchers for the kernels of gpu_kernels.cuh, so that the GPU workload's logic is
// plain C++ compiled by the host compiler and only the kernels go through nvcc.
#ifndef FLOPSPY_DEMO_GPU_KERNELS_H_
#define FLOPSPY_DEMO_GPU_KERNELS_H_

#include <cuda_runtime_api.h>

namespace flopspy_demo {

inline constexpr int kThreadsPerBlock = 256;
// Blocks of the first sum pass at most, hence partial sums to reduce in the second pass.
inline constexpr int kMaxSumBlocks = 1024;

enum class UnaryOp { kPow, kSin, kSqrt, kSigmoid, kLog10 };

struct LaunchShape {
  int blocks = 1;
  cudaStream_t stream = nullptr;
};

// Each returns the launch's status (cudaGetLastError), so a launch that fails is reported there.
cudaError_t LaunchFill(LaunchShape shape, int n, float value, float* out);
// exponent is used by UnaryOp::kPow only.
cudaError_t LaunchUnary(LaunchShape shape, UnaryOp op, float exponent, int n, const float* in,
                        float* out);
cudaError_t LaunchMul(LaunchShape shape, int n, const float* a, const float* b, float* out);
// Writes shape.blocks partial sums (at most kMaxSumBlocks) to partial.
cudaError_t LaunchSum(LaunchShape shape, int n, const float* in, float* partial);

}  // namespace flopspy_demo

#endif  // FLOPSPY_DEMO_GPU_KERNELS_H_
