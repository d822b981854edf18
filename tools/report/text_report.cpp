#include "report/text_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <string.h>

#include "report/format.h"
#include "report/launch_overhead_section.h"
#include "report/run_text.h"
#include "report/text_sections.h"

namespace flopspy::tools {
namespace {

struct Style {
  bool color;
  std::string Bold(const std::string& s) const { return color ? "\033[1m" + s + "\033[0m" : s; }
  std::string Warn(const std::string& s) const { return color ? "\033[33m" + s + "\033[0m" : s; }
  std::string Bad(const std::string& s) const { return color ? "\033[31m" + s + "\033[0m" : s; }
};

std::string CommandLine(const nlohmann::json& metadata) {
  std::string out;
  const auto it = metadata.find("process");
  if (it == metadata.end() || !it->contains("command")) return out;
  for (const auto& arg : (*it)["command"]) {
    if (!arg.is_string()) continue;
    if (!out.empty()) out += ' ';
    out += arg.get<std::string>();
    if (out.size() > 80) {
      out += " ...";
      break;
    }
  }
  return out;
}

std::string Status(const TraceReport& t, const Style& style) {
  if (!t.header_ok || t.read.status != trace::ReadStatus::kOk) {
    const std::string what = t.read.records > 0 ? "partial: " : "unreadable: ";
    return style.Bad(what + t.read.message);
  }
  if (!t.summary.end) {
    return style.Warn("incomplete: no end record (the process was killed or is still running)");
  }
  const auto& end = *t.summary.end;
  const auto reason = static_cast<trace::EndReason>(end.reason);
  switch (reason) {
    case trace::EndReason::kExit:
      return end.value >= 0 ? fmt::format("complete (exit status {})", end.value)
                            : "complete (returned from main)";
    case trace::EndReason::kSignal:
      return style.Warn(
          fmt::format("complete, ended by signal {} ({})", end.value, strsignal(end.value)));
    default:
      return "complete (" + EndReasonName(reason) + ")";
  }
}

void WriteOne(const TraceReport& t, const Style& style, std::ostream& out) {
  fmt::print(out, "{}\n", style.Bold("trace " + t.path));
  if (!t.header_ok) {
    fmt::print(out, "  status    {}\n\n", Status(t, style));
    return;
  }
  const auto& h = t.header;
  std::string who = fmt::format("pid {} on {}", h.pid, t.host);
  if (h.rank >= 0) who += fmt::format(", rank {}", h.rank);
  if (h.flags & trace::kFileForkedChild) who += fmt::format(", forked from pid {}", h.parent_pid);
  fmt::print(out, "  process   {}, started {}\n", who, UtcTime(h.start_realtime_ns));
  if (const std::string cmd = CommandLine(t.metadata); !cmd.empty()) {
    fmt::print(out, "  command   {}\n", cmd);
  }
  fmt::print(out, "  status    {}\n", Status(t, style));
  fmt::print(out, "  span      {}, {} events\n", Duration(static_cast<double>(t.duration_ns())),
             Grouped(t.summary.EventCount()));
  std::string counts;
  for (int type = 0; type < 256; ++type) {
    const uint64_t n = t.summary.record_counts[type];
    if (n == 0) continue;
    if (!counts.empty()) counts += ", ";
    counts += fmt::format("{} {}", trace::RecordTypeName(static_cast<trace::RecordType>(type)),
                          Grouped(n));
  }
  fmt::print(out, "  records   {}\n", counts.empty() ? "none" : counts);
  if (t.summary.lost.empty()) {
    // Losses written after where reading stopped are unknown: "none" would be a claim.
    fmt::print(out, "  lost      {}\n",
               t.read.unread_bytes() == 0
                   ? "none"
                   : style.Warn(fmt::format("none in what was read; {} bytes were not read",
                                            Grouped(t.read.unread_bytes()))));
  } else {
    for (const auto& [source, count] : t.summary.lost) {
      std::string hint;
      if (source == trace::LossSource::kThreadBuffer) {
        hint = " (a thread's buffer was full: raise FLOPSPY_BUFFER_KB or lower FLOPSPY_FLUSH_MS)";
      }
      fmt::print(
          out, "  lost      {}\n",
          style.Warn(fmt::format("{} {} records{}", LossSourceName(source), Grouped(count), hint)));
    }
  }
  if (t.read.sequence_gaps > 0) {
    fmt::print(out, "  gaps      {}\n",
               style.Warn(fmt::format("{} chunks missing (failed writes)", t.read.sequence_gaps)));
  }
  WriteAnalysisSections(t, out);
  // What the CPU sampler says about missing counters is not a problem of the run: its summary
  // goes on a "cpu" line, each reason under it; every other warning is printed as a warning.
  bool counters_said = false;
  for (const auto& w : t.summary.warnings) {
    // GPU counter mode says so with the same code (its lines start "GPU counters"): a warning.
    if (w.code == trace::WarningCode::kCountersUnavailable &&
        w.message.rfind("GPU counters", 0) != 0) {
      fmt::print(out, "  {:<10}{}\n", counters_said ? "" : "cpu", Wrap(w.message, 88, 12));
      counters_said = true;
      continue;
    }
    fmt::print(out, "  warning   {}\n", style.Warn(Wrap(w.message, 88, 12)));
  }
  fmt::print(out, "\n");
  if (!t.launch_overhead.empty()) {
    WriteLaunchOverheadText(t.launch_overhead, {.color = style.color}, out);
  }
}

}  // namespace

void WriteTextReport(const std::vector<TraceReport>& traces, const TextOptions& options,
                     std::ostream& out) {
  const Style style{options.color};
  size_t readable = 0;
  for (const auto& t : traces) readable += t.usable() ? 1 : 0;
  fmt::print(out, "flopspy-report: {} trace{}, {} readable\n\n", traces.size(),
             traces.size() == 1 ? "" : "s", readable);
  // Several processes: the run as a whole, its ranks and stragglers come first.
  if (readable > 1) WriteRunText(BuildRunViews(traces), out);
  for (const auto& t : traces) WriteOne(t, style, out);
}

}  // namespace flopspy::tools
