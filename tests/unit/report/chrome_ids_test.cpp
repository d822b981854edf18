// Process and thread ids of the Chrome export: below 2^31, unique, and a real pid kept.
#include "report/chrome_ids.h"

#include <gtest/gtest.h>

namespace flopspy::tools {
namespace {

TEST(ChromeIds, ProcessesKeepTheirPidUnlessTakenOrOutOfRange) {
  ChromePids pids({11, 22, kSyntheticPidBase, 3'000'000'000});
  EXPECT_EQ(pids.Process(11), 11);
  EXPECT_EQ(pids.Process(22), 22);
  const int64_t again = pids.Process(11);  // a second host's pid 11
  const int64_t huge = pids.Process(3'000'000'000);
  const int64_t zero = pids.Process(0);
  for (const int64_t id : {again, huge, zero}) {
    EXPECT_GT(id, kSyntheticPidBase) << "the range starts above a real pid held there";
    EXPECT_LE(id, kMaxChromeId);
  }
  EXPECT_NE(again, huge);
  EXPECT_NE(huge, zero);
}

TEST(ChromeIds, GpusGetOneIdEachApartFromEveryProcess) {
  ChromePids pids({11});
  EXPECT_EQ(pids.Process(11), 11);
  const int64_t a = pids.Gpu(0, 0), b = pids.Gpu(0, 1), c = pids.Gpu(1, 0);
  EXPECT_EQ(pids.Gpu(0, 1), b);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(b, c);
  for (const int64_t id : {a, b, c}) {
    EXPECT_GE(id, kSyntheticPidBase);
    EXPECT_LE(id, kMaxChromeId);
  }
}

TEST(ChromeIds, ThreadsKeepTheirIdWhenInRange) {
  ChromeTids tids;
  EXPECT_EQ(tids.Get(7, 7), 7);
  EXPECT_EQ(tids.Get(7, 7), 7);
  const int64_t huge = tids.Get(3'000'000'000, 3'000'000'000);
  EXPECT_EQ(huge, kMaxChromeId);
  EXPECT_EQ(tids.Get(3'000'000'000, 3'000'000'000), huge);
  // A key that prefers an id already given gets another.
  const int64_t clash = tids.Get(uint64_t{7} | (uint64_t{1} << 32), 7);
  EXPECT_NE(clash, 7);
  EXPECT_NE(clash, huge);
}

}  // namespace
}  // namespace flopspy::tools
