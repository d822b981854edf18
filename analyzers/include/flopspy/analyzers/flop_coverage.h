// The FLOP coverage of a trace or a run: the share of kernel time whose FLOPs are known, by
// source (analytic, catalog, counters; the rest unknown), and the kernels with the most time
// whose FLOPs are not known, each with what would know them. One figure, computed here, for
// every output and for the advice (docs/flopspy-report.md, "FLOP coverage").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/trace_analysis.h"
#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

// What would give a kernel's FLOPs, from what the report knows of it.
enum class CoverageRemedy : uint8_t {
  kCounters = 0,        // GPU counters measure any kernel (docs/gpu-counters.md)
  kCountersAllMetrics,  // counters ran and did not complete its FLOPs
  kInductorCache,       // a torch.compile kernel: its generated module's metadata
  kCatalogEntry,        // an ATen kernel the catalog has no model of (docs/kernel-catalog.md)
};
// "counters", "counters_all_metrics", "inductor_cache", "catalog_entry".
std::string_view CoverageRemedyName(CoverageRemedy remedy);
// The words the report shows: "GPU counters (FLOPSPY_COUNTERS=1)", ...
std::string_view CoverageRemedyText(CoverageRemedy remedy);
CoverageRemedy RemedyFor(const KernelGroup& group);

// GPU time of a kernel row whose launches have no FLOP figure.
double UnknownFlopsNs(const KernelGroup& group);

struct UnknownFlopsKernel {
  size_t row = 0;  // index into the rows given
  // The row's own words, so that the list outlives the rows (the report's run summary).
  std::string name;
  std::string op;
  std::string shape_key;
  std::string category;
  int32_t device = -1;
  double unknown_ns = 0;  // GPU time without a FLOP figure
  double share = 0;       // of FlopCoverage::kernel_ns
  CoverageRemedy remedy = CoverageRemedy::kCounters;
};

inline constexpr size_t kFlopCoverageListed = 5;

struct FlopCoverage {
  double kernel_ns = 0;  // GPU time of every kernel row: the basis of every share
  // GPU time by the source of its FLOPs, index trace::FigureSource (kUnknown: none). A row whose
  // launches have figures of several sources counts them under the weakest, as its figures do.
  std::array<double, 4> kernel_ns_by_source{};
  std::vector<UnknownFlopsKernel> largest_unknown;  // by unknown time, longest first
  size_t unknown_rows = 0;                          // rows with unknown time, listed or not

  double Share(trace::FigureSource source) const;
  double KnownShare() const { return kernel_ns > 0 ? 1 - Share(trace::FigureSource::kUnknown) : 0; }
};

// Over `kernels` (of one device when `device` is set), listing at most `listed` unknown rows.
FlopCoverage ComputeFlopCoverage(std::span<const KernelGroup> kernels,
                                 std::optional<int32_t> device = std::nullopt,
                                 size_t listed = kFlopCoverageListed);

}  // namespace flopspy::analyzers
