// NVTX_INJECTION64_PATH=/abs/path/libflopspy.so: each NVTX loader in the process (one per library
// built with the NVTX 3 headers) loads the library at its first NVTX call and calls this once
// (docs/nvtx.md). Under LD_PRELOAD the dlopen finds the copy already loaded.
#include "nvtx_payload.h"
#include "nvtx_receiver.h"

#define FLOPSPY_EXPORT extern "C" __attribute__((visibility("default")))

FLOPSPY_EXPORT int InitializeInjectionNvtx2(flopspy::interpose::NvtxExportTableGetter get) {
  return flopspy::interpose::AttachNvtx(get);
}

// The payload extension's loader (one per library, as NVTX's) calls this at the first payload
// call: schema and enum registration (NCCL's collectives' payloads, docs/nvtx.md).
FLOPSPY_EXPORT int InitializeInjectionNvtxExtension(void* module_info) {
  return flopspy::interpose::AttachNvtxExtension(module_info);
}
