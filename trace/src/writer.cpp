#include "flopspy/trace/writer.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "chunk_codec.h"
#include "chunk_columns.h"
#include "flopspy/trace/crc32c.h"
#include "zstd_library.h"

namespace flopspy::trace {

FileHeader MakeFileHeader(const FileIdentity& identity) {
  FileHeader header{};
  std::memcpy(header.magic, kFileMagic, sizeof(kFileMagic));
  header.format_version = kFormatVersion;
  header.min_reader_version =
      identity.compressed_chunks ? kMinReaderVersionCompressed : kMinReaderVersion;
  header.header_size = sizeof(FileHeader);
  header.pid = identity.pid;
  header.parent_pid = identity.parent_pid;
  header.rank = identity.rank;
  header.local_rank = identity.local_rank;
  header.flags = identity.flags;
  header.start_realtime_ns = identity.start_realtime_ns;
  header.start_monotonic_ns = identity.start_monotonic_ns;
  header.run_id = identity.run_id;
  const size_t host_bytes = std::min(identity.host.size(), kHostNameBytes - 1);
  std::memcpy(header.host, identity.host.data(), host_bytes);
  header.header_crc = Crc32c(&header, offsetof(FileHeader, header_crc));
  return header;
}

ChunkBuilder::ChunkBuilder(size_t capacity_bytes, std::pmr::memory_resource* memory)
    : buffer_(memory), capacity_(std::min<size_t>(capacity_bytes, kMaxChunkPayload)) {
  buffer_.reserve(sizeof(ChunkHeader) + capacity_);
  Reset(ChunkSource::kProcess, 0);
}

void ChunkBuilder::Reset(ChunkSource source, uint32_t thread_id) {
  buffer_.resize(sizeof(ChunkHeader));
  record_count_ = 0;
  source_ = source;
  thread_id_ = thread_id;
}

bool ChunkBuilder::Append(const void* record, size_t size) {
  if (size == 0 || size % kRecordAlign != 0 || !Fits(size)) return false;
  const auto* bytes = static_cast<const uint8_t*>(record);
  buffer_.insert(buffer_.end(), bytes, bytes + size);
  ++record_count_;
  return true;
}

bool ChunkBuilder::AppendWithTail(const void* fixed, size_t fixed_size, std::string_view tail) {
  const size_t total = AlignRecordSize(fixed_size + tail.size());
  if (total > kMaxRecordBytes || !Fits(total)) return false;
  const auto* bytes = static_cast<const uint8_t*>(fixed);
  buffer_.insert(buffer_.end(), bytes, bytes + fixed_size);
  buffer_.insert(buffer_.end(), tail.begin(), tail.end());
  buffer_.resize(buffer_.size() + (total - fixed_size - tail.size()), 0);
  RecordHeader header{};
  std::memcpy(&header, bytes, sizeof(header));
  header.size8 = static_cast<uint16_t>(total / kRecordAlign);
  std::memcpy(buffer_.data() + buffer_.size() - total, &header, sizeof(header));
  ++record_count_;
  return true;
}

bool ChunkBuilder::AppendString(uint32_t id, std::string_view text) {
  // Text longer than one record can hold is cut; names that long do not occur in practice.
  text = text.substr(0, kMaxRecordBytes - sizeof(StringDef));
  StringDef def{};
  def.h = MakeHeader<StringDef>();
  def.id = id;
  def.length = static_cast<uint32_t>(text.size());
  return AppendWithTail(&def, sizeof(def), text);
}

bool ChunkBuilder::AppendMetadata(std::string_view json) {
  if (json.size() > kMaxRecordBytes - sizeof(MetadataBlock)) return false;
  MetadataBlock block{};
  block.h = MakeHeader<MetadataBlock>();
  block.length = static_cast<uint32_t>(json.size());
  return AppendWithTail(&block, sizeof(block), json);
}

std::span<const uint8_t> ChunkBuilder::Finish(uint32_t sequence) {
  ChunkHeader header{};
  header.magic = kChunkMagic;
  header.payload_size = static_cast<uint32_t>(payload_size());
  header.record_count = record_count_;
  header.thread_id = thread_id_;
  header.source = static_cast<uint16_t>(source_);
  header.sequence = sequence;
  uint32_t crc = Crc32c(&header, offsetof(ChunkHeader, crc));
  header.crc = Crc32c(buffer_.data() + sizeof(ChunkHeader), payload_size(), crc);
  std::memcpy(buffer_.data(), &header, sizeof(header));
  return {buffer_.data(), buffer_.size()};
}

void CompressionAfterFork() {
  ZstdAfterFork();
}

TraceWriter::TraceWriter(Sink sink) : sink_(std::move(sink)) {}
TraceWriter::~TraceWriter() = default;
TraceWriter::TraceWriter(TraceWriter&&) noexcept = default;
TraceWriter& TraceWriter::operator=(TraceWriter&&) noexcept = default;

void TraceWriter::SetCompression(int level) {
  compressor_ = level > 0 ? std::make_unique<ChunkCompressor>(level) : nullptr;
}

bool TraceWriter::compression_unavailable() const {
  return compressor_ != nullptr && compressor_->unavailable();
}

bool TraceWriter::WriteHeader(const FileHeader& header) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&header);
  if (!sink_({bytes, sizeof(header)})) return false;
  bytes_written_ += sizeof(header);
  return true;
}

