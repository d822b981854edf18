#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "flopspy/platform/safe_file.h"
#include "report/format.h"
#include "report/html_assets.h"
#include "report/html_call_sites.h"
#include "report/html_rollup.h"
#include "report/html_run.h"
#include "report/html_sections.h"
#include "report/html_steps.h"
#include "report/html_summary.h"
#include "report/html_tables.h"
#include "report/html_util.h"
#include "report/json_report.h"
#include "report/output_files.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;
using namespace html;  // NOLINT: this file is the HTML report

// Sections of a trace beside its core keys (IsTraceCoreKey) that have their own place on the
// page; any other is a section added later, shown by the generic renderer.
const std::set<std::string, std::less<>> kRenderedSections = {
    "summary",       "regions", "advice", "timeline",    "launch_overhead",       "cpu_roofline",
    "kernel_rollup", "steps",   "ranges", "range_paths", "ranges_unmatched_ends", "ranges_dropped",
    "call_sites"};

std::string TraceName(const json& trace, size_t index) {
  const json& p = Obj(trace, "process");
  if (p.is_null()) return fmt::format("Trace {}", index + 1);
  std::string name =
      fmt::format("Trace {}: {} pid {}", index + 1, Str(p, "host", "?"), Str(p, "pid", "?"));
  if (NumOr(p, "rank", -1) >= 0) name += " rank " + Str(p, "rank");
  return name;
}

std::string CommandLine(const json& trace) {
  const json& cmd = Arr(Obj(Obj(trace, "metadata"), "process"), "command");
  std::string out;
  for (const auto& arg : cmd) {
    if (!arg.is_string()) continue;
    out += (out.empty() ? "" : " ") + arg.get<std::string>();
    if (out.size() > 300) {
      out += " ...";
      break;
    }
  }
  return out;
}

// Records lost: "none", "400,000" (the traces' own count) or "at least 12" (a trace without an
// end record to count them all); anything but "none" as a warning.
std::string LostFact(double lost, bool exact) {
  if (lost <= 0 && exact) return "none";
  const std::string text =
      lost <= 0 ? "none seen" : (exact ? "" : "at least ") + GroupedCount(lost);
  return "<span class=\"warn\">" + Escape(text) + "</span>";
}

// "complete (exit status 0)", "incomplete: ...", "partial: ..."; `cls` gets warn/bad.
std::string TraceStatus(const json& trace, std::string& cls) {
  const json& read = Obj(trace, "read");
  const std::string status = Str(read, "status", "?");
  if (status != "ok" || Obj(trace, "process").is_null()) {
    cls = "bad";
    return (NumOr(read, "records", 0) > 0 ? "partial: " : "unreadable: ") +
           Str(read, "message", status);
  }
  const json& end = Obj(trace, "end");
  if (end.is_null()) {
    cls = "warn";
    return "incomplete: no end record (the process was killed or is still running)";
  }
  const std::string reason = Str(end, "reason");
  if (reason == "exit") {
    return NumOr(end, "value", -1) >= 0 ? "complete (exit status " + Str(end, "value") + ")"
                                        : "complete (returned from main)";
  }
  if (reason == "signal") {
    cls = "warn";
    return "complete, ended by signal " + Str(end, "value");
  }
  return "complete (" + reason + ")";
}

