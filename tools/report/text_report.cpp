#include "report/text_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <string.h>

#include "report/format.h"
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
    if (out.size() > 200) {
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

constexpr std::string_view kPad = "            ";  // under a 10-column label, indented 2

// "29 read: 15 events (kernel_launch 6, ...) and 14 definitions and metadata (string 4, ...)":
// what the reader counts as records (stderr says "the N records before that") and what the
// report counts as events.
std::string RecordCounts(const TraceReport& t) {
  std::string events, definitions;
  uint64_t event_count = 0, definition_count = 0;
  for (int type = 0; type < 256; ++type) {
    const uint64_t n = t.summary.record_counts[type];
    if (n == 0) continue;
    const bool event = type >= static_cast<int>(trace::RecordType::kApiCall);
    std::string& list = event ? events : definitions;
    (event ? event_count : definition_count) += n;
    if (!list.empty()) list += ", ";
    list += fmt::format("{} {}", trace::RecordTypeName(static_cast<trace::RecordType>(type)),
                        Grouped(n));
  }
  if (event_count + definition_count == 0) return "none";
  std::string text =
      Grouped(event_count + definition_count) + " read: " + Counted(event_count, "event", "events");
  if (!events.empty()) text += " (" + events + ")";
  text += " and " + Grouped(definition_count) + " definitions and metadata";
  if (!definitions.empty()) text += " (" + definitions + ")";
  return text;
}

// Lost records, failed writes, and every warning the trace carries, under one heading.
void PrintWarnings(const TraceReport& t, const Style& style, std::ostream& out) {
  std::vector<std::string> lines;
  for (const auto& [source, count] : t.summary.lost) {
    std::string text = fmt::format("{} {} lost ({})", Grouped(count),
                                   count == 1 ? "record" : "records", LossSourceName(source));
    if (source == trace::LossSource::kThreadBuffer) {
      text += ": a thread's buffer was full; raise FLOPSPY_BUFFER_KB or lower FLOPSPY_FLUSH_MS";
    }
    lines.push_back(text);
  }
  if (t.read.sequence_gaps > 0) {
    lines.push_back(Counted(t.read.sequence_gaps, "chunk", "chunks") +
                    " missing from the file (failed writes)");
  }
  for (const auto& w : t.summary.warnings) {
    if (IsCpuCounterNote(t, w)) continue;  // with the CPU roofline
    // What the CPU sampler says of its counters (GPU counter mode's start "GPU counters").
    const bool cpu = w.code == trace::WarningCode::kCountersUnavailable &&
                     w.message.rfind("GPU counters", 0) != 0;
    lines.push_back(cpu ? "CPU counters: " + w.message : w.message);
  }
  if (lines.empty()) return;
  fmt::print(out, "\n  {}\n", style.Bold("Warnings"));
  for (const auto& line : lines) fmt::print(out, "{}", style.Warn(Paragraph(line, "  - ", "    ")));
}

void WriteOne(const TraceReport& t, const Style& style, std::ostream& out) {
  fmt::print(out, "{}\n", style.Bold("trace " + t.path));
  if (!t.header_ok) {
    fmt::print(out, "{}\n", Paragraph(Status(t, style), "  status    ", kPad));
    return;
  }
  const auto& h = t.header;
  std::string who = fmt::format("pid {} on {}", h.pid, t.host);
  if (h.rank >= 0) who += fmt::format(", rank {}", h.rank);
  if (h.flags & trace::kFileForkedChild) who += fmt::format(", forked from pid {}", h.parent_pid);
  fmt::print(out, "{}",
             Paragraph(who + ", started " + UtcTime(h.start_realtime_ns), "  process   ", kPad));
  if (const std::string cmd = CommandLine(t.metadata); !cmd.empty()) {
    fmt::print(out, "{}", Paragraph(cmd, "  command   ", kPad));
  }
  fmt::print(out, "{}", Paragraph(Status(t, style), "  status    ", kPad));
  fmt::print(out, "  span      {}\n", Duration(static_cast<double>(t.duration_ns())));
  fmt::print(out, "{}", Paragraph(RecordCounts(t), "  records   ", kPad));
  // Losses written after where reading stopped are unknown: "none" would be a claim.
  std::string lost = "none";
  if (!t.summary.lost.empty()) {
    lost = style.Warn(Counted(t.summary.TotalLost(), "record", "records") + " (see Warnings)");
  } else if (t.read.unread_bytes() > 0) {
    lost = style.Warn(fmt::format("none in what was read; {} bytes were not read",
                                  Grouped(t.read.unread_bytes())));
  }
  fmt::print(out, "  lost      {}\n", lost);
  PrintWarnings(t, style, out);
  WriteAnalysisSections(t, out, style.color);
  fmt::print(out, "\n");
}

}  // namespace

void WriteTextReport(const std::vector<TraceReport>& traces, const TextOptions& options,
                     std::ostream& out) {
  const Style style{options.color};
  size_t readable = 0;
  for (const auto& t : traces) readable += t.usable() ? 1 : 0;
  fmt::print(out, "flopspy-report: {}, {} readable\n\n", Counted(traces.size(), "trace", "traces"),
             Grouped(readable));
  // Several processes: the run as a whole, its ranks and stragglers come first.
  if (readable > 1) WriteRunText(BuildRunViews(traces), out);
  for (const auto& t : traces) WriteOne(t, style, out);
}

}  // namespace flopspy::tools
