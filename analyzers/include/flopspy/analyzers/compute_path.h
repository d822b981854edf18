// The execution paths whose peaks bound a piece of GPU work: data type and unit (CUDA cores or
// tensor cores). Shared by the BLAS formula table (which path a call runs on), the kernel catalog,
// the device peak table (gpu_roofline/) and roofline placement.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace flopspy::analyzers {

enum class ComputePath : uint8_t {
  kUnknown = 0,
  // CUDA cores.
  kFp64 = 1,
  kFp32 = 2,
  kFp16 = 3,  // half2 arithmetic on CUDA cores
  kBf16 = 4,
  // Tensor cores, dense (no structured sparsity).
  kFp64Tensor = 5,
  kTf32Tensor = 6,
  kFp16Tensor = 7,         // FP16 inputs, FP32 accumulate: the usual datasheet figure
  kFp16TensorHalfAcc = 8,  // FP16 inputs and accumulate (twice as fast on GeForce parts)
  kBf16Tensor = 9,
  kFp8Tensor = 10,
  kInt8Tensor = 11,
  kFp4Tensor = 12,
  kCount = 13,
};

inline constexpr int kComputePathCount = static_cast<int>(ComputePath::kCount);

// Stable lower-case names used in JSON, CSV and the trace metadata ("fp32", "bf16_tensor", ...).
std::string_view ComputePathName(ComputePath path);
std::optional<ComputePath> ComputePathFromName(std::string_view name);
bool IsTensorPath(ComputePath path);

// Memory levels with a bandwidth roof.
enum class MemoryLevel : uint8_t { kDram = 0, kL2 = 1, kCount = 2 };
std::string_view MemoryLevelName(MemoryLevel level);

}  // namespace flopspy::analyzers
