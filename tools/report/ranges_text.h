// The "NVTX ranges" section of the terminal report (docs/flopspy-report.md).
#pragma once

#include <ostream>

#include "report/trace_report.h"

namespace flopspy::tools {

// Nothing when the trace has no NVTX range or mark (flopspy regions alone keep their own
// "Marked regions" section).
void PrintRanges(const TraceReport& trace, std::ostream& out, size_t rows);

}  // namespace flopspy::tools
