// The counter tracks of one GPU in the Chrome export: how busy it was (the union of its kernels
// and copies, so concurrent streams count once) and the FLOP/s its kernels achieved (those whose
// FLOPs the report knows), per bucket of a width chosen from the GPU's active span. Memory is
// the buckets plus a few dozen intervals: GPU records may come in any order, and those out of
// order by more than kRecentIntervals pieces may count twice (the busy share is capped at 100%).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace flopspy::tools {

// The bucket width for an active span: the smallest of 1, 2, 5 x 10^k ns (at least 1 us) that
// leaves at most kMaxCounterBuckets buckets.
inline constexpr uint64_t kMaxCounterBuckets = 10'000;
uint64_t CounterBucketNs(uint64_t span_ns);

class GpuCounters {
 public:
  // Buckets cover [first_ns, last_ns]; work outside is clipped.
  GpuCounters(uint64_t first_ns, uint64_t last_ns);

  // One kernel or copy; `flops` < 0 when unknown (or not a kernel).
  void Add(uint64_t begin_ns, uint64_t end_ns, double flops);
  // Counts the intervals still held; call once before reading.
  void Finish();

  uint64_t start_ns() const { return start_ns_; }
  uint64_t bucket_ns() const { return bucket_ns_; }
  size_t buckets() const { return busy_ns_.size(); }
  double BusyFraction(size_t i) const;
  double FlopsPerSecond(size_t i) const;

 private:
  static constexpr size_t kRecentIntervals = 64;
  // Adds [begin, end) spread over the buckets it covers, scaled by `per_ns`, to `into`.
  void Spread(uint64_t begin_ns, uint64_t end_ns, double per_ns, std::vector<double>& into);

  uint64_t start_ns_ = 0;
  uint64_t bucket_ns_ = 1;
  std::vector<double> busy_ns_, flops_;
  std::map<uint64_t, uint64_t> recent_;  // disjoint busy pieces not yet counted: begin -> end
};

}  // namespace flopspy::tools
