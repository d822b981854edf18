// Records of a chunk arranged in columns before compression (ChunkFlags::kChunkColumns, format
// 6, docs/trace-format.md, "Compressed chunks"): records of one type and size are grouped, and
// each group is stored word by word (the first 8 bytes of every record, then the next 8...), so
// that zstd sees runs of similar values (timestamps, ids, shapes) instead of interleaved records.
// The chunk's record order is kept in a sequence of group numbers. On a training job's trace,
// 13.8 bytes a launch against plain zstd's 24.8 (docs/performance.md, "Trace size").
//
// Layout, little-endian, every part a multiple of 8 bytes:
//   u32 group count, u32 0
//   per group: u32 record bytes (a multiple of 8), u32 records
//   per record, in chunk order: u16 its group, zero-padded to 8 bytes
//   per group, per word w: word w of each of its records, in order
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace flopspy::trace {

// `payload` (whole records, `record_count` of them) arranged into `out`; false when it has more
// than 65,535 kinds of record (then it is compressed as it is).
bool ArrangeInColumns(std::span<const uint8_t> payload, uint32_t record_count,
                      std::vector<uint8_t>* out);

// The records back in chunk order into `out`; false with `error` when `columns` is not what
// ArrangeInColumns makes of `record_count` records of at most `max_bytes` in all.
bool RestoreFromColumns(std::span<const uint8_t> columns, uint32_t record_count, size_t max_bytes,
                        std::vector<uint8_t>* out, std::string* error);

}  // namespace flopspy::trace
