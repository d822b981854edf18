// The "ranges", "range_paths" and "resource_names" members of a trace's JSON
// (docs/report-json.md); CSV makes a table of each.
#pragma once

#include <nlohmann/json.hpp>

#include "flopspy/analyzers/ranges.h"

namespace flopspy::tools {

// Adds the members to `trace` when the trace has ranges or named resources.
void AddRangesJson(const analyzers::RangeReport& ranges, nlohmann::json& trace);

}  // namespace flopspy::tools
