// Sizing and arithmetic of the GPU ceilings microbenchmarks; no CUDA here.
#include "flopspy/gpu_roofline/ceilings_plan.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;

constexpr uint64_t kMiB = uint64_t{1} << 20;

// The chain counts and unrolls must match the template arguments in ceilings_kernels.cu.
constexpr std::array<FmaChainKernel, 4> kFmaKernels{{
    {"fma_fp32", "flopspy_fma_fp32", ComputePath::kFp32, 8, 1, 32, 0, 0},
    {"fma_fp64", "flopspy_fma_fp64", ComputePath::kFp64, 8, 1, 16, 0, 0},
    {"fma_fp16", "flopspy_fma_fp16", ComputePath::kFp16, 8, 2, 32, 0, 0},
    {"fma_bf16", "flopspy_fma_bf16", ComputePath::kBf16, 8, 2, 32, 8, 0},
}};

// Minimum compute capabilities: cuBLASLt's TF32 and BF16 tensor paths start with Ampere (8.0),
// FP8 with Ada (8.9); int8 IMMA and FP16 HMMA exist on every GPU CUDA 13 supports (7.5 on).
constexpr std::array<GemmCase, 8> kGemmCases{{
    {"gemm_fp16", "fp16 in, fp32 accumulate, fp16 out", ComputePath::kFp16Tensor, 2, 2, 0, 0},
    {"gemm_fp16_fp16acc", "fp16 in, fp16 accumulate, fp16 out", ComputePath::kFp16TensorHalfAcc, 2,
     2, 0, 0},
    {"gemm_bf16", "bf16 in, fp32 accumulate, bf16 out", ComputePath::kBf16Tensor, 2, 2, 8, 0},
    {"gemm_tf32", "fp32 in, tf32 multiply, fp32 accumulate", ComputePath::kTf32Tensor, 4, 4, 8, 0},
    {"gemm_fp8", "fp8 e4m3 in, fp32 accumulate, bf16 out", ComputePath::kFp8Tensor, 1, 2, 8, 9},
    {"gemm_int8", "int8 in, int32 accumulate, int32 out", ComputePath::kInt8Tensor, 1, 4, 7, 5},
    {"gemm_fp32", "fp32 in, fp32 on CUDA cores, fp32 out", ComputePath::kFp32, 4, 4, 0, 0},
    {"gemm_fp64", "fp64 in, fp64 accumulate, fp64 out", ComputePath::kFp64Tensor, 8, 8, 0, 0},
}};

}  // namespace

LaunchGrid FillAllSms(int sm_count, int max_threads_per_sm, int threads_per_block,
                      int resident_blocks_per_sm) {
  LaunchGrid grid;
  if (sm_count <= 0 || threads_per_block <= 0) return grid;
  grid.threads_per_block = threads_per_block;
  int per_sm = resident_blocks_per_sm;
  if (per_sm <= 0) per_sm = max_threads_per_sm > 0 ? max_threads_per_sm / threads_per_block : 1;
  grid.blocks = sm_count * std::max(per_sm, 1);
  return grid;
}

std::span<const FmaChainKernel> FmaChainKernels() {
  return kFmaKernels;
}

double FmaChainFlops(const LaunchGrid& grid, const FmaChainKernel& kernel, int64_t iterations) {
  return 2.0 * kernel.lanes * kernel.chains * static_cast<double>(iterations) *
         static_cast<double>(grid.Threads());
}

int64_t ScaleIterations(int64_t trial_iterations, double trial_seconds, double target_seconds,
                        int64_t multiple, int64_t max_iterations) {
  multiple = std::max<int64_t>(multiple, 1);
  max_iterations = std::max(max_iterations / multiple * multiple, multiple);
  if (!(trial_seconds > 0) || !std::isfinite(trial_seconds) || trial_iterations <= 0) {
    return max_iterations;  // the trial ran too fast to time: as long as allowed
  }
  const double want = static_cast<double>(trial_iterations) * target_seconds / trial_seconds;
  if (!(want < static_cast<double>(max_iterations))) return max_iterations;
  const int64_t rounded = static_cast<int64_t>(want) / multiple * multiple;
  return std::clamp(rounded, multiple, max_iterations);
}

