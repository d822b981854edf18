// The kernel catalog's say in how many parameter bytes a launch keeps. The hooks copy
// FunctionInfo::wanted_param_bytes leading bytes per launch (FLOPSPY_PARAM_BYTES to start with);
// the flusher, which demangles each kernel's name once when it first defines the function,
// raises that figure when the catalog's model for the kernel reads further (a double-precision
// reduction's ReduceConfig, softmax sizes, a TensorInfo). The hooks never demangle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "flopspy/trace/schema.h"
#include "function_table.h"

namespace flopspy::interpose {

// The most leading bytes one launch can carry: KernelLaunchRecord::param_bytes is a uint8, and
// the inline bytes plus one LaunchParamsRecord hold 260.
inline constexpr uint16_t kMaxCapturedParamBytes = static_cast<uint16_t>(
    std::min<size_t>(UINT8_MAX, trace::kInlineParamBytes + trace::kExtraParamBytes));

// What `demangled`'s catalog model needs, capped at kMaxCapturedParamBytes; 0 when none.
uint16_t CatalogParamBytes(std::string_view demangled);

// Raises info.wanted_param_bytes to CatalogParamBytes(demangled). Never lowers it, and leaves
// it at 0 when the user turned parameter capture off (FLOPSPY_PARAM_BYTES=0). Returns the value
// now in force.
uint16_t RaiseWantedParamBytes(FunctionInfo& info, std::string_view demangled);

}  // namespace flopspy::interpose
