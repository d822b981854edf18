// The fuzzer's checksum repair: a byte changed inside a record, once repaired, reaches the reader's
// decoders (it is read, not refused), and an intact trace is left exactly as it was.
#include "checksum_repair.h"

#include <gtest/gtest.h>

#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::fuzz {
namespace {

std::vector<uint8_t> Sample() {
  testing::TraceBuilder b;
  b.Chunk(trace::ChunkSource::kProcess).String(1, "alpha");
  trace::KernelLaunchRecord launch{};
  launch.correlation = 41;
  b.Chunk(trace::ChunkSource::kThread, 3).Add(launch).Add(launch).Flush();
  return b.Bytes();
}

std::vector<uint64_t> Correlations(const std::vector<uint8_t>& bytes, trace::ReadStatus* status) {
  trace::TraceReader reader(trace::MemorySource(bytes));
  std::vector<uint64_t> out;
  *status = reader
                .ForEachRecord([&](const trace::RecordView& r) {
                  if (r.type == trace::RecordType::kKernelLaunch)
                    out.push_back(r.As<trace::KernelLaunchRecord>().correlation);
                })
                .status;
  return out;
}

TEST(ChecksumRepair, IntactTraceIsUnchanged) {
  std::vector<uint8_t> bytes = Sample();
  const std::vector<uint8_t> before = bytes;
  EXPECT_EQ(RepairChecksums(bytes.data(), bytes.size()), 2u);
  EXPECT_EQ(bytes, before);
}

TEST(ChecksumRepair, ChangedRecordIsReadAfterRepair) {
  std::vector<uint8_t> bytes = Sample();
  const size_t correlation_at =
      bytes.size() - 2 * 64 + offsetof(trace::KernelLaunchRecord, correlation);
  bytes[correlation_at] = 42;
  trace::ReadStatus status;
  EXPECT_TRUE(Correlations(bytes, &status).empty());
  EXPECT_EQ(status, trace::ReadStatus::kCorrupt);
  RepairChecksums(bytes.data(), bytes.size());
  EXPECT_EQ(Correlations(bytes, &status), (std::vector<uint64_t>{42, 41}));
  EXPECT_EQ(status, trace::ReadStatus::kOk);
}

TEST(ChecksumRepair, RecordCountFollowsTheFraming) {
  std::vector<uint8_t> bytes = Sample();
  // Make the first launch record swallow the second: one record of 128 bytes.
  const size_t first = bytes.size() - 2 * 64;
  bytes[first + offsetof(trace::RecordHeader, size8)] = 16;
  trace::ReadStatus status;
  RepairChecksums(bytes.data(), bytes.size(), {.record_counts = false});
  Correlations(bytes, &status);
  EXPECT_EQ(status, trace::ReadStatus::kCorrupt);  // the count still says 2
  RepairChecksums(bytes.data(), bytes.size());
  EXPECT_EQ(Correlations(bytes, &status), (std::vector<uint64_t>{41}));
  EXPECT_EQ(status, trace::ReadStatus::kOk);
}

TEST(ChecksumRepair, ForeignBytesAreLeftAlone) {
  std::vector<uint8_t> bytes(100, 'x');
  EXPECT_EQ(RepairChecksums(bytes.data(), bytes.size()), 0u);
  EXPECT_EQ(bytes, std::vector<uint8_t>(100, 'x'));
}

}  // namespace
}  // namespace flopspy::fuzz
