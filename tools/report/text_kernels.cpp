#include "report/text_kernels.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <vector>

#include "report/counter_check.h"
#include "report/format.h"
#include "report/text_labels.h"
#include "report/text_table.h"

namespace flopspy::tools {
namespace {

using analyzers::KernelGroup;

std::string Number(double v) {
  return Significant(v);
}

// FLOP per byte of a row: the placement's (timed launches) when there is one, else over every
// launch when both figures are known.
std::string Intensity(const KernelGroup& g) {
  if (g.placement && g.placement->intensity) return Number(*g.placement->intensity);
  const analyzers::WorkFigures& w = g.all;
  if (w.flops_source == trace::FigureSource::kUnknown ||
      w.bytes_source == trace::FigureSource::kUnknown || w.bytes <= 0) {
    return "-";
  }
  return Number(w.flops / w.bytes);
}

void PrintRollupTable(const std::vector<RollupRow>& rows, const RollupRest& rest,
                      std::string_view key, std::string_view more_singular,
                      std::string_view more_plural, std::ostream& out) {
  TextTable table({{"GPU %"},
                   {"total"},
                   {"count"},
                   {"sigs"},
                   {"FLOPs known %"},
                   {"regime %", TextTable::Align::kLeft},
                   {std::string(key), TextTable::Align::kLeft}});
  table.WrapLastColumn();
  for (const RollupRow& r : rows) {
    table.AddRow({fmt::format("{:.1f}", 100 * r.share), Duration(r.gpu_ns), Grouped(r.count),
                  Grouped(r.signatures), fmt::format("{:.0f}", 100 * r.FlopsCoverage()),
                  RegimeShareText(r), r.key});
  }
  table.Print(out);
  if (rest.rows > 0) {
    fmt::print(out, "  ... {} more {} ({:.1f}% of kernel time)\n", Grouped(rest.rows),
               rest.rows == 1 ? more_singular : more_plural, 100 * rest.share);
  }
}

// The line heading a group's signature rows: the group's summed time and count.
void AddGroupRow(TextTable& table, const std::vector<KernelGroup>& kernels, GroupBy by,
                 const std::string& key, double total) {
  double ns = 0;
  uint64_t count = 0, executions = 0, signatures = 0;
  for (const KernelGroup& g : kernels) {
    if (ViewGroupKey(g, by) != key) continue;
    ns += g.gpu_ns;
    count += g.executions ? g.executions : g.launches;
    executions += g.executions;
    ++signatures;
  }
  table.AddRow({total > 0 ? fmt::format("{:.1f}", 100 * ns / total) : "-",
                executions ? Duration(ns) : "-", Grouped(count),
                executions ? Duration(ns / static_cast<double>(executions)) : "-", "", "", "", "",
                "", "", ""});
  table.AddDetail(fmt::format("{} {}: {}", GroupByName(by), key,
                              Counted(signatures, "signature", "signatures")));
}

}  // namespace

void PrintKernelRollup(const KernelRollup& r, std::ostream& out) {
  if (r.empty() || r.kernel_ns <= 0) return;
  fmt::print(out, "\n  Where the GPU time goes: {} of kernel time\n", Duration(r.kernel_ns));
  PrintRollupTable(r.families, r.more_families, "family", "family", "families", out);
  fmt::print(out, "\n");
  PrintRollupTable(r.names, r.more_names, "name", "name", "names", out);
  fmt::print(out, "{}",
             Paragraph("count: GPU executions; sigs: kernel signatures; FLOPs known %: share of "
                       "the time whose FLOPs are known; regime %: the regime holding most of the "
                       "time and its share (? unknown).",
                       "  ", "  "));
}

void PrintKernelTable(const TraceReport& t, std::ostream& out, const ViewOptions& view) {
  if (t.run.kernels.empty()) return;
  const size_t limit = RowsShown(view, 15);
  double total = 0;
  for (const auto& g : t.run.kernels) total += g.gpu_ns;
  const bool grouped = view.group_by != GroupBy::kSignature;
  fmt::print(out, "\n  Kernels by {}{}{}\n", SortKeyText(view.sort),
             grouped ? fmt::format(", grouped by {}", GroupByName(view.group_by)) : "",
             !t.run.gpu_timing        ? " (no GPU records: launch counts only)"
             : t.run.sampling.sampled ? " (GPU times of the sampled windows; estimates in --json)"
                                      : "");
  TextTable table({{"GPU %"},
                   {"total"},
                   {"count"},
                   {"mean"},
                   {"FLOPs"},
                   {"bytes"},
                   {"FLOP/B"},
                   {"FLOP/s"},
                   {"%roof"},
                   {"regime", TextTable::Align::kLeft},
                   {"src", TextTable::Align::kLeft}});
  const size_t detail_width = 100 - table.detail_indent();
  size_t shown = 0;
  std::string group;
  for (const KernelGroup& g : t.run.kernels) {
    // A kernel only recorded into a CUDA graph that never ran: nothing to show.
    if (g.launches == 0 && g.executions == 0) continue;
    if (shown++ == limit) break;
    if (grouped && (shown == 1 || ViewGroupKey(g, view.group_by) != group)) {
      group = ViewGroupKey(g, view.group_by);
      AddGroupRow(table, t.run.kernels, view.group_by, group, total);
    }
    const auto& p = g.placement;
    const uint64_t count = g.executions ? g.executions : g.launches;
    // Rates and the share of the roof only where the row's own figures say so: a row whose
    // FLOPs are unknown has no FLOP rate, whatever its placement.
    const bool flops_known = g.all.flops_source != trace::FigureSource::kUnknown;
    table.AddRow({total > 0 ? fmt::format("{:.1f}", 100 * g.gpu_ns / total) : "-",
                  g.executions ? Duration(g.gpu_ns) : "-", Grouped(count),
                  g.executions ? Duration(g.gpu_ns / static_cast<double>(g.executions)) : "-",
                  FigureText(g.all.flops, g.all.flops_source),
                  FigureText(g.all.bytes, g.all.bytes_source), Intensity(g),
                  p && flops_known ? RateText(p->achieved_flops) : "-",
                  p ? PctText(p->pct_of_attainable) : "-", RegimeTag(p), SourcesTag(g.all)});
    for (std::string& line : KernelDetailLines(g, detail_width)) table.AddDetail(std::move(line));
  }
  table.Print(out);
  if (t.run.kernels.size() > limit) {
    fmt::print(out, "{}",
               MoreLine(t.run.kernels.size() - limit, "kernel signature", "kernel signatures"));
  }
  fmt::print(out, "{}",
             Paragraph("FLOPs, bytes: all launches; FLOP/B, FLOP/s: launches with a GPU time; "
                       "%roof: of the attainable FLOP/s at that intensity (of the bandwidth when "
                       "FLOPs are unknown); src: anl analytic, cat catalog, ctr counters, ? "
                       "unknown (FLOPs/bytes when they differ); regime: far when under 60% of "
                       "its roof (bound by neither roof); under each row: <<<grid, block>>>, "
                       "the roof placed against with its source, \"FLOPs for k of n launches\" "
                       "when only k have FLOPs (FLOP/s, %roof and regime are theirs), and why a "
                       "regime is ?.",
                       "  ", "  "));
}

// Kernels measured with GPU counters (FLOPSPY_COUNTERS=1) that the catalog also models: both
// figures per launch and the difference; "!" marks a catalog entry more than 10% off.
void PrintCounterCheck(const TraceReport& t, std::ostream& out, size_t limit) {
  TextTable table({{"samples"},
                   {"FLOPs ctr"},
                   {"FLOPs cat"},
                   {"diff"},
                   {"bytes ctr"},
                   {"bytes cat"},
                   {"diff"},
                   {"", TextTable::Align::kLeft},
                   {"kernel", TextTable::Align::kLeft}});
  table.WrapLastColumn();
  size_t shown = 0, flagged = 0, disagree = 0;
  for (const KernelGroup& g : t.run.kernels) {
    if (g.counter_samples == 0) continue;
    const CounterCheck c = CheckCounters(g);
    flagged += c.catalog_off ? 1 : 0;
    disagree += c.samples_disagree ? 1 : 0;
    if (!c.catalog_flops && !c.catalog_bytes) continue;  // counters only: the kernel table has it
    if (shown++ >= limit) continue;
    const auto value = [](bool valid, double v) { return valid ? SiValue(v) : "-"; };
    const auto model = [](const std::optional<double>& v) { return v ? SiValue(*v) : "-"; };
    const auto diff = [](const std::optional<double>& d) {
      return d ? fmt::format("{:+.0f}%", *d) : "-";
    };
    table.AddRow({Grouped(g.counter_samples),
                  value(analyzers::CounterFlopsValid(g), g.counter_flops), model(c.catalog_flops),
                  diff(c.flops_diff_pct), value(analyzers::CounterBytesValid(g), g.counter_bytes),
                  model(c.catalog_bytes), diff(c.bytes_diff_pct),
                  std::string(c.catalog_off ? "!" : "") + (c.samples_disagree ? "~" : ""),
                  KernelLabel(g)});
  }
  if (table.empty()) return;
  fmt::print(out, "\n  GPU counters against the kernel catalog, per launch\n");
  table.Print(out);
  if (shown > limit) fmt::print(out, "{}", MoreLine(shown - limit, "kernel", "kernels"));
  if (flagged > 0) {
    fmt::print(out, "  ! {} more than 10% from the counters\n",
               Counted(flagged, "catalog entry is", "catalog entries are"));
  }
  if (disagree > 0) {
    fmt::print(out, "  ~ the counter samples of {} disagree by more than 1%\n",
               Counted(disagree, "kernel", "kernels"));
  }
}

}  // namespace flopspy::tools
