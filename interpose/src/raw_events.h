// Records as the hooks write them into thread buffers, when they differ from the trace format.
// The flusher turns each into trace records (interning names, assigning ids). Their type numbers
// are 128 and up and never appear in a file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "flopspy/trace/schema.h"

namespace flopspy::interpose {

enum class RawType : uint8_t {
  kRegion = 128,         // RawRegion
  kLaunch = 129,         // RawLaunch
  kLibraryCall = 130,    // RawLibraryCall
  kCpuSample = 131,      // RawCpuSample
  kKernelMetrics = 132,  // RawKernelMetrics
  kGroupedCall = 133,    // RawGroupedCall
  kRange = 134,          // RawRange
  kResourceName = 135,   // RawResourceName
};

inline constexpr bool IsRawType(uint8_t type) {
  return type >= 128;
}

inline constexpr size_t kMaxRawName = 112;

// CUDA's special stream handles (cuda.h: CU_STREAM_LEGACY, CU_STREAM_PER_THREAD), as the hooks
// record them and the flusher reads them.
inline constexpr uint64_t kStreamLegacyHandle = 0x1;
inline constexpr uint64_t kStreamPerThreadHandle = 0x2;

// A region edge with its name copied (the caller's string may not outlive the call).
struct RawRegion {
  trace::RecordHeader h;
  uint8_t edge;  // trace::RegionEdge
  uint8_t name_length;
  uint16_t reserved;
  uint64_t time_ns;
  char name[kMaxRawName];

  void Set(trace::RegionEdge e, uint64_t t, std::string_view text) {
    edge = static_cast<uint8_t>(e);
    time_ns = t;
    const size_t n = std::min(text.size(), kMaxRawName);
    std::memcpy(name, text.data(), n);
    name_length = static_cast<uint8_t>(n);
    const size_t size = trace::AlignRecordSize(offsetof(RawRegion, name) + n);
    h = trace::RecordHeader{static_cast<uint8_t>(RawType::kRegion), 0,
                            static_cast<uint16_t>(size / trace::kRecordAlign)};
  }
};

// Copies `text` into a raw record's name, whole UTF-8 characters only; returns the bytes kept.
inline uint8_t CopyRawName(char (&name)[kMaxRawName], std::string_view text) {
  size_t n = std::min(text.size(), kMaxRawName);
  // Never cut a multi-byte character: back off over its continuation bytes.
  if (n < text.size()) {
    while (n > 0 && (static_cast<uint8_t>(text[n]) & 0xC0) == 0x80) --n;
  }
  std::memcpy(name, text.data(), n);
  return static_cast<uint8_t>(n);
}

// An NVTX mark or range edge (nvtx_receiver.cpp). The name is copied, or, for a registered
// string, is `registered`: text the receiver owns and never frees; `domain` likewise (nullptr:
// the default domain). The flusher interns both into trace::RangeRecord.
struct RawRange {
  trace::RecordHeader h;
  uint8_t edge;  // trace::RangeEdge
  uint8_t name_length;
  uint16_t reserved;
  uint64_t time_ns;
  uint64_t range_id;
  const char* registered;
  const char* domain;
  uint32_t category;
  uint32_t color;
  char name[kMaxRawName];

  void Seal() {
    const size_t size = trace::AlignRecordSize(offsetof(RawRange, name) + name_length);
    h = trace::RecordHeader{static_cast<uint8_t>(RawType::kRange), 0,
                            static_cast<uint16_t>(size / trace::kRecordAlign)};
  }
};

// A name NVTX gave a thread, category, device, context, stream or event (trace::NamedResource).
struct RawResourceName {
  trace::RecordHeader h;
  uint8_t resource;  // trace::NamedResource
  uint8_t name_length;
  uint16_t reserved;
  uint64_t handle;
  const char* domain;  // as RawRange::domain
  char name[kMaxRawName];

  void Seal() {
    const size_t size = trace::AlignRecordSize(offsetof(RawResourceName, name) + name_length);
    h = trace::RecordHeader{static_cast<uint8_t>(RawType::kResourceName), 0,
                            static_cast<uint16_t>(size / trace::kRecordAlign)};
  }
};

// A kernel launch as the hook saw it. The flusher turns the function, grid, block, cluster and
// shared memory into a KernelSignatureDef id and the stream handle into a StreamDef id.
struct RawLaunch {
  trace::RecordHeader h;  // flags: trace::LaunchFlags
  uint16_t api;           // trace::Api
  int16_t device;
  uint64_t enter_ns;
  uint32_t duration_ns;
  int32_t result;
  uint64_t correlation;
  uint32_t function;  // FunctionTable id, 0 if the function could not be identified
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t cluster[3];
  uint32_t dynamic_smem;
  uint64_t stream;
  uint8_t stream_flags;  // trace::StreamFlags
  uint8_t param_bytes;
  uint16_t reserved;
  uint8_t params[trace::kInlineParamBytes + trace::kExtraParamBytes];

