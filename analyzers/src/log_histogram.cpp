#include "flopspy/analyzers/log_histogram.h"

#include <algorithm>
#include <cmath>

namespace flopspy::analyzers {
namespace {

constexpr double kRatio = 1.02;
const double kLogRatio = std::log(kRatio);
constexpr int kMaxBucket = 1500;

}  // namespace

int LogHistogram::Bucket(double value) {
  if (!(value >= 1)) return 0;
  return std::min(kMaxBucket, 1 + static_cast<int>(std::log(value) / kLogRatio));
}

double LogHistogram::BucketMid(int bucket) {
  if (bucket == 0) return 0.5;
  // Bucket b holds [ratio^(b-1), ratio^b): the geometric middle is within 1% of both ends.
  return std::exp((bucket - 0.5) * kLogRatio);
}

void LogHistogram::Add(double value) {
  const int b = Bucket(value);
  if (buckets_.size() <= static_cast<size_t>(b)) buckets_.resize(b + 1, 0);
  ++buckets_[b];
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  ++count_;
}

void LogHistogram::Merge(const LogHistogram& other) {
  if (other.count_ == 0) return;
  if (buckets_.size() < other.buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
  for (size_t i = 0; i < other.buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  max_ = count_ ? std::max(max_, other.max_) : other.max_;
  count_ += other.count_;
}

double LogHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  if (q == 0) return min_;
  if (q == 1) return max_;
  const auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) return std::clamp(BucketMid(static_cast<int>(b)), min_, max_);
  }
  return max_;
}

}  // namespace flopspy::analyzers
