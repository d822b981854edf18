#include "flopspy/analyzers/launch_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace flopspy::analyzers {
namespace {

constexpr uint64_t kSubBuckets = uint64_t{1} << DurationHistogram::kSubBucketBits;

}  // namespace

// Bucket b < 64 holds the value b. Above, a value v with its highest bit at position e >= 6 is
// shifted right by s = e - 6 to a mantissa m in [64, 128); its bucket is 64 s + m, which
// continues the numbering without a hole (v = 64 -> 64, v = 128 -> 128).
uint32_t DurationHistogram::BucketOf(uint64_t ns) {
  if (ns < kSubBuckets) return static_cast<uint32_t>(ns);
  const int shift = std::bit_width(ns) - 1 - kSubBucketBits;
  return static_cast<uint32_t>(kSubBuckets * static_cast<uint64_t>(shift) + (ns >> shift));
}

uint64_t DurationHistogram::BucketLow(uint32_t bucket) {
  if (bucket < kSubBuckets) return bucket;
  const uint64_t shift = bucket / kSubBuckets - 1;
  const uint64_t mantissa = bucket - kSubBuckets * shift;
  return mantissa << shift;
}

uint64_t DurationHistogram::BucketWidth(uint32_t bucket) {
  if (bucket < kSubBuckets) return 1;
  return uint64_t{1} << (bucket / kSubBuckets - 1);
}

void DurationHistogram::Reserve(uint32_t bucket) {
  if (counts_.empty()) {
    first_ = bucket;
    counts_.assign(1, 0);
    return;
  }
  if (bucket < first_) {
    counts_.insert(counts_.begin(), first_ - bucket, 0);
    first_ = bucket;
  } else if (bucket >= first_ + counts_.size()) {
    counts_.resize(bucket - first_ + 1, 0);
  }
}

void DurationHistogram::Add(uint64_t ns) {
  const uint32_t bucket = BucketOf(ns);
  Reserve(bucket);
  ++counts_[bucket - first_];
  ++count_;
  sum_ += ns;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
}

void DurationHistogram::Merge(const DurationHistogram& other) {
  if (other.count_ == 0) return;
  Reserve(other.first_);
  Reserve(other.first_ + static_cast<uint32_t>(other.counts_.size()) - 1);
  for (size_t i = 0; i < other.counts_.size(); ++i) {
    counts_[other.first_ + i - first_] += other.counts_[i];
  }
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

double DurationHistogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(std::isfinite(p) ? p : 0.0, 0.0, 100.0);
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p / 100.0 * count_ - 1e-9)));
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen < rank) continue;
    const uint32_t bucket = first_ + static_cast<uint32_t>(i);
    const double mid =
        static_cast<double>(BucketLow(bucket)) + static_cast<double>(BucketWidth(bucket) - 1) / 2.0;
    return std::clamp(mid, static_cast<double>(min_), static_cast<double>(max_));
  }
  return static_cast<double>(max_);
}

}  // namespace flopspy::analyzers