std::string Header(const json& report) {
  const json& totals = Obj(report, "totals");
  const json& traces = Arr(report, "traces");
  std::set<std::pair<std::string, std::string>> processes;
  std::set<int64_t> ranks;
  size_t problems = 0, warnings = 0;
  for (const auto& t : traces) {
    const json& p = Obj(t, "process");
    if (!p.is_null()) processes.insert({Str(p, "host"), Str(p, "pid")});
    if (const int64_t rank = Int(p, "rank", -1); rank >= 0) ranks.insert(rank);
    std::string cls;
    TraceStatus(t, cls);
    if (!cls.empty()) ++problems;
    warnings += Arr(t, "warnings").size();
  }
  std::string s = "<header><h1>flopspy report</h1>";
  s += fmt::format(R"(<p class="muted">flopspy {} · report schema {}</p>)",
                   Escape(Str(report, "flopspy_version", "?")),
                   Escape(Str(report, "schema_version", "?")));
  const double lost = NumOr(totals, "lost", 0);
  std::string status = fmt::format("{} of {} traces readable", Str(totals, "readable", "0"),
                                   Str(totals, "traces", std::to_string(traces.size())));
  if (problems > 0) status += fmt::format(", {} incomplete or damaged", problems);
  std::vector<std::pair<std::string, std::string>> facts = {
      {"traces", Escape(status)},
      {"processes", Escape(std::to_string(processes.size()))},
      {"ranks", ranks.empty() ? "none (not an MPI/torchrun job)"
                              : Escape(fmt::format("{} ({} to {})", ranks.size(), *ranks.begin(),
                                                   *ranks.rbegin()))},
      {"events", Escape(GroupedCount(NumOr(totals, "events", 0)))},
      {"lost records", LostFact(lost, Bool(totals, "lost_exact"))},
      {"warnings",
       warnings > 0 ? "<span class=\"warn\">" + std::to_string(warnings) + "</span>" : "none"},
      {"kernel launches", Escape(GroupedCount(NumOr(totals, "launches", 0)))},
      {"kernel GPU time", Escape(Ns(Num(totals, "kernel_gpu_ns")))},
      {"kernel FLOPs", Escape(Si(Num(totals, "kernel_flops"), "FLOP") + " (with a known figure)")}};
  // One trace: its own summary says all of this, first on the page.
  if (traces.size() != 1) s += Facts(facts);
  if (traces.size() > 1) {
    HtmlTable t("traces", {{"#", true, ""},
                           {"host", false, ""},
                           {"pid", true, ""},
                           {"rank", true, ""},
                           {"status", false, ""},
                           {"span", true, ""},
                           {"launches", true, ""},
                           {"kernel GPU time", true, ""},
                           {"warnings", true, ""},
                           {"file", false, ""}});
    for (size_t i = 0; i < traces.size(); ++i) {
      const json& tr = traces[i];
      const json& p = Obj(tr, "process");
      std::string cls;
      const std::string st = TraceStatus(tr, cls);
      double gpu_ns = 0;
      for (const auto& k : Arr(tr, "kernels")) gpu_ns += NumOr(k, "gpu_ns", 0);
      Cell index = Number(static_cast<double>(i + 1), "");
      index.html = fmt::format(R"(<a href="#t{}">{}</a>)", i, i + 1);
      Cell status_cell = Text(st);
      status_cell.cls = cls;
      const double rank = NumOr(p, "rank", -1);
      t.AddRow("", {index, Text(Str(p, "host", "-")), Number(Num(p, "pid"), Str(p, "pid", "-")),
                    Number(rank >= 0 ? std::optional<double>(rank) : std::nullopt,
                           rank >= 0 ? Str(p, "rank") : "-"),
                    status_cell, Number(Num(tr, "span_ns"), Ns(Num(tr, "span_ns"))),
                    Number(Num(tr, "launches"), Str(tr, "launches", "-")),
                    Number(gpu_ns, Duration(gpu_ns)),
                    Number(static_cast<double>(Arr(tr, "warnings").size()),
                           std::to_string(Arr(tr, "warnings").size())),
                    Text(Str(tr, "path"))});
    }
    s += t.Render();
  }
  return s + "</header>\n";
}

// The trace's facts: status, command, span, launches, the summary's figures, lost records.
std::vector<std::pair<std::string, std::string>> TraceFacts(const json& trace) {
  std::string cls;
  const std::string status = TraceStatus(trace, cls);
  std::vector<std::pair<std::string, std::string>> facts;
  facts.push_back(
      {"status", cls.empty() ? Escape(status)
                             : fmt::format(R"(<span class="{}">{}</span>)", cls, Escape(status))});
  const json& process = Obj(trace, "process");
  if (!process.is_null()) {
    if (const std::string cmd = CommandLine(trace); !cmd.empty()) {
      facts.push_back({"command", "<code>" + Escape(cmd) + "</code>"});
    }
    if (Bool(process, "forked")) {
      facts.push_back({"forked from", "pid " + Escape(Str(process, "parent_pid"))});
    }
    // From the trace's metadata, which a damaged file may fill with any number.
    if (const int64_t start = Int(process, "start_realtime_ns", -1); start >= 0) {
      facts.push_back({"started", Escape(UtcTime(static_cast<uint64_t>(start)))});
    }
    facts.push_back({"span", Escape(Ns(Num(trace, "span_ns")))});
    std::string launches = GroupedCount(NumOr(trace, "launches", 0)) + " kernel launches";
    if (NumOr(trace, "launches", 0) > 0 && !Bool(trace, "gpu_timing")) {
      launches += "; no GPU times (GPU timing was off or CUPTI was unavailable)";
    } else if (NumOr(trace, "unmatched_launches", 0) > 0) {
      launches += ", " + Str(trace, "unmatched_launches") + " without a GPU record";
    }
    if (const double replayed = NumOr(trace, "replayed_gpu_records", 0); replayed > 0) {
      launches += fmt::format(
          "; {} more GPU records were replays of counter-measured launches (not counted twice)",
          GroupedCount(replayed));
    }
    facts.push_back({"launches", Escape(launches)});
    for (auto& fact : SummaryFacts(trace)) facts.push_back(std::move(fact));
    const double lost = NumOr(trace, "lost_total", 0);
    const bool exact = Bool(trace, "lost_exact");
    if (lost > 0 || !exact) {
      std::string by;
      const json& lost_by = Obj(trace, "lost");
      if (lost_by.is_object()) {
        for (const auto& [k, v] : lost_by.items())
          by += (by.empty() ? "" : ", ") + k + " " + Dump(v);
      }
      std::string fact = LostFact(lost, exact);
      if (!by.empty()) fact += " <span class=\"warn\">(" + Escape(by) + ")</span>";
      facts.push_back({"lost records", fact});
    }
  }
  return facts;
}

// Keys added to the model later: a count or flag is a line (left out when zero or false), a
// structure its own fold.
void AddedSections(const json& trace, const std::string& id, std::vector<PageSection>& parts) {
  std::vector<std::pair<std::string, std::string>> more;
  for (const auto& [key, value] : trace.items()) {
    if (IsTraceCoreKey(key) || kRenderedSections.contains(key)) continue;
    if (!value.is_structured()) {
      if (value.is_null() || value == json(0) || value == json(false) || value == json("")) {
        continue;
      }
      more.push_back(
          {SectionTitle(key), Escape(value.is_string() ? value.get<std::string>() : Dump(value))});
      continue;
    }
    parts.push_back(
        {id + "-s-" + key, SectionTitle(key), GenericSection(value, id + "-" + key), false});
  }
  if (!more.empty()) parts.push_back({id + "-s-more", "More", Facts(more), true});
}

// The trace's folds in reading order: what a reader needs first (summary, where the time goes,
// advice) opens the page; the detail tables follow.
std::vector<PageSection> TraceParts(const json& trace, size_t index) {
  const std::string id = fmt::format("t{}", index);
  std::vector<PageSection> parts;
  std::string summary = Facts(TraceFacts(trace));
  if (const json& warnings = Arr(trace, "warnings"); !warnings.empty()) {
    summary += "<ul class=\"warnings\">";
    for (const auto& w : warnings) {
      summary += fmt::format(R"(<li><span class="badge">{}</span> {}</li>)", Escape(Str(w, "code")),
                             Escape(Str(w, "message")));
    }
    summary += "</ul>\n";
  }
  summary += TopGains(Arr(trace, "advice"));
  parts.push_back({id + "-s-summary", "Summary", summary, true});
  if (Obj(trace, "process").is_null()) return parts;

  if (std::string r = KernelRollupSection(trace, id + "-rollup"); !r.empty()) {
    parts.push_back({id + "-s-where", "Where the GPU time goes", std::move(r), true});
  }
  if (trace.contains("advice")) {
    const json& advice = trace.at("advice");
    parts.push_back({id + "-s-advice", "Advice",
                     advice.is_array() && advice.empty() ? NoFindings(trace)
                                                         : AdviceSection(advice, id + "-advice"),
                     true});
  }
  if (const json& steps = Obj(trace, "steps"); steps.is_object()) {
    parts.push_back({id + "-s-steps", "Steps", StepsSection(steps, id + "-steps"), true});
  }
  if (std::string r = RangesSection(trace, id + "-ranges"); !r.empty()) {
    parts.push_back({id + "-s-ranges", "NVTX ranges", std::move(r), true});
  }
  if (std::string r = CallSitesSection(trace, id + "-calls"); !r.empty()) {
    parts.push_back({id + "-s-calls", "Call sites", std::move(r), true});
  }
  for (const auto& d : Arr(trace, "devices")) parts.push_back(DeviceSection(trace, d, index));
  if (trace.contains("timeline")) {
    parts.push_back({id + "-s-timeline", "Timeline",
                     TimelineSection(trace.at("timeline"), id + "-timeline"), true});
  }
  if (trace.contains("launch_overhead")) {
    parts.push_back({id + "-s-overhead", "Launch overhead",
                     LaunchOverheadSection(trace.at("launch_overhead"), id + "-overhead"), true});
  }
  if (trace.contains("cpu_roofline")) {
    parts.push_back({id + "-s-cpu", "CPU roofline",
                     CpuRooflineSection(trace.at("cpu_roofline"), id + "-cpu"), true});
  }
  if (const std::string k = KernelTable(trace, index); !k.empty()) {
    parts.push_back(
        {id + "-s-kernels", "Kernels",
         fmt::format(
             "<p class=\"note\">One row per kernel signature (name, grid, block) and "
             "shape, longest GPU time first; open a name for its launch shape, figures "
             "and full name. {}</p>{}",
             Bool(trace, "gpu_timing") ? "" : "No GPU records: launch counts and CPU cost only.",
             k),
         true});
  }
  if (const std::string l = LibraryTable(trace, index); !l.empty()) {
    parts.push_back({id + "-s-library", "cuBLAS, cuBLASLt and cuDNN calls",
                     "<p class=\"note\">One row per routine and shape; FLOPs are analytic "
                     "(docs/blas-formulas.md); open a row's diagnostics for what its shape "
                     "costs.</p>" +
                         l,
                     true});
  }
  if (const std::string c = CopyTable(trace, index); !c.empty()) {
    parts.push_back({id + "-s-copies", "Copies and sets", c, true});
  }
  if (const json& regions = Arr(trace, "regions"); !regions.empty()) {
    parts.push_back(
        {id + "-s-regions", "Marked regions", RegionsTable(regions, id + "-regions"), true});
  }
  AddedSections(trace, id, parts);
  return parts;
}

std::string TraceSection(const json& trace, size_t index) {
  const std::string id = fmt::format("t{}", index);
  std::string s = fmt::format(R"(<section class="trace" id="{}"><h2>{}</h2>)", id,
                              Escape(TraceName(trace, index)));
  s += "<p class=\"path\"><code>" + Escape(Str(trace, "path")) + "</code></p>";
  const std::vector<PageSection> parts = TraceParts(trace, index);
  if (parts.size() > 1) s += Toc(parts, "On this page:");
  for (const PageSection& p : parts) s += Fold(p);
  return s + "</section>\n";
}

}  // namespace

