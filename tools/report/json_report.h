// The --json report: one document, schema written down in docs/report-json.md.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/trace_report.h"

namespace flopspy::tools {

inline constexpr int kReportJsonSchemaVersion = 2;

nlohmann::json BuildJsonReport(const std::vector<TraceReport>& traces);

// Pieces of a TRACE (docs/report-json.md), also used for the run's merged groups.
// `trace_gpu_ns`: the kernel time `gpu_share` is a share of.
nlohmann::json KernelJson(const analyzers::KernelGroup& g, double trace_gpu_ns);
nlohmann::json LibraryJson(const analyzers::LibraryGroup& g);
nlohmann::json PlacementJson(const std::optional<analyzers::Placement>& placement);
nlohmann::json RoofsJson(const analyzers::DeviceRoofs& r);

}  // namespace flopspy::tools
