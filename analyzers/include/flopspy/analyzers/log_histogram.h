// Quantiles of durations in bounded memory: log-spaced buckets 2% wide, so any quantile is
// known to within 1% of its value. About 1,400 buckets span 1 ns to 1,000 s; they are allocated
// only up to the largest value seen.
#pragma once

#include <cstdint>
#include <vector>

namespace flopspy::analyzers {

class LogHistogram {
 public:
  void Add(double value);
  void Merge(const LogHistogram& other);
  // The q-quantile (0 <= q <= 1) of what was added; 0 when empty.
  double Quantile(double q) const;
  uint64_t count() const { return count_; }
  double min() const { return count_ ? min_ : 0; }
  double max() const { return count_ ? max_ : 0; }

 private:
  static int Bucket(double value);
  static double BucketMid(int bucket);

  std::vector<uint64_t> buckets_;  // bucket 0 holds values below 1
  uint64_t count_ = 0;
  double min_ = 0;
  double max_ = 0;
};

}  // namespace flopspy::analyzers
