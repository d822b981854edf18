// Counter-measured figures against the kernel catalog's, per launch of a kernel group: both
// figures, the difference, and whether the catalog is more than 10% off (docs/gpu-counters.md).
#pragma once

#include <optional>

#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::tools {

inline constexpr double kCatalogTolerancePct = 10;  // beyond this the catalog entry is flagged
inline constexpr double kSampleTolerance = 0.01;    // counter samples further apart disagree

struct CounterCheck {
  std::optional<double> catalog_flops;  // per launch, when the catalog modelled them
  std::optional<double> catalog_bytes;
  std::optional<double> flops_diff_pct;  // 100 (catalog - counters) / counters
  std::optional<double> bytes_diff_pct;
  bool catalog_off = false;  // either difference beyond kCatalogTolerancePct
  bool samples_disagree = false;
};

CounterCheck CheckCounters(const analyzers::KernelGroup& group);

}  // namespace flopspy::tools
