#include "report/communication_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <string>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/display_text.h"
#include "report/format.h"
#include "report/text_table.h"

namespace flopspy::tools {
namespace {

std::string BytesText(double bytes) {
  return bytes > 0 ? SiValue(bytes) + "B" : "-";
}

std::string Bandwidth(const std::optional<double>& bytes_per_s) {
  return bytes_per_s ? SiValue(*bytes_per_s) + "B/s" : "-";
}

}  // namespace

void PrintCommunication(const TraceReport& t, std::ostream& out, size_t limit) {
  const analyzers::CommReport& c = t.communication;
  if (c.empty()) return;
  fmt::print(out, "\n  Communication (NCCL)\n");
  std::string summary =
      fmt::format("{}, {} in all", Counted(c.calls, "call", "calls"), BytesText(c.bytes));
  if (c.failed > 0) summary += fmt::format(" ({} failed)", Grouped(c.failed));
  if (c.gpu_ns > 0) {
    summary += fmt::format(
        "; collective kernels {} ({} of kernel time), {} of it hidden under compute kernels on "
        "other streams, {} exposed",
        Duration(c.gpu_ns),
        c.kernel_ns > 0 ? analyzers::WholePercentText(c.gpu_ns / c.kernel_ns) : "-",
        analyzers::WholePercentText(c.overlapped_ns / c.gpu_ns),
        analyzers::WholePercentText(c.exposed_share()));
  }
  fmt::print(out, "{}", Paragraph(summary + ".", "  ", "  "));
  TextTable table({{"collective", TextTable::Align::kLeft},
                   {"type", TextTable::Align::kLeft},
                   {"size"},
                   {"ranks"},
                   {"calls"},
                   {"GPU"},
                   {"mean"},
                   {"algbw"},
                   {"busbw"}});
  size_t shown = 0;
  for (const analyzers::CommRow& r : c.rows) {
    if (shown++ == limit) break;
    const bool group = r.routine == analyzers::BlasRoutine::kNcclGroupEnd;
    std::string calls = Grouped(r.calls);
    if (r.in_group > 0) calls += fmt::format(" ({} in groups)", Grouped(r.in_group));
    table.AddRow({group ? "group end" : std::string(analyzers::BlasRoutineName(r.routine)),
                  group ? "-" : std::string(analyzers::DataTypeName(r.type)), BytesText(r.bytes),
                  r.nranks > 0 ? Grouped(static_cast<uint64_t>(r.nranks)) : "?", calls,
                  r.gpu_ns > 0 ? Duration(r.gpu_ns) : "-",
                  r.timed_calls > 0 ? Duration(r.gpu_ns / static_cast<double>(r.timed_calls)) : "-",
                  Bandwidth(r.algbw), Bandwidth(r.busbw)});
  }
  table.Print(out);
  if (c.rows.size() > limit) fmt::print(out, "{}", MoreLine(c.rows.size() - limit, "row", "rows"));
  fmt::print(out, "{}",
             Paragraph("size: nccl-tests' S (the buffer per rank: the output of an all-gather, "
                       "the input of a reduce-scatter); algbw: S per second of the call's "
                       "kernels; busbw: algbw times 2(n-1)/n for all-reduce, (n-1)/n for "
                       "all-gather, reduce-scatter and all-to-all, 1 otherwise. A collective's "
                       "kernel time includes waiting for the slowest rank; calls made inside a "
                       "group have no kernels of their own: the group's end launched them.",
                       "  ", "  "));
  for (const analyzers::CommAdvice& a : c.advice) {
    fmt::print(out, "{}", Paragraph(a.sentence, "  - ", "    "));
  }
}

void PrintCommSkew(const analyzers::CommSkewReport& skew, std::ostream& out) {
  if (skew.empty()) return;
  fmt::print(out, "\n  Communication across ranks (the same collective on every rank)\n");
  std::string summary = fmt::format(
      "{} matched by communicator and call number; start skew (last rank's start minus the "
      "first's) {} on average, {} at most",
      Counted(skew.matched, "collective", "collectives"), Duration(skew.mean_skew_ns),
      Duration(skew.max_skew_ns));
  if (skew.several_hosts) {
    summary += "; the ranks ran on several hosts, so the skew includes their clocks' offset";
  }
  fmt::print(out, "{}", Paragraph(summary + ".", "  ", "  "));
  TextTable table({{"rank"},
                   {"matched"},
                   {"last"},
                   {"waited"},
                   {"of its comm."},
                   {"trace", TextTable::Align::kLeft}});
  for (const analyzers::RankSkew& r : skew.ranks) {
    if (r.matched == 0) continue;
    table.AddRow(
        {r.rank >= 0 ? std::to_string(r.rank) : "?", Grouped(r.matched), Grouped(r.last),
         Duration(r.wait_ns),
         r.comm_ns > 0 ? analyzers::WholePercentText(std::min(1.0, r.wait_ns / r.comm_ns)) : "-",
         r.label});
  }
  table.Print(out);
  if (skew.straggler) {
    const analyzers::RankSkew& s = skew.ranks[*skew.straggler];
    fmt::print(
        out, "{}",
        Paragraph(fmt::format("Rank {} started last in {} of {} collectives: the other "
                              "ranks' collective time is partly waiting for it, not "
                              "transfer. Look at what it does before its collectives "
                              "(its own step time, data loading, a slower GPU).",
                              s.rank >= 0 ? std::to_string(s.rank) : "?", s.last, skew.matched),
                  "  - ", "    "));
  }
}

}  // namespace flopspy::tools
