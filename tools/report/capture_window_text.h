// The capture window a trace was recorded in (flopspy run --delay, --duration,
// --capture-range; docs/flopspy-run.md), in words for the report's trace heading.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flopspy::tools {

// "5.0 s after start, for 10.0 s (open from 5.01 s to 15.0 s)", "inside the first region step
// (open from 1.20 s to 3.40 s)", "... (never opened: nothing was recorded)"; "" without one.
// `metadata`: the trace's merged metadata (config and capture_window).
std::string CaptureWindowText(const nlohmann::json& metadata);

}  // namespace flopspy::tools
