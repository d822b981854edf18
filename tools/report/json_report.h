// The --json report: one document, schema written down in docs/report-json.md.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/trace_report.h"

namespace flopspy::tools {

inline constexpr int kReportJsonSchemaVersion = 2;

nlohmann::json BuildJsonReport(const std::vector<TraceReport>& traces);

}  // namespace flopspy::tools
