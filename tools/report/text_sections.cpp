// The analysis sections of the terminal report, in the order they are printed: the run summary,
// kernels, library calls, launch overhead, copies, regions, the CPU roofline and the advice.
#include "report/text_sections.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/call_sites_text.h"
#include "report/call_sites_view.h"
#include "report/communication_text.h"
#include "report/format.h"
#include "report/graphs_text.h"
#include "report/group_rollup_text.h"
#include "report/labels.h"
#include "report/launch_overhead_section.h"
#include "report/ranges_text.h"
#include "report/steps_text.h"
#include "report/text_cpu_roofline.h"
#include "report/text_kernels.h"
#include "report/text_libraries.h"
#include "report/text_summary.h"
#include "report/text_table.h"
#include "report/text_top_gains.h"
#include "report/trace_totals.h"

namespace flopspy::tools {
namespace {

void PrintCopies(const TraceReport& t, std::ostream& out) {
  bool any_gpu = false;
  for (const auto& c : t.run.copies) any_gpu = any_gpu || c.from_gpu;
  TextTable table({{"count"},
                   {"bytes"},
                   {"time"},
                   {"B/s"},
                   {"op", TextTable::Align::kLeft},
                   {"direction", TextTable::Align::kLeft},
                   {"memory", TextTable::Align::kLeft}});
  for (const auto& c : t.run.copies) {
    if (c.from_gpu != any_gpu) continue;  // GPU records when there are any, else API calls
    table.AddRow({Grouped(c.count), SiValue(c.bytes) + "B", Duration(c.ns),
                  c.ns > 0 ? SiValue(c.bytes / c.ns * 1e9) : "-", c.is_set ? "memset" : "memcpy",
                  std::string(CopyDirectionText(c.kind)),
                  fmt::format("{} -> {}", MemoryText(c.src), MemoryText(c.dst))});
  }
  if (table.empty()) return;
  fmt::print(out, "\n  Copies and sets ({})\n",
             any_gpu ? "GPU time" : "CPU time of the calls; no GPU records");
  table.Print(out);
}

void PrintAdvice(const TraceReport& t, std::ostream& out) {
  PrintAdviceList(t.advice, out);
}

void PrintRegions(const TraceReport& t, std::ostream& out) {
  if (t.regions.empty()) return;
  fmt::print(out, "\n  Marked regions\n");
  TextTable table(
      {{"count"}, {"total"}, {"mean"}, {"p50"}, {"p95"}, {"region", TextTable::Align::kLeft}});
  for (const auto& r : t.regions) {
    table.AddRow({Grouped(r.count), Duration(r.total_ns),
                  r.count ? Duration(r.total_ns / static_cast<double>(r.count)) : "-",
                  Duration(r.durations.Percentile(50)), Duration(r.durations.Percentile(95)),
                  r.name + (r.open ? fmt::format(" ({} never ended)", r.open) : "")});
  }
  table.Print(out);
}

}  // namespace

void PrintAdviceList(const std::vector<analyzers::Advice>& advice, std::ostream& out,
                     std::string_view title) {
  if (advice.empty()) return;
  fmt::print(out, "\n  {}\n", title);
  int n = 0;
  for (const auto& a : advice) {
    std::string text = a.finding + " " + a.action;
    if (a.gain_ns) {
      text += " Estimated gain: " + Duration(*a.gain_ns) + " (" + a.gain_basis + ").";
    }
    fmt::print(out, "{}", Paragraph(text, fmt::format("  {:>2}. ", ++n), "      "));
  }
}

bool IsCpuCounterNote(const TraceReport& t, const analyzers::WarningEntry& w) {
  return t.cpu_roofline && w.code == trace::WarningCode::kCountersUnavailable &&
         w.message.rfind("GPU counters", 0) != 0 &&
         w.message.find("unavailable") == std::string::npos;
}

void WriteAnalysisSections(const TraceReport& t, std::ostream& out, bool color,
                           const ViewOptions& view) {
  if (!t.usable()) return;
  PrintRunSummary(t, ComputeTraceTotals(t), out);
  PrintTopGains(t.advice, out);  // the first screen: where the time could be saved
  PrintKernelRollup(t.rollup, out);
  PrintGroupRollup(t.rollup, out);
  if (!view.by_call_site || !PrintKernelsByCallSite(t, out, view)) {
    PrintKernelTable(t, out, KernelRowsView(view));
  }
  PrintCallSites(t, out, RowsShown(view, kCallSiteRows));
  PrintCounterCheck(t, out, RowsShown(view, 15));
  PrintLibraryTable(t, out, RowsShown(view, 10));
  PrintCommunication(t, out, RowsShown(view, 10));
  PrintGraphs(t, out, RowsShown(view, 10));
  if (!t.launch_overhead.empty()) {
    WriteLaunchOverheadText(t.launch_overhead, {.color = color}, out);
  }
  PrintCopies(t, out);
  PrintRegions(t, out);
  PrintRanges(t, out, RowsShown(view, 15));
  PrintSteps(t, out);
  if (t.cpu_roofline) {
    std::vector<std::string> notes;
    for (const auto& w : t.summary.warnings) {
      if (IsCpuCounterNote(t, w)) notes.push_back(w.message);
    }
    PrintCpuRoofline(*t.cpu_roofline, notes, out);
  }
  PrintAdvice(t, out);
}

}  // namespace flopspy::tools
