// zstd-compressed chunks (format 6): the same records come back as from plain chunks, a chunk
// that does not shrink is stored as it is, and a compressed chunk whose header or frame lies is
// refused as damaged (its checksum made right, so only the compression's own checks can tell).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "flopspy/trace/crc32c.h"
#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::trace {
namespace {

using testing::TraceBuilder;

// A training job's shape in miniature: launches of a few kernels on two threads, then the end.
std::vector<uint8_t> Launches(bool compressed) {
  FileIdentity identity = TraceBuilder::DefaultIdentity();
  identity.compressed_chunks = compressed;
  TraceBuilder b(identity);
  b.Chunk(ChunkSource::kProcess).String(1, "kernel").Metadata(R"({"flopspy":{"version":"x"}})");
  uint64_t t = 1'000'000;
  for (uint32_t round = 0; round < 3; ++round) {
    for (uint32_t thread = 1; thread <= 2; ++thread) {
      b.Chunk(ChunkSource::kThread, thread);
      for (uint32_t i = 0; i < 500; ++i) {
        KernelLaunchRecord launch{};
        launch.enter_ns = t += 4'100 + (i % 7) * 13;
        launch.duration_ns = 2'000 + i % 5;
        launch.correlation = (uint64_t{thread} << 40) + round * 1000 + i;
        launch.signature = 1 + i % 4;
        launch.stream = 1;
        b.Add(launch);
      }
    }
  }
  TraceEndRecord end{};
  b.Chunk(ChunkSource::kProcess).Add(end);
  return b.Bytes();
}

struct Seen {
  ReadSummary summary;
  std::vector<std::vector<uint8_t>> records;
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> threads;
};

Seen Read(std::span<const uint8_t> bytes) {
  Seen seen;
  TraceReader reader(MemorySource(bytes));
  seen.summary = reader.ForEachRecord([&](const RecordView& r) {
    seen.records.emplace_back(r.bytes.begin(), r.bytes.end());
    seen.offsets.push_back(r.file_offset);
    seen.threads.push_back(r.thread_id);
  });
  return seen;
}

// The chunk headers of a file, with where each starts.
std::vector<std::pair<uint64_t, ChunkHeader>> Chunks(const std::vector<uint8_t>& bytes) {
  std::vector<std::pair<uint64_t, ChunkHeader>> chunks;
  for (uint64_t at = sizeof(FileHeader); at + sizeof(ChunkHeader) <= bytes.size();) {
    ChunkHeader ch;
    std::memcpy(&ch, bytes.data() + at, sizeof(ch));
    chunks.emplace_back(at, ch);
    at += sizeof(ch) + ch.payload_size;
  }
  return chunks;
}

TEST(CompressedChunks, ReadBackExactlyAsPlainChunksAndSmaller) {
  const std::vector<uint8_t> plain = Launches(false);
  const std::vector<uint8_t> packed = Launches(true);
  const Seen a = Read(plain);
  const Seen b = Read(packed);
  ASSERT_EQ(a.summary.status, ReadStatus::kOk);
  ASSERT_EQ(b.summary.status, ReadStatus::kOk) << b.summary.message;
  EXPECT_TRUE(b.summary.ended_cleanly);
  EXPECT_EQ(b.records, a.records);
  EXPECT_EQ(b.threads, a.threads);
  // Offsets are those the plain file has: still rising, and adjacent within a chunk.
  EXPECT_EQ(b.offsets, a.offsets);
  EXPECT_LT(packed.size() * 4, plain.size()) << packed.size() << " of " << plain.size();
  int in_columns = 0;
  for (const auto& [at, ch] : Chunks(packed)) {
    if ((ch.flags & kChunkZstd) == 0) continue;
    EXPECT_GT(ch.raw_size, ch.payload_size);
    EXPECT_EQ(ch.payload_size % kRecordAlign, 0u);
    const bool thread = ch.source == static_cast<uint16_t>(ChunkSource::kThread);
    in_columns += thread && ch.flags == (kChunkZstd | kChunkColumns) ? 1 : 0;
  }
  EXPECT_EQ(in_columns, 6) << "every thread chunk, compressed in columns";
  TraceReader reader(MemorySource(packed));
  EXPECT_EQ(reader.header().format_version, kFormatVersion);
  EXPECT_EQ(reader.header().min_reader_version, kMinReaderVersionCompressed);
}

TEST(CompressedChunks, AChunkThatWouldNotShrinkIsStoredAsItIs) {
  FileIdentity identity = TraceBuilder::DefaultIdentity();
  identity.compressed_chunks = true;
  TraceBuilder b(identity);
  std::mt19937_64 random(7);
  b.Chunk(ChunkSource::kThread, 1);
  for (int i = 0; i < 200; ++i) {  // parameter bytes with nothing to find in them
    LaunchParamsRecord params{};
    params.length = static_cast<uint16_t>(random());
    params.reserved = static_cast<uint16_t>(random());
    for (uint8_t& p : params.bytes) p = static_cast<uint8_t>(random());
    b.Add(params);
  }
  const std::vector<uint8_t> bytes = b.Bytes();
  const auto chunks = Chunks(bytes);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].second.flags, 0);
  EXPECT_EQ(chunks[0].second.raw_size, 0u);
  EXPECT_EQ(Read(bytes).records.size(), 200u);
}

