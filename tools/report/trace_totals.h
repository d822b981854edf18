// The run summary of one trace: wall time, GPU busy, FLOPs by source, achieved
// FLOP/s per device, and the run's regime. The text and the JSON ("summary") render from it.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "flopspy/analyzers/flop_coverage.h"
#include "flopspy/analyzers/run_regime.h"
#include "report/trace_report.h"

namespace flopspy::tools {

// FLOPs of the timed kernel launches by where their figure comes from (index: FigureSource);
// known = analytic + catalog + counters.
struct FlopsBySource {
  std::array<double, 4> flops{};
  double known() const { return flops[1] + flops[2] + flops[3]; }
};

struct DeviceTotals {
  int32_t device = -1;
  double active_ns = 0;  // first GPU work to last
  double kernel_ns = 0;
  double copy_ns = 0;
  std::optional<double> busy_ns;  // kernels and copies, overlaps counted once
  std::optional<double> busy_fraction;
  FlopsBySource flops;
  std::optional<double> achieved_flops_per_s;  // known FLOPs over the active span
  analyzers::FlopCoverage coverage;            // its kernel rows only
};

struct TraceTotals {
  uint64_t wall_ns = 0;  // first event to last
  uint64_t launches = 0;
  double kernel_ns = 0;
  // Pooled over the devices (the launch-overhead analysis's window and busy time).
  uint64_t gpu_window_ns = 0;
  uint64_t gpu_busy_ns = 0;
  std::optional<double> busy_fraction;
  FlopsBySource flops;
  std::optional<double> achieved_flops_per_s;  // known FLOPs over the pooled window
  std::vector<DeviceTotals> devices;
  analyzers::RunRegime regime;
  // The share of kernel time whose FLOPs are known, by source, and the largest unknown rows
  // (docs/flopspy-report.md, "FLOP coverage").
  analyzers::FlopCoverage coverage;
};

TraceTotals ComputeTraceTotals(const TraceReport& trace);

// The "regime" object of a trace's summary and of the many-trace aggregate.
nlohmann::json RunRegimeJson(const analyzers::RunRegime& regime);

// The trace's "summary" object of the JSON report (docs/report-json.md).
nlohmann::json TraceTotalsJson(const TraceTotals& totals);

}  // namespace flopspy::tools
