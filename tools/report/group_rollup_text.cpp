#include "report/group_rollup_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/format.h"
#include "report/labels.h"
#include "report/text_labels.h"
#include "report/text_table.h"

namespace flopspy::tools {
void PrintGroupRollup(const KernelRollup& r, std::ostream& out) {
  if (!IsGroupRollup(r.groups_by)) return;
  if (!r.groups_note.empty()) {
    fmt::print(out, "\n  --group-by {}: {}\n", GroupByName(r.groups_by), r.groups_note);
    return;
  }
  // The heading, the key column and the rows left out, per grouping.
  const char* heading = "step";
  const char* column = "step";
  const char* one = "step";
  const char* many = "steps";
  if (r.groups_by == GroupBy::kRange) {
    heading = "innermost range (where each kernel was launched)";
    column = one = "range";
    many = "ranges";
  } else if (r.groups_by == GroupBy::kCallSite) {
    heading = "call site (the user's line that launched each kernel)";
    column = one = "call site";
    many = "call sites";
  }
  fmt::print(out, "\n  Kernel time by {}\n", heading);
  TextTable table({{"GPU %"},
                   {"total"},
                   {"count"},
                   {"FLOPs known %"},
                   {"regime %", TextTable::Align::kLeft},
                   {column, TextTable::Align::kLeft}});
  table.WrapLastColumn();
  for (const RollupRow& row : r.groups) {
    table.AddRow({fmt::format("{:.1f}", 100 * row.share), Duration(row.gpu_ns), Grouped(row.count),
                  fmt::format("{:.0f}", 100 * row.FlopsCoverage()), RegimeShareText(row),
                  row.warmup ? row.key + " (warm-up)" : row.key});
  }
  table.Print(out);
  if (r.more_groups.rows > 0) {
    fmt::print(out, "  ... {} more {} ({:.1f}% of kernel time)\n", Grouped(r.more_groups.rows),
               r.more_groups.rows == 1 ? one : many, 100 * r.more_groups.share);
  }
}

}  // namespace flopspy::tools
