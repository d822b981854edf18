// Makes the program's NVTX loaders find libflopspy.so under plain LD_PRELOAD (docs/nvtx.md).
#pragma once

#include "config.h"

namespace flopspy::interpose {

// At start, before the program's first NVTX call: sets NVTX_INJECTION64_PATH to this library's
// own path when it is unset or empty (and FLOPSPY_NVTX is on). When it names another tool
// (nsys, a CUPTI injection), leaves it and says so in one line, recorded as a warning too.
void PrepareNvtxInjection(const Config& config);

}  // namespace flopspy::interpose
