// The cuBLAS, cuBLASLt and cuDNN table of the terminal report: one row per routine and shape, with
// its types, roof and shape diagnostics under it.
#pragma once

#include <cstddef>
#include <ostream>

#include "report/trace_report.h"

namespace flopspy::tools {

void PrintLibraryTable(const TraceReport& trace, std::ostream& out, size_t limit);

}  // namespace flopspy::tools
