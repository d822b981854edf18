#include "report/group_rollup.h"

#include <functional>
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

// Kernel activities summed per key; `key_of` names the row of activity i ("" leaves it out).
std::map<std::string, RollupRow> ActivityRows(const TraceReport& t, const ViewOptions& view,
                                              const std::function<std::string(size_t)>& key_of) {
  std::map<std::string, RollupRow> rows;
  std::optional<std::regex> filter;
  if (!view.filter.empty()) filter.emplace(view.filter, std::regex::ECMAScript);
  const auto& acts = t.run.activities;
  for (size_t i = 0; i < acts.size(); ++i) {
    const analyzers::TimedActivity& a = acts[i];
    if (a.is_copy || a.group >= t.run.kernels.size()) continue;
    const analyzers::KernelGroup& g = t.run.kernels[a.group];
    if (filter && !std::regex_search(g.name, *filter)) continue;
    RollupRow& row = rows[key_of(i)];
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

std::map<std::string, RollupRow> RangeRows(const TraceReport& t, const ViewOptions& view) {
  return ActivityRows(t, view, [&t](size_t i) -> std::string {
    const int32_t r = i < t.ranges.innermost.size() ? t.ranges.innermost[i] : -1;
    return r >= 0 ? RangeKey(t.ranges.ranges[static_cast<size_t>(r)]) : kNoRangeRow;
  });
}

// The site each kernel's time went to (the largest share where it was shared out).
std::map<std::string, RollupRow> CallSiteRows(const TraceReport& t, const ViewOptions& view) {
  const analyzers::CallSiteReport& c = t.call_sites;
  return ActivityRows(t, view, [&c](size_t i) -> std::string {
    const int32_t s = i < c.site_of_activity.size() ? c.site_of_activity[i] : -1;
    return s >= 0 && static_cast<size_t>(s) < c.sites.size() ? c.sites[static_cast<size_t>(s)].label
                                                             : kNoCallSiteRow;
  });
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
  if (view.group_by == GroupBy::kCallSite) {
    *found = !t.call_sites.empty();
    return CallSiteRows(t, view);
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
  if (!IsGroupRollup(view.group_by)) return;
  rollup.groups_by = view.group_by;
  if (!found) {
    switch (view.group_by) {
      case GroupBy::kRange:
        rollup.groups_note =
            "no NVTX ranges or flopspy regions in the trace: nothing to group by range";
        break;
      case GroupBy::kStep:
        rollup.groups_note = "no steps found in the trace: nothing to group by step";
        break;
      default:
        rollup.groups_note =
            "no stack samples in the trace (FLOPSPY_STACKS=off, or recorded before call "
            "sites): nothing to group by call site";
        break;
    }
    return;
  }
  double total = 0;
  for (const auto& [key, r] : rows) total += r.gpu_ns;
  rollup.groups = SortedRollupRows(std::move(rows), total, view.sort);
  CutRollupRows(rollup.groups, RowsShown(view, kRollupNames), rollup.more_groups);
}

}  // namespace flopspy::tools
