#include "report/steps_options.h"

#include <cmath>
#include <cstdlib>
#include <regex>

namespace flopspy::tools {

std::string ParseStepOptions(const std::string& step_range, const std::string& model_flops,
                             analyzers::StepOptions* out) {
  if (!step_range.empty()) {
    try {
      std::regex check(step_range);
    } catch (const std::regex_error& e) {
      return "--step-range " + step_range + ": not a regular expression (" + e.what() + ")";
    }
    out->pattern = step_range;
  }
  if (!model_flops.empty()) {
    char* end = nullptr;
    const double flops = std::strtod(model_flops.c_str(), &end);
    if (end == model_flops.c_str() || *end != '\0' || !std::isfinite(flops) || flops <= 0) {
      return "--model-flops-per-step " + model_flops +
             ": give the model's FLOPs per step as a positive number (6.2e15)";
    }
    out->model_flops_per_step = flops;
  }
  return "";
}

}  // namespace flopspy::tools
