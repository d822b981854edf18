#include "flopspy/analyzers/run_regime.h"

#include <algorithm>
#include <cstdio>

namespace flopspy::analyzers {
namespace {

std::string PercentOneDecimal(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

std::string Words(Regime regime) {
  switch (regime) {
    case Regime::kComputeBound:
      return "compute bound";
    case Regime::kMemoryBound:
      return "memory bound";
    case Regime::kOverheadBound:
      return "overhead bound";
    case Regime::kUnknown:
      break;
  }
  return "unknown";
}

// Why unknown time is unknown: FLOPs, or (FLOPs known) bytes or a roof. Worded as the time left
// unplaced for want of FLOPs, not as "no FLOPs known": rows judged overhead bound need no FLOPs,
// so this share can be below the coverage line's unknown share, and must not read as the same
// figure.
std::string UnknownWhy(const RunRegime& r) {
  const double unknown = r.kernel_ns_by_regime[static_cast<size_t>(Regime::kUnknown)];
  if (unknown <= 0 || r.kernel_ns <= 0) return "";
  if (r.kernel_ns_without_flops >= unknown) return " (no FLOPs known)";
  if (r.kernel_ns_without_flops <= 0) return " (FLOPs known, bytes or roof not)";
  return " (" + PercentOneDecimal(r.kernel_ns_without_flops / r.kernel_ns) +
         " unplaced for want of FLOPs)";
}

std::string Split(const RunRegime& r) {
  const auto& f = r.kernel_fraction_by_regime;
  return PercentOneDecimal(f[static_cast<size_t>(Regime::kComputeBound)]) +
         " of kernel time compute bound, " +
         PercentOneDecimal(f[static_cast<size_t>(Regime::kMemoryBound)]) + " memory bound, " +
         PercentOneDecimal(f[static_cast<size_t>(Regime::kOverheadBound)]) + " overhead bound, " +
         PercentOneDecimal(f[static_cast<size_t>(Regime::kUnknown)]) + " unknown" + UnknownWhy(r);
}

double PlacedNs(const KernelGroup& g) {
  const Placement& p = *g.placement;
  if (p.regime == Regime::kOverheadBound) return g.gpu_ns;  // needs no FLOPs
  if (p.calls_with_flops > 0 && p.calls_with_flops < p.calls) {
    return std::min(g.gpu_ns, p.flops_time_ns);
  }
  return g.gpu_ns;
}

// The time of a row with no FLOP figure.
double WithoutFlopsNs(const KernelGroup& g) {
  if (g.placement && g.placement->regime == Regime::kOverheadBound) return 0;
  if (g.timed.flops_source == trace::FigureSource::kUnknown) return g.gpu_ns;
  return std::max(0.0, g.gpu_ns - g.timed.flops_ns);
}

// What the placed rest says, when the run's regime is unknown.
std::string Known(const RunRegime& r) {
  const auto& f = r.kernel_fraction_by_regime;
  const double placed = 1 - f[static_cast<size_t>(Regime::kUnknown)];
  if (placed <= 0) return "";
  std::string text = "; " + PercentOneDecimal(r.kernel_ns_without_flops / r.kernel_ns) +
                     " is unplaced for want of FLOPs; of the " + PercentOneDecimal(placed) +
                     " placed, ";
  bool first = true;
  for (const Regime regime :
       {Regime::kComputeBound, Regime::kMemoryBound, Regime::kOverheadBound}) {
    if (f[static_cast<size_t>(regime)] <= 0) continue;
    text += (first ? "" : ", ") + PercentOneDecimal(f[static_cast<size_t>(regime)] / placed) +
            " is " + Words(regime);
    first = false;
  }
  return text;
}

std::string Waited(const RunRegime& r) {
  if (r.overhead == OverheadVerdict::kUnknown) return "";
  return "; the GPU window was " + PercentOneDecimal(r.busy_fraction) + " busy and " +
         PercentOneDecimal(r.starved_fraction) + " waiting for launches";
}

}  // namespace

double RegimeTimeNs(const KernelGroup& g) {
  if (!g.placement || g.placement->regime == Regime::kUnknown) return 0;
  return PlacedNs(g);
}

std::string_view RunRegimeRuleName(RunRegimeRule rule) {
  switch (rule) {
    case RunRegimeRule::kNoKernelTime:
      return "no_kernel_time";
    case RunRegimeRule::kStarved:
      return "starved";
    case RunRegimeRule::kUnplaced:
      return "unplaced";
    case RunRegimeRule::kKernelTime:
      return "kernel_time";
  }
  return "unknown";
}

RunRegime ClassifyRun(std::span<const KernelGroup> kernels, const OverheadJudgement& j,
                      const RunRegimeThresholds& thresholds) {
  RunRegime r;
  for (const KernelGroup& g : kernels) {
    const Regime regime = g.placement ? g.placement->regime : Regime::kUnknown;
    const double placed = RegimeTimeNs(g);
    r.kernel_ns_by_regime[static_cast<size_t>(regime)] += placed;
    r.kernel_ns_by_regime[static_cast<size_t>(Regime::kUnknown)] += g.gpu_ns - placed;
    r.kernel_ns += g.gpu_ns;
    if (regime == Regime::kUnknown || placed < g.gpu_ns) {
      r.kernel_ns_without_flops += std::min(WithoutFlopsNs(g), g.gpu_ns);
    }
  }
  if (r.kernel_ns > 0) {
    for (size_t i = 0; i < r.kernel_ns_by_regime.size(); ++i) {
      r.kernel_fraction_by_regime[i] = r.kernel_ns_by_regime[i] / r.kernel_ns;
    }
  }
  r.overhead = j.verdict;
  r.busy_fraction = j.busy_fraction;
  r.starved_fraction = j.starved_fraction;

  if (r.kernel_ns <= 0) {
    r.rule = RunRegimeRule::kNoKernelTime;
    r.sentence = "unknown: no kernel has a GPU time";
    return r;
  }
  if (j.verdict == OverheadVerdict::kOverheadBound) {
    r.regime = Regime::kOverheadBound;
    r.rule = RunRegimeRule::kStarved;
    r.sentence = "overhead bound: the GPU window was " + PercentOneDecimal(j.starved_fraction) +
                 " waiting for kernel launches and " + PercentOneDecimal(j.busy_fraction) +
                 " busy; " + Split(r);
    return r;
  }
  const double unplaced = r.kernel_fraction_by_regime[static_cast<size_t>(Regime::kUnknown)];
  if (unplaced >= thresholds.unplaced_fraction) {
    r.rule = RunRegimeRule::kUnplaced;
    r.sentence = "unknown: " + PercentOneDecimal(unplaced) +
                 " of kernel time has no regime (its FLOPs and bytes, or the GPU's roofs, are "
                 "unknown)" +
                 Known(r) + Waited(r);
    return r;
  }
  r.rule = RunRegimeRule::kKernelTime;
  for (const Regime candidate :
       {Regime::kComputeBound, Regime::kMemoryBound, Regime::kOverheadBound}) {
    if (r.regime == Regime::kUnknown || r.kernel_ns_by_regime[static_cast<size_t>(candidate)] >
                                            r.kernel_ns_by_regime[static_cast<size_t>(r.regime)]) {
      r.regime = candidate;
    }
  }
  r.sentence = Words(r.regime) + ": " + Split(r) + Waited(r);
  return r;
}

}  // namespace flopspy::analyzers
