// The CPU roofline section of the terminal report: the roofs, then one row per region, the
// whole run and the first intervals, fitting 100 columns.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "flopspy/cpu_roofline/cpu_roofline_report.h"

namespace flopspy::tools {

// `counter_notes`: what the CPU sampler said about its counters.
void PrintCpuRoofline(const cpuroof::CpuRooflineChart& chart,
                      const std::vector<std::string>& counter_notes, std::ostream& out,
                      size_t interval_limit = 10);

}  // namespace flopspy::tools
