#include "report/ranges_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

#include "flopspy/analyzers/display_text.h"
#include "report/format.h"
#include "report/text_table.h"

namespace flopspy::tools {

using analyzers::WholePercentText;

namespace {

std::string Rate(double flops_per_s) {
  return flops_per_s > 0 ? SiValue(flops_per_s) : "-";
}

std::string RangeLabel(const analyzers::RangeStats& r) {
  std::string label = r.domain.empty() ? r.name : r.domain + ": " + r.name;
  if (r.source == analyzers::RangeSource::kRegion) label += " (flopspy region)";
  if (r.open > 0) label += fmt::format(" ({} never closed)", r.open);
  if (r.marks > 0) label += fmt::format(" ({})", Counted(r.marks, "mark", "marks"));
  // NVTX payloads (NCCL): the bytes its collectives moved.
  if (r.bytes_ranges > 0) {
    label += fmt::format(" ({} bytes moved)", SiValue(static_cast<double>(r.bytes)));
  }
  return label;
}

}  // namespace

void PrintRanges(const TraceReport& t, std::ostream& out, size_t rows) {
  const analyzers::RangeReport& ranges = t.ranges;
  const bool any_nvtx = std::any_of(
      ranges.ranges.begin(), ranges.ranges.end(),
      [](const analyzers::RangeStats& r) { return r.source == analyzers::RangeSource::kNvtx; });
  if (!any_nvtx) return;
  fmt::print(out, "\n  NVTX ranges (GPU: kernels launched inside; self: outside child ranges)\n");
  TextTable table({{"count"},
                   {"CPU"},
                   {"CPU self"},
                   {"kernels"},
                   {"GPU"},
                   {"GPU self"},
                   {"FLOPs"},
                   {"FLOP/s"},
                   {"known"},
                   {"range", TextTable::Align::kLeft}});
  table.WrapLastColumn();
  size_t shown = 0;
  for (const analyzers::RangeStats& r : ranges.ranges) {
    if (shown++ == rows) break;
    const bool timed = r.count > 0;
    table.AddRow({Grouped(r.count), timed ? Duration(r.cpu_ns) : "-",
                  timed ? Duration(r.cpu_self_ns) : "-", Grouped(r.kernels),
                  r.kernels ? Duration(r.gpu_ns) : "-", r.kernels ? Duration(r.gpu_self_ns) : "-",
                  r.flops > 0 ? SiValue(r.flops) : "-", Rate(r.AchievedFlopRate()),
                  r.kernels ? WholePercentText(r.FlopCoverage()) : "-", RangeLabel(r)});
  }
  table.Print(out);
  if (ranges.ranges.size() > rows) {
    fmt::print(out, "{}", MoreLine(ranges.ranges.size() - rows, "range", "ranges"));
  }
  if (!ranges.paths.empty()) {
    fmt::print(out, "  top nesting paths\n");
    TextTable paths({{"count"}, {"CPU"}, {"GPU"}, {"path", TextTable::Align::kLeft}});
    paths.WrapLastColumn();
    for (const analyzers::RangePath& p : ranges.paths) {
      paths.AddRow({Grouped(p.count), Duration(p.cpu_ns), Duration(p.gpu_ns), p.path});
    }
    paths.Print(out);
  }
  if (ranges.unmatched_ends > 0) {
    fmt::print(out, "  {} closed nothing open (a pop or end without its push or start)\n",
               Counted(ranges.unmatched_ends, "range end", "range ends"));
  }
  if (ranges.dropped > 0) {
    fmt::print(out, "  {} beyond the first {} were counted, not analysed\n",
               Counted(ranges.dropped, "range", "ranges"), Grouped(analyzers::kMaxRanges));
  }
  for (const auto& [key, name] : ranges.resource_names) {
    const std::string text =
        fmt::format("{} {:#x} is \"{}\"", trace::NamedResourceName(key.first), key.second, name);
    fmt::print(out, "{}", Paragraph(text, "  named by NVTX: ", "    "));
  }
}

}  // namespace flopspy::tools
