#include "report/call_sites_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <string>

#include "flopspy/analyzers/display_text.h"
#include "report/call_sites_view.h"
#include "report/format.h"
#include "report/labels.h"
#include "report/text_labels.h"
#include "report/text_table.h"

namespace flopspy::tools {

using analyzers::WholePercentText;
namespace {

using analyzers::CallSite;
using analyzers::CallSiteKernel;

// Launches may be fractional where a signature's time was shared out by its samples.
std::string Launches(double n) {
  return GroupedCount(std::round(n));
}

// The kernel a site row names: short, so that the sites stay readable (the kernel table has the
// full names).
std::string KernelName(const TraceReport& t, const CallSiteKernel& k) {
  if (k.group >= t.run.kernels.size()) return "(unknown kernel)";
  const analyzers::KernelGroup& g = t.run.kernels[k.group];
  const std::string name = g.op.empty() ? KernelShortName(g.name) : g.op;
  return analyzers::ShortenKernelName(name, 60);
}

// "FLOPs 1.2 T (known for 90% of its time)": every FLOP figure says its coverage.
std::string FlopsText(const CallSite& s) {
  if (s.flops_ns <= 0 || s.gpu_ns <= 0) return "-";
  return SiValue(s.flops);
}

std::string CoverageLine(const TraceReport& t) {
  const CallSiteCoverage c = CoverageOf(t.call_sites);
  const std::optional<uint32_t> every = StackSampleEvery(t);
  return fmt::format(
      "stacks sampled for {} of kernel time, {} shared out from their signature's samples "
      "(FLOPSPY_STACK_SAMPLE{}), {} without a call site; {} from {}.",
      WholePercentText(c.sampled), WholePercentText(c.estimated),
      every ? fmt::format("={}", *every) : "", WholePercentText(c.none),
      Counted(t.call_sites.samples, "stack sample", "stack samples"),
      Counted(t.call_sites.stacks_seen, "distinct stack", "distinct stacks"));
}

}  // namespace

void PrintCallSites(const TraceReport& t, std::ostream& out, size_t rows) {
  const analyzers::CallSiteReport& r = t.call_sites;
  if (r.empty()) return;
  fmt::print(out, "\n  Call sites (GPU time by the line that launched the kernels)\n");
  TextTable table({{"GPU %"},
                   {"total"},
                   {"launches"},
                   {"FLOPs"},
                   {"known"},
                   {"FLOP/s"},
                   {"launch-bound"},
                   {"call site", TextTable::Align::kLeft}});
  table.WrapLastColumn();
  size_t shown = 0;
  for (const CallSite& s : r.sites) {
    if (shown++ == rows) break;
    const bool timed = s.gpu_ns > 0;
    table.AddRow(
        {fmt::format("{:.1f}", 100 * s.share), timed ? Duration(s.gpu_ns) : "-",
         Launches(s.launches), FlopsText(s), timed ? WholePercentText(s.flops_ns / s.gpu_ns) : "-",
         RateText(s.flops_ns > 0 ? std::optional<double>(s.AchievedFlopRate()) : std::nullopt),
         timed ? WholePercentText(s.launch_bound_ns / s.gpu_ns) : "-", CallSiteText(s)});
    table.AddDetail("regime: " + RegimeMixText(s.regime_ns, s.gpu_ns));
    size_t kernels = 0;
    for (const CallSiteKernel& k : s.kernels) {
      if (kernels++ == kCallSiteSectionKernels) break;
      table.AddDetail(fmt::format("{:>9} {:>5} {}", Duration(k.gpu_ns),
                                  s.gpu_ns > 0 ? WholePercentText(k.gpu_ns / s.gpu_ns) : "-",
                                  KernelName(t, k)));
    }
  }
  table.Print(out);
  if (r.sites.size() > rows) {
    fmt::print(out, "{}", MoreLine(r.sites.size() - rows, "call site", "call sites"));
  }
  fmt::print(out, "{}",
             Paragraph("known: share of the site's GPU time whose FLOPs are known (FLOPs and "
                       "FLOP/s are theirs); launch-bound: share of its time in kernels shorter "
                       "than their launch; under each site its regime mix and its top kernels.",
                       "  ", "  "));
  fmt::print(out, "{}", Paragraph(CoverageLine(t), "  ", "  "));
  if (!r.modules_without_symbols.empty()) {
    std::string list;
    for (const std::string& m : r.modules_without_symbols) list += (list.empty() ? "" : "; ") + m;
    fmt::print(out, "{}",
               Paragraph("no symbols, native frames named by offset: " + list, "  ", "    "));
  }
  if (r.damaged > 0) {
    fmt::print(out, "  {} refused as damaged\n",
               Counted(r.damaged, "call-site record", "call-site records"));
  }
}

bool PrintKernelsByCallSite(const TraceReport& t, std::ostream& out, const ViewOptions& view) {
  const analyzers::CallSiteReport& r = t.call_sites;
  if (r.empty() || t.run.kernels.empty()) return false;
  const size_t limit = RowsShown(view, kCallSiteRows);
  fmt::print(out, "\n  Kernels by call site (each site, then its kernels by GPU time)\n");
  TextTable table({{"GPU %"},
                   {"total"},
                   {"launches"},
                   {"FLOP/s"},
                   {"%roof"},
                   {"regime", TextTable::Align::kLeft},
                   {"call site / kernel", TextTable::Align::kLeft}});
  table.WrapLastColumn();
  size_t shown = 0;
  for (const CallSite& s : r.sites) {
    if (shown++ == limit) break;
    table.AddRow(
        {fmt::format("{:.1f}", 100 * s.share), Duration(s.gpu_ns), Launches(s.launches),
         RateText(s.flops_ns > 0 ? std::optional<double>(s.AchievedFlopRate()) : std::nullopt), "",
         "", CallSiteText(s)});
    for (const CallSiteKernel& k : s.kernels) {
      if (k.group >= t.run.kernels.size()) continue;
      const analyzers::KernelGroup& g = t.run.kernels[k.group];
      const auto& p = g.placement;
      const bool flops_known = g.all.flops_source != trace::FigureSource::kUnknown;
      table.AddRow({r.kernel_ns > 0 ? fmt::format("{:.1f}", 100 * k.gpu_ns / r.kernel_ns) : "-",
                    Duration(k.gpu_ns), Launches(k.launches),
                    p && flops_known ? RateText(p->achieved_flops) : "-",
                    p ? PctText(p->pct_of_attainable) : "-", RegimeTag(p), "  " + KernelLabel(g)});
    }
  }
  table.Print(out);
  if (r.sites.size() > limit) {
    fmt::print(out, "{}", MoreLine(r.sites.size() - limit, "call site", "call sites"));
  }
  fmt::print(out, "{}",
             Paragraph("a kernel's row: its GPU time and launches from this site; FLOP/s, %roof "
                       "and regime are the kernel's over all its launches (the kernel table has "
                       "its figures).",
                       "  ", "  "));
  return true;
}

}  // namespace flopspy::tools
