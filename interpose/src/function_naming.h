// Cold path of the launch hooks: what a kernel handle is, asked once per handle on its first
// launch (its mangled name and parameter layout, through the loaded driver or runtime). Never on
// a later launch of the same handle: that is one lock-free FunctionTable lookup.
#pragma once

#include <cstdint>

#include "function_table.h"

namespace flopspy::interpose {

// The function table entry for a handle; on first sight the name and parameter layout are
// looked up (the only slow step, once per kernel). `runtime`, for a runtime handle: a function of
// the libcudart copy the launch went to, which is then the one asked (a process may hold two; a
// handle means something to its own copy only). Never throws: nullptr when the entry cannot be
// made (no memory), and the launch is recorded without a function.
FunctionInfo* FunctionFor(uint64_t handle, FunctionKind kind,
                          const void* runtime = nullptr) noexcept;

// Fills `info.mangled_name` and `info.layout` from the driver or runtime (info.handle, info.kind
// set). Leaves them empty or unknown when the loaded CUDA cannot say.
void NameFunction(FunctionInfo& info, const void* runtime);

}  // namespace flopspy::interpose
