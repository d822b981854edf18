#include "report/ranges_json.h"

#include "flopspy/trace/schema.h"

namespace flopspy::tools {

using nlohmann::json;

void AddRangesJson(const analyzers::RangeReport& ranges, json& trace) {
  if (ranges.empty()) return;
  json rows = json::array();
  for (const analyzers::RangeStats& r : ranges.ranges) {
    rows.push_back({{"name", r.name},
                    {"domain", r.domain},
                    {"source", std::string(analyzers::RangeSourceName(r.source))},
                    {"count", r.count},
                    {"open", r.open},
                    {"marks", r.marks},
                    {"cpu_ns", r.cpu_ns},
                    {"cpu_self_ns", r.cpu_self_ns},
                    {"kernels", r.kernels},
                    {"gpu_ns", r.gpu_ns},
                    {"gpu_self_ns", r.gpu_self_ns},
                    {"counted_flops", r.flops},
                    {"flops_coverage", r.FlopCoverage()},
                    {"achieved_flops_per_s", r.AchievedFlopRate()},
                    {"bytes", r.bytes_ranges > 0 ? json(r.bytes) : json(nullptr)}});
  }
  trace["ranges"] = rows;
  json paths = json::array();
  for (const analyzers::RangePath& p : ranges.paths) {
    paths.push_back(
        {{"path", p.path}, {"count", p.count}, {"cpu_ns", p.cpu_ns}, {"gpu_ns", p.gpu_ns}});
  }
  trace["range_paths"] = paths;
  trace["ranges_unmatched_ends"] = ranges.unmatched_ends;
  trace["ranges_dropped"] = ranges.dropped;
  json names = json::array();
  for (const auto& [key, name] : ranges.resource_names) {
    names.push_back({{"resource", std::string(trace::NamedResourceName(key.first))},
                     {"handle", key.second},
                     {"name", name}});
  }
  trace["resource_names"] = names;
}

}  // namespace flopspy::tools