  // Sets the header for `param_bytes` captured bytes (flags are set by the caller).
  void Seal() {
    const size_t size = trace::AlignRecordSize(offsetof(RawLaunch, params) + param_bytes);
    h.type = static_cast<uint8_t>(RawType::kLaunch);
    h.size8 = static_cast<uint16_t>(size / trace::kRecordAlign);
  }
};

// A cuBLAS/cuBLASLt call. `record.name` holds the index of its entry in
// analyzers::BlasEntryPoints() plus one (0: unknown routine); the flusher replaces it with the
// interned name, the stream handle with a StreamDef id, and fills flops, bytes and source.
struct RawLibraryCall {
  trace::LibraryCallRecord record;  // record.h.type is RawType::kLibraryCall
  uint64_t stream_handle;

  void Seal() {
    record.h.type = static_cast<uint8_t>(RawType::kLibraryCall);
    record.h.size8 = static_cast<uint16_t>(sizeof(RawLibraryCall) / trace::kRecordAlign);
  }
};
static_assert(sizeof(RawLibraryCall) % trace::kRecordAlign == 0);

// Groups a grouped GEMM record lists one by one; the rest are summed (trace::LibraryGroupsCut).
// 64 groups (8 LibraryGroups records) list a mixture of 64 experts group by group.
inline constexpr int kMaxListedGroups = 64;

// A grouped batched GEMM whose groups differ (trace::kLibGrouped): the call and its groups in one
// record, so that a full buffer drops both or neither. Only `listed` groups are copied.
struct RawGroupedCall {
  RawLibraryCall call;  // call.record.h.type is RawType::kGroupedCall
  uint32_t listed;      // groups[] in use
  uint32_t reserved;
  trace::LibraryGroupsCut cut;
  trace::LibraryGroupShape groups[kMaxListedGroups];

  // A call with no groups to list (every group the same shape, or arrays the hook could not
  // read) goes out as a plain RawLibraryCall: the first sizeof(RawLibraryCall) bytes.
  void Seal() {
    if (listed == 0) {
      call.Seal();
      return;
    }
    const size_t size = offsetof(RawGroupedCall, groups) + listed * sizeof(groups[0]);
    call.record.h.type = static_cast<uint8_t>(RawType::kGroupedCall);
    call.record.h.size8 = static_cast<uint16_t>(size / trace::kRecordAlign);
  }
};
static_assert(sizeof(trace::LibraryGroupShape) % trace::kRecordAlign == 0);
static_assert(offsetof(RawGroupedCall, groups) % trace::kRecordAlign == 0);
// On the hook's stack, and written whole into a thread buffer (64 KiB at the least).
static_assert(sizeof(RawGroupedCall) == 4360);

// A CPU roofline point; a region's name is copied (the flusher interns it).
struct RawCpuSample {
  trace::CpuSampleRecord record;  // record.h.type is RawType::kCpuSample
  uint8_t name_length;
  uint8_t reserved[7];
  char name[kMaxRawName];

  void Set(const trace::CpuSampleRecord& point, std::string_view region) {
    record = point;
    const size_t n = std::min(region.size(), kMaxRawName);
    std::memcpy(name, region.data(), n);
    name_length = static_cast<uint8_t>(n);
    const size_t size = trace::AlignRecordSize(offsetof(RawCpuSample, name) + n);
    record.h = trace::RecordHeader{static_cast<uint8_t>(RawType::kCpuSample), 0,
                                   static_cast<uint16_t>(size / trace::kRecordAlign)};
  }
};

// Counter-measured figures of a launch (counters_mode.h), written right after its launch record.
// The flusher turns the function and shape into the launch's KernelSignatureDef id.
struct RawKernelMetrics {
  trace::KernelMetricsRecord record;  // record.h.type is RawType::kKernelMetrics
  uint32_t function;                  // FunctionTable id
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t cluster[3];
  uint32_t dynamic_smem;

  void Seal() {
    record.h.type = static_cast<uint8_t>(RawType::kKernelMetrics);
    record.h.size8 = static_cast<uint16_t>(sizeof(RawKernelMetrics) / trace::kRecordAlign);
  }
};
static_assert(sizeof(RawKernelMetrics) % trace::kRecordAlign == 0);

}  // namespace flopspy::interpose
