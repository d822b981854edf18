// The recorder restates the losses of a chunk it could not write: it finds them again among the
// chunk's records.
#include <gtest/gtest.h>

#include "flopspy/trace/writer.h"

namespace flopspy::trace {
namespace {

LostRecordsRecord Lost(LossSource source, uint32_t thread, uint64_t count) {
  LostRecordsRecord lost{};
  lost.h = MakeHeader<LostRecordsRecord>();
  lost.source = static_cast<uint16_t>(source);
  lost.thread_id = thread;
  lost.count = count;
  lost.time_ns = 7;
  return lost;
}

TEST(LostRecordsIn, FindsEveryLossRecordAmongOthersInOrder) {
  ChunkBuilder chunk(4096);
  chunk.Reset(ChunkSource::kProcess, 0);
  ASSERT_TRUE(chunk.AppendString(1, "a name long enough to need padding"));
  ASSERT_TRUE(chunk.Append(Lost(LossSource::kThreadBuffer, 42, 1000)));
  RegionRecord region{};
  region.h = MakeHeader<RegionRecord>();
  ASSERT_TRUE(chunk.Append(region));
  ASSERT_TRUE(chunk.Append(Lost(LossSource::kWriteFailed, 0, 17)));
  ASSERT_TRUE(chunk.AppendMetadata(R"({"k":1})"));
  ASSERT_TRUE(chunk.Append(Lost(LossSource::kNoBuffer, 0, 3)));

  const std::vector<LostRecordsRecord> found = LostRecordsIn(chunk.payload());
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].source, static_cast<uint16_t>(LossSource::kThreadBuffer));
  EXPECT_EQ(found[0].thread_id, 42u);
  EXPECT_EQ(found[0].count, 1000u);
  EXPECT_EQ(found[1].source, static_cast<uint16_t>(LossSource::kWriteFailed));
  EXPECT_EQ(found[1].count, 17u);
  EXPECT_EQ(found[2].source, static_cast<uint16_t>(LossSource::kNoBuffer));
  EXPECT_EQ(found[2].count, 3u);
}

TEST(LostRecordsIn, StopsAtARecordThatDoesNotFit) {
  ChunkBuilder chunk(4096);
  chunk.Reset(ChunkSource::kProcess, 0);
  ASSERT_TRUE(chunk.Append(Lost(LossSource::kCuptiBuffer, 0, 5)));
  const std::span<const uint8_t> payload = chunk.payload();
  EXPECT_EQ(LostRecordsIn(payload).size(), 1u);
  EXPECT_TRUE(LostRecordsIn(payload.first(payload.size() - 8)).empty());
  EXPECT_TRUE(LostRecordsIn({}).empty());
}

}  // namespace
}  // namespace flopspy::trace