bool TraceWriter::WriteChunk(ChunkBuilder& chunk) {
  if (chunk.empty()) return true;
  const uint32_t sequence = next_sequence_;
  // The sequence advances even on failure, so the reader sees a gap where the chunk is missing.
  ++next_sequence_;
  const size_t raw = sizeof(ChunkHeader) + chunk.payload_size();
  raw_bytes_written_ += raw;
  std::span<uint8_t> stored;
  uint16_t flags = kChunkZstd;
  uint32_t raw_size = static_cast<uint32_t>(chunk.payload_size());
  if (compressor_ != nullptr && !compression_paused_) {
    try {
      // In columns; else as they are; stored compressed only if smaller than the records.
      const size_t limit = chunk.payload_size();
      if (ArrangeInColumns(chunk.payload(), chunk.record_count(), &columns_) &&
          columns_.size() <= kMaxChunkPayload) {
        stored = compressor_->Compress(columns_, sizeof(ChunkHeader), limit);
      }
      if (!stored.empty()) {
        flags |= kChunkColumns;
        raw_size = static_cast<uint32_t>(columns_.size());
      } else {
        stored = compressor_->Compress(chunk.payload(), sizeof(ChunkHeader), limit);
      }
    } catch (const std::bad_alloc&) {
      stored = {};  // no memory for compressing: stored as it is
    }
  }
  if (stored.empty()) {
    const auto bytes = chunk.Finish(sequence);
    if (!sink_(bytes)) return false;
    bytes_written_ += bytes.size();
    return true;
  }
  // Header and frame in one write: a failed write leaves no header without its payload.
  ChunkHeader header{};
  header.magic = kChunkMagic;
  header.payload_size = static_cast<uint32_t>(stored.size() - sizeof(ChunkHeader));
  header.record_count = chunk.record_count();
  header.thread_id = chunk.thread_id();
  header.source = static_cast<uint16_t>(chunk.source());
  header.flags = flags;
  header.sequence = sequence;
  header.raw_size = raw_size;
  header.crc = Crc32c(stored.data() + sizeof(ChunkHeader), header.payload_size,
                      Crc32c(&header, offsetof(ChunkHeader, crc)));
  std::memcpy(stored.data(), &header, sizeof(header));
  if (!sink_(stored)) return false;
  bytes_written_ += stored.size();
  return true;
}

std::vector<LostRecordsRecord> LostRecordsIn(std::span<const uint8_t> payload) {
  std::vector<LostRecordsRecord> found;
  for (size_t at = 0; at + sizeof(RecordHeader) <= payload.size();) {
    RecordHeader h;
    std::memcpy(&h, payload.data() + at, sizeof(h));
    if (h.size() == 0 || at + h.size() > payload.size()) break;
    if (h.type == static_cast<uint8_t>(RecordType::kLostRecords) &&
        h.size() == sizeof(LostRecordsRecord)) {
      LostRecordsRecord lost;
      std::memcpy(&lost, payload.data() + at, sizeof(lost));
      found.push_back(lost);
    }
    at += h.size();
  }
  return found;
}

}  // namespace flopspy::trace
