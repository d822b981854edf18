// The top of one trace's HTML section: the run summary (wall time, GPU busy, FLOPs, achieved
// FLOP/s, the run's regime with the numbers behind it), what the advice list says when it is
// empty, and the marked regions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace flopspy::tools::html {

// Facts (label, escaped HTML) from the trace's "summary" object (docs/report-json.md); none when
// the model has no summary.
std::vector<std::pair<std::string, std::string>> SummaryFacts(const nlohmann::json& trace);

// The paragraph shown instead of an empty advice list: that no rule found anything, and what
// the rules had to look at.
std::string NoFindings(const nlohmann::json& trace);

// Marked regions, with human headers and units, in the order a reader wants them.
std::string RegionsTable(const nlohmann::json& regions, const std::string& id);

}  // namespace flopspy::tools::html
