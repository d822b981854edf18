#include "report/text_cpu_roofline.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>

#include "report/format.h"
#include "report/labels.h"
#include "report/text_table.h"

namespace flopspy::tools {
namespace {

std::string Value(const std::optional<double>& v) {
  if (!v) return "-";
  if (std::isinf(*v)) return "inf";
  return Significant(*v);
}

}  // namespace

void PrintCpuRoofline(const cpuroof::CpuRooflineChart& chart,
                      const std::vector<std::string>& counter_notes, std::ostream& out,
                      size_t interval_limit) {
  fmt::print(out, "\n  CPU roofline\n");
  for (const std::string& note : counter_notes) {
    fmt::print(out, "{}", Paragraph(note, "  counters  ", "            "));
  }
  if (chart.roofs.empty()) fmt::print(out, "  roofs     none known\n");
  bool first = true;
  for (const cpuroof::CpuRoof& r : chart.roofs) {
    const std::string text = fmt::format("{} {} {} {}: {}", r.level, fmt::format("{:.4g}", r.value),
                                         r.compute ? "GFLOP/s" : "GB/s", r.source, r.name);
    fmt::print(out, "{}", Paragraph(text, first ? "  roofs     " : "            ", "            "));
    first = false;
  }
  if (chart.ridge_intensity) {
    fmt::print(out, "  ridge     {:.3g} FLOP/B (top compute roof over DRAM)\n",
               *chart.ridge_intensity);
  }
  TextTable table({{"time s"},
                   {"GFLOP/s"},
                   {"GB/s"},
                   {"FLOP/B"},
                   {"FLOP/cyc"},
                   {"GHz"},
                   {"bound", TextTable::Align::kLeft},
                   {"%roof"},
                   {"prec", TextTable::Align::kLeft},
                   {"scope", TextTable::Align::kLeft},
                   {"point", TextTable::Align::kLeft}});
  size_t intervals = 0, hidden = 0;
  for (const cpuroof::CpuRooflinePoint& p : chart.points) {
    if (p.scope == "interval" && intervals++ >= interval_limit) {
      ++hidden;
      continue;
    }
    table.AddRow(
        {fmt::format("{:.3f}", p.seconds), Value(p.gflops), Value(p.gbytes_per_s),
         Value(p.intensity), Value(p.flops_per_cycle), Value(p.ghz),
         RegimeTag(p.placement.regime == analyzers::Regime::kUnknown ? std::nullopt
                                                                     : std::optional(p.placement)),
         p.placement.pct_of_attainable ? fmt::format("{:.1f}", *p.placement.pct_of_attainable)
                                       : "-",
         p.precision.empty() ? "-" : p.precision, p.scope, p.label});
    std::string detail;
    if (p.intensity_read || p.intensity_write) {
      detail =
          "FLOP/B of reads " + Value(p.intensity_read) + ", of writes " + Value(p.intensity_write);
    }
    if (!p.flags.empty()) {
      std::string flags;
      for (const std::string& f : p.flags) flags += (flags.empty() ? "" : ", ") + f;
      detail += (detail.empty() ? "" : "; ") + std::string("flags: ") + flags;
    }
    if (!detail.empty()) table.AddDetailText(detail);
  }
  if (table.empty()) {
    fmt::print(out, "  points    none (no CPU samples)\n");
  } else {
    table.Print(out);
  }
  if (hidden > 0) {
    fmt::print(out, "{}", MoreLine(hidden, "interval", "intervals"));
  }
  for (const std::string& n : chart.notes)
    fmt::print(out, "{}", Paragraph(n, "  note      ", "            "));
}

}  // namespace flopspy::tools
