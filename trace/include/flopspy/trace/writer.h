// Building chunks and writing them after a file header. Used by the flusher thread of
// libflopspy.so and by tests that make traces; never on an application thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <memory_resource>
#include <span>
#include <string_view>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::trace {

// Process facts that go into the file header.
struct FileIdentity {
  uint32_t pid = 0;
  uint32_t parent_pid = 0;
  int32_t rank = -1;
  int32_t local_rank = -1;
  uint32_t flags = 0;  // FileFlags
  uint64_t start_realtime_ns = 0;
  uint64_t start_monotonic_ns = 0;
  uint64_t run_id = 0;
  std::string_view host;
  bool compressed_chunks = false;  // the writer compresses: readers of format 5 must refuse it
};

// A complete header, checksum included.
FileHeader MakeFileHeader(const FileIdentity& identity);

// Accumulates records of one source into one chunk. Memory is reserved up front, so appending
// never allocates; Append returns false when the chunk is full and the caller finishes it first.
class ChunkBuilder {
 public:
  // `memory`: where the buffer comes from (the recorder's is wiped on fork).
  explicit ChunkBuilder(size_t capacity_bytes = 1u << 20,
                        std::pmr::memory_resource* memory = std::pmr::get_default_resource());

  void Reset(ChunkSource source, uint32_t thread_id);

  // `record` starts with a RecordHeader whose size() equals `size`.
  bool Append(const void* record, size_t size);

  template <class T>
  bool Append(const T& record) {
    return Append(&record, sizeof(T));
  }

  // Variable-length records: the text follows a fixed part, zero-padded to 8 bytes.
  bool AppendString(uint32_t id, std::string_view text);
  bool AppendMetadata(std::string_view json);

  // Room for a record of `size` bytes?
  bool Fits(size_t size) const { return payload_size() + size <= capacity_; }
  bool empty() const { return record_count_ == 0; }
  uint32_t record_count() const { return record_count_; }
  size_t payload_size() const { return buffer_.size() - sizeof(ChunkHeader); }
  // The records appended so far, one after another, each starting with its RecordHeader.
  std::span<const uint8_t> payload() const {
    return {buffer_.data() + sizeof(ChunkHeader), payload_size()};
  }
  ChunkSource source() const { return source_; }
  uint32_t thread_id() const { return thread_id_; }

  // Seals the chunk (sequence number and checksum) and returns header + payload.
  std::span<const uint8_t> Finish(uint32_t sequence);

 private:
  bool AppendWithTail(const void* fixed, size_t fixed_size, std::string_view tail);

  std::pmr::vector<uint8_t> buffer_;
  size_t capacity_;
  uint32_t record_count_ = 0;
  ChunkSource source_ = ChunkSource::kProcess;
  uint32_t thread_id_ = 0;
};

// The LostRecords records among the records of a chunk payload (ChunkBuilder::payload), in order.
// The recorder states them again when the chunk that held them could not be written.
std::vector<LostRecordsRecord> LostRecordsIn(std::span<const uint8_t> payload);

class ChunkCompressor;

// In a fork() child, before its first chunk: the compression library's load, if the parent was
// loading it when it forked, is started again.
void CompressionAfterFork();

// zstd's level for chunks: fast enough for the flusher (docs/performance.md, "Trace size").
inline constexpr int kDefaultCompressionLevel = 1;

// Writes the header, then chunks in sequence, to any byte sink (a file descriptor in the
// recorder, a vector in tests). A failed sink write is reported by the return value.
class TraceWriter {
 public:
  using Sink = std::function<bool(std::span<const uint8_t>)>;

  explicit TraceWriter(Sink sink);
  ~TraceWriter();
  TraceWriter(TraceWriter&&) noexcept;
  TraceWriter& operator=(TraceWriter&&) noexcept;

  // Chunks written from now on are zstd-compressed at `level` (0: stored as they are); a chunk
  // that would not shrink is stored as it is. The header must say so (compressed_chunks).
  void SetCompression(int level);
  // Stores chunks as they are until resumed: no allocation (a fatal signal's last flush).
  void PauseCompression(bool paused) { compression_paused_ = paused; }

  bool WriteHeader(const FileHeader& header);
  // Finishes `chunk` with the next sequence number and writes it. Empty chunks are skipped.
  bool WriteChunk(ChunkBuilder& chunk);

  uint32_t chunks_written() const { return next_sequence_; }
  uint64_t bytes_written() const { return bytes_written_; }
  // What the chunks written would have taken uncompressed, headers included.
  uint64_t raw_bytes_written() const { return raw_bytes_written_; }
  // Compression was asked for but libzstd.so.1 cannot be had: chunks are stored as they are.
  bool compression_unavailable() const;

 private:
  Sink sink_;
  uint32_t next_sequence_ = 0;
  uint64_t bytes_written_ = 0;
  uint64_t raw_bytes_written_ = 0;
  std::unique_ptr<ChunkCompressor> compressor_;
  bool compression_paused_ = false;
  std::vector<uint8_t> columns_;  // a chunk's records arranged in columns, before compression
};

}  // namespace flopspy::trace
