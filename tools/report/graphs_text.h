// The CUDA graphs section of the text report (docs/cuda-graphs.md): each executable graph as a
// unit, per replay.
#pragma once

#include <cstddef>
#include <ostream>

#include "report/trace_report.h"

namespace flopspy::tools {

// "CUDA graphs": nothing when the trace recorded no graph node.
void PrintGraphs(const TraceReport& t, std::ostream& out, size_t limit);

}  // namespace flopspy::tools
