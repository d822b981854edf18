#include "report/json_report.h"

#include "report/launch_overhead_section.h"

namespace flopspy::tools {
namespace {

nlohmann::json TraceJson(const TraceReport& t) {
  nlohmann::json j;
  j["path"] = t.path;
  j["read"] = {{"status", std::string(trace::ReadStatusName(t.read.status))},
               {"message", t.read.message},
               {"stop_offset", t.read.stop_offset},
               {"file_size", t.read.file_size},
               {"chunks", t.read.chunks},
               {"records", t.read.records},
               {"sequence_gaps", t.read.sequence_gaps}};
  if (!t.header_ok) return j;
  const auto& h = t.header;
  j["process"] = {{"host", t.host},
                  {"pid", h.pid},
                  {"parent_pid", h.parent_pid},
                  {"forked", (h.flags & trace::kFileForkedChild) != 0},
                  {"rank", h.rank},
                  {"local_rank", h.local_rank},
                  {"run_id", h.run_id},
                  {"start_realtime_ns", h.start_realtime_ns},
                  {"start_monotonic_ns", h.start_monotonic_ns},
                  {"format_version", h.format_version}};
  j["span_ns"] = t.duration_ns();
  nlohmann::json counts = nlohmann::json::object();
  for (int type = 0; type < 256; ++type) {
    if (t.summary.record_counts[type] == 0) continue;
    counts[std::string(trace::RecordTypeName(static_cast<trace::RecordType>(type)))] =
        t.summary.record_counts[type];
  }
  j["records"] = counts;
  nlohmann::json lost = nlohmann::json::object();
  for (const auto& [source, count] : t.summary.lost) lost[LossSourceName(source)] = count;
  j["lost"] = lost;
  j["lost_total"] = t.summary.TotalLost();
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& w : t.summary.warnings) {
    warnings.push_back(
        {{"code", WarningCodeName(w.code)}, {"time_ns", w.time_ns}, {"message", w.message}});
  }
  j["warnings"] = warnings;
  if (t.summary.end) {
    const auto& e = *t.summary.end;
    j["end"] = {{"reason", EndReasonName(static_cast<trace::EndReason>(e.reason))},
                {"value", e.value},
                {"time_ns", e.time_ns},
                {"records_written", e.records_written},
                {"records_lost", e.records_lost}};
  } else {
    j["end"] = nullptr;
  }
  nlohmann::json threads = nlohmann::json::object();
  for (const auto& [tid, name] : t.summary.thread_names) threads[std::to_string(tid)] = name;
  j["threads"] = threads;
  j["metadata"] = t.metadata;
  if (!t.launch_overhead.empty()) j["launch_overhead"] = LaunchOverheadJson(t.launch_overhead);
  return j;
}

}  // namespace

nlohmann::json BuildJsonReport(const std::vector<TraceReport>& traces) {
  nlohmann::json doc;
  doc["schema"] = "flopspy-report";
  doc["schema_version"] = kReportJsonSchemaVersion;
  doc["flopspy_version"] = FLOPSPY_VERSION;
  nlohmann::json list = nlohmann::json::array();
  uint64_t events = 0, lost = 0;
  size_t readable = 0;
  for (const auto& t : traces) {
    list.push_back(TraceJson(t));
    events += t.summary.EventCount();
    lost += t.summary.TotalLost();
    readable += t.usable() ? 1 : 0;
  }
  doc["traces"] = list;
  doc["totals"] = {
      {"traces", traces.size()}, {"readable", readable}, {"events", events}, {"lost", lost}};
  return doc;
}

}  // namespace flopspy::tools
