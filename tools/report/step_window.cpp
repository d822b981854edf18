#include "report/step_window.h"

#include <algorithm>
#include <cstdint>

namespace flopspy::tools {

std::string ResolveStepWindow(TimeWindow& window, const std::vector<TraceReport>& traces) {
  const std::string shown =
      "--window step:" + std::to_string(window.first_step) +
      (window.last_step != window.first_step ? "-" + std::to_string(window.last_step) : "");
  uint64_t base = UINT64_MAX;
  uint32_t highest = 0;
  for (const TraceReport& t : traces) {
    if (!t.header_ok) continue;
    base = std::min(base, t.header.start_realtime_ns);
    for (const analyzers::Step& s : t.steps.steps) highest = std::max(highest, s.number);
  }
  if (highest == 0) {
    return shown + ": no steps were found in the traces (the report's Steps section says why)";
  }
  if (window.last_step > highest) {
    return shown + ": the traces have steps 1-" + std::to_string(highest);
  }
  double start = 1e300, end = 0;
  for (const TraceReport& t : traces) {
    if (!t.header_ok) continue;
    // A trace's monotonic time on the export's base: its offset from its own start, plus how
    // much later than the earliest trace it started.
    const double offset = static_cast<double>(t.header.start_realtime_ns - base) -
                          static_cast<double>(t.header.start_monotonic_ns);
    for (const analyzers::Step& s : t.steps.steps) {
      if (s.number < window.first_step || s.number > window.last_step) continue;
      start = std::min(start, static_cast<double>(s.begin_ns) + offset);
      end = std::max(end, static_cast<double>(s.end_ns) + offset - 1);
    }
  }
  window.start_ns = std::max(0.0, start);
  window.end_ns = std::max(end, window.start_ns);
  return "";
}

}  // namespace flopspy::tools
