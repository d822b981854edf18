#include "flopspy/trace/reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "chunk_codec.h"
#include "chunk_columns.h"
#include "flopspy/platform/safe_file.h"
#include "flopspy/trace/crc32c.h"
#include "flopspy/trace/utf8.h"

namespace flopspy::trace {
namespace {

constexpr size_t kMinHeaderSize = 64;
constexpr size_t kMaxHeaderSize = 64 * 1024;

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FileSource() override { close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  int64_t ReadAt(uint64_t offset, std::span<uint8_t> out) override {
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t n =
          pread(fd_, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -1;
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    return static_cast<int64_t>(got);
  }
  uint64_t Size() const override { return size_; }

 private:
  int fd_;
  uint64_t size_;
};

class BufferSource final : public ByteSource {
 public:
  explicit BufferSource(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  int64_t ReadAt(uint64_t offset, std::span<uint8_t> out) override {
    if (offset >= bytes_.size()) return 0;
    const size_t n = std::min<uint64_t>(out.size(), bytes_.size() - offset);
    // An empty chunk's payload is an empty vector whose data() may be null: memcpy must not
    // see it even for 0 bytes (found by the fuzzer).
    if (n > 0) std::memcpy(out.data(), bytes_.data() + offset, n);
    return static_cast<int64_t>(n);
  }
  uint64_t Size() const override { return bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
};

std::string At(uint64_t offset) {
  return " at byte " + std::to_string(offset);
}

}  // namespace

std::string_view ReadStatusName(ReadStatus status) {
  switch (status) {
    case ReadStatus::kOk:
      return "ok";
    case ReadStatus::kEmpty:
      return "empty";
    case ReadStatus::kNotATrace:
      return "not a trace";
    case ReadStatus::kTooNew:
      return "too new";
    case ReadStatus::kTooOld:
      return "too old";
    case ReadStatus::kBadHeader:
      return "bad header";
    case ReadStatus::kTruncated:
      return "truncated";
    case ReadStatus::kCorrupt:
      return "corrupt";
    case ReadStatus::kIoError:
      return "I/O error";
  }
  return "unknown";
}

bool ReadSummary::usable() const {
  return records > 0;
}

uint64_t ReadSummary::unread_bytes() const {
  return file_size > stop_offset ? file_size - stop_offset : 0;
}

std::string_view RecordView::Text(size_t fixed_size, size_t length) const {
  if (fixed_size > bytes.size()) return {};
  length = std::min(length, bytes.size() - fixed_size);
  return {reinterpret_cast<const char*>(bytes.data() + fixed_size), length};
}

std::unique_ptr<ByteSource> OpenFileSource(const std::string& path, std::string* error) {
  // A FIFO would block the open until a writer comes and a device never ends: anything but a
  // regular file is refused before it is opened for reading.
  const int fd = platform::OpenRegularForReading(path, error);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    if (error) *error = "cannot size " + path + ": " + std::strerror(errno);
    close(fd);
    return nullptr;
  }
  return std::make_unique<FileSource>(fd, static_cast<uint64_t>(st.st_size));
}

std::unique_ptr<ByteSource> MemorySource(std::span<const uint8_t> bytes) {
  return std::make_unique<BufferSource>(bytes);
}

TraceReader::TraceReader(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {
  header_ok_ = ReadHeader();
}
TraceReader::~TraceReader() = default;
TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;

TraceReader TraceReader::OpenFile(const std::string& path) {
  std::string error;
  auto source = OpenFileSource(path, &error);
  if (source == nullptr) {
    TraceReader reader(nullptr);
    reader.header_summary_.status = ReadStatus::kIoError;
    reader.header_summary_.message = error;
    return reader;
  }
  return TraceReader(std::move(source));
}

std::string_view TraceReader::host() const {
  return {header_.host, strnlen(header_.host, sizeof(header_.host))};
}

std::string_view TraceReader::String(uint32_t id) const {
  const auto it = strings_.find(id);
  return it == strings_.end() ? std::string_view{} : std::string_view{it->second};
}

bool TraceReader::ReadHeader() {
  ReadSummary& s = header_summary_;
  if (source_ == nullptr) {
    s.status = ReadStatus::kIoError;
    s.message = "no input";
    return false;
  }
  s.file_size = source_->Size();
  if (s.file_size == 0) {
    s.status = ReadStatus::kEmpty;
    s.message = "the file is empty (0 bytes): the process ended before flopspy wrote anything";
    return false;
  }
  std::vector<uint8_t> head(std::min<uint64_t>(s.file_size, kMaxHeaderSize));
  const int64_t got = source_->ReadAt(0, head);
  if (got < 0) {
    s.status = ReadStatus::kIoError;
    s.message = "read error in the file header";
    return false;
  }
  head.resize(static_cast<size_t>(got));
  const size_t magic_bytes = std::min(head.size(), sizeof(kFileMagic));
  if (std::memcmp(head.data(), kFileMagic, magic_bytes) != 0) {
    s.status = ReadStatus::kNotATrace;
    s.message = "not a flopspy trace (the file does not start with \"FLOPSPY\")";
    return false;
  }
  if (head.size() < kMinHeaderSize) {
    s.status = ReadStatus::kBadHeader;
    s.message = "the file ends inside its header (" + std::to_string(head.size()) + " bytes)";
    s.stop_offset = head.size();
    return false;
  }
  FileHeader h{};
  std::memcpy(&h, head.data(), std::min(head.size(), sizeof(h)));
  if (h.min_reader_version > kFormatVersion) {
    s.status = ReadStatus::kTooNew;
    s.message = "written by trace format " + std::to_string(h.format_version) +
                ", which needs a reader of format " + std::to_string(h.min_reader_version) +
                " or newer; this flopspy-report reads format " + std::to_string(kFormatVersion) +
                ": upgrade flopspy";
    return false;
  }
  if (h.format_version < kOldestReadableVersion) {
    s.status = ReadStatus::kTooOld;
    s.message = "written by trace format " + std::to_string(h.format_version) +
                "; this flopspy-report reads formats " + std::to_string(kOldestReadableVersion) +
                " to " + std::to_string(kFormatVersion);
    return false;
  }
  if (h.header_size < kMinHeaderSize || h.header_size > kMaxHeaderSize || h.header_size % 8 != 0) {
    s.status = ReadStatus::kBadHeader;
    s.message = "the header size field (" + std::to_string(h.header_size) + ") is invalid";
    return false;
  }
  if (head.size() < h.header_size) {
    s.status = ReadStatus::kBadHeader;
    s.message = "the file ends inside its header (" + std::to_string(head.size()) + " of " +
                std::to_string(h.header_size) + " bytes)";
    s.stop_offset = head.size();
    return false;
  }
  // The checksum is always the header's last four bytes, whatever version wrote it.
  uint32_t stored_crc;
  std::memcpy(&stored_crc, head.data() + h.header_size - 4, 4);
  if (Crc32c(head.data(), h.header_size - 4) != stored_crc) {
    s.status = ReadStatus::kBadHeader;
    s.message = "the file header fails its checksum: the file is damaged";
    return false;
  }
  header_ = h;
  s.stop_offset = h.header_size;
  return true;
}

ReadSummary TraceReader::ForEachRecord(const Visitor& visit,
                                       const std::function<void(uint64_t)>& progress) {
  return ForEachChunk(
      [&visit](std::span<const RecordView> records) {
        if (!visit) return;
        for (const RecordView& record : records) visit(record);
      },
      progress);
}

ReadSummary TraceReader::ForEachChunk(const ChunkVisitor& visit,
                                      const std::function<void(uint64_t)>& progress) {
  if (!header_ok_) return header_summary_;
  ReadSummary s;
  s.file_size = source_->Size();
  uint64_t offset = header_.header_size;
  uint64_t logical_offset = offset;
  uint32_t expected_sequence = 0;

  // The reader does not look for good chunks after a bad one (a chunk's size is its only link
  // to the next), so everything from here on is unread: say how much.
  const auto stop = [&](ReadStatus status, std::string message) {
    s.status = status;
    s.stop_offset = offset;
    s.message = std::move(message) + "; " + std::to_string(s.unread_bytes()) + " of the file's " +
                std::to_string(s.file_size) + " bytes were not read";
    return s;
  };

  while (offset < s.file_size) {
    const uint64_t left = s.file_size - offset;
    if (left < sizeof(ChunkHeader)) {
      return stop(ReadStatus::kTruncated, "the file ends inside a chunk header" + At(offset) +
                                              " (" + std::to_string(left) + " of 32 bytes); " +
                                              "the process probably died while writing");
    }
    ChunkHeader ch{};
    if (source_->ReadAt(offset, {reinterpret_cast<uint8_t*>(&ch), sizeof(ch)}) !=
        static_cast<int64_t>(sizeof(ch))) {
      return stop(ReadStatus::kIoError, "read error" + At(offset));
    }
    if (ch.magic != kChunkMagic) {
      return stop(ReadStatus::kCorrupt, "no chunk starts" + At(offset) + ": the file is damaged");
    }
    if (ch.payload_size > kMaxChunkPayload || ch.payload_size % kRecordAlign != 0) {
      return stop(ReadStatus::kCorrupt, "chunk" + At(offset) + " claims an impossible size (" +
                                            std::to_string(ch.payload_size) + " bytes)");
    }
    if (left - sizeof(ChunkHeader) < ch.payload_size) {
      return stop(ReadStatus::kTruncated,
                  "the file ends inside chunk " + std::to_string(ch.sequence) + At(offset) + " (" +
                      std::to_string(left - sizeof(ChunkHeader)) + " of " +
                      std::to_string(ch.payload_size) +
                      " payload bytes); the process probably died while writing");
    }
    chunk_.resize(ch.payload_size);
    if (source_->ReadAt(offset + sizeof(ch), chunk_) != static_cast<int64_t>(ch.payload_size)) {
      return stop(ReadStatus::kIoError, "read error in chunk" + At(offset));
    }
    const uint32_t crc =
        Crc32c(chunk_.data(), chunk_.size(), Crc32c(&ch, offsetof(ChunkHeader, crc)));
    if (crc != ch.crc) {
      return stop(ReadStatus::kCorrupt, "chunk " + std::to_string(ch.sequence) + At(offset) +
                                            " fails its checksum: the file is damaged");
    }
    if ((ch.flags & ~kKnownChunkFlags) != 0 ||
        (ch.flags & (kChunkZstd | kChunkColumns)) == kChunkColumns) {
      return stop(ReadStatus::kCorrupt, "chunk " + std::to_string(ch.sequence) + At(offset) +
                                            " is stored in a way this reader does not know " +
                                            "(flags " + std::to_string(ch.flags) + ")");
    }
    uint64_t raw_size = ch.payload_size;
    if ((ch.flags & kChunkZstd) != 0) {
      std::string why;
      if (ch.raw_size > kMaxChunkPayload || ch.raw_size % kRecordAlign != 0) {
        why = "claims an impossible size (" + std::to_string(ch.raw_size) + " bytes)";
      } else if (decompressor_ == nullptr) {
        decompressor_ = std::make_unique<ChunkDecompressor>();
      }
      bool read = why.empty() && decompressor_->Decompress(chunk_, ch.raw_size, &raw_, &why);
      if (read && (ch.flags & kChunkColumns) != 0) {
        read = RestoreFromColumns(raw_, ch.record_count, kMaxChunkPayload, &chunk_, &why);
      } else if (read) {
        chunk_.swap(raw_);
      }
      if (read) {
        raw_size = chunk_.size();
      } else {
        return stop(ReadStatus::kCorrupt, "compressed chunk " + std::to_string(ch.sequence) +
                                              At(offset) + " " + why + ": the file is damaged");
      }
    }
    // Check the record framing of the whole chunk before handing out any of it, so a chunk is
    // either read completely or not at all.
    // (A count of UINT32_MAX once meant "broken" here, so a chunk that claimed that many
    // records passed with a zero-size record in it, and the loop below never ended.)
    uint32_t count = 0;
    bool framed = true;
    for (size_t pos = 0; pos < chunk_.size(); ++count) {
      RecordHeader rh{};
      if (chunk_.size() - pos < sizeof(rh)) {  // cannot happen: sizes are multiples of 8
        framed = false;
        break;
      }
      std::memcpy(&rh, chunk_.data() + pos, sizeof(rh));
      if (rh.size8 == 0 || rh.size() > chunk_.size() - pos) {
        framed = false;
        break;
      }
      pos += rh.size();
    }
    if (!framed || count != ch.record_count) {
      return stop(ReadStatus::kCorrupt, "chunk " + std::to_string(ch.sequence) + At(offset) +
                                            " has inconsistent record framing");
    }
    if (ch.sequence > expected_sequence) s.sequence_gaps += ch.sequence - expected_sequence;
    expected_sequence = ch.sequence + 1;

    // Where records start: in the file, or for a compressed chunk in the decompressed stream
    // (every chunk before it counted at its raw size), so offsets still rise record by record.
    const uint64_t payload_offset = logical_offset + sizeof(ChunkHeader);
    views_.clear();
    for (size_t pos = 0; pos < chunk_.size();) {
      RecordHeader rh{};
      std::memcpy(&rh, chunk_.data() + pos, sizeof(rh));
      const RecordView& view = views_.emplace_back(
          RecordView{static_cast<RecordType>(rh.type), rh.flags,
                     std::span<const uint8_t>(chunk_.data() + pos, rh.size()), ch.thread_id,
                     static_cast<ChunkSource>(ch.source), payload_offset + pos});
      if (view.type == RecordType::kString) {
        const auto def = view.As<StringDef>();
        strings_[def.id] = ValidUtf8(view.Text(sizeof(StringDef), def.length));
      } else if (view.type == RecordType::kTraceEnd) {
        s.ended_cleanly = true;
      }
      pos += rh.size();
    }
    if (visit) visit(views_);
    s.records += views_.size();
    ++s.chunks;
    offset += sizeof(ChunkHeader) + ch.payload_size;
    logical_offset += sizeof(ChunkHeader) + raw_size;
    if (progress) progress(offset);
  }
  s.stop_offset = offset;
  return s;
}

}  // namespace flopspy::trace
