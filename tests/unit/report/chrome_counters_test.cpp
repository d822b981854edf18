// The Chrome export's GPU counters: bucket widths, busy time as a union whatever the record
// order, FLOPs spread over the buckets a kernel covers.
#include "report/chrome_counters.h"

#include <gtest/gtest.h>

namespace flopspy::tools {
namespace {

TEST(ChromeCounters, BucketWidthIsRoundAndKeepsAtMostTenThousandBuckets) {
  EXPECT_EQ(CounterBucketNs(0), 1'000u);
  EXPECT_EQ(CounterBucketNs(1'000'000), 1'000u);          // 1 ms: 1 us buckets
  EXPECT_EQ(CounterBucketNs(6'650'000'000), 1'000'000u);  // 6.65 s: 1 ms
  EXPECT_EQ(CounterBucketNs(15'000'000'000), 2'000'000u);
  EXPECT_EQ(CounterBucketNs(334'000'000'000), 50'000'000u);
  for (const uint64_t span : {1ull, 999'999ull, 12'345'678'901ull, 1ull << 50}) {
    EXPECT_LT(span / CounterBucketNs(span), kMaxCounterBuckets) << span;
  }
}

// Two streams' kernels overlapping by half: the union, not the sum; in any order.
TEST(ChromeCounters, BusyCountsOverlappingWorkOnce) {
  for (const bool reversed : {false, true}) {
    GpuCounters c(0, 1'000'000);  // 1 us buckets
    const std::pair<uint64_t, uint64_t> work[] = {
        {0, 400}, {200, 600}, {700, 1'500}, {3'000, 3'250}};
    for (size_t i = 0; i < 4; ++i) {
      const auto& [begin, end] = work[reversed ? 3 - i : i];
      c.Add(begin, end, -1);
    }
    c.Finish();
    EXPECT_DOUBLE_EQ(c.BusyFraction(0), 0.9);  // 0-600 and 700-1000
    EXPECT_DOUBLE_EQ(c.BusyFraction(1), 0.5);
    EXPECT_DOUBLE_EQ(c.BusyFraction(2), 0.0);
    EXPECT_DOUBLE_EQ(c.BusyFraction(3), 0.25);
    EXPECT_DOUBLE_EQ(c.FlopsPerSecond(0), 0.0);
  }
}

// Far more pieces than it holds at once, in reverse order: still the union.
TEST(ChromeCounters, ManyPiecesInReverseOrder) {
  GpuCounters c(0, 1'000'000);
  for (int i = 999; i >= 0; --i) c.Add(uint64_t(i) * 1'000, uint64_t(i) * 1'000 + 100, -1);
  c.Finish();
  for (size_t i = 0; i < 1000; ++i) ASSERT_DOUBLE_EQ(c.BusyFraction(i), 0.1) << i;
}

TEST(ChromeCounters, FlopsAreSpreadOverTheKernelsBuckets) {
  GpuCounters c(0, 10'000);
  c.Add(500, 2'500, 2e6);  // 1e3 FLOPs per ns over 2 us
  c.Finish();
  EXPECT_DOUBLE_EQ(c.FlopsPerSecond(0), 0.5e6 / 1e-6);
  EXPECT_DOUBLE_EQ(c.FlopsPerSecond(1), 1e6 / 1e-6);
  EXPECT_DOUBLE_EQ(c.FlopsPerSecond(2), 0.5e6 / 1e-6);
  EXPECT_DOUBLE_EQ(c.FlopsPerSecond(3), 0.0);
}

// Work outside the span (a damaged file) is clipped, never written out of bounds.
TEST(ChromeCounters, WorkOutsideTheSpanIsClipped) {
  GpuCounters c(10'000, 20'000);
  c.Add(0, 5'000, 1e9);
  c.Add(19'500, 90'000, -1);
  c.Finish();
  EXPECT_EQ(c.buckets(), 11u);
  EXPECT_DOUBLE_EQ(c.FlopsPerSecond(0), 0.0);
  EXPECT_DOUBLE_EQ(c.BusyFraction(9), 0.5);
  EXPECT_DOUBLE_EQ(c.BusyFraction(10), 1.0);
}

}  // namespace
}  // namespace flopspy::tools
