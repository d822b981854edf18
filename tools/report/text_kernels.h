// The kernel tables of the terminal report: kernels by GPU time and the GPU
// counters against the kernel catalog.
#pragma once

#include <cstddef>
#include <ostream>

#include "report/kernel_rollup.h"
#include "report/trace_report.h"
#include "report/view_options.h"

namespace flopspy::tools {

// "Where the GPU time goes": the rollup by family and by name, before the signature table.
void PrintKernelRollup(const KernelRollup& rollup, std::ostream& out);
// The signature rows in the model's order (--sort); with --group-by name or family a line
// heads each group's rows; at most RowsShown(view, 15) signature rows.
void PrintKernelTable(const TraceReport& trace, std::ostream& out, const ViewOptions& view = {});
void PrintCounterCheck(const TraceReport& trace, std::ostream& out, size_t limit);

}  // namespace flopspy::tools