TEST(CompressedChunks, AChunkOfManyKindsIsNotStoredLargerForItsColumns) {
  // Ten records of ten kinds: the column table would cost more than compression saves.
  FileIdentity identity = TraceBuilder::DefaultIdentity();
  identity.compressed_chunks = true;
  TraceBuilder b(identity);
  std::mt19937_64 random(11);
  b.Chunk(ChunkSource::kThread, 1);
  for (uint8_t kind = 0; kind < 10; ++kind) {
    uint8_t record[16];
    for (uint8_t& byte : record) byte = static_cast<uint8_t>(random());
    RecordHeader h{};
    h.type = static_cast<uint8_t>(100 + kind);
    h.size8 = 2;
    std::memcpy(record, &h, sizeof(h));
    b.AddRaw(record, sizeof(record));
  }
  const std::vector<uint8_t> bytes = b.Bytes();
  const auto chunks = Chunks(bytes);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_LE(chunks[0].second.payload_size, 160u);
  EXPECT_EQ(chunks[0].second.flags & kChunkColumns, 0);
  EXPECT_EQ(Read(bytes).records.size(), 10u);
}

TEST(CompressedChunks, PausedCompressionWritesPlainChunksBetweenCompressedOnes) {
  std::vector<uint8_t> bytes;
  TraceWriter writer([&](std::span<const uint8_t> b) {
    bytes.insert(bytes.end(), b.begin(), b.end());
    return true;
  });
  FileIdentity identity = TraceBuilder::DefaultIdentity();
  identity.compressed_chunks = true;
  writer.SetCompression(kDefaultCompressionLevel);
  writer.WriteHeader(MakeFileHeader(identity));
  ChunkBuilder chunk;
  for (bool pause : {false, true, false}) {
    chunk.Reset(ChunkSource::kThread, 1);
    for (int i = 0; i < 100; ++i) {
      KernelLaunchRecord launch{};
      launch.h = MakeHeader<KernelLaunchRecord>();
      launch.correlation = static_cast<uint64_t>(i);
      chunk.Append(launch);
    }
    writer.PauseCompression(pause);
    ASSERT_TRUE(writer.WriteChunk(chunk));
  }
  const auto chunks = Chunks(bytes);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].second.flags, kChunkZstd | kChunkColumns);
  EXPECT_EQ(chunks[1].second.flags, 0);
  EXPECT_EQ(chunks[2].second.flags, kChunkZstd | kChunkColumns);
  EXPECT_EQ(writer.raw_bytes_written(), 3 * (sizeof(ChunkHeader) + 100 * 64));
  EXPECT_EQ(writer.bytes_written(), bytes.size());
  const Seen seen = Read(bytes);
  EXPECT_EQ(seen.summary.status, ReadStatus::kOk);
  EXPECT_EQ(seen.records.size(), 300u);
  EXPECT_EQ(seen.summary.sequence_gaps, 0u);
}

