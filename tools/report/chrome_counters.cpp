#include "report/chrome_counters.h"

#include <algorithm>
#include <iterator>

namespace flopspy::tools {

uint64_t CounterBucketNs(uint64_t span_ns) {
  for (uint64_t decade = 1000;; decade *= 10) {
    for (const uint64_t step : {1, 2, 5}) {
      const uint64_t width = step * decade;
      if (span_ns / width < kMaxCounterBuckets || decade > UINT64_MAX / 100) return width;
    }
  }
}

GpuCounters::GpuCounters(uint64_t first_ns, uint64_t last_ns)
    : start_ns_(first_ns),
      bucket_ns_(CounterBucketNs(last_ns > first_ns ? last_ns - first_ns : 0)) {
  const size_t n =
      static_cast<size_t>((last_ns > first_ns ? last_ns - first_ns : 0) / bucket_ns_) + 1;
  busy_ns_.assign(n, 0.0);
  flops_.assign(n, 0.0);
}

void GpuCounters::Spread(uint64_t begin_ns, uint64_t end_ns, double per_ns,
                         std::vector<double>& into) {
  const uint64_t limit = start_ns_ + bucket_ns_ * into.size();
  begin_ns = std::max(begin_ns, start_ns_);
  end_ns = std::min(end_ns, limit);
  while (begin_ns < end_ns) {
    const size_t i = static_cast<size_t>((begin_ns - start_ns_) / bucket_ns_);
    const uint64_t bucket_end = std::min(start_ns_ + bucket_ns_ * (i + 1), end_ns);
    into[i] += static_cast<double>(bucket_end - begin_ns) * per_ns;
    begin_ns = bucket_end;
  }
}

void GpuCounters::Add(uint64_t begin_ns, uint64_t end_ns, double flops) {
  if (end_ns <= begin_ns) return;
  if (flops > 0) Spread(begin_ns, end_ns, flops / static_cast<double>(end_ns - begin_ns), flops_);
  // Merge into the recent pieces: every piece that touches [begin, end) joins it.
  auto it = recent_.upper_bound(begin_ns);
  if (it != recent_.begin() && std::prev(it)->second >= begin_ns) --it;
  while (it != recent_.end() && it->first <= end_ns) {
    begin_ns = std::min(begin_ns, it->first);
    end_ns = std::max(end_ns, it->second);
    it = recent_.erase(it);
  }
  recent_.emplace(begin_ns, end_ns);
  if (recent_.size() > kRecentIntervals) {
    const auto oldest = recent_.begin();
    Spread(oldest->first, oldest->second, 1.0, busy_ns_);
    recent_.erase(oldest);
  }
}

void GpuCounters::Finish() {
  for (const auto& [begin, end] : recent_) Spread(begin, end, 1.0, busy_ns_);
  recent_.clear();
}

double GpuCounters::BusyFraction(size_t i) const {
  return std::min(busy_ns_[i] / static_cast<double>(bucket_ns_), 1.0);
}

double GpuCounters::FlopsPerSecond(size_t i) const {
  return flops_[i] / (static_cast<double>(bucket_ns_) / 1e9);
}

}  // namespace flopspy::tools