std::string RenderHtmlReport(const json& report) {
  const json& traces = Arr(report, "traces");
  std::string s;
  s.reserve(1 << 16);
  s += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  s += R"(<meta name="viewport" content="width=device-width, initial-scale=1">)";
  // Nothing may be fetched: the page is one file, readable offline.
  s += R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; )"
       R"(style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">)";
  s += "\n<meta name=\"generator\" content=\"flopspy-report " +
       Escape(Str(report, "flopspy_version")) + "\">\n";
  std::string title = "flopspy report";
  if (traces.size() == 1) {
    title += ": " + TraceName(traces[0], 0).substr(TraceName(traces[0], 0).find(':') + 1);
  } else if (report.contains("diff") && traces.empty()) {
    title += ": two runs compared";
  } else {
    title += fmt::format(": {} traces", traces.size());
  }
  s += "<title>" + Escape(title) + "</title>\n<style>" + kStyleSheet + "</style></head>\n<body>\n";
  s += report.contains("diff") && traces.empty() ? DiffHeader(report) : Header(report);
  bool has_run = false;
  for (const auto& [key, value] : report.items()) has_run |= !IsDocumentKey(key);
  if (traces.size() > 1) {
    std::vector<PageSection> toc;
    if (has_run) toc.push_back({"run", "Run", "", true});
    for (size_t i = 0; i < traces.size(); ++i) {
      toc.push_back({fmt::format("t{}", i), TraceName(traces[i], i), "", true});
    }
    s += Toc(toc, "Contents:");
  }
  // Sections of the whole run (advice across traces, per-rank aggregates...), each a fold.
  std::string run;
  for (const auto& [key, value] : report.items()) {
    if (IsDocumentKey(key)) continue;
    PageSection part{"run-s-" + key,
                     key == "aggregate" ? "Whole run"
                     : key == "diff"    ? "Comparison per kernel and library shape"
                                        : SectionTitle(key),
                     "", true};
    if (key == "advice") {
      part.body = AdviceSection(value, "run-advice");
    } else if (key == "aggregate") {
      part.body = AggregateSection(value, traces.size());
    } else if (key == "ranks") {
      part.body = RanksSection(value, report.value("stragglers", json()));
    } else if (key == "stragglers") {
      part.body = StragglersSection(value, report.value("aggregate", json()));
    } else if (key == "diff") {
      part.body = DiffSection(value);
    } else {
      part.body = GenericSection(value, "run-" + key);
    }
    run += Fold(part);
  }
  if (!run.empty()) s += "<section id=\"run\"><h2>Run</h2>" + run + "</section>\n";
  for (size_t i = 0; i < traces.size(); ++i) s += TraceSection(traces[i], i);
  s += "<footer class=\"muted\">Written by flopspy-report " +
       Escape(Str(report, "flopspy_version")) +
       ". One self-contained file: charts and tables are drawn in the page itself, the script "
       "only sorts tables and shows details on hover. Chart reading guide: "
       "docs/report-html.md.</footer>\n";
  s += "<script>";
  s += kScript;
  s += "</script>\n</body></html>\n";
  return s;
}

SinkStatus HtmlReportSink::Write(const ReportModel& model) {
  const std::string page = RenderHtmlReport(model.Json());
  std::string error;
  if (!platform::WriteOutputFile(path_, page, platform::kSharedFileMode, &error))
    return {false, error};
  return {true, fmt::format("wrote {} ({} KiB)", path_, (page.size() + 1023) / 1024)};
}

}  // namespace flopspy::tools
