// The analysis sections of the terminal report for one trace.
#pragma once

#include <ostream>

#include "report/trace_report.h"
#include "report/view_options.h"

namespace flopspy::tools {

// A note of the CPU sampler on what its counters offer, not a warning: printed with the CPU
// roofline when the trace has one ("CPU FLOPs (W) unavailable" lines stay warnings).
bool IsCpuCounterNote(const TraceReport& trace, const analyzers::WarningEntry& warning);

// Everything after the trace's header and warnings; `color` for the sections that use it.
// `view`: the model's --top (rows per table; 0 keeps each table's default), --sort and
// --group-by, as the kernel table shows them.
void WriteAnalysisSections(const TraceReport& trace, std::ostream& out, bool color = false,
                           const ViewOptions& view = {});

}  // namespace flopspy::tools
