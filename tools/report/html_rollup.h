// The HTML report's "Where the GPU time goes" tables, from the trace's kernel_rollup section.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flopspy::tools::html {

// "" when the trace has no rollup.
std::string KernelRollupSection(const nlohmann::json& trace, const std::string& id);

}  // namespace flopspy::tools::html