uint64_t DramWorkingSetBytes(uint64_t l2_bytes, uint64_t free_bytes, bool quick) {
  const uint64_t floor = quick ? 256 * kMiB : 1024 * kMiB;
  uint64_t want = std::max(8 * l2_bytes, floor);
  want = std::min(want, free_bytes / 4);
  want = want / kMiB * kMiB;
  if (want == 0 || want < 4 * l2_bytes) return 0;
  return want;
}

uint64_t L2WorkingSetBytes(uint64_t l2_bytes) {
  constexpr uint64_t kGrain = 64 * 1024;
  return l2_bytes / 2 / kGrain * kGrain;
}

double CopyBytes(uint64_t size) {
  return 2.0 * static_cast<double>(size);
}

double ReadBytes(uint64_t size, int passes) {
  return static_cast<double>(size) * std::max(passes, 0);
}

std::span<const GemmCase> GemmCases() {
  return kGemmCases;
}

ComputePath GemmPathOnDevice(const GemmCase& gemm, const analyzers::DeviceRoofs& roofs) {
  if (gemm.path == ComputePath::kFp64Tensor && roofs.Flops(ComputePath::kFp64Tensor).nominal <= 0) {
    return ComputePath::kFp64;
  }
  return gemm.path;
}

bool SupportsComputeCapability(int cc_major, int cc_minor, int min_major, int min_minor) {
  return cc_major > min_major || (cc_major == min_major && cc_minor >= min_minor);
}

double GemmFlops(int64_t m, int64_t n, int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

uint64_t GemmBytes(int n, const GemmCase& gemm) {
  const uint64_t elems = static_cast<uint64_t>(n) * static_cast<uint64_t>(n);
  return elems *
         (2 * static_cast<uint64_t>(gemm.input_bytes) + static_cast<uint64_t>(gemm.output_bytes));
}

int GemmSize(double flops_per_s, double target_seconds, int min_n, int max_n, const GemmCase& gemm,
             uint64_t memory_budget) {
  constexpr int kAlign = 256;
  min_n = std::max(min_n / kAlign * kAlign, kAlign);
  max_n = std::max(max_n / kAlign * kAlign, min_n);
  int n = max_n;
  if (flops_per_s > 0 && target_seconds > 0) {
    const double cube = std::cbrt(flops_per_s * target_seconds / 2.0);
    if (cube < max_n) n = std::max(static_cast<int>(cube) / kAlign * kAlign, min_n);
  }
  while (memory_budget > 0 && GemmBytes(n, gemm) > memory_budget) {
    if (n <= min_n) return 0;
    n = std::max(n / 2 / kAlign * kAlign, min_n);
  }
  return n;
}

TimingSummary SummariseTimes(std::vector<double> seconds) {
  std::erase_if(seconds, [](double s) { return !(s > 0) || !std::isfinite(s); });
  TimingSummary out;
  out.repetitions = static_cast<int>(seconds.size());
  if (seconds.empty()) return out;
  std::sort(seconds.begin(), seconds.end());
  out.best_seconds = seconds.front();
  const size_t mid = seconds.size() / 2;
  out.median_seconds =
      seconds.size() % 2 == 1 ? seconds[mid] : 0.5 * (seconds[mid - 1] + seconds[mid]);
  return out;
}

double RatePerSecond(double work, double seconds) {
  return seconds > 0 && std::isfinite(seconds) ? work / seconds : 0;
}

std::optional<double> SmClockMhz(std::span<const int64_t> start_end_pairs, double kernel_seconds) {
  if (!(kernel_seconds > 0)) return std::nullopt;
  std::vector<double> cycles;
  for (size_t i = 0; i + 1 < start_end_pairs.size(); i += 2) {
    const int64_t d = start_end_pairs[i + 1] - start_end_pairs[i];
    if (d > 0) cycles.push_back(static_cast<double>(d));
  }
  if (cycles.empty()) return std::nullopt;
  std::nth_element(cycles.begin(), cycles.begin() + cycles.size() / 2, cycles.end());
  return cycles[cycles.size() / 2] / kernel_seconds / 1e6;
}

}  // namespace flopspy::gpuroof
