// The "steps" member of a trace's JSON (docs/report-json.md); CSV makes steps.csv (the source
// and the steady-state figures) and steps_per_step.csv of it.
#pragma once

#include <nlohmann/json.hpp>

#include "flopspy/analyzers/steps.h"

namespace flopspy::tools {

// Null when no steps were found.
nlohmann::json StepsJson(const analyzers::StepReport& steps);

}  // namespace flopspy::tools
