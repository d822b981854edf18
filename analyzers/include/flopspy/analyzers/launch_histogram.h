// A histogram of durations in nanoseconds whose percentiles are within 1% of the exact sample
// values, in a few hundred bytes: the launch-overhead analysis keeps one per kernel signature
// instead of every sample (docs/launch-overhead.md, "Percentiles").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace flopspy::analyzers {

// Log-linear buckets: values below 64 ns have a bucket each; above, every power of two is cut
// into 64 equal buckets. A bucket [lo, lo + w) has w <= lo / 64, so its midpoint is within
// 1/128 (0.79%) of any value in it. Counts are kept densely between the lowest and the highest
// bucket used, which for one kernel signature spans a few hundred buckets at most.
class DurationHistogram {
 public:
  static constexpr int kSubBucketBits = 6;
  static constexpr double kMaxRelativeError = 1.0 / 128;

  void Add(uint64_t ns);
  void Merge(const DurationHistogram& other);

  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }  // exact
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double Mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0; }
  // Nearest-rank percentile, p in [0, 100]: the value of rank ceil(p/100 x count) in sorted
  // order, read back as its bucket's midpoint and clamped to [min, max]. 0 when empty.
  double Percentile(double p) const;

  size_t MemoryBytes() const { return counts_.capacity() * sizeof(uint32_t); }

  static uint32_t BucketOf(uint64_t ns);
  static uint64_t BucketLow(uint32_t bucket);
  static uint64_t BucketWidth(uint32_t bucket);

 private:
  void Reserve(uint32_t bucket);

  uint32_t first_ = 0;            // bucket of counts_[0]
  std::vector<uint32_t> counts_;  // counts_[i] belongs to bucket first_ + i
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace flopspy::analyzers
