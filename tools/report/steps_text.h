// The "Steps" section of the terminal report (docs/flopspy-report.md).
#pragma once

#include <ostream>

#include "report/trace_report.h"

namespace flopspy::tools {

// Nothing when no steps were found.
void PrintSteps(const TraceReport& trace, std::ostream& out);

}  // namespace flopspy::tools
