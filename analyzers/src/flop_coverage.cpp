// The FLOP coverage of kernel rows, and what would know the unknown ones
// (docs/flopspy-report.md, "FLOP coverage").
#include "flopspy/analyzers/flop_coverage.h"

#include <algorithm>
#include <string>

namespace flopspy::analyzers {
namespace {

size_t SourceSlot(trace::FigureSource source) {
  return static_cast<size_t>(source) & 3;
}

// Categories of ATen kernels the catalog could describe from their names and parameters.
bool CatalogCouldModel(const KernelGroup& g) {
  if (g.inside_library) return false;  // a library call's kernels take the call's figures
  for (const char* category : {"elementwise", "reduction", "normalization", "copy", "other"}) {
    if (g.category == category) return true;
  }
  return false;
}

}  // namespace

std::string_view CoverageRemedyName(CoverageRemedy remedy) {
  switch (remedy) {
    case CoverageRemedy::kCounters:
      return "counters";
    case CoverageRemedy::kCountersAllMetrics:
      return "counters_all_metrics";
    case CoverageRemedy::kInductorCache:
      return "inductor_cache";
    case CoverageRemedy::kCatalogEntry:
      return "catalog_entry";
  }
  return "counters";
}

std::string_view CoverageRemedyText(CoverageRemedy remedy) {
  switch (remedy) {
    case CoverageRemedy::kCounters:
      return "GPU counters (FLOPSPY_COUNTERS=1)";
    case CoverageRemedy::kCountersAllMetrics:
      return "GPU counters with every metric (FLOPSPY_COUNTERS_METRICS=all)";
    case CoverageRemedy::kInductorCache:
      return "the inductor cache of a run with TORCHINDUCTOR_BENCHMARK_KERNEL=1 "
             "(flopspy-report --inductor-cache), or GPU counters";
    case CoverageRemedy::kCatalogEntry:
      return "a catalog entry (docs/kernel-catalog.md), or GPU counters";
  }
  return "GPU counters (FLOPSPY_COUNTERS=1)";
}

CoverageRemedy RemedyFor(const KernelGroup& g) {
  // Counters ran on this kernel and did not complete its FLOPs: the metrics were too few.
  if (g.counter_samples > 0) return CoverageRemedy::kCountersAllMetrics;
  // Inductor's templates (triton_tem_*: matmuls, convolutions) record their FLOPs in the inductor
  // cache when it benchmarks kernels (flopspy-report --inductor-cache); its other kernels record
  // bytes only, so counters are what would know their FLOPs.
  if (g.name.starts_with("triton_tem_")) return CoverageRemedy::kInductorCache;
  if (CatalogCouldModel(g)) return CoverageRemedy::kCatalogEntry;
  return CoverageRemedy::kCounters;
}

double UnknownFlopsNs(const KernelGroup& g) {
  if (g.timed.flops_source == trace::FigureSource::kUnknown) return g.gpu_ns;
  // Every execution has a figure: all of the time is known, whatever flops_ns says.
  if (g.timed.launches_with_flops >= g.executions) return 0;
  return std::clamp(g.gpu_ns - g.timed.flops_ns, 0.0, g.gpu_ns);
}

double FlopCoverage::Share(trace::FigureSource source) const {
  return kernel_ns > 0 ? kernel_ns_by_source[SourceSlot(source)] / kernel_ns : 0;
}

FlopCoverage ComputeFlopCoverage(std::span<const KernelGroup> kernels,
                                 std::optional<int32_t> device, size_t listed) {
  FlopCoverage c;
  std::vector<UnknownFlopsKernel> unknown;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelGroup& g = kernels[i];
    if ((device && g.device != *device) || g.gpu_ns <= 0) continue;
    const double without = UnknownFlopsNs(g);
    c.kernel_ns += g.gpu_ns;
    c.kernel_ns_by_source[SourceSlot(trace::FigureSource::kUnknown)] += without;
    c.kernel_ns_by_source[SourceSlot(g.timed.flops_source)] += g.gpu_ns - without;
    if (without > 0) {
      UnknownFlopsKernel u;
      u.row = i;
      u.unknown_ns = without;
      u.remedy = RemedyFor(g);
      unknown.push_back(std::move(u));
    }
  }
  c.unknown_rows = unknown.size();
  std::stable_sort(unknown.begin(), unknown.end(),
                   [](const UnknownFlopsKernel& a, const UnknownFlopsKernel& b) {
                     return a.unknown_ns > b.unknown_ns;
                   });
  if (unknown.size() > listed) unknown.resize(listed);
  for (UnknownFlopsKernel& u : unknown) {
    const KernelGroup& g = kernels[u.row];
    u.name = g.name;
    u.op = g.op.empty() ? g.functor : g.op;  // what the row's label shows
    u.shape_key = g.shape_key;
    u.category = g.category;
    u.device = g.device;
    u.share = u.unknown_ns / c.kernel_ns;
  }
  c.largest_unknown = std::move(unknown);
  return c;
}

}  // namespace flopspy::analyzers
