// The terminal report.
#pragma once

#include <ostream>
#include <vector>

#include "report/trace_report.h"

namespace flopspy::tools {

struct TextOptions {
  bool color = false;  // ANSI colour, only when writing to a terminal
};

void WriteTextReport(const std::vector<TraceReport>& traces, const TextOptions& options,
                     std::ostream& out);

}  // namespace flopspy::tools
