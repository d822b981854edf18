// FindSteps: the first source of steps that works, each step's figures, warm-up set apart.
#include "flopspy/analyzers/steps.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "helpers_internal.h"

namespace flopspy::analyzers {

std::string_view StepSourceName(StepSource source) {
  switch (source) {
    case StepSource::kRanges:
      return "ranges";
    case StepSource::kOptimizer:
      return "optimizer";
    case StepSource::kGraph:
      return "graph";
    case StepSource::kPeriod:
      return "period";
    case StepSource::kNone:
      break;
  }
  return "none";
}

bool IsStepRangeName(std::string_view name) {
  static const std::regex pattern(
      R"((ProfilerStep#\d+)|(training_step_\d+)|(train_step(_\d+)?)|([Ss]tep([ _#]?\d+)?))");
  return std::regex_match(name.begin(), name.end(), pattern);
}

namespace {

// A step before its figures: a time window and the kernels that belong to it.
struct Window {
  uint64_t begin = 0, end = 0;
  std::vector<const TimedActivity*> kernels;
};

// Step ranges: the outermost ranges whose names match, one at a time.
std::vector<Window> RangeWindows(const RangeLog& log, const StepOptions& options,
                                 std::string& detail) {
  std::optional<std::regex> user;
  if (!options.pattern.empty()) user.emplace(options.pattern);
  const auto matches = [&](const RangeInstance& r) {
    return user ? std::regex_search(r.name, *user) : IsStepRangeName(r.name);
  };
  std::vector<const RangeInstance*> found;
  for (const RangeInstance& r : log.ranges) {
    if (!matches(r)) continue;
    bool inner = false;
    for (int64_t p = r.parent; p >= 0 && !inner; p = log.ranges[static_cast<size_t>(p)].parent) {
      inner = matches(log.ranges[static_cast<size_t>(p)]);
    }
    if (!inner) found.push_back(&r);
  }
  std::stable_sort(found.begin(), found.end(), [](const RangeInstance* a, const RangeInstance* b) {
    return a->begin_ns < b->begin_ns;
  });
  std::vector<Window> out;
  for (const RangeInstance* r : found) {
    if (!out.empty() && r->begin_ns < out.back().end) continue;  // overlaps the last step
    if (detail.empty()) detail = r->name;
    out.push_back({r->begin_ns, r->end_ns, {}});
  }
  return out;
}

// Windows over kernel spans: from the first GPU start of a step to the next step's; the last to
// its last GPU end.
std::vector<Window> KernelWindows(const std::vector<KernelSpan>& spans,
                                  const std::vector<const TimedActivity*>& kernels) {
  std::vector<Window> out;
  for (const auto& [first, last] : spans) {
    Window w;
    w.begin = UINT64_MAX;
    for (size_t i = first; i < last; ++i) {
      w.kernels.push_back(kernels[i]);
      w.begin = std::min(w.begin, kernels[i]->start_ns);
      w.end = std::max(w.end, kernels[i]->end_ns);
    }
    if (w.kernels.empty()) continue;
    out.push_back(std::move(w));
  }
  for (size_t i = 0; i + 1 < out.size(); ++i) out[i].end = std::max(out[i].begin, out[i + 1].begin);
  return out;
}

// Executable graphs launched again and again: each launch of the most launched one is a step.
// Named as the CUDA graphs section names it when its nodes were recorded (`graphs`).
std::vector<Window> GraphWindows(std::span<const TimedActivity> activities,
                                 std::span<const GraphUnit> graphs, std::string& detail) {
  std::map<uint32_t, std::map<uint64_t, Window>> launches;  // graph -> correlation -> nodes
  for (const TimedActivity& a : activities) {
    if (!a.from_graph || a.is_copy) continue;
    Window& w = launches[a.graph_id][a.correlation];
    if (w.kernels.empty()) w.begin = a.start_ns;
    w.begin = std::min(w.begin, a.start_ns);
    w.end = std::max(w.end, a.end_ns);
    w.kernels.push_back(&a);
  }
  const std::map<uint64_t, Window>* most = nullptr;
  uint32_t graph = 0;
  for (const auto& [id, runs] : launches) {
    if (most == nullptr || runs.size() > most->size()) most = &runs, graph = id;
  }
  std::vector<Window> out;
  if (most == nullptr || most->size() < 3) return out;
  for (const auto& [correlation, w] : *most) out.push_back(w);
  std::sort(out.begin(), out.end(),
            [](const Window& a, const Window& b) { return a.begin < b.begin; });
  for (size_t i = 0; i + 1 < out.size(); ++i) out[i].end = std::max(out[i].end, out[i + 1].begin);
  detail = "graph " + std::to_string(graph) + " (CUPTI's id)";
  for (const GraphUnit& unit : graphs) {
    if (unit.cupti_graph == graph) detail = "graph #" + std::to_string(unit.exec);
  }
  return out;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

Step Figures(const Window& w, const TraceAnalysis& analysis,
             const std::vector<const TimedActivity*>& copies) {
  Step s;
  s.begin_ns = w.begin;
  s.end_ns = std::max(w.end, w.begin);
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (const TimedActivity* k : w.kernels) {
    const auto ns = static_cast<double>(k->end_ns - k->start_ns);
    ++s.kernels;
    s.kernel_ns += ns;
    // The run regime's basis (RegimeTimeNs): an execution counts in its signature's regime when
    // its own FLOPs are known, or always for overhead-bound signatures (they need none).
    Regime regime = Regime::kUnknown;
    if (k->group < analysis.kernels.size() && analysis.kernels[k->group].placement) {
      const Regime placed = analysis.kernels[k->group].placement->regime;
      if (placed == Regime::kOverheadBound || k->flops_known) regime = placed;
    }
    s.regime_ns[static_cast<size_t>(regime) & 3] += ns;
    if (k->flops_known) s.flops += k->flops, s.flops_ns += ns;
    if (k->launch_ns != 0 && ns < static_cast<double>(k->launch_cost_ns)) s.launch_bound_ns += ns;
    busy.emplace_back(k->start_ns, k->end_ns);
  }
  const auto lo =
      std::lower_bound(copies.begin(), copies.end(), s.begin_ns,
                       [](const TimedActivity* c, uint64_t t) { return c->start_ns < t; });
  for (auto it = lo; it != copies.end() && (*it)->start_ns < s.end_ns; ++it) {
    ++s.copies;
    s.copy_bytes += (*it)->bytes;
    s.copy_ns += static_cast<double>((*it)->end_ns - (*it)->start_ns);
    busy.emplace_back((*it)->start_ns, (*it)->end_ns);
  }
  std::sort(busy.begin(), busy.end());
  uint64_t reach = 0;
  for (const auto& [b, e] : busy) {
    const uint64_t from = std::max(b, reach);
    if (e > from) s.busy_ns += static_cast<double>(e - from);
    reach = std::max(reach, e);
  }
  return s;
}

// Leading steps much slower than the median, or with many more kernels (autotuning, lazy module
// loads), at most half of them.
uint32_t CountWarmup(const std::vector<Step>& steps) {
  if (steps.size() < 3) return 0;
  std::vector<double> times, kernels;
  for (const Step& s : steps) {
    times.push_back(s.time_ns());
    kernels.push_back(static_cast<double>(s.kernels));
  }
  const double time = helpers::Median(times), count = helpers::Median(kernels);
  uint32_t n = 0;
  while (n < steps.size() / 2 &&
         (steps[n].time_ns() > 1.5 * time || static_cast<double>(steps[n].kernels) > 1.2 * count)) {
    ++n;
  }
  return n;
}

StepSummary Summarize(std::span<const Step> steps, double model_flops, double peak) {
  StepSummary out;
  out.steps = steps.size();
  if (steps.empty()) return out;
  std::vector<double> times;
  double time = 0, busy = 0, kernel = 0, flops = 0, flops_ns = 0, bound = 0;
  for (const Step& s : steps) {
    times.push_back(s.time_ns());
    time += s.time_ns();
    busy += s.busy_ns;
    kernel += s.kernel_ns;
    flops += s.flops;
    flops_ns += s.flops_ns;
    bound += s.launch_bound_ns;
    for (size_t r = 0; r < 4; ++r) out.regime_share[r] += s.regime_ns[r];
  }
  const auto count = static_cast<double>(steps.size());
  out.mean_ns = time / count;
  out.p50_ns = Percentile(times, 0.5);
  out.p95_ns = Percentile(times, 0.95);
  out.busy_share = time > 0 ? std::min(1.0, busy / time) : 0;
  out.flops = flops / count;
  out.flop_rate = flops_ns > 0 ? flops / (flops_ns / 1e9) : 0;
  out.flop_coverage = kernel > 0 ? flops_ns / kernel : 0;
  out.launch_bound_share = kernel > 0 ? bound / kernel : 0;
  for (double& share : out.regime_share) share = kernel > 0 ? share / kernel : 0;
  if (model_flops > 0 && peak > 0 && out.mean_ns > 0) {
    out.mfu = model_flops / (out.mean_ns / 1e9) / peak;
  }
  return out;
}

double PeakOf(const TraceAnalysis& analysis) {
  const DeviceActivity* busiest = nullptr;
  for (const DeviceActivity& d : analysis.devices) {
    if (busiest == nullptr || d.kernel_ns > busiest->kernel_ns) busiest = &d;
  }
  return busiest && busiest->utilization ? busiest->utilization->nominal_peak : 0;
}

}  // namespace

StepReport FindSteps(const RangeLog& ranges, const TraceAnalysis& analysis,
                     const StepOptions& options) {
  StepReport out;
  out.model_flops_per_step = options.model_flops_per_step;
  out.peak_flops = PeakOf(analysis);
  std::vector<const TimedActivity*> launched, copies;
  for (const TimedActivity& a : analysis.activities) {
    if (a.is_copy) {
      copies.push_back(&a);
    } else if (a.launch_ns != 0) {
      launched.push_back(&a);
    }
  }
  const auto by_launch = [](const TimedActivity* a, const TimedActivity* b) {
    return a->launch_ns < b->launch_ns;
  };
  std::stable_sort(launched.begin(), launched.end(), by_launch);
  std::stable_sort(
      copies.begin(), copies.end(),
      [](const TimedActivity* a, const TimedActivity* b) { return a->start_ns < b->start_ns; });

  std::vector<Window> windows = RangeWindows(ranges, options, out.detail);
  if (!windows.empty()) {
    out.source = StepSource::kRanges;
    out.basis = "cpu";
    // Kernels launched inside a step range, by any thread (the backward pass has its own).
    size_t next = 0;
    for (Window& w : windows) {
      while (next < launched.size() && launched[next]->launch_ns < w.begin) ++next;
      for (size_t i = next; i < launched.size() && launched[i]->launch_ns < w.end; ++i) {
        w.kernels.push_back(launched[i]);
      }
    }
  }
  if (windows.empty()) {
    std::vector<std::string_view> names;
    for (const TimedActivity* k : launched) {
      names.push_back(k->group < analysis.kernels.size()
                          ? std::string_view(analysis.kernels[k->group].name)
                          : std::string_view());
    }
    if (auto spans = OptimizerSteps(names); !spans.empty()) {
      windows = KernelWindows(spans, launched);
      out.source = StepSource::kOptimizer;
      for (std::string_view name : names) {
        if (IsOptimizerKernel(name)) {
          out.detail = std::string(name);
          break;
        }
      }
    }
  }
  if (windows.empty()) {
    windows = GraphWindows(analysis.activities, analysis.graphs, out.detail);
    if (!windows.empty()) out.source = StepSource::kGraph;
  }
  if (windows.empty()) {
    std::vector<uint32_t> sequence;
    for (const TimedActivity* k : launched) sequence.push_back(k->group);
    if (auto spans = PeriodSteps(sequence); !spans.empty()) {
      windows = KernelWindows(spans, launched);
      out.source = StepSource::kPeriod;
      out.detail =
          std::to_string(launched.size() / std::max<size_t>(1, spans.size())) + " kernels per step";
    }
  }
  if (windows.empty()) {
    out.why_none = launched.empty() ? "no kernel launches joined to GPU time"
                                    : "no step ranges, optimizer kernels, repeated graphs or "
                                      "repeating kernel sequence";
    return out;
  }
  if (out.basis.empty()) out.basis = "gpu";
  for (const Window& w : windows) {
    out.steps.push_back(Figures(w, analysis, copies));
    out.steps.back().number = static_cast<uint32_t>(out.steps.size());
  }
  out.warmup = CountWarmup(out.steps);
  for (uint32_t i = 0; i < out.warmup; ++i) out.steps[i].warmup = true;
  const std::span<const Step> steady = out.warmup < out.steps.size()
                                           ? std::span<const Step>(out.steps).subspan(out.warmup)
                                           : std::span<const Step>(out.steps);
  out.steady = Summarize(steady, options.model_flops_per_step, out.peak_flops);
  std::vector<const Step*> order;
  for (const Step& s : steady) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(),
                   [](const Step* a, const Step* b) { return a->time_ns() > b->time_ns(); });
  for (size_t i = 0; i < order.size() && i < 3; ++i) out.slowest.push_back(order[i]->number);
  return out;
}

std::vector<StepSkew> AlignSteps(std::span<const StepReport* const> ranks) {
  std::vector<StepSkew> out;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r] == nullptr) continue;
    for (const Step& step : ranks[r]->steps) {
      if (out.size() < step.number) out.resize(step.number);
      StepSkew& s = out[step.number - 1];
      s.number = step.number;
      const double t = step.time_ns();
      if (s.ranks == 0 || t < s.fastest_ns) s.fastest_ns = t;
      if (s.ranks == 0 || t > s.slowest_ns) s.slowest_ns = t, s.straggler = r;
      ++s.ranks;
    }
  }
  return out;
}

}  // namespace flopspy::analyzers
