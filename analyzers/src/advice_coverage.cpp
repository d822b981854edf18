// unknown_figures: kernel time whose FLOPs are unknown cannot be judged by any rule, and the
// largest gain may sit there. The same figure as the run summary's FLOP coverage
// (flop_coverage.h), by family.
#include <algorithm>
#include <map>

#include "advice_internal.h"
#include "flopspy/analyzers/flop_coverage.h"

namespace flopspy::analyzers::advice_detail {
namespace {

constexpr double kMinUnknownShare = 0.25;  // of the kernel time

// The run summary's FLOP coverage figure (flop_coverage.h), so that the two never differ.
double WithoutFlopsNs(const std::vector<KernelGroup>& kernels) {
  return ComputeFlopCoverage(kernels).kernel_ns_by_source[0];
}

}  // namespace

void Coverage(const TraceAnalysis& run, double total, Findings& out) {
  if (total <= 0 || !run.gpu_timing) return;
  const double unknown = WithoutFlopsNs(run.kernels);
  if (unknown < kMinUnknownShare * total) return;
  std::map<std::string, std::vector<KernelGroup>> families;
  for (const KernelGroup& g : run.kernels) {
    families[g.category.empty() ? "unknown" : g.category].push_back(g);
  }
  std::vector<std::pair<double, std::string>> by_family;
  for (const auto& [family, kernels] : families) {
    const double ns = WithoutFlopsNs(kernels);
    if (ns > 0) by_family.emplace_back(ns, family);
  }
  std::stable_sort(by_family.begin(), by_family.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  Advice a;
  a.kind = AdviceKind::kUnknownFigures;
  a.title = "FLOPs unknown for " + Percent(unknown / total) + " of kernel time";
  std::vector<std::string> shown;
  for (const auto& [ns, family] : by_family) {
    a.items.push_back(family);
    shown.push_back(family + " " + Percent(ns / total));
  }
  a.finding = Percent(unknown / total) + " of the kernel time (" + Time(unknown) + " of " +
              Time(total) +
              ") runs kernels whose FLOPs are unknown, so no rule can judge it and the largest "
              "gain may hide there: " +
              ListWithMore(shown, 4) + ".";
  // A trace recorded with counters already: they ran, but did not complete these FLOPs.
  const bool counted = std::any_of(run.kernels.begin(), run.kernels.end(),
                                   [](const KernelGroup& g) { return g.counter_samples > 0; });
  a.action = counted
                 ? "Counters ran in this trace but did not give these kernels' FLOPs: measure all "
                   "metrics (FLOPSPY_COUNTERS_METRICS=all) and more samples "
                   "(FLOPSPY_COUNTERS_SAMPLES; docs/gpu-counters.md), or describe the kernels in "
                   "the catalog (docs/kernel-catalog.md)."
                 : "Measure them: record with GPU counters (FLOPSPY_COUNTERS=1, or flopspy run "
                   "--counters; docs/gpu-counters.md), which count each kernel's FLOPs and DRAM "
                   "bytes on the hardware, or describe the kernels in the catalog "
                   "(docs/kernel-catalog.md).";
  a.share = unknown / total;
  a.gpu_ns = unknown;
  out.Add(std::move(a));
}

}  // namespace flopspy::analyzers::advice_detail
