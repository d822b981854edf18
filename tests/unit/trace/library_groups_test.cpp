// LibraryGroups records (format 2): written after a grouped GEMM call, paired with it by the
// collector, which refuses a record cut short, out of order or out of place with a message and
// reads everything after it as usual; format-1 traces (no such records) still read.
#include "flopspy/trace/library_groups.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "flopspy/trace/crc32c.h"
#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::trace {
namespace {

using testing::TraceBuilder;

LibraryGroupShape Group(int64_t m, int64_t n, int64_t k, int64_t count, uint8_t beta = 0) {
  LibraryGroupShape g{};
  g.m = m, g.n = n, g.k = k, g.count = count, g.beta = beta;
  g.lda = m, g.ldb = k, g.ldc = m;
  return g;
}

LibraryCallRecord Call(int64_t groups, uint64_t correlation) {
  LibraryCallRecord c{};
  c.batch = groups;
  c.correlation = correlation;
  c.flags = kLibBatchedPointers;
  return c;
}

// What the collector made of a trace: each call's groups when complete, and its messages.
struct Collected {
  std::vector<std::pair<uint64_t, std::vector<LibraryGroupShape>>> calls;  // correlation, groups
  std::vector<LibraryGroupsCut> cuts;
  std::vector<std::string> errors;
  uint64_t records = 0;
  ReadSummary summary;
};

Collected Collect(const std::vector<uint8_t>& bytes) {
  TraceReader reader(MemorySource(bytes));
  LibraryGroupsCollector collector;
  Collected out;
  out.summary = reader.ForEachRecord([&](const RecordView& r) {
    ++out.records;
    switch (collector.Add(r)) {
      case LibraryGroupsCollector::Step::kComplete:
        out.calls.emplace_back(
            collector.call().correlation,
            std::vector<LibraryGroupShape>(collector.groups().begin(), collector.groups().end()));
        out.cuts.push_back(collector.cut());
        break;
      case LibraryGroupsCollector::Step::kDamaged:
        out.errors.push_back(collector.error());
        break;
      case LibraryGroupsCollector::Step::kNone:
        break;
    }
  });
  if (std::string last = collector.Finish(); !last.empty()) out.errors.push_back(last);
  return out;
}

TEST(LibraryGroups, AddGroupSumsWhatTheFormulasNeed) {
  // Groups (m, n, k, count, beta) = (64, 32, 16, 3, 0) and (8, 8, 8, 1, non-zero):
  //   m*n*k 3*64*32*16 + 8*8*8 = 98304 + 512 = 98816;  m*k 3*1024 + 64 = 3136
  //   k*n   3*512 + 64 = 1600;  m*n 3*2048 + 64 = 6208;  m*n reading C 64 (the second only)
  LibraryGroupsCut sums{};
  AddGroup(sums, Group(64, 32, 16, 3, 0));
  AddGroup(sums, Group(8, 8, 8, 1, 1));
  EXPECT_EQ(sums.groups, 2);
  EXPECT_EQ(sums.problems, 4);
  EXPECT_DOUBLE_EQ(sums.mnk, 98816);
  EXPECT_DOUBLE_EQ(sums.mk, 3136);
  EXPECT_DOUBLE_EQ(sums.kn, 1600);
  EXPECT_DOUBLE_EQ(sums.mn, 6208);
  EXPECT_DOUBLE_EQ(sums.mn_reads_c, 64);
  // A beta not read counts C as read.
  AddGroup(sums, Group(2, 3, 4, 1, kGroupBetaUnknown));
  EXPECT_DOUBLE_EQ(sums.mn_reads_c, 70);
}

TEST(LibraryGroups, RecordsOfEightInOrderWithTheCutInTheFirst) {
  std::vector<LibraryGroupShape> listed;
  for (int g = 0; g < 10; ++g) listed.push_back(Group(g + 1, 2, 3, 1));
  LibraryGroupsCut cut{};
  cut.groups = 5;
  cut.problems = 7;
  const auto records = MakeLibraryGroupsRecords(listed, cut);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].h.type, static_cast<uint8_t>(RecordType::kLibraryGroups));
  EXPECT_EQ(records[0].h.size(), sizeof(LibraryGroupsRecord));
  EXPECT_EQ(records[0].first, 0);
  EXPECT_EQ(records[0].valid, 8);
  EXPECT_EQ(records[0].cut.groups, 5);
  EXPECT_EQ(records[1].first, 8);
  EXPECT_EQ(records[1].valid, 2);
  EXPECT_EQ(records[1].cut.groups, 0);
  EXPECT_EQ(records[1].groups[1].m, 10);
  EXPECT_TRUE(MakeLibraryGroupsRecords({}, cut).empty());
}

