#include "report/view_options.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "report/kernel_rollup.h"

namespace flopspy::tools {
namespace {

constexpr std::array<std::pair<SortKey, std::string_view>, 5> kSortNames = {
    {{SortKey::kTime, "time"},
     {SortKey::kCount, "count"},
     {SortKey::kMean, "mean"},
     {SortKey::kFlops, "flops"},
     {SortKey::kRoof, "roof"}}};
constexpr std::array<std::pair<GroupBy, std::string_view>, 6> kGroupNames = {
    {{GroupBy::kSignature, "signature"},
     {GroupBy::kName, "name"},
     {GroupBy::kFamily, "family"},
     {GroupBy::kRange, "range"},
     {GroupBy::kStep, "step"},
     {GroupBy::kCallSite, "call-site"}}};

double SortValue(const analyzers::KernelGroup& g, SortKey key) {
  const uint64_t count = g.executions ? g.executions : g.launches;
  switch (key) {
    case SortKey::kCount:
      return static_cast<double>(count);
    case SortKey::kMean:
      return g.executions ? g.gpu_ns / static_cast<double>(g.executions) : 0;
    case SortKey::kFlops:
      return g.all.flops_source != trace::FigureSource::kUnknown ? g.all.flops : -1;
    case SortKey::kRoof:
      return g.placement ? g.placement->pct_of_attainable.value_or(-1) : -1;
    case SortKey::kTime:
      break;
  }
  return g.gpu_ns;
}

std::string GroupKeyOf(const analyzers::KernelGroup& g, GroupBy by) {
  if (by == GroupBy::kName) return RollupName(g);
  if (by == GroupBy::kFamily) return g.category.empty() ? "unknown" : g.category;
  return "";
}

}  // namespace

std::string ViewGroupKey(const analyzers::KernelGroup& g, GroupBy by) {
  return GroupKeyOf(g, by);
}

std::string_view SortKeyText(SortKey key) {
  switch (key) {
    case SortKey::kCount:
      return "count";
    case SortKey::kMean:
      return "mean GPU time";
    case SortKey::kFlops:
      return "FLOPs";
    case SortKey::kRoof:
      return "%roof";
    case SortKey::kTime:
      break;
  }
  return "GPU time";
}

std::string_view SortKeyName(SortKey key) {
  for (const auto& [k, name] : kSortNames) {
    if (k == key) return name;
  }
  return "time";
}

std::string_view GroupByName(GroupBy group_by) {
  for (const auto& [g, name] : kGroupNames) {
    if (g == group_by) return name;
  }
  return "signature";
}

std::optional<SortKey> SortKeyFromName(std::string_view name) {
  for (const auto& [k, n] : kSortNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::optional<GroupBy> GroupByFromName(std::string_view name) {
  for (const auto& [g, n] : kGroupNames) {
    if (n == name) return g;
  }
  return std::nullopt;
}

ViewOptions KernelRowsView(const ViewOptions& view) {
  ViewOptions rows = view;
  if (IsGroupRollup(rows.group_by)) {
    rows.group_by = GroupBy::kSignature;
  }
  return rows;
}

std::string ViewOptionsError(const ViewOptions& view) {
  if (view.filter.empty()) return "";
  try {
    std::regex re(view.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return "--filter " + view.filter + ": not a valid regular expression (" + e.what() + ")";
  }
  return "";
}

std::string ParseViewOptions(size_t top, std::string_view sort, std::string_view group_by,
                             std::string filter, ViewOptions* view) {
  ViewOptions v;
  v.top = top;
  const std::optional<SortKey> key = SortKeyFromName(sort);
  if (!key) {
    return "--sort " + std::string(sort) + ": use time, count, mean, flops or roof";
  }
  v.sort = *key;
  const std::optional<GroupBy> by = GroupByFromName(group_by);
  if (!by) {
    return "--group-by " + std::string(group_by) +
           ": use signature, name, family, range, step or call-site";
  }
  v.group_by = *by;
  v.filter = std::move(filter);
  if (std::string error = ViewOptionsError(v); !error.empty()) return error;
  *view = std::move(v);
  return "";
}

void ApplyViewOptions(std::vector<analyzers::KernelGroup>& kernels, const ViewOptions& view) {
  // The analyses' own order is by time already: left as is unless asked otherwise.
  const bool reorder = view.sort != SortKey::kTime || view.group_by != GroupBy::kSignature;
  if (!view.filter.empty()) {
    const std::regex re(view.filter, std::regex::ECMAScript);
    std::erase_if(
        kernels, [&re](const analyzers::KernelGroup& g) { return !std::regex_search(g.name, re); });
  }
  // A group's rank: its summed sort value, so that groups come in the same order as the
  // rollup's rows.
  std::map<std::string, double> group_value;
  if (view.group_by != GroupBy::kSignature) {
    for (const auto& g : kernels) {
      group_value[GroupKeyOf(g, view.group_by)] += std::max(0.0, SortValue(g, view.sort));
    }
  }
  if (!reorder) return;
  std::stable_sort(kernels.begin(), kernels.end(),
                   [&](const analyzers::KernelGroup& a, const analyzers::KernelGroup& b) {
                     if (view.group_by != GroupBy::kSignature) {
                       const std::string ka = GroupKeyOf(a, view.group_by);
                       const std::string kb = GroupKeyOf(b, view.group_by);
                       if (ka != kb) {
                         const double va = group_value[ka], vb = group_value[kb];
                         return va != vb ? va > vb : ka < kb;
                       }
                     }
                     return SortValue(a, view.sort) > SortValue(b, view.sort);
                   });
}

nlohmann::json ViewOptionsJson(const ViewOptions& view) {
  return {{"top", view.top > 0 ? nlohmann::json(view.top) : nlohmann::json()},
          {"sort", SortKeyName(view.sort)},
          {"group_by", GroupByName(view.group_by)},
          {"filter", view.filter.empty() ? nlohmann::json() : nlohmann::json(view.filter)},
          {"per_trace", view.per_trace},
          {"by_call_site", view.by_call_site}};
}

void KeepTopKernelRows(nlohmann::json& doc, const ViewOptions& view) {
  if (view.top == 0) return;
  const auto cut = [&view](nlohmann::json& holder) {
    if (!holder.is_object() || !holder.contains("kernels") || !holder["kernels"].is_array()) return;
    nlohmann::json& rows = holder["kernels"];
    const size_t total = rows.size();
    if (total <= view.top) return;
    rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(view.top), rows.end());
    holder["kernels_shown"] = {
        {"shown", view.top},
        {"of", total},
        {"note", "shown " + std::to_string(view.top) + " of " + std::to_string(total) +
                     " kernel rows (--top " + std::to_string(view.top) + ")"}};
  };
  if (doc.contains("traces") && doc["traces"].is_array()) {
    for (nlohmann::json& t : doc["traces"]) cut(t);
  }
  if (doc.contains("aggregate")) cut(doc["aggregate"]);
}

}  // namespace flopspy::tools
