#include "report/text_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <string.h>

#include "flopspy/platform/terminal_text.h"
#include "report/capture_window_text.h"
#include "report/format.h"
#include "report/lost_records.h"
#include "report/run_text.h"
#include "report/text_sections.h"
#include "report/text_style.h"

namespace flopspy::tools {
namespace {

using Style = TextStyle;  // report/text_style.h: the one colour helper

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

// How the trace ended, and whether that is bad news (red), a warning (yellow) or plain.
enum class Tone { kPlain, kWarn, kBad };
std::pair<std::string, Tone> Status(const TraceReport& t) {
  if (!t.header_ok || t.read.status != trace::ReadStatus::kOk) {
    const std::string what = t.read.records > 0 ? "partial: " : "unreadable: ";
    return {what + t.read.message, Tone::kBad};
  }
  if (!t.summary.end) {
    return {"incomplete: no end record (the process was killed or is still running)", Tone::kWarn};
  }
  const auto& end = *t.summary.end;
  const auto reason = static_cast<trace::EndReason>(end.reason);
  switch (reason) {
    case trace::EndReason::kExit:
      return {end.value >= 0 ? fmt::format("complete (exit status {})", end.value)
                             : "complete (returned from main)",
              Tone::kPlain};
    case trace::EndReason::kSignal:
      return {fmt::format("complete, ended by signal {} ({})", end.value, strsignal(end.value)),
              Tone::kWarn};
    default:
      return {"complete (" + std::string(trace::EndReasonName(reason)) + ")", Tone::kPlain};
  }
}

// The status line, wrapped first (which makes a trace's control characters visible), then
// coloured: the colour's own escape sequences must not be made visible.
std::string StatusLines(const TraceReport& t, const Style& style) {
  const auto [text, tone] = Status(t);
  std::string lines = Paragraph(text, "  status    ", "            ");
  lines.pop_back();  // the colour ends before the last newline
  switch (tone) {
    case Tone::kBad:
      return style.Bad(lines) + "\n";
    case Tone::kWarn:
      return style.Warn(lines) + "\n";
    case Tone::kPlain:
      break;
  }
  return lines + "\n";
}

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

// The `lost` line: the trace's own count when it has one, else a lower bound and why.
std::string LostLine(const TraceReport& t, const LostRecords& lost) {
  if (lost.exact) {
    return lost.total == 0 ? "none"
                           : LostText(lost.total, true) + " (the end record's count; see Warnings)";
  }
  if (t.read.unread_bytes() > 0) {
    // Losses written after where reading stopped are unknown: "none" would be a claim.
    return fmt::format("{} in what was read; {} bytes were not read",
                       lost.total == 0 ? "none" : LostText(lost.total, false),
                       Grouped(t.read.unread_bytes()));
  }
  if (!t.summary.end) {
    return LostText(lost.total, false) + " (no end record, which counts them all" +
           (lost.total > 0 ? "; see Warnings)" : ")");
  }
  return LostText(lost.total, false) + " (the end record counts fewer; see Warnings)";
}

// One line per cause of loss; the advice to raise the buffer only where a full buffer was the
// cause, not when records were lost because the trace file could not be written.
void AddLossLines(const LostRecords& lost, std::vector<std::string>& lines) {
  const std::string write_failed(trace::LossSourceName(trace::LossSource::kWriteFailed));
  bool writes_failed = lost.unwritten > 0;
  for (const auto& [cause, count] : lost.by_cause) writes_failed |= cause == write_failed;
  for (const auto& [cause, count] : lost.by_cause) {
    std::string text = Counted(count, "record", "records") + " lost (" + cause + ")";
    if (cause == trace::LossSourceName(trace::LossSource::kThreadBuffer)) {
      text += ": a thread's buffer was full";
      if (!writes_failed) text += "; raise FLOPSPY_BUFFER_KB or lower FLOPSPY_FLUSH_MS";
    } else if (cause == write_failed) {
      text += ": in chunks that could not be written (see the write warning)";
    } else if (cause == trace::LossSourceName(trace::LossSource::kNoBuffer)) {
      text += ": threads that got no record buffer";
    } else if (cause == kUnwrittenCause) {
      text += fmt::format(
          ": the trace's end record counts {} lost in all and no loss record in the file names "
          "these: they were in chunks that could not be written (see the write warning)",
          Grouped(lost.total));
    }
    lines.push_back(std::move(text));
  }
  if (lost.end_record_count && *lost.end_record_count < lost.seen) {
    lines.push_back(fmt::format(
        "the end record counts {} lost records, fewer than the loss records in the file: the "
        "trace contradicts itself, so at least {} were lost",
        Grouped(*lost.end_record_count), Grouped(lost.total)));
  }
}

// A warning of the CPU sampler about its counters (GPU counter mode's start "GPU counters").
bool IsCpuCounterWarning(const analyzers::WarningEntry& w) {
  return w.code == trace::WarningCode::kCountersUnavailable &&
         w.message.rfind("GPU counters", 0) != 0;
}

// Why the trace has no CPU roofline, from the sampler's warnings: it could not start, or time,
// FLOPs (W) or memory traffic (Q) could not be counted (cycles alone do not stop it). Empty
// when it has one. The recorder words these "CPU <what> unavailable: <reason>".
std::string CpuRooflineUnavailable(const TraceReport& t) {
  static constexpr std::string_view kWhat[] = {"CPU roofline (", "CPU FLOPs (W)",
                                               "CPU memory traffic (Q)", "CPU time"};
  static constexpr std::string_view kMarker = " unavailable: ";
  static constexpr std::string_view kTail = "; no CPU roofline for this process";
  for (const std::string_view what : kWhat) {
    for (const auto& w : t.summary.warnings) {
      if (!IsCpuCounterWarning(w) || !w.message.starts_with(what)) continue;
      const size_t at = w.message.find(kMarker);
      if (at == std::string::npos) continue;
      std::string reason = w.message.substr(at + kMarker.size());
      if (reason.ends_with(kTail)) reason.resize(reason.size() - kTail.size());
      return reason;
    }
  }
  return "";
}

// One line at the top instead of the sampler's warnings of every trace (common on VMs):
// "CPU roofline unavailable: <reason>; see flopspy info".
void PrintCpuNotice(const std::vector<TraceReport>& traces, const Style& style, std::ostream& out) {
  std::string first;
  size_t without = 0, usable = 0;
  bool same = true;
  for (const auto& t : traces) {
    if (!t.usable()) continue;
    ++usable;
    const std::string reason = CpuRooflineUnavailable(t);
    if (reason.empty()) continue;
    if (without++ == 0) first = reason;
    same = same && reason == first;
  }
  if (without == 0) return;
  const std::string where =
      without == usable ? "" : fmt::format(" in {} of {} traces", without, usable);
  const std::string line =
      fmt::format("CPU roofline unavailable{}: {}{}; see flopspy info", where,
                  platform::EscapeControls(first), same ? "" : " (and other reasons)");
  // Wrapped at 100 columns like every line of the report; the reason may be long.
  fmt::print(out, "{}", style.Warn(Paragraph(line, "", "  ")));
}

// Lost records, failed writes, and every warning the trace carries, under one heading.
void PrintWarnings(const TraceReport& t, const LostRecords& lost, const Style& style,
                   std::ostream& out) {
  std::vector<std::string> lines;
  AddLossLines(lost, lines);
  if (t.read.sequence_gaps > 0) {
    lines.push_back(Counted(t.read.sequence_gaps, "chunk", "chunks") +
                    " missing from the file (failed writes)");
  }
  // Without a CPU roofline the sampler's warnings are the one line at the top of the report.
  const bool cpu_notice = !CpuRooflineUnavailable(t).empty();
  for (const auto& w : t.summary.warnings) {
    if (IsCpuCounterNote(t, w)) continue;  // with the CPU roofline
    const bool cpu = IsCpuCounterWarning(w);
    if (cpu && cpu_notice) continue;
    lines.push_back(cpu ? "CPU counters: " + w.message : w.message);
  }
  if (lines.empty()) return;
  fmt::print(out, "\n  {}\n", style.Bold("Warnings"));
  for (const auto& line : lines) fmt::print(out, "{}", style.Warn(Paragraph(line, "  - ", "    ")));
}

void WriteOne(const TraceReport& t, const Style& style, const ViewOptions& view,
              std::ostream& out) {
  fmt::print(out, "{}\n", style.Bold("trace " + platform::EscapeControls(t.path)));
  if (!t.header_ok) {
    fmt::print(out, "{}\n", StatusLines(t, style));
    return;
  }
  const auto& h = t.header;
  std::string who = fmt::format("pid {} on {}", h.pid, t.host);
  if (h.rank >= 0) who += fmt::format(", rank {}", h.rank);
  if (h.flags & trace::kFileForkedChild) who += fmt::format(", forked from pid {}", h.parent_pid);
  fmt::print(
      out, "{}",
      Paragraph(who + ", started " + UtcTime(h.start_realtime_ns), "  process   ", kLabelPad));
  if (const std::string cmd = CommandLine(t.metadata); !cmd.empty()) {
    fmt::print(out, "{}", Paragraph(cmd, "  command   ", kLabelPad));
  }
  fmt::print(out, "{}", StatusLines(t, style));
  fmt::print(out, "  span      {}\n", Duration(static_cast<double>(t.duration_ns())));
  if (const std::string window = CaptureWindowText(t.metadata); !window.empty()) {
    fmt::print(out, "{}", Paragraph(window, "  capture   ", kLabelPad));
  }
  fmt::print(out, "{}", Paragraph(RecordCounts(t), "  records   ", kLabelPad));
  const LostRecords lost = LostRecordsOf(t);
  const std::string lost_line = LostLine(t, lost);
  fmt::print(out, "{}",
             lost.exact && lost.total == 0
                 ? Paragraph(lost_line, "  lost      ", kLabelPad)
                 : style.Warn(Paragraph(lost_line, "  lost      ", kLabelPad)));
  PrintWarnings(t, lost, style, out);
  WriteAnalysisSections(t, out, style.color, view);
  fmt::print(out, "\n");
}

}  // namespace

void WriteTextReport(const std::vector<TraceReport>& traces, const TextOptions& options,
                     std::ostream& out, const RunViews* run) {
  const Style style{options.color};
  size_t readable = 0;
  for (const auto& t : traces) readable += t.usable() ? 1 : 0;
  fmt::print(out, "flopspy-report: {}, {} readable\n", Counted(traces.size(), "trace", "traces"),
             Grouped(readable));
  PrintCpuNotice(traces, style, out);
  fmt::print(out, "\n");
  // Several processes: the run as a whole, its ranks and stragglers come first.
  if (run) {
    WriteRunText(*run, out);
  } else if (readable > 1) {
    WriteRunText(BuildRunViews(traces), out);
  }
  if (run && !run->traces_in_full) return;  // --per-trace shows them (run_text.cpp says so)
  for (const auto& t : traces) WriteOne(t, style, options.view, out);
}

SinkStatus TextReportSink::Write(const ReportModel& model) {
  if (model.diff) {
    WriteDiffText(model.diff->a, model.diff->b, model.diff->diff, out_);
  } else {
    TextOptions options = options_;
    options.view = model.view;
    WriteTextReport(model.traces, options, out_, model.run ? &*model.run : nullptr);
  }
  return {};
}

}  // namespace flopspy::tools
