// The flusher's half of the NVTX receiver: raw range edges and resource names become
// trace::RangeRecord and trace::ResourceNameRecord, their names interned (StringDefs before use).
#include <algorithm>
#include <cstring>

#include "encoder.h"
#include "nvtx_payload.h"

namespace flopspy::interpose {

void Encoder::EncodeRange(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  if ((record[1] & kRawRangePayloadFlag) != 0) {  // the payload of the range edge before it
    RawRangePayload raw{};
    std::memcpy(&raw, record, std::min(size, sizeof(raw)));
    trace::RangePayloadRecord out{};
    out.h = trace::MakeHeader<trace::RangePayloadRecord>();
    out.flags = raw.flags;
    out.bytes = raw.bytes;
    out.comm = raw.comm;
    // Enum names are the payload registry's, never freed (nvtx_payload.h).
    out.op = raw.op == nullptr ? 0 : Intern(raw.op, chunk);
    Append(chunk, &out, sizeof(out));
    return;
  }
  RawRange raw{};
  std::memcpy(&raw, record, std::min(size, sizeof(raw)));
  trace::RangeRecord out{};
  out.h = trace::MakeHeader<trace::RangeRecord>();
  out.edge = raw.edge;
  out.time_ns = raw.time_ns;
  out.range_id = raw.range_id;
  out.category = raw.category;
  out.color = raw.color;
  // Registered strings and domain names are the receiver's, never freed (nvtx_names.h).
  const std::string_view name = raw.registered != nullptr
                                    ? std::string_view(raw.registered)
                                    : std::string_view(raw.name, raw.name_length);
  out.name = name.empty() ? 0 : Intern(name, chunk);
  out.domain = raw.domain == nullptr ? 0 : Intern(raw.domain, chunk);
  Append(chunk, &out, sizeof(out));
}

void Encoder::EncodeResourceName(const uint8_t* record, size_t size, trace::ChunkBuilder& chunk) {
  RawResourceName raw{};
  std::memcpy(&raw, record, std::min(size, sizeof(raw)));
  trace::ResourceNameRecord out{};
  out.h = trace::MakeHeader<trace::ResourceNameRecord>();
  out.resource = raw.resource;
  out.handle = raw.handle;
  out.name = Intern({raw.name, raw.name_length}, chunk);
  out.domain = raw.domain == nullptr ? 0 : Intern(raw.domain, chunk);
  Append(chunk, &out, sizeof(out));
}

}  // namespace flopspy::interpose
