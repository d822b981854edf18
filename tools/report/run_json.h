// The run sections of the --json document (docs/report-json.md): `aggregate`, `ranks` and
// `stragglers`, present when two or more traces could be read.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/run_views.h"
#include "report/trace_report.h"

namespace flopspy::tools {

nlohmann::json AggregateJson(const analyzers::RunAggregate& aggregate);
nlohmann::json RanksJson(const analyzers::RankTable& ranks);
nlohmann::json StragglersJson(const analyzers::StragglerReport& report,
                              const analyzers::RankTable& ranks);

// Adds the three sections to `doc` when two or more of `traces` are usable.
void AddRunSections(nlohmann::json& doc, const std::vector<TraceReport>& traces);
void AddRunSections(nlohmann::json& doc, const RunViews& views);

}  // namespace flopspy::tools
