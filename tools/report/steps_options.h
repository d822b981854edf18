// --step-range and --model-flops-per-step, checked once before any trace is read.
#pragma once

#include <string>

#include "flopspy/analyzers/steps.h"

namespace flopspy::tools {

// Fills `out` from the flags' text ("" when not given); returns the usage error, or "".
std::string ParseStepOptions(const std::string& step_range, const std::string& model_flops,
                             analyzers::StepOptions* out);

}  // namespace flopspy::tools
