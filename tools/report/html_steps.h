// The HTML parts of issue 18's sections: the steps chart and the NVTX ranges with their tree,
// and the largest estimated gains for the top of a trace (docs/report-html.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flopspy::tools::html {

// The "steps" object (docs/report-json.md): how steps were found, the steady summary, and a
// chart of one stacked bar per step (kernel time by regime, then copies and idle), warm-up steps
// marked. More than kMaxStepBars steps: consecutive steps share a bar (their mean).
inline constexpr size_t kMaxStepBars = 500;
std::string StepsSection(const nlohmann::json& steps, const std::string& id);

// The trace's "ranges" as a table and its "range_paths" as an indented tree; "" without ranges.
std::string RangesSection(const nlohmann::json& trace, const std::string& id);

// The first three findings of "advice" with an estimated gain, as a list; "" when none.
std::string TopGains(const nlohmann::json& advice);

}  // namespace flopspy::tools::html