// Changes the first compressed chunk with `damage` (which may add bytes after its payload),
// makes its checksum right again, and reads.
using Damage = std::function<void(ChunkHeader&, std::vector<uint8_t>& file, size_t payload_at)>;
ReadSummary ReadDamaged(const Damage& damage, uint64_t* records_read) {
  std::vector<uint8_t> bytes = Launches(true);
  for (const auto& [at, original] : Chunks(bytes)) {
    if ((original.flags & kChunkZstd) == 0) continue;
    ChunkHeader ch = original;
    const size_t payload_at = at + sizeof(ChunkHeader);
    damage(ch, bytes, payload_at);
    ch.crc =
        Crc32c(bytes.data() + payload_at, ch.payload_size, Crc32c(&ch, offsetof(ChunkHeader, crc)));
    std::memcpy(bytes.data() + at, &ch, sizeof(ch));
    break;
  }
  const Seen seen = Read(bytes);
  *records_read = seen.records.size();
  return seen.summary;
}

TEST(CompressedChunks, AHeaderOrFrameThatLiesIsDamage) {
  struct Case {
    const char* what;
    Damage damage;
    const char* said;
  };
  const auto at = [](std::vector<uint8_t>& file, size_t payload_at) {
    return file.data() + payload_at;
  };
  const std::vector<Case> cases = {
      {"a raw size the frame does not hold",
       [](ChunkHeader& ch, std::vector<uint8_t>&, size_t) { ch.raw_size += 8; }, "not the"},
      {"an impossible raw size",
       [](ChunkHeader& ch, std::vector<uint8_t>&, size_t) { ch.raw_size = kMaxChunkPayload + 8; },
       "impossible size"},
      {"a flag this reader does not know",
       [](ChunkHeader& ch, std::vector<uint8_t>&, size_t) { ch.flags |= 1u << 5; },
       "does not know"},
      {"columns without compression",
       [](ChunkHeader& ch, std::vector<uint8_t>&, size_t) { ch.flags = kChunkColumns; },
       "does not know"},
      {"no zstd frame",
       [&](ChunkHeader&, std::vector<uint8_t>& f, size_t p) { std::memset(at(f, p), 0x41, 4); },
       "not a zstd frame"},
      {"a skippable frame that holds no records",
       [&](ChunkHeader& ch, std::vector<uint8_t>& f, size_t p) {
         const uint32_t skippable[2] = {0x184D2A50, ch.payload_size - 8};
         std::memcpy(at(f, p), skippable, sizeof(skippable));
         ch.raw_size = 0;
         ch.record_count = 0;
       },
       "not a zstd frame"},
      {"bytes after the frame",
       [](ChunkHeader& ch, std::vector<uint8_t>& f, size_t p) {
         const uint8_t extra[8] = {0x5A};
         f.insert(f.begin() + static_cast<std::ptrdiff_t>(p + ch.payload_size), extra, extra + 8);
         ch.payload_size += 8;
       },
       "after its zstd"},
      {"a frame cut short",
       [&](ChunkHeader& ch, std::vector<uint8_t>& f, size_t p) {
         std::memset(at(f, p) + ch.payload_size - 16, 0, 16);
         ch.payload_size -= 16;
       },
       "compressed chunk"},
      {"a chunk in columns said to be plain records",
       [](ChunkHeader& ch, std::vector<uint8_t>&, size_t) { ch.flags = kChunkZstd; }, "framing"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    uint64_t records = 0;
    const ReadSummary summary = ReadDamaged(c.damage, &records);
    EXPECT_EQ(summary.status, ReadStatus::kCorrupt) << summary.message;
    EXPECT_NE(summary.message.find(c.said), std::string::npos) << summary.message;
    EXPECT_NE(summary.message.find("were not read"), std::string::npos) << summary.message;
    EXPECT_LE(records, 2u) << "nothing of the damaged chunk or after it";
  }
}

}  // namespace
}  // namespace flopspy::trace
