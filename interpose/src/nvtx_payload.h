// NVTX payloads (docs/nvtx.md, "Payloads"): the payload extension's schema and enum registration,
// and the figures flopspy reads from a range's payload (message size, reduction op,
// communicator), as NCCL attaches them to each collective's range.
#pragma once

#include <cstddef>
#include <cstdint>

#include "flopspy/trace/schema.h"
#include "raw_events.h"

namespace flopspy::interpose {

// NVTX_PAYLOAD_TYPE_EXT: an event attribute's payloadType when payload.ullValue points at
// reserved0 nvtxPayloadData_t (nvToolsExtPayload.h; checked in nvtx_payload.cpp).
inline constexpr int32_t kNvtxPayloadTypeExt = static_cast<int32_t>(0xDFBD0009u);

// The figures of one payload; `flags` (trace::RangePayloadFlags) says which were found.
struct NvtxPayloadFigures {
  uint32_t flags = 0;
  uint64_t bytes = 0;
  uint64_t comm = 0;
  const char* op = nullptr;  // an enum value's name, owned by the registry and never freed
};

// Reads the figures of `count` nvtxPayloadData_t at `data`, given with an event of `domain` (the
// nvtxDomainHandle_t's value). Payloads whose schema was never registered, fields out of the
// payload's bounds and entry types it cannot read are skipped. Thread-safe, never throws.
bool ReadNvtxPayload(const void* domain, const void* data, size_t count,
                     NvtxPayloadFigures& out) noexcept;

// The raw record a range's payload becomes, right after its RawRange in the thread's ring. Its
// header says RawType::kRange with kRawRangePayloadFlag, so the encoder's range path takes it.
inline constexpr uint8_t kRawRangePayloadFlag = 1;
struct RawRangePayload {
  trace::RecordHeader h;
  uint32_t flags;  // trace::RangePayloadFlags
  uint64_t bytes;
  uint64_t comm;
  const char* op;  // NvtxPayloadFigures::op
};

// The payload module's InitializeInjectionNvtxExtension: fills its schema and enum registration
// slots. Returns 1, or 0 when the receiver is off; other extension modules get no slots.
int AttachNvtxExtension(void* module_info) noexcept;

}  // namespace flopspy::interpose
