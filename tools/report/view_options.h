// What the user asked to see of the kernels (--top, --sort, --group-by, --filter): applied to
// the report model once, so that every output shows the same rows (docs/flopspy-report.md,
// "Choosing the rows").
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::tools {

enum class SortKey { kTime, kCount, kMean, kFlops, kRoof };
// kRange, kStep and kCallSite roll kernel time up per innermost range, per step and per call
// site (KernelRollup::groups); a signature runs in many of them, so the signature rows stay
// ungrouped.
enum class GroupBy { kSignature, kName, kFamily, kRange, kStep, kCallSite };

struct ViewOptions {
  size_t top = 0;  // rows per table; 0: each table's default
  SortKey sort = SortKey::kTime;
  GroupBy group_by = GroupBy::kSignature;
  std::string filter;  // ECMAScript regex over the kernel's demangled name; "" keeps every kernel
  // --per-trace: each trace's full report even above kFullTracesUpTo traces (run_views.h).
  bool per_trace = false;
  // --by-call-site: the kernel table grouped under the call sites (docs/call-sites.md).
  bool by_call_site = false;
};

std::string_view SortKeyName(SortKey key);
std::string_view GroupByName(GroupBy group_by);
std::optional<SortKey> SortKeyFromName(std::string_view name);
// "signature", "name", "family", "range", "step", "call-site".
std::optional<GroupBy> GroupByFromName(std::string_view name);

// Whether kernel time is rolled up per range, step or call site (KernelRollup::groups).
inline bool IsGroupRollup(GroupBy by) {
  return by == GroupBy::kRange || by == GroupBy::kStep || by == GroupBy::kCallSite;
}

// Rows a table shows: the user's --top, else the table's own default.
inline size_t RowsShown(const ViewOptions& view, size_t table_default) {
  return view.top > 0 ? view.top : table_default;
}

// The group a kernel row belongs to under `by`: its rollup name or family; "" by signature.
std::string ViewGroupKey(const analyzers::KernelGroup& g, GroupBy by);
// What the rows are ordered by, in words: "GPU time", "count", "mean GPU time", "FLOPs", "%roof".
std::string_view SortKeyText(SortKey key);

// The options the signature table is printed with: ungrouped under --group-by range, step or
// call-site.
ViewOptions KernelRowsView(const ViewOptions& view);

// Checks the options that can be wrong in themselves (the regex); "" when they are fine.
std::string ViewOptionsError(const ViewOptions& view);
// The options from the command line's words: "" when they are valid, else the one-line usage
// error (an unknown key, a grouping this build cannot make yet, a bad regex).
std::string ParseViewOptions(size_t top, std::string_view sort, std::string_view group_by,
                             std::string filter, ViewOptions* view);

// Keeps the kernel rows whose name matches the filter and orders them by the sort key (largest
// first); with --group-by name or family, the rows of one group stay together, groups in the
// same order. The filter must be valid (ViewOptionsError).
void ApplyViewOptions(std::vector<analyzers::KernelGroup>& kernels, const ViewOptions& view);

// The options as the JSON document's header states them.
nlohmann::json ViewOptionsJson(const ViewOptions& view);

// --top in the JSON document, and so in every output built from it (CSV, HTML): each kernel
// list (per trace, and the merged run's) keeps its first `view.top` rows, and one that lost
// rows says so beside it: "kernels_shown": {"shown": 15, "of": 600, "note": "shown 15 of 600
// kernel rows (--top 15)"}. Shares and totals were computed before, over every row.
void KeepTopKernelRows(nlohmann::json& doc, const ViewOptions& view);

}  // namespace flopspy::tools
