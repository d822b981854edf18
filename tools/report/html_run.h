// The HTML of the run sections (several traces) and of a comparison of two runs: the whole run
// with a roofline chart per GPU model and the merged tables, the per-rank table, the
// stragglers, and the --diff tables. docs/report-html.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flopspy::tools::html {

// `index`: a number no trace uses, so that row and chart ids stay unique ("t<index>-k3").
std::string AggregateSection(const nlohmann::json& aggregate, size_t index);
// `stragglers` marks their rows; a `ranks` value of another shape falls back to GenericSection.
std::string RanksSection(const nlohmann::json& ranks, const nlohmann::json& stragglers);
std::string StragglersSection(const nlohmann::json& stragglers, const nlohmann::json& aggregate);
std::string DiffSection(const nlohmann::json& diff);
// The page header of a --diff document (it has no traces).
std::string DiffHeader(const nlohmann::json& report);

}  // namespace flopspy::tools::html
