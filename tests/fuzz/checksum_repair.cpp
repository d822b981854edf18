#include "checksum_repair.h"

#include <cstddef>
#include <cstring>

#include "flopspy/trace/crc32c.h"
#include "flopspy/trace/schema.h"

namespace flopspy::fuzz {
namespace {

// The record count the reader expects of a payload, or nothing when its framing is broken (then
// the count stays as it is and the reader says so).
bool CountRecords(const uint8_t* payload, size_t size, uint32_t* count) {
  uint32_t n = 0;
  for (size_t pos = 0; pos < size; ++n) {
    if (size - pos < sizeof(trace::RecordHeader)) return false;
    trace::RecordHeader rh;
    std::memcpy(&rh, payload + pos, sizeof rh);
    if (rh.size8 == 0 || rh.size() > size - pos) return false;
    pos += rh.size();
  }
  *count = n;
  return true;
}

}  // namespace

size_t RepairChecksums(uint8_t* data, size_t size, RepairOptions options) {
  using trace::ChunkHeader;
  using trace::FileHeader;
  if (size < offsetof(FileHeader, header_size) + 4 ||
      std::memcmp(data, trace::kFileMagic, sizeof trace::kFileMagic) != 0) {
    return 0;
  }
  uint32_t header_size;
  std::memcpy(&header_size, data + offsetof(FileHeader, header_size), 4);
  if (header_size < 8 || header_size > size || header_size % 8 != 0) return 0;
  const uint32_t header_crc = trace::Crc32c(data, header_size - 4);
  std::memcpy(data + header_size - 4, &header_crc, 4);

  size_t repaired = 0;
  for (size_t offset = header_size; size - offset >= sizeof(ChunkHeader);) {
    ChunkHeader ch;
    std::memcpy(&ch, data + offset, sizeof ch);
    if (ch.magic != trace::kChunkMagic || ch.payload_size > trace::kMaxChunkPayload ||
        ch.payload_size % trace::kRecordAlign != 0 ||
        ch.payload_size > size - offset - sizeof(ChunkHeader)) {
      break;
    }
    const uint8_t* payload = data + offset + sizeof(ChunkHeader);
    // A compressed payload's records are counted only once decompressed: its count stays.
    if (options.record_counts && (ch.flags & trace::kChunkZstd) == 0) {
      CountRecords(payload, ch.payload_size, &ch.record_count);
    }
    ch.crc =
        trace::Crc32c(payload, ch.payload_size, trace::Crc32c(&ch, offsetof(ChunkHeader, crc)));
    std::memcpy(data + offset, &ch, sizeof ch);
    offset += sizeof(ChunkHeader) + ch.payload_size;
    ++repaired;
  }
  return repaired;
}

}  // namespace flopspy::fuzz
