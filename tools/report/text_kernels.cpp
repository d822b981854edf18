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
  return std::isfinite(v) ? fmt::format("{:.3g}", v) : "-";
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

}  // namespace

void PrintKernelTable(const TraceReport& t, std::ostream& out, size_t limit) {
  if (t.run.kernels.empty()) return;
  double total = 0;
  for (const auto& g : t.run.kernels) total += g.gpu_ns;
  fmt::print(out, "\n  Kernels by GPU time{}\n",
             t.run.gpu_timing ? "" : " (no GPU records: launch counts only)");
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
  for (const KernelGroup& g : t.run.kernels) {
    if (shown++ == limit) break;
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
                       "unknown (FLOPs/bytes when they differ); under each row: <<<grid, block>>> "
                       "and the roof placed against, with its source.",
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
