#include "report/run_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <map>
#include <vector>

#include "flopspy/platform/terminal_text.h"
#include "report/communication_text.h"
#include "report/flop_coverage_report.h"
#include "report/format.h"
#include "report/group_rollup_text.h"
#include "report/lost_records.h"
#include "report/text_kernels.h"
#include "report/text_labels.h"
#include "report/text_sections.h"
#include "report/text_table.h"

namespace flopspy::tools {
namespace {

std::string Pct(std::optional<double> fraction, int decimals = 0) {
  return fraction ? fmt::format("{:.{}f}%", 100 * *fraction, decimals) : "-";
}

std::string Offset(int64_t ns) {
  if (ns == 0) return "0";
  return (ns < 0 ? "-" : "+") + Duration(static_cast<double>(ns < 0 ? -ns : ns));
}

void PrintTotals(const RunViews& views, std::ostream& out) {
  const analyzers::RunAggregate& a = views.aggregate;
  std::string gpus = Counted(a.gpus, "GPU", "GPUs");
  if (!a.models.empty()) {
    std::string list;
    for (const auto& m : a.models) {
      list += (list.empty() ? "" : ", ") +
              (a.models.size() > 1 ? Grouped(m.gpus) + " x " + m.name : m.name);
    }
    gpus += " (" + list + ")";
  }
  fmt::print(out, "{}",
             Paragraph(fmt::format("{}, {} on {}, {}", Counted(a.processes, "process", "processes"),
                                   a.ranks > 0 ? Counted(a.ranks, "rank", "ranks") : "no ranks",
                                   Counted(a.hosts, "host", "hosts"), gpus),
                       "  run       ", kLabelPad));
  if (a.last_realtime_ns > a.first_realtime_ns) {
    fmt::print(out, "  wall      {} from the first event to the last, from {}\n",
               Duration(static_cast<double>(a.last_realtime_ns - a.first_realtime_ns)),
               UtcTime(a.first_realtime_ns));
  }
  if (a.busy_fraction) {
    fmt::print(out, "  GPU busy  {} of the GPUs' active windows ({} of {})\n", Pct(a.busy_fraction),
               Duration(static_cast<double>(a.gpu_busy_ns)),
               Duration(static_cast<double>(a.gpu_window_ns)));
  }
  fmt::print(out, "  kernels   {} of GPU time in {}, {}FLOP with a known figure\n",
             Duration(a.kernel_gpu_ns), Counted(a.launches, "launch", "launches"),
             SiValue(a.kernel_flops));
  PrintFlopCoverage(views.coverage, out);
  if (a.mfu) {
    fmt::print(
        out, "  counted   FLOPs (analytic) achieved {} of every GPU's peak over its active span\n",
        Pct(a.mfu, 1));
  }
  if (a.lost > 0 || !views.lost.exact) {
    fmt::print(out, "  lost      {}\n", LostText(a.lost, views.lost.exact));
  }
  for (const auto& note : a.notes)
    fmt::print(out, "{}", Paragraph(note, "  note      ", kLabelPad));
}

// Why a merged row has no placement at all, for its "?" regime: no GPU time, or a GPU model
// without roofs; "" when it has one.
std::string NoPlacementNote(const analyzers::RunAggregate& a, int32_t model, bool placed,
                            double gpu_ns) {
  if (placed) return "";
  const bool roofs = model >= 0 && static_cast<size_t>(model) < a.models.size() &&
                     a.models[static_cast<size_t>(model)].roofs;
  using R = analyzers::UnplacedReason;
  return "regime ?: " + UnplacedText(gpu_ns > 0 && !roofs ? R::kNoRoofs : R::kNoGpuTime);
}

void PrintMergedKernels(const analyzers::RunAggregate& a, std::ostream& out, size_t limit) {
  if (a.kernels.empty()) return;
  fmt::print(out, "\n  Kernels merged across traces, by GPU time\n");
  const bool mixed = a.mixed_models();
  std::vector<TextTable::Column> columns = {{"GPU %"},
                                            {"total"},
                                            {"count"},
                                            {"mean"},
                                            {"FLOPs"},
                                            {"FLOP/s"},
                                            {"%roof"},
                                            {"regime", TextTable::Align::kLeft},
                                            {"src", TextTable::Align::kLeft},
                                            {"traces"}};
  if (mixed) columns.push_back({"gpu"});
  TextTable table(columns);
  size_t shown = 0;
  for (const analyzers::MergedKernel& k : a.kernels) {
    if (shown++ == limit) break;
    const analyzers::KernelGroup& g = k.group;
    const auto& p = g.placement;
    const bool flops_known = g.all.flops_source != trace::FigureSource::kUnknown;
    std::vector<std::string> row = {
        a.kernel_gpu_ns > 0 ? fmt::format("{:.1f}", 100 * g.gpu_ns / a.kernel_gpu_ns) : "-",
        g.executions ? Duration(g.gpu_ns) : "-",
        Grouped(g.executions ? g.executions : g.launches),
        g.executions ? Duration(g.gpu_ns / static_cast<double>(g.executions)) : "-",
        FigureText(g.all.flops, g.all.flops_source),
        p && flops_known ? RateText(p->achieved_flops) : "-",
        p ? PctText(p->pct_of_attainable) : "-",
        RegimeTag(p),
        SourcesTag(g.all),
        Grouped(k.traces)};
    if (mixed) row.push_back(g.device >= 0 ? std::to_string(g.device) : "-");
    table.AddRow(std::move(row));
    for (std::string& line : KernelDetailLines(g, 100 - table.detail_indent())) {
      table.AddDetail(std::move(line));
    }
    if (const std::string why = NoPlacementNote(a, g.device, p.has_value(), g.gpu_ns);
        !why.empty()) {
      table.AddDetail(why);
    }
  }
  table.Print(out);
  if (a.kernels.size() > limit) {
    fmt::print(out, "{}",
               MoreLine(a.kernels.size() - limit, "kernel signature", "kernel signatures"));
  }
  if (mixed) {
    std::string legend;
    for (size_t i = 0; i < a.models.size(); ++i) {
      legend += fmt::format("{}{} = {}", legend.empty() ? "" : ", ", i, a.models[i].name);
    }
    fmt::print(out, "{}", Paragraph(legend, "  gpu: ", "       "));
  }
}

void PrintMergedLibraries(const analyzers::RunAggregate& a, std::ostream& out, size_t limit) {
  if (a.libraries.empty()) return;
  fmt::print(out, "\n  cuBLAS, cuBLASLt and cuDNN shapes merged across traces, by GPU time\n");
  TextTable table({{"calls"},
                   {"GPU"},
                   {"FLOPs"},
                   {"bytes"},
                   {"FLOP/s"},
                   {"%roof"},
                   {"regime", TextTable::Align::kLeft},
                   {"traces"}});
  size_t shown = 0;
  for (const analyzers::MergedLibrary& l : a.libraries) {
    if (shown++ == limit) break;
    const analyzers::LibraryGroup& g = l.group;
    const auto& p = g.placement;
    table.AddRow({Grouped(g.calls), g.gpu_ns > 0 ? Duration(g.gpu_ns) : "-",
                  FigureText(g.flops, g.source), FigureText(g.bytes, g.source),
                  p ? RateText(p->achieved_flops) : "-", p ? PctText(p->pct_of_attainable) : "-",
                  RegimeTag(p), Grouped(l.traces)});
    std::string detail = analyzers::LibraryShortLabel(g);
    if (p) {
      if (const std::string roof = RoofText(*p); !roof.empty()) detail += "; " + roof;
      if (const std::string note = PlacementNote(*p); !note.empty()) detail += "; " + note;
    } else {
      detail += "; " + NoPlacementNote(a, g.device, false, g.gpu_ns);
    }
    table.AddDetailText(detail);
  }
  table.Print(out);
  if (a.libraries.size() > limit) {
    fmt::print(out, "{}", MoreLine(a.libraries.size() - limit, "shape", "shapes"));
  }
}

// The ranks' top kernels are named once under the table ("k1  name"): most ranks share theirs,
// and a full name does not fit beside the figures.
struct TopKernels {
  std::map<std::string, std::string> keys;  // KernelKey -> "k1"
  std::vector<std::string> legend;

