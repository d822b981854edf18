#include "report/call_sites_csv.h"

#include <string>

#include "report/report_model_json.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;

// The labels of an array of objects, joined: "a;b;c".
std::string Joined(const json& list, const char* key, const char* separator) {
  std::string text;
  if (!list.is_array()) return text;
  for (const json& e : list) {
    if (!e.is_object() || !e.contains(key) || !e[key].is_string()) continue;
    text += (text.empty() ? "" : separator) + e[key].get<std::string>();
  }
  return text;
}

const json kNone = json::array();

// The array at `key`, or an empty one.
const json& List(const json& object, const char* key) {
  const json& v = model_json::Arr(object, key);
  return v.is_array() ? v : kNone;
}

}  // namespace

std::vector<CsvSection> CallSiteCsvSections(std::string_view key, const json& value) {
  std::vector<CsvSection> sections;
  if (key == "by_call_site") {
    sections.push_back({"by_call_site",
                        {"call_site", "call_site_kind", "call_site_gpu_ns", "short_name", "gpu_ns",
                         "gpu_share", "launches", "regime", "signature", "shape", "name"},
                        value});
    return sections;
  }
  if (key != "call_sites" || !value.is_object()) return sections;
  json sites = json::array();
  for (const json& s : List(value, "sites")) {
    if (!s.is_object()) continue;
    json row = json::object();
    for (const auto& [member, field] : s.items()) {
      if (member != "stack" && member != "kernels") row[member] = field;
    }
    // The stack outermost first, folded; the kernels by their short names, largest first.
    row["stack"] = Joined(List(s, "stack"), "label", ";");
    row["kernels"] = Joined(List(s, "kernels"), "short_name", ";");
    sites.push_back(std::move(row));
  }
  sections.push_back(
      {"call_sites",
       {"label", "kind", "gpu_ns", "share", "launches", "counted_flops", "flops_coverage",
        "achieved_flops_per_s", "launch_bound_share", "kernels", "stack"},
       std::move(sites)});
  json coverage = model_json::Obj(value, "coverage");
  if (coverage.is_object()) {
    coverage["kernel_ns"] = value.contains("kernel_ns") ? value["kernel_ns"] : json();
    coverage["modules_without_symbols"] = List(value, "modules_without_symbols");
    sections.push_back({"call_sites_coverage",
                        {"kernel_ns", "sampled_share", "estimated_share", "no_site_share"},
                        std::move(coverage)});
  }
  json stacks = json::array();
  for (const json& st : List(value, "stacks")) {
    if (!st.is_object()) continue;
    stacks.push_back({{"gpu_ns", st.contains("gpu_ns") ? st["gpu_ns"] : json()},
                      {"site", st.contains("site") ? st["site"] : json()},
                      {"frames", st.contains("frames") ? st["frames"] : json::array()}});
  }
  sections.push_back({"call_sites_stacks", {"gpu_ns", "site", "frames"}, std::move(stacks)});
  return sections;
}

}  // namespace flopspy::tools
