// The kernel catalog's say in what the hooks do per kernel, worked out on the flusher thread: the
// hooks never demangle or classify. The flusher catalogues each function once, when it first sees
// it in the function table or in a launch record: it demangles the name, publishes the kernel's
// KernelClass on the FunctionInfo (counter mode builds its signatures from it) and settles
// FunctionInfo::wanted_param_bytes: launches before that keep all they can, launches after it
// FLOPSPY_PARAM_BYTES or, when the catalog's model reads further, that far (a double-precision
// reduction's ReduceConfig, softmax sizes, a TensorInfo, an attention parameter block).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
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

// What a kernel's launches keep before the flusher has catalogued it: the most one launch can
// carry, since its model may read that far (an attention kernel's parameter block); 0 when the
// user turned capture off (FLOPSPY_PARAM_BYTES=0).
uint16_t UncataloguedParamBytes(uint16_t configured);

// Settles info.wanted_param_bytes once the kernel is catalogued: the larger of
// info.configured_param_bytes and CatalogParamBytes(demangled), 0 when capture is off. Returns
// the value now in force.
uint16_t SettleWantedParamBytes(FunctionInfo& info, std::string_view demangled);

// Catalogues `info` once (later calls return at once): its demangled name, its class and its
// wanted parameter bytes. Returns the demangled name ("" for an unnamed kernel). Flusher only.
const std::string& CatalogFunction(FunctionInfo& info);

// Catalogues the functions inserted since the last call (`next_id`: the first id not yet seen,
// advanced here). Flusher only.
void CatalogNewFunctions(FunctionTable& table, uint32_t& next_id);

}  // namespace flopspy::interpose
