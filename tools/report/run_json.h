// The run sections of the --json document (docs/report-json.md): `aggregate`, `advice`, `ranks`
// and `stragglers`, present when two or more traces could be read.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/run_views.h"
#include "report/trace_report.h"

namespace flopspy::tools {

nlohmann::json AggregateJson(const analyzers::RunAggregate& aggregate);
nlohmann::json RanksJson(const analyzers::RankTable& ranks,
                         const analyzers::StragglerReport& stragglers);
nlohmann::json StragglersJson(const analyzers::StragglerReport& report,
                              const analyzers::RankTable& ranks);

// Adds the three sections to `doc` when two or more of `traces` are usable.
void AddRunSections(nlohmann::json& doc, const std::vector<TraceReport>& traces);
void AddRunSections(nlohmann::json& doc, const RunViews& views);

// Each trace of `doc` cut to its facts (process, reading, end, totals) when the run views stand
// for the traces' own reports (RunViews::traces_in_full false).
void KeepTraceFactsOnly(nlohmann::json& doc);

}  // namespace flopspy::tools
