#include "flopspy/analyzers/compute_path.h"

#include <array>

namespace flopspy::analyzers {
namespace {

constexpr std::array<std::string_view, kComputePathCount> kNames = {
    "unknown",     "fp64",        "fp32",
    "fp16",        "bf16",        "fp64_tensor",
    "tf32_tensor", "fp16_tensor", "fp16_tensor_fp16acc",
    "bf16_tensor", "fp8_tensor",  "int8_tensor",
    "fp4_tensor"};

}  // namespace

std::string_view ComputePathName(ComputePath path) {
  const auto i = static_cast<size_t>(path);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::optional<ComputePath> ComputePathFromName(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<ComputePath>(i);
  }
  return std::nullopt;
}

bool IsTensorPath(ComputePath path) {
  return path >= ComputePath::kFp64Tensor && path < ComputePath::kCount;
}

std::string_view MemoryLevelName(MemoryLevel level) {
  switch (level) {
    case MemoryLevel::kDram:
      return "dram";
    case MemoryLevel::kL2:
      return "l2";
    case MemoryLevel::kCount:
      break;
  }
  return "unknown";
}

}  // namespace flopspy::analyzers
