// The CSV files of a trace's "call_sites" and "by_call_site" (docs/report-json.md,
// docs/flopspy-report.md "CSV files"): call_sites.csv, one row per site with its stack and top
// kernels as text; call_sites_coverage.csv, where the sites come from; call_sites_stacks.csv,
// GPU time per stack with its frames folded ("a;b;c", outermost first) as flame-graph tools
// read them; by_call_site.csv, one row per kernel of each site.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace flopspy::tools {

struct CsvSection {
  std::string name;                  // the file's name without ".csv"
  std::vector<std::string> leading;  // the columns that come first, in this order
  nlohmann::json rows;               // an array of flat objects, or one object (one row)
};

// The sections of a trace's `key` ("call_sites" or "by_call_site"); empty for another key.
std::vector<CsvSection> CallSiteCsvSections(std::string_view key, const nlohmann::json& value);

}  // namespace flopspy::tools
