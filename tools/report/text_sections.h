// The analysis sections of the terminal report for one trace.
#pragma once

#include <ostream>
#include <string_view>
#include <vector>

#include "report/trace_report.h"
#include "report/view_options.h"

namespace flopspy::tools {

// A note of the CPU sampler on what its counters offer, not a warning: printed with the CPU
// roofline when the trace has one ("CPU FLOPs (W) unavailable" lines stay warnings).
bool IsCpuCounterNote(const TraceReport& trace, const analyzers::WarningEntry& warning);

// A list of findings under `title`, numbered (a trace's, or the merged run's); nothing when
// empty.
void PrintAdviceList(const std::vector<analyzers::Advice>& advice, std::ostream& out,
                     std::string_view title = "Advice");

// Everything after the trace's header and warnings; `color` for the sections that use it.
// `view`: the model's --top (rows per table; 0 keeps each table's default), --sort and
// --group-by, as the kernel table shows them.
void WriteAnalysisSections(const TraceReport& trace, std::ostream& out, bool color = false,
                           const ViewOptions& view = {});

}  // namespace flopspy::tools
