// The run summary's FLOP coverage in the HTML page: the sentence of the model's
// summary.flop_coverage and its largest unknown kernels (docs/report-html.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace flopspy::tools::html {

// Facts (label, escaped HTML) from a trace's "summary" object; none without kernel time.
std::vector<std::pair<std::string, std::string>> CoverageFacts(const nlohmann::json& summary);

}  // namespace flopspy::tools::html
