// The tolerant trace reader: it validates the header, then streams records chunk by chunk and
// stops at the first incomplete or corrupt chunk, saying where and why. It never crashes on bad
// input and never holds more than one chunk in memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::trace {

// How an analysis reads a StringDef id: a reader's String(), or a test's own table. "" when the
// id is unknown.
using StringLookup = std::function<std::string_view(uint32_t)>;

// One record as stored, with the chunk facts that apply to it.
struct RecordView {
  RecordType type;
  uint8_t flags;
  std::span<const uint8_t> bytes;  // the whole record, header included
  uint32_t thread_id;              // of the chunk (ChunkSource::kThread), else 0
  ChunkSource source;
  // Where the record starts in the file; for a compressed chunk's records, in the file as it
  // would be with every chunk stored uncompressed (rising, unique, adjacent within a chunk).
  uint64_t file_offset;

  // A copy of the record as T. Records written by an older version may be shorter than T; the
  // missing tail reads as zeros. Longer ones (newer writer) are cut to T.
  template <class T>
  T As() const {
    T value{};
    std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof(T)));
    return value;
  }

  // Variable-length text after a fixed part of `fixed_size` bytes, `length` bytes long.
  std::string_view Text(size_t fixed_size, size_t length) const;
};

enum class ReadStatus {
  kOk,         // every byte was read; the trace may still lack a TraceEnd (see ended_cleanly)
  kEmpty,      // zero-length file
  kNotATrace,  // wrong magic
  kTooNew,     // written by a version this reader cannot read
  kTooOld,     // older than the oldest format this reader knows
  kBadHeader,  // header cut short or its checksum is wrong
  kTruncated,  // the file ends inside a chunk
  kCorrupt,    // a chunk failed its checks; records after it were not read
  kIoError,
};
std::string_view ReadStatusName(ReadStatus status);

struct ReadSummary {
  ReadStatus status = ReadStatus::kOk;
  // Why reading stopped, with the byte offset and the bytes left unread; empty when kOk.
  std::string message;
  uint64_t stop_offset = 0;  // where reading stopped (file size when kOk)
  uint64_t file_size = 0;
  uint64_t chunks = 0;
  uint64_t records = 0;
  uint64_t sequence_gaps = 0;  // chunks the writer numbered but that are missing
  bool ended_cleanly = false;  // a TraceEnd record was read
  bool usable() const;         // anything at all could be read
  // Bytes from stop_offset to the end of the file: never read, so whatever they hold (records,
  // losses, warnings, the end record) is missing. 0 when kOk.
  uint64_t unread_bytes() const;
};

// Where the bytes come from: a file or memory (tests, fuzzing).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `out.size()` bytes at `offset`; returns the count, or -1 on an I/O error.
  virtual int64_t ReadAt(uint64_t offset, std::span<uint8_t> out) = 0;
  virtual uint64_t Size() const = 0;
};
// A regular file only: a FIFO, device, socket or folder is refused without being opened for
// reading (`error`: "<path> is a FIFO, not a file"), so a planted FIFO cannot block the reader.
std::unique_ptr<ByteSource> OpenFileSource(const std::string& path, std::string* error);
std::unique_ptr<ByteSource> MemorySource(std::span<const uint8_t> bytes);

class ChunkDecompressor;

class TraceReader {
 public:
  explicit TraceReader(std::unique_ptr<ByteSource> source);
  ~TraceReader();
  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;
  // Opens a file. On failure header_status() says why and ForEachRecord reads nothing.
  static TraceReader OpenFile(const std::string& path);

  // Result of reading and validating the file header.
  const ReadSummary& header_status() const { return header_summary_; }
  bool header_ok() const { return header_ok_; }
  const FileHeader& header() const { return header_; }
  // Host name from the header, without padding, as stored (not checked for UTF-8).
  std::string_view host() const;

  using Visitor = std::function<void(const RecordView&)>;
  // Streams every record in file order. String definitions are also collected into strings(),
  // a chunk's all before the first of its records is visited.
  // `progress` (optional) is called after each chunk with the bytes read so far.
  ReadSummary ForEachRecord(const Visitor& visit,
                            const std::function<void(uint64_t)>& progress = nullptr);

  using ChunkVisitor = std::function<void(std::span<const RecordView>)>;
  // The same a chunk at a time: `visit` gets the records of one chunk, in file order, valid
  // until it returns. strings() holds the chunk's definitions and does not change while `visit`
  // runs, so several threads may read records and strings during the call.
  ReadSummary ForEachChunk(const ChunkVisitor& visit,
                           const std::function<void(uint64_t)>& progress = nullptr);

  // Strings defined so far (complete after ForEachRecord), made valid UTF-8 (utf8.h).
  const std::unordered_map<uint32_t, std::string>& strings() const { return strings_; }
  std::string_view String(uint32_t id) const;

 private:
  bool ReadHeader();

  std::unique_ptr<ByteSource> source_;
  FileHeader header_{};
  bool header_ok_ = false;
  ReadSummary header_summary_;
  std::unordered_map<uint32_t, std::string> strings_;
  std::vector<uint8_t> chunk_;
  std::vector<uint8_t> raw_;  // a compressed chunk's records, then swapped into chunk_
  std::unique_ptr<ChunkDecompressor> decompressor_;
  std::vector<RecordView> views_;  // of chunk_
};

}  // namespace flopspy::trace
