// The "cuda_graphs" array of the JSON report (docs/cuda-graphs.md).
#pragma once

#include <nlohmann/json.hpp>

#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::tools {

// null when the trace recorded no graph node.
nlohmann::json GraphsJson(const analyzers::TraceAnalysis& run);

}  // namespace flopspy::tools
