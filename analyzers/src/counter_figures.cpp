// Hardware counter samples (KernelMetrics records, docs/gpu-counters.md): the fullest record of
// each sample, folded into its kernel group's means, and the group's figures where the catalog
// and the library call have none.
#include <algorithm>
#include <bit>
#include <cmath>

#include "trace_analysis_state.h"

namespace flopspy::analyzers {

using trace::FigureSource;

namespace {
constexpr uint32_t kFlopBits =
    trace::kMetricsFp32 | trace::kMetricsFp64 | trace::kMetricsFp16 | trace::kMetricsTensor;
}  // namespace

bool CounterFlopsValid(const KernelGroup& g) {
  return g.counter_flops_samples > 0;
}

bool CounterBytesValid(const KernelGroup& g) {
  return g.counter_bytes_samples > 0;
}

namespace {

double Spread(double min, double max, double mean) {
  if (max <= min) return 0;
  return mean != 0 ? (max - min) / std::fabs(mean) : 1.0;
}

// Folds `m` values of mean `mean` and extremes [lo, hi] into a running mean of `n` values.
void AddMean(double& into, double& into_min, double& into_max, uint32_t& n, uint32_t m, double mean,
             double lo, double hi) {
  if (m == 0) return;
  into_min = n == 0 ? lo : std::min(into_min, lo);
  into_max = n == 0 ? hi : std::max(into_max, hi);
  into = (into * n + mean * m) / (n + m);
  n += m;
}

// The roof a counter-measured kernel is placed against: its dominant precision. The tensor
// paths are not told apart by the record; FP16 with FP32 accumulate is the datasheet's usual
// tensor figure.
ComputePath CounterPath(const trace::KernelMetricsRecord& m) {
  const std::pair<double, ComputePath> parts[] = {{m.flops_fp64, ComputePath::kFp64},
                                                  {m.flops_fp32, ComputePath::kFp32},
                                                  {m.flops_fp16, ComputePath::kFp16},
                                                  {m.tensor_ops, ComputePath::kFp16Tensor}};
  double most = 0;
  ComputePath path = ComputePath::kUnknown;
  for (const auto& [flops, p] : parts) {
    if (flops > most) most = flops, path = p;
  }
  return path;
}

}  // namespace

void AddCounterSamples(KernelGroup& g, const CounterPart& p) {
  if (p.samples == 0) return;
  AddMean(g.counter_flops, g.counter_flops_min, g.counter_flops_max, g.counter_flops_samples,
          p.flops_count, p.flops, p.flops_min, p.flops_max);
  AddMean(g.counter_bytes, g.counter_bytes_min, g.counter_bytes_max, g.counter_bytes_samples,
          p.bytes_count, p.bytes, p.bytes_min, p.bytes_max);
  g.counter_samples += p.samples;
  g.counter_valid |= p.valid;
}

double CounterFlopsSpread(const KernelGroup& g) {
  return Spread(g.counter_flops_min, g.counter_flops_max, g.counter_flops);
}

double CounterBytesSpread(const KernelGroup& g) {
  // Samples a few KB apart (a compute kernel's DRAM traffic, which other work on the GPU can
  // double) do not disagree: the same floor as the sampler's (gpu_roofline/counter_sampling.h).
  constexpr double kFloorBytes = 1 << 20;
  if (g.counter_bytes_max - g.counter_bytes_min < kFloorBytes) return 0;
  return Spread(g.counter_bytes_min, g.counter_bytes_max, g.counter_bytes);
}

void TraceAnalyzer::State::AddKernelMetrics(const trace::KernelMetricsRecord& m, uint32_t thread) {
  // The record follows its launch on the launching thread; the launch's group carries the
  // catalog's shape key, which the signature alone does not.
  std::optional<uint32_t> group;
  if (const auto last = last_launch_.find(thread);
      last != last_launch_.end() && last->second.first == m.correlation) {
    group = last->second.second;
  } else if (const Pending* pending = join_.FindLaunch(m.correlation).launch) {
    group = pending->group;
  }
  // The launch is known, so GPU records still waiting for it are a replay's duplicates.
  run_.replayed_gpu_records += join_.OnMeasured(m.correlation, group.has_value());
  if (!group) group = GroupFor(m.signature, "");
  // Each launch of a sample carries the sample so far: keep the fullest, a whole sample first
  // (the later of equals).
  const auto fullness = [](const trace::KernelMetricsRecord& r) {
    const bool whole = (r.valid & trace::kMetricsPartialSample) == 0;
    return std::pair(whole, std::popcount(r.valid & ~uint32_t{trace::kMetricsPartialSample}));
  };
  auto [it, fresh] = counter_samples_.try_emplace({*group, m.samples}, m);
  if (!fresh && fullness(m) >= fullness(it->second)) it->second = m;
}

void TraceAnalyzer::State::FoldCounterSamples() {
  for (const auto& [key, m] : counter_samples_) {
    KernelGroup& g = kernels_[key.first];
    const double flops = m.flops_fp32 + m.flops_fp64 + m.flops_fp16 + m.tensor_ops;
    const double bytes = m.dram_read_bytes + m.dram_write_bytes;
    // Part of a sample may lack a pass group that measures FLOPs (a tensor path, the hfma
    // counter): its FLOPs are not a kernel's FLOPs. Its DRAM bytes are, once their group is in.
    const bool partial = (m.valid & trace::kMetricsPartialSample) != 0;
    const bool has_flops = (m.valid & kFlopBits) != 0 && !partial;
    const bool has_bytes = (m.valid & trace::kMetricsDram) != 0;
    if (g.path == ComputePath::kUnknown && !partial) g.path = CounterPath(m);
    const uint32_t valid =
        partial ? m.valid & ~kFlopBits & ~uint32_t{trace::kMetricsPartialSample} : m.valid;
    AddCounterSamples(g, {1, has_flops ? 1u : 0u, has_bytes ? 1u : 0u, flops, bytes, valid, flops,
                          flops, bytes, bytes});
  }
  counter_samples_.clear();
}

namespace {

// The members of WorkFigures that hold one figure (FLOPs or bytes), so one function fills either.
struct FigureMembers {
  double WorkFigures::*value;
  FigureSource WorkFigures::*source;
  uint64_t WorkFigures::*launches_with;
  double WorkFigures::*timed_ns;
};
constexpr FigureMembers kFlopsMembers{&WorkFigures::flops, &WorkFigures::flops_source,
                                      &WorkFigures::launches_with_flops, &WorkFigures::flops_ns};
constexpr FigureMembers kBytesMembers{&WorkFigures::bytes, &WorkFigures::bytes_source,
                                      &WorkFigures::launches_with_bytes, &WorkFigures::bytes_ns};

// A counter-measured value per launch stands for every launch of the signature
// (docs/gpu-counters.md): the timed figures over its executions, all over its launches.
void SetFromCounters(KernelGroup& g, const FigureMembers& m, double per_launch) {
  const uint64_t launches = std::max(g.launches, g.executions);
  if (g.executions > 0) {
    g.timed.*m.value = per_launch * static_cast<double>(g.executions);
    g.timed.*m.source = FigureSource::kCounters;
    g.timed.*m.launches_with = g.executions;
    g.timed.*m.timed_ns = g.gpu_ns;
  }
  g.all.*m.value = per_launch * static_cast<double>(launches);
  g.all.*m.source = FigureSource::kCounters;
  g.all.*m.launches_with = launches;
}

}  // namespace

void TraceAnalyzer::State::ApplyCounterFigures() {
  FoldCounterSamples();
  for (KernelGroup& g : kernels_) {
    if (g.counter_samples == 0) continue;
    const bool flops =
        CounterFlopsValid(g) && !Known(g.timed.flops_source) && !Known(g.all.flops_source);
    const bool bytes =
        CounterBytesValid(g) && !Known(g.timed.bytes_source) && !Known(g.all.bytes_source);
    if (flops) {
      SetFromCounters(g, kFlopsMembers, g.counter_flops);
      if (g.device >= 0) {
        // Coverage: this kernel time now has FLOPs from counters instead of none.
        auto& by_source = devices_[g.device].kernel_ns_by_source;
        const double moved = std::min(g.gpu_ns, by_source[SourceIndex(FigureSource::kUnknown)]);
        by_source[SourceIndex(FigureSource::kUnknown)] -= moved;
        by_source[SourceIndex(FigureSource::kCounters)] += moved;
      }
    }
    if (bytes) SetFromCounters(g, kBytesMembers, g.counter_bytes);
  }
}

}  // namespace flopspy::analyzers