TEST(LibraryGroups, CollectedWithTheirCallAndRoundTripped) {
  TraceBuilder b;
  std::vector<LibraryGroupShape> listed;
  for (int g = 0; g < 10; ++g) listed.push_back(Group(g + 1, 2, 3, g + 1));
  LibraryGroupsCut cut{};
  cut.groups = 2, cut.problems = 2, cut.mnk = 138;
  b.Chunk(ChunkSource::kThread, 7).GroupedCall(Call(12, 1), listed, cut);
  LibraryCallRecord plain = Call(4, 2);
  b.Add(plain);
  const Collected c = Collect(b.Bytes());
  EXPECT_EQ(c.summary.status, ReadStatus::kOk);
  EXPECT_EQ(c.records, 4u);  // the call, two groups records, the plain call
  EXPECT_TRUE(c.errors.empty());
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.calls[0].first, 1u);
  ASSERT_EQ(c.calls[0].second.size(), 10u);
  EXPECT_EQ(c.calls[0].second[9].m, 10);
  EXPECT_EQ(c.calls[0].second[9].count, 10);
  EXPECT_EQ(c.calls[0].second[9].lda, 10);
  EXPECT_EQ(c.cuts[0].groups, 2);
  EXPECT_DOUBLE_EQ(c.cuts[0].mnk, 138);
}

// An unlisted group with a negative size: the hook writes cut.problems = -1 so that the call gets
// no figures (blas-formulas.md). That is what the writer meant, not damage.
TEST(LibraryGroups, ACutMarkedWithoutFiguresIsNotDamage) {
  TraceBuilder b;
  std::vector<LibraryGroupShape> listed(64, Group(4, 4, 4, 1));
  LibraryGroupsCut cut{};
  cut.groups = 1, cut.problems = -1;
  b.Chunk(ChunkSource::kThread, 7).GroupedCall(Call(65, 1), listed, cut);
  const Collected c = Collect(b.Bytes());
  EXPECT_TRUE(c.errors.empty()) << c.errors.front();
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.cuts[0].problems, -1);
  // Anything below -1 is not something the writer says.
  TraceBuilder bad;
  cut.problems = -2;
  bad.Chunk(ChunkSource::kThread, 7).GroupedCall(Call(65, 1), listed, cut);
  EXPECT_EQ(Collect(bad.Bytes()).errors.size(), 1u);
}

// The second groups record of a call is cut to 72 bytes (header and cut only): refused with its
// offset; the next grouped call in the same chunk and everything after still read.
TEST(LibraryGroups, CutShortRecordIsRefusedAndTheRestReads) {
  TraceBuilder b;
  std::vector<LibraryGroupShape> listed;
  for (int g = 0; g < 10; ++g) listed.push_back(Group(g + 1, 2, 3, 1));
  b.Chunk(ChunkSource::kThread, 7);
  LibraryCallRecord damaged = Call(10, 1);
  damaged.flags |= kLibGrouped | kLibGroupsFollow;
  b.Add(damaged);
  const auto records = MakeLibraryGroupsRecords(listed, {});
  b.Add(records[0]);
  LibraryGroupsRecord cut_short = records[1];
  cut_short.h.size8 = 72 / 8;
  b.AddRaw(&cut_short, 72);
  const std::vector<LibraryGroupShape> two = {Group(4, 5, 6, 1), Group(7, 8, 9, 2)};
  b.GroupedCall(Call(2, 2), two, {});
  TraceEndRecord end{};
  b.Chunk(ChunkSource::kProcess).Add(end);

  const Collected c = Collect(b.Bytes());
  EXPECT_EQ(c.summary.status, ReadStatus::kOk);
  EXPECT_TRUE(c.summary.ended_cleanly);
  EXPECT_EQ(c.records, 6u);
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].find("is cut short (72 of 576 bytes)"), std::string::npos) << c.errors[0];
  EXPECT_NE(c.errors[0].find("the groups of the grouped call at byte"), std::string::npos)
      << c.errors[0];
  EXPECT_NE(c.errors[0].find("stand"), std::string::npos) << c.errors[0];
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.calls[0].first, 2u);
  EXPECT_EQ(c.calls[0].second.size(), 2u);
}

