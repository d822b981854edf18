// The NCCL sections of the text report (docs/nccl.md): a trace's collectives with their bytes
// and bandwidths, and the same collectives across ranks.
#pragma once

#include <cstddef>
#include <ostream>

#include "flopspy/analyzers/communication.h"
#include "report/trace_report.h"

namespace flopspy::tools {

// "Communication (NCCL)": nothing when the trace has no NCCL call and no collective kernel.
void PrintCommunication(const TraceReport& t, std::ostream& out, size_t limit);

// "Communication across ranks": nothing when no collective was seen on two traces.
void PrintCommSkew(const analyzers::CommSkewReport& skew, std::ostream& out);

}  // namespace flopspy::tools
