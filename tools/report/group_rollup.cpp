#include "report/group_rollup.h"

#include <regex>
#include <utility>

#include "flopspy/analyzers/run_regime.h"

namespace flopspy::tools {
namespace {

// A range row's key: its name, with the domain before it and regions marked.
std::string RangeKey(const analyzers::RangeStats& s) {
  std::string key = s.domain.empty() ? s.name : s.domain + ": " + s.name;
  if (s.source == analyzers::RangeSource::kRegion) key += " (region)";
  return key;
}

std::map<std::string, RollupRow> RangeRows(const TraceReport& t, const ViewOptions& view) {
  std::map<std::string, RollupRow> rows;
  std::optional<std::regex> filter;
  if (!view.filter.empty()) filter.emplace(view.filter, std::regex::ECMAScript);
  const auto& acts = t.run.activities;
  for (size_t i = 0; i < acts.size(); ++i) {
    const analyzers::TimedActivity& a = acts[i];
    if (a.is_copy || a.group >= t.run.kernels.size()) continue;
    const analyzers::KernelGroup& g = t.run.kernels[a.group];
    if (filter && !std::regex_search(g.name, *filter)) continue;
    const int32_t r = i < t.ranges.innermost.size() ? t.ranges.innermost[i] : -1;
    RollupRow& row = rows[r >= 0 ? RangeKey(t.ranges.ranges[static_cast<size_t>(r)]) : kNoRangeRow];
    const auto ns = static_cast<double>(a.end_ns - a.start_ns);
    row.gpu_ns += ns;
    ++row.count;
    // The regime basis of the other rollup rows: placed time only where FLOPs are known.
    analyzers::Regime regime = analyzers::Regime::kUnknown;
    if (a.flops_known) {
      row.flops += a.flops;
      row.flops_known_ns += ns;
      if (g.placement) regime = g.placement->regime;
    }
    row.regime_ns[static_cast<size_t>(regime)] += ns;
  }
  return rows;
}

std::map<std::string, RollupRow> StepRows(const TraceReport& t) {
  std::map<std::string, RollupRow> rows;
  for (const analyzers::Step& s : t.steps.steps) {
    RollupRow& row = rows["step " + std::to_string(s.number)];
    row.gpu_ns += s.kernel_ns;
    row.count += s.kernels;
    row.flops += s.flops;
    row.flops_known_ns += s.flops_ns;
    for (size_t i = 0; i < row.regime_ns.size(); ++i) row.regime_ns[i] += s.regime_ns[i];
    row.warmup = row.warmup || s.warmup;
  }
  return rows;
}

}  // namespace

std::map<std::string, RollupRow> GroupRollupRows(const TraceReport& t, const ViewOptions& view,
                                                 bool* found) {
  *found = false;
  if (!t.usable()) return {};
  if (view.group_by == GroupBy::kRange) {
    *found = !t.ranges.ranges.empty();
    return RangeRows(t, view);
  }
  if (view.group_by == GroupBy::kStep) {
    *found = !t.steps.empty();
    return StepRows(t);
  }
  return {};
}

void MergeGroupRollupRows(std::map<std::string, RollupRow>& into,
                          const std::map<std::string, RollupRow>& from) {
  for (const auto& [key, r] : from) {
    RollupRow& row = into[key];
    row.gpu_ns += r.gpu_ns;
    row.count += r.count;
    row.flops += r.flops;
    row.flops_known_ns += r.flops_known_ns;
    for (size_t i = 0; i < row.regime_ns.size(); ++i) row.regime_ns[i] += r.regime_ns[i];
    row.warmup = row.warmup || r.warmup;
  }
}

void SetGroupRollup(KernelRollup& rollup, std::map<std::string, RollupRow> rows, bool found,
                    const ViewOptions& view) {
  if (view.group_by != GroupBy::kRange && view.group_by != GroupBy::kStep) return;
  rollup.groups_by = view.group_by;
  if (!found) {
    rollup.groups_note = view.group_by == GroupBy::kRange
                             ? "no NVTX ranges or flopspy regions in the trace: nothing to group "
                               "by range"
                             : "no steps found in the trace: nothing to group by step";
    return;
  }
  double total = 0;
  for (const auto& [key, r] : rows) total += r.gpu_ns;
  rollup.groups = SortedRollupRows(std::move(rows), total, view.sort);
  CutRollupRows(rollup.groups, RowsShown(view, kRollupNames), rollup.more_groups);
}

}  // namespace flopspy::tools