TEST(LibraryGroups, OutOfPlaceOutOfOrderAndMissingAreRefused) {
  const std::vector<LibraryGroupShape> two = {Group(4, 5, 6, 1), Group(7, 8, 9, 2)};
  const auto records = MakeLibraryGroupsRecords(two, {});
  {  // a groups record with no grouped call before it
    TraceBuilder b;
    b.Chunk(ChunkSource::kThread, 7).Add(Call(2, 1)).Add(records[0]);
    const Collected c = Collect(b.Bytes());
    ASSERT_EQ(c.errors.size(), 1u);
    EXPECT_NE(c.errors[0].find("is not right after a grouped call"), std::string::npos);
    EXPECT_TRUE(c.calls.empty());
  }
  {  // a grouped call whose groups are missing, followed by another call
    TraceBuilder b;
    LibraryCallRecord grouped = Call(2, 1);
    grouped.flags |= kLibGrouped | kLibGroupsFollow;
    b.Chunk(ChunkSource::kThread, 7).Add(grouped).Add(Call(2, 2));
    const Collected c = Collect(b.Bytes());
    ASSERT_EQ(c.errors.size(), 1u);
    EXPECT_NE(c.errors[0].find("no LibraryGroups record does"), std::string::npos) << c.errors[0];
  }
  {  // ... or at the end of the trace
    TraceBuilder b;
    LibraryCallRecord grouped = Call(2, 1);
    grouped.flags |= kLibGrouped | kLibGroupsFollow;
    b.Chunk(ChunkSource::kThread, 7).Add(grouped);
    const Collected c = Collect(b.Bytes());
    ASSERT_EQ(c.errors.size(), 1u);
    EXPECT_NE(c.errors[0].find("the trace ends before them"), std::string::npos) << c.errors[0];
  }
  {  // out of order, and a count of groups the call does not have
    LibraryGroupsRecord wrong = records[0];
    wrong.first = 8;
    TraceBuilder b;
    b.Chunk(ChunkSource::kThread, 7).Add(Call(2, 1));
    LibraryCallRecord grouped = Call(2, 2);
    grouped.flags |= kLibGrouped | kLibGroupsFollow;
    b.Add(grouped).Add(wrong);
    wrong = records[0];
    wrong.valid = 9;
    b.Add(grouped).Add(wrong);
    wrong = records[0];
    wrong.cut.groups = 2;  // every group unlisted, yet one is listed
    b.Add(grouped).Add(wrong);
    const Collected c = Collect(b.Bytes());
    ASSERT_EQ(c.errors.size(), 3u);
    EXPECT_NE(c.errors[0].find("starts at group 8 where group 0 was due"), std::string::npos);
    EXPECT_NE(c.errors[1].find("says it holds 9 groups (1 to 8 fit)"), std::string::npos);
    EXPECT_NE(c.errors[2].find("sums 2 unlisted groups"), std::string::npos) << c.errors[2];
    EXPECT_TRUE(c.calls.empty());
  }
}

// A format-1 trace (written before LibraryGroups records existed) reads as before: its grouped
// calls carry no groups and nothing is refused.
TEST(LibraryGroups, FormatOneTraceStillReads) {
  TraceBuilder b;
  LibraryCallRecord grouped = Call(3, 1);
  grouped.flags |= kLibGrouped;  // format 1: the first group only, no kLibGroupsFollow
  b.Chunk(ChunkSource::kThread, 7).Add(grouped);
  std::vector<uint8_t> bytes = b.Bytes();
  FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  EXPECT_EQ(h.format_version, kFormatVersion);
  EXPECT_EQ(h.min_reader_version, 1);
  h.format_version = 1;
  h.header_crc = Crc32c(&h, offsetof(FileHeader, header_crc));
  std::memcpy(bytes.data(), &h, sizeof h);
  const Collected c = Collect(bytes);
  EXPECT_EQ(c.summary.status, ReadStatus::kOk);
  EXPECT_EQ(c.records, 1u);
  EXPECT_TRUE(c.errors.empty());
  EXPECT_TRUE(c.calls.empty());
}

}  // namespace
}  // namespace flopspy::trace
