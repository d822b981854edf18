// The NVTX receiver (docs/nvtx.md): each NVTX loader in the process (one per library built with
// the NVTX 3 headers) calls InitializeInjectionNvtx2 once; AttachNvtx fills that loader's
// callback tables so that marks, ranges and names become records in the thread's ring.
#pragma once

#include <cstdint>

namespace flopspy::interpose {

// NvtxGetExportTableFunc_t, spelt without the NVTX headers.
using NvtxExportTableGetter = const void* (*)(uint32_t table_id);

// Fills one loader's tables. Returns 1 when attached, 0 when the receiver is off (FLOPSPY_NVTX=0,
// FLOPSPY_ENABLE=0) or the loader offers no core table: NVTX then makes every call a no-op.
// Thread-safe, never throws; each loader calls it once, any number of loaders may.
int AttachNvtx(NvtxExportTableGetter get_export_table) noexcept;

}  // namespace flopspy::interpose
