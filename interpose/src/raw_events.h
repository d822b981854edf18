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
  kRegion = 128,  // RawRegion
};

inline constexpr bool IsRawType(uint8_t type) {
  return type >= 128;
}

inline constexpr size_t kMaxRawName = 112;

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

}  // namespace flopspy::interpose
