// --group-by range, step and call-site: kernel time, count, FLOP coverage and regime per
// innermost NVTX range or flopspy region, per step and per call site (docs/flopspy-report.md,
// "Choosing the rows"). Rows are gathered per trace, summed across traces for the run view, then
// sorted and cut like the other rollup tables.
#pragma once

#include <map>
#include <string>

#include "report/kernel_rollup.h"
#include "report/trace_report.h"
#include "report/view_options.h"

namespace flopspy::tools {

inline constexpr const char* kNoRangeRow = "(no range)";
inline constexpr const char* kNoCallSiteRow = "(no call site)";

// The uncut rows of one trace under view.group_by (range, step or call-site; empty otherwise). Must
// run before ApplyViewOptions reorders t.run.kernels: activities index them. `found` says whether
// the trace had any ranges (or steps) at all.
std::map<std::string, RollupRow> GroupRollupRows(const TraceReport& t, const ViewOptions& view,
                                                 bool* found);
// Adds `from`'s rows into `into` (the run view: one row per key over every trace).
void MergeGroupRollupRows(std::map<std::string, RollupRow>& into,
                          const std::map<std::string, RollupRow>& from);
// Sets rollup.groups from `rows` (sorted, cut to RowsShown(view, kRollupNames)), or the note
// saying there are no ranges, steps or call sites when none was `found`.
void SetGroupRollup(KernelRollup& rollup, std::map<std::string, RollupRow> rows, bool found,
                    const ViewOptions& view);

}  // namespace flopspy::tools
