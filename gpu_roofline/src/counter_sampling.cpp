#include "flopspy/gpu_roofline/counter_sampling.h"

#include <algorithm>
#include <bit>
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

namespace {

void Add(CounterValues& into, const CounterValues& v) {
  into.fp32 += v.fp32;
  into.fp64 += v.fp64;
  into.fp16 += v.fp16;
  into.tensor += v.tensor;
  into.dram_read += v.dram_read;
  into.dram_write += v.dram_write;
  into.l2 += v.l2;
  into.duration_ns += v.duration_ns;
  into.valid |= v.valid;
}

// `v` with only the figures of `valid` kept (the others 0): a part of a sample must not pass a
// group's share of a figure for the whole.
CounterValues MaskedTo(CounterValues v, uint32_t valid) {
  const auto keep = [valid](double& figure, uint32_t bit) {
    if ((valid & bit) == 0) figure = 0;
  };
  keep(v.fp32, trace::kMetricsFp32);
  keep(v.fp64, trace::kMetricsFp64);
  keep(v.fp16, trace::kMetricsFp16);
  keep(v.tensor, trace::kMetricsTensor);
  keep(v.dram_read, trace::kMetricsDram);
  keep(v.dram_write, trace::kMetricsDram);
  keep(v.l2, trace::kMetricsL2);
  keep(v.duration_ns, trace::kMetricsDuration);
  v.valid = valid;
  return v;
}

}  // namespace

SampleSlot CounterSampler::Claim(const CounterSignature& signature,
                                 std::span<const uint32_t> groups, uint32_t preferred) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(signature);
  if (it == entries_.end()) {
    if (entries_.size() >= max_signatures_) {
      ++untracked_;
      return {};
    }
    Entry e;
    e.groups.assign(groups.begin(), groups.begin() + std::min(groups.size(), kMaxGroups));
    if (e.groups.empty()) e.groups.push_back(~0u);
    e.taken.assign(e.groups.size(), 0);
    it = entries_.emplace(signature, std::move(e)).first;
  }
  Entry& e = it->second;
  const auto count = static_cast<uint32_t>(e.groups.size());
  const auto slot_of = [count](uint32_t index) {
    return SampleSlot{index / count + 1, index % count};
  };
  // An abandoned slot first (the lowest sample), of the preferred group if there is one.
  const auto take_returned = [&](bool preferred_only) -> std::optional<SampleSlot> {
    auto best = e.returned.end();
    for (auto r = e.returned.begin(); r != e.returned.end(); ++r) {
      if (preferred_only && *r % count != preferred) continue;
      if (best == e.returned.end() || *r < *best) best = r;
    }
    if (best == e.returned.end()) return std::nullopt;
    const SampleSlot slot = slot_of(*best);
    e.returned.erase(best);
    return slot;
  };
  if (preferred < count) {
    if (const auto slot = take_returned(true)) return *slot;
    if (e.taken[preferred] < wanted_) return {++e.taken[preferred], preferred};
  }
  if (const auto slot = take_returned(false)) return *slot;
  // Else the group with the fewest samples taken, the first on a tie.
  uint32_t group = 0;
  for (uint32_t g = 1; g < count; ++g) {
    if (e.taken[g] < e.taken[group]) group = g;
  }
  if (e.taken[group] >= wanted_) return {};
  return {++e.taken[group], group};
}

bool CounterSampler::Finished(const CounterSignature& signature) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(signature);
  if (it == entries_.end()) {
    // The table is full: this signature will never be measured.
    if (entries_.size() < max_signatures_) return false;
    ++untracked_;
    return true;
  }
  if (!it->second.returned.empty()) return false;
  return std::ranges::all_of(it->second.taken, [&](uint32_t t) { return t >= wanted_; });
}

void CounterSampler::Abandon(const CounterSignature& signature, SampleSlot slot) {
  if (!slot) return;
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(signature);
  if (it == entries_.end()) return;
  const auto count = static_cast<uint32_t>(it->second.groups.size());
  it->second.returned.push_back((slot.sample - 1) * count + slot.group);
}

CounterSampler::Recorded CounterSampler::Record(const CounterSignature& signature, SampleSlot slot,
                                                const CounterValues& v) {
  std::lock_guard lock(mutex_);
  Recorded r;
  const auto it = entries_.find(signature);
  if (it == entries_.end() || !slot || slot.group >= it->second.groups.size()) return r;
  Entry& e = it->second;
  Partial& p = e.partial[slot.sample];
  Add(p.sum, v);
  p.done |= 1u << slot.group;
  // A quantity is known once every group that measures part of it is in.
  uint32_t covered = 0, missing = 0;
  for (size_t g = 0; g < e.groups.size(); ++g) {
    ((p.done >> g) & 1u ? covered : missing) |= e.groups[g];
  }
  r.sample = MaskedTo(p.sum, p.sum.valid & covered & ~missing);
  r.groups_done = static_cast<uint32_t>(std::popcount(p.done));
  r.sample_complete = r.groups_done == e.groups.size();
  if (r.sample_complete) {
    Commit(e, r.sample, &r);
    e.partial.erase(slot.sample);
  }
  r.samples = e.measured;
  r.complete = e.measured >= wanted_;
  return r;
}

void CounterSampler::Commit(Entry& e, const CounterValues& v, Recorded* r) {
  const double flops = v.Flops();
  const double dram = v.DramBytes();
  if (e.measured == 0) {
    e.flops_min = e.flops_max = flops;
    e.dram_min = e.dram_max = dram;
  } else {
    e.flops_min = std::min(e.flops_min, flops), e.flops_max = std::max(e.flops_max, flops);
    e.dram_min = std::min(e.dram_min, dram), e.dram_max = std::max(e.dram_max, dram);
  }
  Add(e.sum, v);
  ++e.measured;

  const CounterSummary s = Summarize(e);
  const bool flops_off = s.flops_spread > tolerance_;
  // A compute kernel moves a few KB of DRAM traffic that other work on the GPU can double; a
  // spread below kDramSpreadFloorBytes moves no roofline point and is not a disagreement.
  const bool dram_off =
      s.dram_spread > tolerance_ && e.dram_max - e.dram_min >= kDramSpreadFloorBytes;
  if ((flops_off || dram_off) && !e.warned) {
    e.warned = true;
    r->disagree = true;
    r->what = flops_off && dram_off ? "FLOPs and DRAM bytes" : flops_off ? "FLOPs" : "DRAM bytes";
    r->spread = std::max(flops_off ? s.flops_spread : 0.0, dram_off ? s.dram_spread : 0.0);
  }
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
