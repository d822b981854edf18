// The analysis sections of the terminal report for one trace.
#pragma once

#include <ostream>

#include "report/trace_report.h"

namespace flopspy::tools {

// A note of the CPU sampler on what its counters offer, not a warning: printed with the CPU
// roofline when the trace has one ("CPU FLOPs (W) unavailable" lines stay warnings).
bool IsCpuCounterNote(const TraceReport& trace, const analyzers::WarningEntry& warning);

// Everything after the trace's header and warnings; `color` for the sections that use it.
void WriteAnalysisSections(const TraceReport& trace, std::ostream& out, bool color = false);

}  // namespace flopspy::tools
