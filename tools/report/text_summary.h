// The run summary of one trace in the terminal report: wall time, launches, FLOPs
// by source, each GPU's busy share, achieved rate, MFU and HFU against named roofs, and the
// run's regime with the numbers behind it.
#pragma once

#include <ostream>

#include "report/trace_report.h"
#include "report/trace_totals.h"

namespace flopspy::tools {

void PrintRunSummary(const TraceReport& trace, const TraceTotals& totals, std::ostream& out);

// Which roofs a GPU has and where they come from: "datasheet roofs of h100-sxm5; measured:
// fp32-cuda, dram".
std::string RoofsDescription(const analyzers::DeviceRoofs& roofs);

}  // namespace flopspy::tools
