#include "report/trace_totals.h"

#include <string>

#include "report/flop_coverage_report.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;

json Opt(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

json FlopsJson(const FlopsBySource& f) {
  return {{"analytic", f.flops[static_cast<size_t>(trace::FigureSource::kAnalytic)]},
          {"catalog", f.flops[static_cast<size_t>(trace::FigureSource::kCatalog)]},
          {"counters", f.flops[static_cast<size_t>(trace::FigureSource::kCounters)]},
          {"known", f.known()}};
}

}  // namespace

TraceTotals ComputeTraceTotals(const TraceReport& t) {
  TraceTotals out;
  out.wall_ns = t.duration_ns();
  out.launches = t.run.launches;
  const analyzers::OverheadJudgement& j = t.launch_overhead.judgement;
  out.gpu_window_ns = j.window_ns;
  out.gpu_busy_ns = j.busy_ns;
  if (j.window_ns > 0) out.busy_fraction = j.busy_fraction;
  for (const analyzers::DeviceActivity& d : t.run.devices) {
    DeviceTotals dt;
    dt.device = d.device;
    dt.active_ns = d.last_ns > d.first_ns ? static_cast<double>(d.last_ns - d.first_ns) : 0;
    dt.kernel_ns = d.kernel_ns;
    dt.copy_ns = d.copy_ns;
    for (const analyzers::DeviceOverhead& o : t.launch_overhead.devices) {
      if (o.device != d.device || o.window_ns == 0) continue;
      dt.busy_ns = static_cast<double>(o.busy_ns);
      dt.busy_fraction = o.busy_fraction;
    }
    out.devices.push_back(dt);
  }
  for (const analyzers::KernelGroup& g : t.run.kernels) {
    out.kernel_ns += g.gpu_ns;
    const auto source = static_cast<size_t>(g.timed.flops_source);
    if (g.timed.flops_source == trace::FigureSource::kUnknown || source >= 4) continue;
    out.flops.flops[source] += g.timed.flops;
    for (DeviceTotals& d : out.devices) {
      if (d.device == g.device) d.flops.flops[source] += g.timed.flops;
    }
  }
  // Sampled GPU timing: FLOPs of the timed launches over the whole span would say nothing.
  const bool sampled = t.run.sampling.sampled;
  for (DeviceTotals& d : out.devices) {
    if (!sampled && d.active_ns > 0 && d.flops.known() > 0) {
      d.achieved_flops_per_s = d.flops.known() / d.active_ns * 1e9;
    }
  }
  if (!sampled && out.gpu_window_ns > 0 && out.flops.known() > 0) {
    out.achieved_flops_per_s = out.flops.known() / static_cast<double>(out.gpu_window_ns) * 1e9;
  }
  out.regime = analyzers::ClassifyRun(t.run.kernels, t.launch_overhead.judgement);
  out.coverage = analyzers::ComputeFlopCoverage(t.run.kernels);
  for (DeviceTotals& d : out.devices) {
    d.coverage = analyzers::ComputeFlopCoverage(t.run.kernels, d.device);
  }
  return out;
}

json RunRegimeJson(const analyzers::RunRegime& r) {
  const auto share = [&](analyzers::Regime regime) {
    return r.kernel_fraction_by_regime[static_cast<size_t>(regime)];
  };
  return {{"regime", std::string(analyzers::RegimeName(r.regime))},
          {"rule", std::string(analyzers::RunRegimeRuleName(r.rule))},
          {"sentence", r.sentence},
          {"kernel_gpu_ns", r.kernel_ns},
          {"kernel_gpu_ns_without_flops", r.kernel_ns_without_flops},
          {"kernel_share",
           {{"compute_bound", share(analyzers::Regime::kComputeBound)},
            {"memory_bound", share(analyzers::Regime::kMemoryBound)},
            {"overhead_bound", share(analyzers::Regime::kOverheadBound)},
            {"unknown", share(analyzers::Regime::kUnknown)}}},
          {"launch_overhead_verdict", std::string(analyzers::OverheadVerdictName(r.overhead))},
          {"busy_fraction", r.busy_fraction},
          {"starved_fraction", r.starved_fraction}};
}

json TraceTotalsJson(const TraceTotals& t) {
  json devices = json::array();
  for (const DeviceTotals& d : t.devices) {
    devices.push_back({{"device", d.device},
                       {"active_ns", d.active_ns},
                       {"busy_ns", Opt(d.busy_ns)},
                       {"busy_fraction", Opt(d.busy_fraction)},
                       {"kernel_ns", d.kernel_ns},
                       {"copy_ns", d.copy_ns},
                       {"flops", FlopsJson(d.flops)},
                       {"achieved_flops_per_s", Opt(d.achieved_flops_per_s)},
                       {"flop_coverage", FlopCoverageJson(d.coverage)}});
  }
  return {{"wall_ns", t.wall_ns},
          {"launches", t.launches},
          {"kernel_gpu_ns", t.kernel_ns},
          {"gpu_window_ns", t.gpu_window_ns},
          {"gpu_busy_ns", t.gpu_busy_ns},
          {"busy_fraction", Opt(t.busy_fraction)},
          {"flops", FlopsJson(t.flops)},
          {"achieved_flops_per_s", Opt(t.achieved_flops_per_s)},
          {"devices", devices},
          {"regime", RunRegimeJson(t.regime)},
          {"flop_coverage", FlopCoverageJson(t.coverage)},
          {"unknown_flops_kernels", UnknownFlopsKernelsJson(t.coverage)}};
}

}  // namespace flopspy::tools
