// The analysis sections of the terminal report for one trace.
#pragma once

#include <ostream>

#include "report/trace_report.h"

namespace flopspy::tools {

void WriteAnalysisSections(const TraceReport& trace, std::ostream& out);

}  // namespace flopspy::tools