  std::string Cell(const analyzers::RankTable& t, const analyzers::RankRow& r) {
    if (r.top_kernel.empty() || r.kernel_ns <= 0) return "-";
    auto [at, added] = keys.try_emplace(r.top_kernel, fmt::format("k{}", keys.size() + 1));
    if (added) {
      const auto label = t.kernel_labels.find(r.top_kernel);
      legend.push_back(at->second + "  " +
                       (label != t.kernel_labels.end() ? label->second : r.top_kernel));
    }
    return fmt::format("{} {:.0f}%", at->second, 100 * r.top_kernel_ns / r.kernel_ns);
  }
};

void PrintRanks(const analyzers::RankTable& t, const analyzers::StragglerReport& s,
                std::ostream& out) {
  if (t.rows.empty()) return;
  fmt::print(out,
             "\n  Ranks (start: after the earliest trace start, {}; span: first to last event)\n",
             UtcTime(t.earliest_start_realtime_ns));
  TextTable where({{"rank"},
                   {"pid"},
                   {"local"},
                   {"start"},
                   {"span"},
                   {"traces"},
                   {"lost"},
                   {"end", TextTable::Align::kLeft},
                   {"host", TextTable::Align::kLeft}});
  for (const analyzers::RankRow& r : t.rows) {
    where.AddRow({r.rank >= 0 ? std::to_string(r.rank) : "-", std::to_string(r.pid),
                  r.local_rank >= 0 ? std::to_string(r.local_rank) : "-", Offset(r.start_offset_ns),
                  Duration(static_cast<double>(r.span_ns)), Grouped(r.traces.size()),
                  Grouped(r.lost), Truncate(r.end, 24), r.host});
  }
  where.Print(out);
  fmt::print(out, "\n  Ranks at work ({})\n",
             t.step_region.empty()
                 ? "step time unknown: no trace marks regions"
                 : "step: the region \"" + platform::EscapeControls(t.step_region) + "\"");
  TextTable work({{"rank"},
                  {"GPU busy"},
                  {"kernel time"},
                  {"FLOP/s"},
                  {"%peak"},
                  {"steps"},
                  {"step mean"},
                  {"stands out", TextTable::Align::kLeft},
                  {"top kernel", TextTable::Align::kLeft}});
  TopKernels top;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const analyzers::RankRow& r = t.rows[i];
    const std::string marks = analyzers::StragglerMarks(s, i);
    work.AddRow({r.rank >= 0 ? std::to_string(r.rank) : "-", Pct(r.busy_fraction),
                 Duration(r.kernel_ns), r.flops_per_s ? RateText(*r.flops_per_s) : "-",
                 Pct(r.mfu, 1), r.step ? Grouped(r.step->count) : "-",
                 r.step ? Duration(r.step->mean_ns) : "-", marks.empty() ? "-" : marks,
                 top.Cell(t, r)});
  }
  work.Print(out);
  for (const std::string& line : top.legend) {
    fmt::print(out, "  {}\n", Truncate(line, 98));
  }
  fmt::print(
      out, "{}",
      Paragraph("FLOP/s: over the kernel time whose FLOPs are known; %peak: counted (analytic) "
                "FLOPs over the active span x peak, not MFU; stands out: what the "
                "straggler rule found (Stragglers below); top kernel: the rank's largest, "
                "and its share of the rank's kernel time.",
                "  ", "  "));
  for (const auto& note : t.notes) fmt::print(out, "{}", Paragraph(note, "  note: ", "        "));
}

void PrintStragglers(const analyzers::StragglerReport& s, std::ostream& out) {
  fmt::print(out, "\n  Stragglers\n");
  if (s.stragglers.empty()) fmt::print(out, "  none: no rank stands out\n");
  for (const analyzers::Straggler& st : s.stragglers) {
    fmt::print(out, "{}", Paragraph(st.sentence, "  - ", "    "));
  }
  for (const auto& check : s.checks)
    fmt::print(out, "{}", Paragraph("(" + check + ")", "    ", "     "));
}

// Per step number: the slowest rank (the straggler), its time, the skew and the mean.
void PrintStepsAcrossRanks(const std::vector<StepAcrossRanks>& steps, std::ostream& out) {
  if (steps.empty()) return;
  fmt::print(out, "\n  Steps across ranks (skew: slowest minus fastest rank)\n");
  TextTable table({{"step"},
                   {"ranks"},
                   {"slowest"},
                   {"skew"},
                   {"mean"},
                   {"straggler", TextTable::Align::kLeft}});
  for (const StepAcrossRanks& s : steps) {
    const std::string who = s.straggler_rank >= 0 ? "rank " + std::to_string(s.straggler_rank)
                                                  : Truncate(s.straggler_trace, 40);
    table.AddRow({std::to_string(s.skew.number) + (s.warmup ? " (warm-up)" : ""),
                  Grouped(s.skew.ranks), Duration(s.skew.slowest_ns), Duration(s.skew.skew_ns()),
                  Duration(s.mean_ns), who});
  }
  table.Print(out);
}

}  // namespace

void WriteRunText(const RunViews& views, std::ostream& out) {
  fmt::print(out, "whole run: {} traces merged, aligned on their wall-clock anchors\n",
             Grouped(views.aggregate.processes));
  PrintTotals(views, out);
  fmt::print(out, "{}", Paragraph(views.regime.sentence, "  regime    ", kLabelPad));
  PrintKernelRollup(views.rollup, out);
  PrintGroupRollup(views.rollup, out);
  PrintAdviceList(views.advice, out, "Advice for the whole run (the merged kernels and calls)");
  PrintMergedKernels(views.aggregate, out, 15);
  PrintMergedLibraries(views.aggregate, out, 10);
  PrintRanks(views.ranks, views.stragglers, out);
  PrintStragglers(views.stragglers, out);
  PrintStepsAcrossRanks(views.steps, out);
  PrintCommSkew(views.comm_skew, out);
  if (!views.traces_in_full) {
    fmt::print(out, "\n{}",
               Paragraph(fmt::format("Each trace's own report is left out above {} traces: the "
                                     "tables above merge them. Add --per-trace to see each one.",
                                     kFullTracesUpTo),
                         "  ", "  "));
  }
  fmt::print(out, "\n");
}

}  // namespace flopspy::tools
