// The one launch-to-GPU join: either order, correlation 0 never joins, and the bound on what
// waits (the oldest are given up and counted).
#include "flopspy/analyzers/correlator.h"

#include <gtest/gtest.h>

#include <string>

namespace flopspy::analyzers {
namespace {

using Join = Correlator<std::string, int>;

TEST(Correlator, LaunchFirstJoinsWhenItsGpuRecordComes) {
  Join join(8);
  EXPECT_FALSE(join.OnLaunch(7, "launch"));
  EXPECT_EQ(join.waiting_launches().size(), 1u);
  const auto launch = join.OnGpu(7, 70);
  ASSERT_TRUE(launch);
  EXPECT_EQ(*launch, "launch");
  EXPECT_EQ(join.waiting_launches().size(), 0u);
  EXPECT_EQ(join.waiting_gpu().size(), 0u);
}

TEST(Correlator, GpuRecordFirstJoinsWhenItsLaunchComes) {
  Join join(8);
  EXPECT_FALSE(join.OnGpu(7, 70));
  EXPECT_FALSE(join.OnGpu(8, 80));
  const auto gpu = join.OnLaunch(8, "launch");
  ASSERT_TRUE(gpu);
  EXPECT_EQ(*gpu, 80);
  EXPECT_EQ(join.waiting_gpu().size(), 1u);  // 7 still waits
}

TEST(Correlator, EachSideJoinsOnce) {
  Join join(8);
  join.OnLaunch(7, "launch");
  EXPECT_TRUE(join.OnGpu(7, 70));
  // A second GPU record of the same correlation (a replay) finds no launch and waits itself.
  EXPECT_FALSE(join.OnGpu(7, 71));
  EXPECT_EQ(join.waiting_gpu().size(), 1u);
}

TEST(Correlator, CorrelationZeroNeverJoinsNorWaits) {
  Join join(8);
  EXPECT_FALSE(join.OnLaunch(0, "launch"));
  EXPECT_FALSE(join.OnGpu(0, 1));
  EXPECT_EQ(join.waiting_launches().size(), 0u);
  EXPECT_EQ(join.waiting_gpu().size(), 0u);
}

TEST(Correlator, TheOldestAreGivenUpBeyondTheBound) {
  Join join(4);
  for (uint64_t c = 1; c <= 10; ++c) join.OnLaunch(c, "launch " + std::to_string(c));
  EXPECT_EQ(join.waiting_launches().size(), 4u);
  EXPECT_EQ(join.waiting_launches().evicted(), 6u);
  EXPECT_FALSE(join.OnGpu(1, 10));  // given up on: the record now waits for nothing
  const auto newest = join.OnGpu(10, 100);
  ASSERT_TRUE(newest);
  EXPECT_EQ(*newest, "launch 10");
}

TEST(Correlator, MemoryStaysBoundedOverAMillionUnmatchedLaunches) {
  Join join(1024);
  for (uint64_t c = 1; c <= 1'000'000; ++c) join.OnLaunch(c, "x");
  EXPECT_EQ(join.waiting_launches().size(), 1024u);
  EXPECT_EQ(join.waiting_launches().evicted(), 1'000'000u - 1024u);
  // Keys that joined are forgotten too: the arrival order holds at most 2 x the bound.
  for (uint64_t c = 2'000'000; c < 2'100'000; ++c) {
    join.OnLaunch(c, "y");
    join.OnGpu(c, 1);
  }
  EXPECT_LT(join.MemoryBytes(), size_t{1} << 20);
}

}  // namespace
}  // namespace flopspy::analyzers
