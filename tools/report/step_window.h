// --window step:N[-M]: the steps' time on the Chrome export's time base (after the earliest
// trace start on the wall clock), once the traces are read (docs/flopspy-report.md).
#pragma once

#include <string>
#include <vector>

#include "report/time_window.h"
#include "report/trace_report.h"

namespace flopspy::tools {

// Sets `window`'s start and end to span steps first_step..last_step of every trace that has
// them (a step ends where the next begins: the end is kept just short of it). Returns "" or the
// usage error: no steps, or a step number outside the ones found.
std::string ResolveStepWindow(TimeWindow& window, const std::vector<TraceReport>& traces);

}  // namespace flopspy::tools
