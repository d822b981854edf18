// The few lines `flopspy run` prints after the program ends: where the traces are and what they
// hold, with the command that gives the full report.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/trace_report.h"

namespace flopspy::tools {

// Traces in `dir` written by the run with `run_id` (every trace there when run_id is 0).
std::vector<std::string> FindRunTraces(const std::string& dir, uint64_t run_id);

void WriteRunSummary(const std::string& dir, const std::vector<TraceReport>& traces,
                     std::ostream& out);

}  // namespace flopspy::tools
