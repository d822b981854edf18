#include "flopspy/gpu_roofline/counter_sampling.h"

#include <algorithm>
#include <cmath>

namespace flopspy::gpuroof {

double RelativeSpread(double min, double max, double mean) {
  const double range = max - min;
  if (range <= 0) return 0;
  if (mean == 0) return 1;
  return range / std::fabs(mean);
}

CounterSampler::CounterSampler(uint32_t wanted, double tolerance, size_t max_signatures)
    : wanted_(std::max<uint32_t>(wanted, 1)),
      tolerance_(tolerance),
      max_signatures_(max_signatures) {}

uint32_t CounterSampler::Claim(const CounterSignature& signature) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(signature);
  if (it == entries_.end()) {
    if (entries_.size() >= max_signatures_) {
      ++untracked_;
      return 0;
    }
    it = entries_.emplace(signature, Entry{}).first;
  }
  Entry& e = it->second;
  if (e.measured + e.in_flight >= wanted_) return 0;
  ++e.in_flight;
  return e.measured + e.in_flight;
}

void CounterSampler::Abandon(const CounterSignature& signature) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(signature);
  if (it != entries_.end() && it->second.in_flight > 0) --it->second.in_flight;
}

CounterSampler::Recorded CounterSampler::Record(const CounterSignature& signature,
                                                const CounterValues& v) {
  std::lock_guard lock(mutex_);
  Entry& e = entries_[signature];
  if (e.in_flight > 0) --e.in_flight;
  const double flops = v.Flops();
  const double dram = v.DramBytes();
  if (e.measured == 0) {
    e.flops_min = e.flops_max = flops;
    e.dram_min = e.dram_max = dram;
  } else {
    e.flops_min = std::min(e.flops_min, flops), e.flops_max = std::max(e.flops_max, flops);
    e.dram_min = std::min(e.dram_min, dram), e.dram_max = std::max(e.dram_max, dram);
  }
  e.sum.fp32 += v.fp32;
  e.sum.fp64 += v.fp64;
  e.sum.fp16 += v.fp16;
  e.sum.tensor += v.tensor;
  e.sum.dram_read += v.dram_read;
  e.sum.dram_write += v.dram_write;
  e.sum.l2 += v.l2;
  e.sum.duration_ns += v.duration_ns;
  e.sum.valid |= v.valid;
  ++e.measured;

  Recorded r;
  r.samples = e.measured;
  r.complete = e.measured >= wanted_;
  const CounterSummary s = Summarize(e);
  const bool flops_off = s.flops_spread > tolerance_;
  // A compute kernel moves a few KB of DRAM traffic that other work on the GPU can double; a
  // spread below kDramSpreadFloorBytes moves no roofline point and is not a disagreement.
  const bool dram_off =
      s.dram_spread > tolerance_ && e.dram_max - e.dram_min >= kDramSpreadFloorBytes;
  if ((flops_off || dram_off) && !e.warned) {
    e.warned = true;
    r.disagree = true;
    r.what = flops_off && dram_off ? "FLOPs and DRAM bytes" : flops_off ? "FLOPs" : "DRAM bytes";
    r.spread = std::max(flops_off ? s.flops_spread : 0.0, dram_off ? s.dram_spread : 0.0);
  }
  return r;
}

CounterSummary CounterSampler::Summarize(const Entry& e) {
  CounterSummary s;
  s.samples = e.measured;
  if (e.measured == 0) return s;
  const double n = e.measured;
  s.mean = e.sum;
  s.mean.fp32 /= n, s.mean.fp64 /= n, s.mean.fp16 /= n, s.mean.tensor /= n;
  s.mean.dram_read /= n, s.mean.dram_write /= n, s.mean.l2 /= n, s.mean.duration_ns /= n;
  s.flops_spread = RelativeSpread(e.flops_min, e.flops_max, s.mean.Flops());
  s.dram_spread = RelativeSpread(e.dram_min, e.dram_max, s.mean.DramBytes());
  return s;
}

std::optional<CounterSummary> CounterSampler::Summary(const CounterSignature& signature) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(signature);
  if (it == entries_.end() || it->second.measured == 0) return std::nullopt;
  return Summarize(it->second);
}

size_t CounterSampler::signatures() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

uint64_t CounterSampler::untracked_launches() const {
  std::lock_guard lock(mutex_);
  return untracked_;
}

}  // namespace flopspy::gpuroof
