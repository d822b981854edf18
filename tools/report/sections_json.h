// JSON for the report sections drawn from analyses beside the run join: the GPU timeline, the
// CPU roofline and marked regions (docs/report-json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "report/trace_report.h"

namespace flopspy::tools {

// {start_ns, end_ns, bin_ns, tracks:[{device, stream, label, busy_ns, busy_fraction, bins}]};
// null when the trace has no GPU activity.
nlohmann::json TimelineJson(const TraceReport& t);

// {roofs:[{name, kind, level, value, source, threads}], points:[{name, scope, intensity,
// flops_per_s, bytes_per_s, time_ns, regime, ...}], ridge_intensity, notes}. Roof values are
// per second (FLOP/s or B/s), like every other rate in the report.
nlohmann::json CpuRooflineJson(const cpuroof::CpuRooflineChart& chart);

// [{name, count, open, total_ns, mean_ns, p50_ns, p95_ns, max_ns}], longest total first.
nlohmann::json RegionsJson(const std::vector<analyzers::RegionStats>& regions);

}  // namespace flopspy::tools
