// DurationHistogram: percentiles within 1% of the exact nearest-rank values, without samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "flopspy/analyzers/launch_histogram.h"

namespace flopspy::analyzers {
namespace {

// The exact nearest-rank percentile: the value of rank ceil(p/100 x n), 1-based.
double Exact(std::vector<uint64_t> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(p / 100.0 * v.size())));
  return static_cast<double>(v[rank - 1]);
}

TEST(DurationHistogram, EmptyReadsZero) {
  DurationHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.Percentile(50), 0.0);
  EXPECT_EQ(h.Mean(), 0.0);
  EXPECT_EQ(h.min(), 0u);
}

TEST(DurationHistogram, BucketsAreContiguousAndNarrow) {
  // Every value falls in the bucket whose [low, low + width) holds it, buckets follow each
  // other without holes, and each is at most 1/64 of its lower bound wide above 64 ns.
  for (uint64_t v : {0ull, 1ull, 63ull, 64ull, 65ull, 127ull, 128ull, 129ull, 4000ull, 4031ull,
                     4032ull, 1'000'000ull, (1ull << 40) + 12345, ~0ull}) {
    const uint32_t b = DurationHistogram::BucketOf(v);
    const uint64_t lo = DurationHistogram::BucketLow(b);
    const uint64_t w = DurationHistogram::BucketWidth(b);
    EXPECT_LE(lo, v) << v;
    EXPECT_LE(v - lo, w - 1) << v;
    if (v >= 64) {
      EXPECT_LE(w * 64, lo) << v;
    }
    if (b > 0) {
      EXPECT_EQ(DurationHistogram::BucketLow(b - 1) + DurationHistogram::BucketWidth(b - 1), lo);
    }
  }
}

TEST(DurationHistogram, SmallValuesAreExact) {
  DurationHistogram h;
  for (uint64_t v = 1; v <= 50; ++v) h.Add(v);  // 1..50: p50 = 25, p95 = 48 (ranks 25, 48)
  EXPECT_EQ(h.Percentile(50), 25.0);
  EXPECT_EQ(h.Percentile(95), 48.0);
  EXPECT_EQ(h.Percentile(100), 50.0);
  EXPECT_EQ(h.Percentile(0), 1.0);
  EXPECT_EQ(h.sum(), 50u * 51u / 2u);
  EXPECT_DOUBLE_EQ(h.Mean(), 25.5);
}

TEST(DurationHistogram, PercentilesWithinOnePercentOfExact) {
  // 200,000 durations spread log-uniformly from 100 ns to 100 ms, plus a cluster of equal
  // values: every percentile read back is within 1% of the exact sample value.
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> log_ns(std::log(100.0), std::log(1e8));
  std::vector<uint64_t> samples;
  DurationHistogram h;
  for (int i = 0; i < 200'000; ++i) {
    const uint64_t v = static_cast<uint64_t>(std::exp(log_ns(rng)));
    samples.push_back(v);
    h.Add(v);
  }
  for (int i = 0; i < 5'000; ++i) {
    samples.push_back(4321);
    h.Add(4321);
  }
  for (double p : {1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 100.0}) {
    const double exact = Exact(samples, p);
    EXPECT_NEAR(h.Percentile(p), exact, 0.01 * exact) << "p" << p;
    EXPECT_NEAR(h.Percentile(p), exact, DurationHistogram::kMaxRelativeError * exact) << "p" << p;
  }
  // A histogram of a few hundred buckets, not 205,000 samples.
  EXPECT_LT(h.MemoryBytes(), 8 * 1024u);
}

TEST(DurationHistogram, MergeEqualsAddingEverything) {
  DurationHistogram a, b, all;
  for (uint64_t v = 1000; v < 200'000; v += 997) {
    (v % 3 ? a : b).Add(v);
    all.Add(v);
  }
  b.Add(7);  // extends b below a's range
  all.Add(7);
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.sum(), all.sum());
  EXPECT_EQ(a.min(), 7u);
  for (double p : {1.0, 50.0, 95.0, 100.0}) EXPECT_EQ(a.Percentile(p), all.Percentile(p));
}

}  // namespace
}  // namespace flopspy::analyzers
