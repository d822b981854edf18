// Helpers shared by the catalog's sources; not part of the public API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers::catalog_detail {

// at::cuda::detail::TensorInfo<T, unsigned int>: {T* data; unsigned sizes[25]; unsigned
// strides[25]; int dims;} (aten/src/ATen/cuda/detail/TensorInfo.cuh, MAX_TENSORINFO_DIMS 25).
inline constexpr int kTensorInfoMaxDims = 25;
inline constexpr int kTensorInfoSizesAt = 8;
inline constexpr int kTensorInfoDimsAt = 8 + 2 * 4 * kTensorInfoMaxDims;  // 208
inline constexpr int kTensorInfoBytes = 216;

// Whole-string glob match; '*' matches any run of characters (including none).
bool GlobMatch(std::string_view pattern, std::string_view text);

// Byte size of a parameter type as spelled in a demangled signature ("int", "float const*",
// "long"); nullopt for class types passed by value, whose size the name does not tell.
std::optional<int> ScalarParamSize(std::string_view type);

// Reads the integer parameter `index` of a launch: from the captured layout when there is one,
// else from offsets implied by the signature (the CUDA ABI lays parameters out like a struct).
// Sign extension follows the spelled type. nullopt, with `why` set, when the bytes are missing or
// the layout disagrees with the signature.
std::optional<int64_t> ReadIntParam(const KernelClass& kc, const LaunchFacts& launch, int index,
                                    std::string* why);
// The same for a pointer parameter (returns its value; 0 means nullptr).
std::optional<uint64_t> ReadPointerParam(const KernelClass& kc, const LaunchFacts& launch,
                                         int index, std::string* why);
// Byte offset of parameter `index` (layout first, then the signature).
std::optional<int> ParamOffset(const KernelClass& kc, const LaunchFacts& launch, int index);

// Little-endian reads at an absolute offset of the captured bytes.
std::optional<int64_t> LoadSigned(const LaunchFacts& launch, size_t offset, int size);
std::optional<uint64_t> LoadUnsigned(const LaunchFacts& launch, size_t offset, int size);

}  // namespace flopspy::analyzers::catalog_detail
