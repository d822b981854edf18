// The kernel tables of the terminal report: kernels by GPU time and the GPU
// counters against the kernel catalog.
#pragma once

#include <cstddef>
#include <ostream>

#include "report/trace_report.h"

namespace flopspy::tools {

void PrintKernelTable(const TraceReport& trace, std::ostream& out, size_t limit);
void PrintCounterCheck(const TraceReport& trace, std::ostream& out, size_t limit);

}  // namespace flopspy::tools
