// --window START:END: a stretch of time after the trace start, each end a number with a unit
// (ns, us, ms, s, min): "2s:5s", "1500ms:2500ms"; an end left empty is open ("2s:", ":500ms").
// --window step:N or step:N-M: the time of those steps, known once the traces are read
// (step_window.h sets start and end).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace flopspy::tools {

struct TimeWindow {
  double start_ns = 0;
  double end_ns = 1e300;    // open
  uint32_t first_step = 0;  // step:N-M: N and M; 0 for a window of times
  uint32_t last_step = 0;
  bool by_steps() const { return first_step != 0; }

  // Whether [from_ns, to_ns] meets the window (a point is a stretch of length 0).
  bool Meets(double from_ns, double to_ns) const { return to_ns >= start_ns && from_ns <= end_ns; }
};

// The window `text` names, or nullopt with `error` saying what is wrong with it.
std::optional<TimeWindow> ParseTimeWindow(std::string_view text, std::string* error);

}  // namespace flopspy::tools
