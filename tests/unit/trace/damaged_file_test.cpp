// The reader on cut and damaged files: it never crashes, reads every complete chunk before the
// damage, and says where and why it stopped. The first tests run on a file of plain chunks and on
// the same records in zstd-compressed chunks (format 6).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "flopspy/trace/crc32c.h"
#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::trace {
namespace {

using testing::TraceBuilder;

struct Sample {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> chunk_ends;      // file offsets where a chunk ends
  std::vector<uint64_t> records_before;  // records read when the file ends at chunk_ends[i]
};

Sample MakeSample(bool compressed = false) {
  FileIdentity identity = TraceBuilder::DefaultIdentity();
  identity.compressed_chunks = compressed;
  TraceBuilder b(identity);
  Sample s;
  uint64_t records = 0;
  const auto mark = [&](uint64_t added) {
    records += added;
    s.chunk_ends.push_back(b.Bytes().size());
    s.records_before.push_back(records);
  };
  b.Chunk(ChunkSource::kProcess).String(1, "alpha").String(2, "a somewhat longer name");
  mark(2);
  for (uint32_t t = 1; t <= 3; ++t) {
    b.Chunk(ChunkSource::kThread, t);
    for (int i = 0; i < 3; ++i) {
      KernelLaunchRecord launch{};
      launch.correlation = t * 10 + i;
      b.Add(launch);
    }
    mark(3);
  }
  TraceEndRecord end{};
  b.Chunk(ChunkSource::kProcess).Add(end);
  mark(1);
  s.bytes = b.Bytes();
  return s;
}

ReadSummary ReadAll(std::span<const uint8_t> bytes, uint64_t* records = nullptr) {
  TraceReader reader(MemorySource(bytes));
  uint64_t count = 0;
  auto summary = reader.ForEachRecord([&](const RecordView&) { ++count; });
  if (records) *records = count;
  return summary;
}

class DamagedFileOfEitherKind : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(PlainAndCompressed, DamagedFileOfEitherKind, ::testing::Bool(),
                         [](const auto& kind) { return kind.param ? "Zstd" : "Plain"; });

TEST_P(DamagedFileOfEitherKind, ChunksAreStoredAsAsked) {
  const Sample s = MakeSample(GetParam());
  int compressed = 0;
  TraceReader reader(MemorySource(s.bytes));
  for (uint64_t at = reader.header().header_size; at + sizeof(ChunkHeader) <= s.bytes.size();) {
    ChunkHeader ch;
    std::memcpy(&ch, s.bytes.data() + at, sizeof(ch));
    const bool thread = ch.source == static_cast<uint16_t>(ChunkSource::kThread);
    compressed += thread && (ch.flags & kChunkZstd) != 0 ? 1 : 0;
    at += sizeof(ch) + ch.payload_size;
  }
  EXPECT_EQ(compressed, GetParam() ? 3 : 0) << "the thread chunks of zeroed launches shrink";
  EXPECT_EQ(reader.header().min_reader_version, GetParam() ? 6 : 1);
}

TEST_P(DamagedFileOfEitherKind, IntactSampleReadsCompletely) {
  const Sample s = MakeSample(GetParam());
  uint64_t records = 0;
  const auto summary = ReadAll(s.bytes, &records);
  EXPECT_EQ(summary.status, ReadStatus::kOk);
  EXPECT_TRUE(summary.ended_cleanly);
  EXPECT_EQ(records, s.records_before.back());
}

TEST_P(DamagedFileOfEitherKind, CutAtEveryByteOffset) {
  const Sample s = MakeSample(GetParam());
  for (size_t cut = 0; cut < s.bytes.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    uint64_t records = 0;
    const auto summary = ReadAll(std::span(s.bytes.data(), cut), &records);
    // Records delivered are exactly those of the chunks complete before the cut.
    uint64_t expected = 0;
    bool at_boundary = cut == sizeof(FileHeader);
    for (size_t i = 0; i < s.chunk_ends.size(); ++i) {
      if (s.chunk_ends[i] <= cut) expected = s.records_before[i];
      if (s.chunk_ends[i] == cut) at_boundary = true;
    }
    EXPECT_EQ(records, expected);
    EXPECT_EQ(summary.records, expected);
    if (cut == 0) {
      EXPECT_EQ(summary.status, ReadStatus::kEmpty);
    } else if (cut < sizeof(FileHeader)) {
      EXPECT_EQ(summary.status, ReadStatus::kBadHeader);
      EXPECT_NE(summary.message.find("ends inside its header"), std::string::npos);
    } else if (at_boundary) {
      EXPECT_EQ(summary.status, ReadStatus::kOk);
      EXPECT_FALSE(summary.ended_cleanly);
    } else {
      EXPECT_EQ(summary.status, ReadStatus::kTruncated);
      EXPECT_NE(summary.message.find("ends inside"), std::string::npos) << summary.message;
      EXPECT_LE(summary.stop_offset, cut);
    }
  }
}

TEST_P(DamagedFileOfEitherKind, EveryFlippedByteIsDetected) {
  const Sample s = MakeSample(GetParam());
  for (size_t pos = 0; pos < s.bytes.size(); ++pos) {
    for (uint8_t mask : {0x01, 0x80, 0xFF}) {
      std::vector<uint8_t> damaged = s.bytes;
      damaged[pos] ^= mask;
      uint64_t records = 0;
      const auto summary = ReadAll(damaged, &records);
      SCOPED_TRACE("byte " + std::to_string(pos) + " ^ " + std::to_string(mask));
      EXPECT_NE(summary.status, ReadStatus::kOk);
      EXPECT_FALSE(summary.message.empty());
      // Nothing from the damaged chunk or after it was delivered.
      uint64_t allowed = 0;
      for (size_t i = 0; i < s.chunk_ends.size(); ++i) {
        if (s.chunk_ends[i] <= pos) allowed = s.records_before[i];
      }
      EXPECT_LE(records, allowed);
    }
  }
}

// The reader stops at the first bad chunk; the good chunks after it are not read, and the
// summary says how many bytes that leaves out, from where.
TEST(DamagedFile, CorruptChunkInTheMiddleSaysHowMuchWasNotRead) {
  const Sample s = MakeSample();
  std::vector<uint8_t> damaged = s.bytes;
  const uint64_t bad_chunk = s.chunk_ends[1];  // the second thread chunk starts here
  damaged[bad_chunk + sizeof(ChunkHeader) + 12] ^= 0x40;
  uint64_t records = 0;
  const auto summary = ReadAll(damaged, &records);
  EXPECT_EQ(summary.status, ReadStatus::kCorrupt);
  EXPECT_EQ(summary.stop_offset, bad_chunk);
  EXPECT_EQ(records, s.records_before[1]);
  const uint64_t unread = s.bytes.size() - bad_chunk;
  EXPECT_EQ(summary.unread_bytes(), unread);
  EXPECT_NE(summary.message.find("at byte " + std::to_string(bad_chunk)), std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("fails its checksum"), std::string::npos) << summary.message;
  EXPECT_NE(summary.message.find(std::to_string(unread) + " of the file's " +
                                 std::to_string(s.bytes.size()) + " bytes were not read"),
            std::string::npos)
      << summary.message;
}

TEST(DamagedFile, TruncatedLastChunkCountsItsBytesAsUnread) {
  const Sample s = MakeSample();
  const uint64_t last_start = s.chunk_ends[s.chunk_ends.size() - 2];
  const uint64_t cut = last_start + sizeof(ChunkHeader) + 8;
  const auto summary = ReadAll(std::span(s.bytes.data(), cut));
  EXPECT_EQ(summary.status, ReadStatus::kTruncated);
  EXPECT_EQ(summary.stop_offset, last_start);
  EXPECT_EQ(summary.unread_bytes(), cut - last_start);
  EXPECT_NE(summary.message.find(std::to_string(cut - last_start) + " of the file's"),
            std::string::npos)
      << summary.message;
}

TEST(DamagedFile, CompleteFileHasNothingUnread) {
  const auto summary = ReadAll(MakeSample().bytes);
  EXPECT_EQ(summary.unread_bytes(), 0u);
  EXPECT_EQ(summary.message, "");
}

// A chunk whose checksum is right (a crafted file: CRC-32C is no protection against intent)
// but that claims UINT32_MAX records and holds a record of size 0: the reader once took that
// count for its own "broken framing" mark, passed the chunk, and looped for ever on the empty
// record. Found by the fuzzer (tests/fuzz/regressions/record-count-max-with-empty-record).
TEST(DamagedFile, ChunkClaimingUint32MaxRecordsWithAnEmptyRecordIsCorrupt) {
  TraceBuilder b;
  KernelLaunchRecord launch{};
  b.Chunk(ChunkSource::kThread, 1).Add(launch).Add(launch).Flush();
  std::vector<uint8_t> bytes = b.Bytes();
  const size_t chunk = sizeof(FileHeader);
  ChunkHeader ch;
  std::memcpy(&ch, bytes.data() + chunk, sizeof ch);
  ch.record_count = UINT32_MAX;
  const size_t second = chunk + sizeof(ChunkHeader) + sizeof(KernelLaunchRecord);
  bytes[second + offsetof(RecordHeader, size8)] = 0;  // a record of size 0
  bytes[second + offsetof(RecordHeader, size8) + 1] = 0;
  ch.crc = Crc32c(bytes.data() + chunk + sizeof ch, ch.payload_size,
                  Crc32c(&ch, offsetof(ChunkHeader, crc)));
  std::memcpy(bytes.data() + chunk, &ch, sizeof ch);
  uint64_t records = 0;
  const auto summary = ReadAll(bytes, &records);
  EXPECT_EQ(summary.status, ReadStatus::kCorrupt);
  EXPECT_NE(summary.message.find("inconsistent record framing"), std::string::npos)
      << summary.message;
  EXPECT_EQ(records, 0u);
}

TEST(DamagedFile, ForeignFileIsNotATrace) {
  const std::string text = "{\"traceEvents\": []}";
  const auto summary = ReadAll({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  EXPECT_EQ(summary.status, ReadStatus::kNotATrace);
  EXPECT_NE(summary.message.find("not a flopspy trace"), std::string::npos);
}

TEST(DamagedFile, NewerFormatIsRefusedWithAnExplanation) {
  std::vector<uint8_t> bytes = MakeSample().bytes;
  FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  h.format_version = kFormatVersion + 3;
  h.min_reader_version = kFormatVersion + 2;
  h.header_crc = Crc32c(&h, offsetof(FileHeader, header_crc));
  std::memcpy(bytes.data(), &h, sizeof h);
  const auto summary = ReadAll(bytes);
  EXPECT_EQ(summary.status, ReadStatus::kTooNew);
  EXPECT_NE(summary.message.find("upgrade flopspy"), std::string::npos);
}

TEST(DamagedFile, NewerFormatThatOldReadersMayReadIsRead) {
  std::vector<uint8_t> bytes = MakeSample().bytes;
  FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  h.format_version = kFormatVersion + 1;  // added record types only
  h.header_crc = Crc32c(&h, offsetof(FileHeader, header_crc));
  std::memcpy(bytes.data(), &h, sizeof h);
  EXPECT_EQ(ReadAll(bytes).status, ReadStatus::kOk);
}

TEST(DamagedFile, MissingChunkShowsAsSequenceGap) {
  Sample s = MakeSample();
  // Drop the second chunk (first thread chunk) entirely.
  std::vector<uint8_t> bytes(s.bytes.begin(), s.bytes.begin() + s.chunk_ends[0]);
  bytes.insert(bytes.end(), s.bytes.begin() + s.chunk_ends[1], s.bytes.end());
  const auto summary = ReadAll(bytes);
  EXPECT_EQ(summary.status, ReadStatus::kOk);
  EXPECT_EQ(summary.sequence_gaps, 1u);
}

TEST(DamagedFile, MissingFileIsAnIoError) {
  auto reader = TraceReader::OpenFile("/nonexistent/flopspy.trace");
  EXPECT_FALSE(reader.header_ok());
  EXPECT_EQ(reader.header_status().status, ReadStatus::kIoError);
  EXPECT_NE(reader.header_status().message.find("/nonexistent/flopspy.trace"), std::string::npos);
}

TEST(Crc32c, KnownVector) {
  // RFC 3720 test vector: 32 bytes of zeros.
  const std::vector<uint8_t> zeros(32, 0);
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  const char* digits = "123456789";
  EXPECT_EQ(Crc32c(digits, 9), 0xE3069283u);
  EXPECT_EQ(Crc32c(digits + 4, 5, Crc32c(digits, 4)), 0xE3069283u);
}

}  // namespace
}  // namespace flopspy::trace
