#include "report/json_report.h"

#include <algorithm>
#include <cmath>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/kernel_catalog.h"
#include "flopspy/gpu_roofline/device_properties_json.h"
#include "report/call_sites_json.h"
#include "report/communication_json.h"
#include "report/counter_check.h"
#include "report/graphs_json.h"
#include "report/json_values.h"
#include "report/labels.h"
#include "report/launch_overhead_section.h"
#include "report/lost_records.h"
#include "report/ranges_json.h"
#include "report/run_json.h"
#include "report/sections_json.h"
#include "report/steps_json.h"
#include "report/trace_totals.h"

namespace flopspy::tools {
namespace {

using analyzers::ComputePath;
using nlohmann::json;

std::string SourceName(trace::FigureSource s) {
  return std::string(trace::FigureSourceName(s));
}

}  // namespace

json PlacementJson(const std::optional<analyzers::Placement>& placement) {
  if (!placement) return nullptr;
  const analyzers::Placement& p = *placement;
  return {{"regime", std::string(analyzers::RegimeName(p.regime))},
          {"overhead_reason", std::string(analyzers::OverheadReasonName(p.overhead_reason))},
          {"proximity", std::string(analyzers::RoofProximityName(p.proximity))},
          // Why the regime is unknown ("none" when it is not); the rates' basis: the calls
          // whose FLOPs are known, of all, and their GPU time (docs/report-json.md).
          {"reason", std::string(analyzers::UnplacedReasonName(p.unplaced_reason))},
          {"calls", p.calls},
          {"calls_with_flops", p.calls_with_flops},
          {"flops_gpu_ns", p.flops_time_ns},
          {"requested_path", std::string(analyzers::ComputePathName(p.requested_path))},
          {"roof_path", std::string(analyzers::ComputePathName(p.roof_path))},
          {"peak_flops_per_s", p.peak_flops},
          {"peak_source", std::string(analyzers::RoofSourceName(p.peak_source))},
          {"bandwidth_bytes_per_s", p.bandwidth},
          {"bandwidth_source", std::string(analyzers::RoofSourceName(p.bandwidth_source))},
          {"intensity", NumberOrNull(p.intensity)},
          {"ridge", NumberOrNull(p.ridge)},
          {"attainable_flops_per_s", NumberOrNull(p.attainable_flops)},
          {"achieved_flops_per_s", NumberOrNull(p.achieved_flops)},
          {"achieved_bytes_per_s", NumberOrNull(p.achieved_bandwidth)},
          {"pct_of_attainable", NumberOrNull(p.pct_of_attainable)},
          {"pct_of_peak", NumberOrNull(p.pct_of_peak)},
          {"pct_of_bandwidth", NumberOrNull(p.pct_of_bandwidth)},
          {"roof_time_ns", NumberOrNull(p.roof_time_ns)}};
}

namespace {

json FiguresJson(const analyzers::WorkFigures& w) {
  return {{"flops", w.flops},
          {"special_ops", w.special_ops},
          {"bytes", w.bytes},
          {"flops_source", SourceName(w.flops_source)},
          {"bytes_source", SourceName(w.bytes_source)},
          {"launches_with_flops", w.launches_with_flops},
          {"launches_with_bytes", w.launches_with_bytes}};
}

// FLOP per byte over every launch of a kernel row; null unless both figures are known.
json KernelIntensity(const analyzers::WorkFigures& w) {
  if (w.flops_source == trace::FigureSource::kUnknown ||
      w.bytes_source == trace::FigureSource::kUnknown || w.bytes <= 0) {
    return nullptr;
  }
  return w.flops / w.bytes;
}

// Catalog figures against counter-measured ones, per launch (both figures, their
// difference, and a flag when the catalog is more than 10% off). docs/gpu-counters.md.
json CrossCheck(const analyzers::KernelGroup& g) {
  if (g.counter_samples == 0) return nullptr;
  const CounterCheck c = CheckCounters(g);
  const auto number = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json j = {
      {"samples", g.counter_samples},
      {"flops_per_launch", analyzers::CounterFlopsValid(g) ? json(g.counter_flops) : json(nullptr)},
      {"bytes_per_launch", analyzers::CounterBytesValid(g) ? json(g.counter_bytes) : json(nullptr)},
      {"flops_spread_pct", 100 * analyzers::CounterFlopsSpread(g)},
      {"bytes_spread_pct", 100 * analyzers::CounterBytesSpread(g)},
      {"samples_disagree", c.samples_disagree},
      {"catalog_flops_per_launch", number(c.catalog_flops)},
      {"catalog_bytes_per_launch", number(c.catalog_bytes)},
      {"catalog_flops_diff_pct", number(c.flops_diff_pct)},
      {"catalog_bytes_diff_pct", number(c.bytes_diff_pct)},
      {"catalog_off_by_more_than_10pct", c.catalog_off}};
  return j;
}

}  // namespace

json KernelJson(const analyzers::KernelGroup& g, double trace_gpu_ns) {
  const double mean = g.executions ? g.gpu_ns / static_cast<double>(g.executions) : 0;
  json row = {{"name", g.name},
              {"shape", g.shape_key},
              {"grid", g.grid},
              {"block", g.block},
              {"device", g.device},
              {"launches", g.launches},
              {"executions", g.executions},
              {"graph_executions", g.graph_executions},
              {"launch_errors", g.launch_errors},
              {"inside_library", g.inside_library},
              {"gpu_ns", g.gpu_ns},
              {"gpu_share", trace_gpu_ns > 0 ? g.gpu_ns / trace_gpu_ns : 0.0},
              {"mean_ns", mean},
              {"p50_ns", g.gpu_durations.Percentile(50)},
              {"p95_ns", g.gpu_durations.Percentile(95)},
              {"mean_launch_ns", analyzers::SteadyLaunchNs(g)},
              {"family", g.family},
              {"functor", g.functor},
              {"op", g.op},
              {"category", g.category},
              {"confidence", std::string(analyzers::ConfidenceName(g.confidence))},
              {"path", std::string(analyzers::ComputePathName(g.path))},
              {"reason", g.reason},
              {"intensity", KernelIntensity(g.all)},
              {"timed", FiguresJson(g.timed)},
              {"all", FiguresJson(g.all)},
              {"placement", PlacementJson(g.placement)},
              {"counters", CrossCheck(g)}};
  // Sampled GPU timing: the row's GPU time for every launch (absent when none was timed).
  if (g.estimated_gpu_ns > 0) row["estimated_gpu_ns"] = g.estimated_gpu_ns;
  return row;
}

namespace {

// What a cuBLASLt call's descriptors said beyond types and epilogue (the hook decodes them into
// the record's flags); null for the other routines, which have no such attributes.
json LtAttributes(const analyzers::LibraryGroup& g) {
  if (analyzers::BlasRoutineFromId(g.routine_id) != analyzers::BlasRoutine::kLtMatmul) {
    return nullptr;
  }
  const uint32_t f = g.shape.flags;
  return {{"bias_pointer", (f & trace::kLibBiasPresent) != 0},
          {"aux_pointer", (f & trace::kLibAuxPresent) != 0},
          {"scale_pointers", (f & trace::kLibScalePointers) != 0},
          {"amax_pointer", (f & trace::kLibAmaxPointer) != 0},
          {"fast_accum", (f & trace::kLibFastAccum) != 0},
          {"descriptor_incomplete", (f & trace::kLibDescriptorIncomplete) != 0}};
}

std::string_view GroupBetaName(uint8_t beta) {
  return beta == 0 ? "zero" : beta == 1 ? "non_zero" : "unknown";
}

// A grouped GEMM whose groups differ: what the trace says of its groups; null for other rows.
json GroupsJson(const analyzers::LibraryGroup& g) {
  if (!(g.shape.flags & trace::kLibGrouped)) return nullptr;
  json listed = json::array();
  for (const trace::LibraryGroupShape& s : g.groups) {
    listed.push_back({{"m", s.m},
                      {"n", s.n},
                      {"k", s.k},
                      {"count", s.count},
                      {"lda", s.lda},
                      {"ldb", s.ldb},
                      {"ldc", s.ldc},
                      {"trans_a", s.trans_a},
                      {"trans_b", s.trans_b},
                      {"beta", GroupBetaName(s.beta)}});
  }
  trace::LibraryGroupsCut sums = g.groups_cut;
  for (const trace::LibraryGroupShape& s : g.groups) trace::AddGroup(sums, s);
  return {{"count", g.shape.batch},
          {"known", g.groups_known},
          {"problems", g.groups_known ? json(sums.problems) : json(nullptr)},
          {"vary", g.groups_vary},
          {"listed", listed},
          {"unlisted", g.groups_known ? json{{"groups", g.groups_cut.groups},
                                             {"problems", g.groups_cut.problems}}
                                      : json(nullptr)},
          {"summary", LibraryShapeText(g)}};
}

}  // namespace

json LibraryJson(const analyzers::LibraryGroup& g) {
  const trace::LibraryCallRecord& s = g.shape;
  json findings = json::array();
  for (const auto& f : g.findings) {
    findings.push_back({{"kind", std::string(analyzers::GemmFindingKindName(f.kind))},
                        {"severity", std::string(analyzers::FindingSeverityName(f.severity))},
                        {"sentence", f.sentence},
                        {"lost_fraction", NumberOrNull(f.lost_fraction)},
                        {"lost_ns", NumberOrNull(f.lost_ns)}});
  }
  return {{"routine", g.routine},
          {"family",
           std::string(analyzers::BlasRoutineName(analyzers::BlasRoutineFromId(g.routine_id)))},
          {"m", s.m},
          {"n", s.n},
          {"k", s.k},
          {"batch", s.batch},
          {"shape_text", LibraryShapeText(g)},
          {"groups", GroupsJson(g)},
          {"types",
           {std::string(analyzers::DataTypeName(s.type_a)),
            std::string(analyzers::DataTypeName(s.type_b)),
            std::string(analyzers::DataTypeName(s.type_c)),
            std::string(analyzers::DataTypeName(s.type_d))}},
          {"compute_type", std::string(analyzers::ComputeTypeName(s.compute_type))},
          {"scale_type", std::string(analyzers::DataTypeName(s.scale_type))},
          {"trans_a", s.trans_a},
          {"trans_b", s.trans_b},
          {"epilogue", std::string(analyzers::EpilogueName(s.epilogue))},
          {"lt_attributes", LtAttributes(g)},
          {"device", g.device},
          {"calls", g.calls},
          {"captured_calls", g.captured_calls},
          {"graph_kernels", g.graph_kernels},
          {"executions", analyzers::CallExecutions(g)},
          {"failed_calls", g.failed_calls},
          {"cpu_ns", g.cpu_ns},
          {"kernels", g.kernels},
          {"gpu_ns", g.gpu_ns},
          {"flops", g.flops},
          {"epilogue_flops", g.epilogue_flops},
          {"bytes", g.bytes},
          {"source", SourceName(g.source)},
          {"path", std::string(analyzers::ComputePathName(g.path))},
          {"path_basis", std::string(analyzers::PathBasisName(g.path_basis))},
          {"timed_flops", g.timed_flops},
          {"timed_bytes", g.timed_bytes},
          {"placement", PlacementJson(g.placement)},
          {"diagnostics", findings}};
}

namespace {

json CopyJson(const analyzers::CopyGroup& c) {
  return {{"source", c.from_gpu ? "gpu" : "api"},
          {"operation", c.is_set ? "memset" : "memcpy"},
          {"direction", std::string(trace::CopyKindName(c.kind))},
          {"src_memory", std::string(trace::MemoryKindName(c.src))},
          {"dst_memory", std::string(trace::MemoryKindName(c.dst))},
          {"count", c.count},
          {"bytes", c.bytes},
          {"ns", c.ns},
          {"bytes_per_s", c.ns > 0 ? c.bytes / c.ns * 1e9 : 0.0},
          {"device", c.device}};
}

}  // namespace

json RoofsJson(const analyzers::DeviceRoofs& r) {
  json paths = json::object();
  for (int p = 1; p < analyzers::kComputePathCount; ++p) {
    const analyzers::Roof& roof = r.flops[p];
    if (!roof.Available()) continue;
    paths[std::string(analyzers::ComputePathName(static_cast<ComputePath>(p)))] = {
        {"nominal", roof.nominal},
        {"nominal_source", std::string(analyzers::RoofSourceName(roof.nominal_source))},
        {"measured", roof.measured}};
  }
  json memory = json::object();
  for (size_t l = 0; l < analyzers::kMemoryLevelCount; ++l) {
    const analyzers::Roof& roof = r.bandwidth[l];
    if (!roof.Available()) continue;
    memory[std::string(analyzers::MemoryLevelName(static_cast<analyzers::MemoryLevel>(l)))] = {
        {"nominal", roof.nominal},
        {"nominal_source", std::string(analyzers::RoofSourceName(roof.nominal_source))},
        {"measured", roof.measured}};
  }
  return {{"name", r.name}, {"table_key", r.table_key}, {"sm_count", r.sm_count},
          {"flops", paths}, {"bandwidth", memory},      {"notes", r.notes}};
}

namespace {

json DeviceJson(const TraceReport& t, const analyzers::DeviceActivity& d) {
  json j;
  j["device"] = d.device;
  if (const auto p = t.devices.find(d.device); p != t.devices.end()) {
    j["properties"] = gpuroof::DevicePropertiesToJson(p->second);
  }
  if (const auto r = t.roofs.find(d.device); r != t.roofs.end()) j["roofs"] = RoofsJson(r->second);
  const double active = d.last_ns > d.first_ns ? static_cast<double>(d.last_ns - d.first_ns) : 0;
  j["active_ns"] = active;
  j["kernel_ns"] = d.kernel_ns;
  j["copy_ns"] = d.copy_ns;
  j["kernels"] = d.kernels;
  j["gpu_ns_by_source"] = {{"analytic", d.kernel_ns_by_source[1]},
                           {"catalog", d.kernel_ns_by_source[2]},
                           {"counters", d.kernel_ns_by_source[3]},
                           {"unknown", d.kernel_ns_by_source[0]}};
  j["analytic_flops"] = d.analytic_flops;
  j["catalog_flops"] = d.catalog_flops;
  j["counter_flops"] = d.counter_flops;
  if (d.utilization) {
    const auto& u = *d.utilization;
    j["utilization"] = {
        {"path", std::string(analyzers::ComputePathName(u.roof_path))},
        {"nominal_peak", u.nominal_peak},
        {"nominal_source", std::string(analyzers::RoofSourceName(u.nominal_source))},
        {"measured_peak", u.measured_peak},
        {"counted_flops_of_peak", NumberOrNull(u.mfu)},
        {"counted_flops_coverage", analyzers::AnalyticCoverage(d)},
        {"hfu", NumberOrNull(u.hfu)},
        {"counted_flops_of_measured_peak", NumberOrNull(u.mfu_measured)},
        {"hfu_measured", NumberOrNull(u.hfu_measured)}};
  } else {
    j["utilization"] = nullptr;
  }
  return j;
}

json TraceJson(const TraceReport& t) {
  json j;
  j["path"] = t.path;
  j["read"] = {{"status", std::string(trace::ReadStatusName(t.read.status))},
               {"message", t.read.message},
               {"stop_offset", t.read.stop_offset},
               {"file_size", t.read.file_size},
               {"chunks", t.read.chunks},
               {"records", t.read.records},
               {"sequence_gaps", t.read.sequence_gaps},
               {"unread_bytes", t.read.unread_bytes()}};
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
  json counts = json::object();
  for (int type = 0; type < 256; ++type) {
    if (t.summary.record_counts[type] == 0) continue;
    counts[std::string(trace::RecordTypeName(static_cast<trace::RecordType>(type)))] =
        t.summary.record_counts[type];
  }
  j["records"] = counts;
  // The end record's count when there is one; the causes add up to it (docs/report-json.md).
  const LostRecords lost_records = LostRecordsOf(t);
  json lost = json::object();
  for (const auto& [cause, count] : lost_records.by_cause) lost[cause] = count;
  j["lost"] = lost;
  j["lost_total"] = lost_records.total;
  j["lost_exact"] = lost_records.exact;
  json warnings = json::array();
  for (const auto& w : t.summary.warnings) {
    warnings.push_back({{"code", std::string(trace::WarningCodeName(w.code))},
                        {"time_ns", w.time_ns},
                        {"message", w.message}});
  }
  j["warnings"] = warnings;
  if (t.summary.end) {
    const auto& e = *t.summary.end;
    j["end"] = {
        {"reason", std::string(trace::EndReasonName(static_cast<trace::EndReason>(e.reason)))},
        {"value", e.value},
        {"time_ns", e.time_ns},
        {"records_written", e.records_written},
        {"records_lost", e.records_lost}};
  } else {
    j["end"] = nullptr;
  }
  json threads = json::object();
  for (const auto& [tid, name] : t.summary.thread_names) threads[std::to_string(tid)] = name;
  j["threads"] = threads;
  j["metadata"] = t.metadata;

  // The analysis.
  const analyzers::TraceAnalysis& run = t.run;
  double gpu_ns = 0;
  for (const auto& g : run.kernels) gpu_ns += g.gpu_ns;
  j["gpu_timing"] = run.gpu_timing;
  j["launches"] = run.launches;
  j["captured_launches"] = run.captured_launches;
  j["graph_nodes_dropped"] = run.graph_nodes_dropped;
  j["gpu_kernel_records"] = run.gpu_kernel_records;
  j["unmatched_launches"] = run.unmatched_launches;
  j["unmatched_gpu_records"] = run.unmatched_gpu_records;
  j["replayed_gpu_records"] = run.replayed_gpu_records;
  if (const analyzers::GpuSamplingFigures& g = run.sampling; g.sampled) {
    j["gpu_sampling"] = {{"window_ns", g.window_ns},
                         {"period_ns", g.period_ns},
                         {"windows", g.windows},
                         {"timed_ns", g.timed_ns},
                         {"span_ns", g.span_ns},
                         {"launches_in_windows", g.launches_in_windows},
                         {"launches_outside_windows", g.launches_outside_windows},
                         {"measured_gpu_ns", g.measured_gpu_ns},
                         {"estimated_gpu_ns", g.estimated_gpu_ns}};
  }
  j["summary"] = TraceTotalsJson(ComputeTraceTotals(t));
  json devices = json::array();
  for (const auto& d : run.devices) devices.push_back(DeviceJson(t, d));
  j["devices"] = devices;
  json kernels = json::array();
  for (const auto& g : run.kernels) kernels.push_back(KernelJson(g, gpu_ns));
  j["kernels"] = kernels;
  if (!t.rollup.empty()) j["kernel_rollup"] = KernelRollupJson(t.rollup);
  json libraries = json::array();
  for (const auto& g : run.libraries) libraries.push_back(LibraryJson(g));
  j["library_calls"] = libraries;
  json copies = json::array();
  for (const auto& c : run.copies) copies.push_back(CopyJson(c));
  j["copies"] = copies;
  j["advice"] = AdviceJson(t.advice);
  if (!t.launch_overhead.empty()) j["launch_overhead"] = LaunchOverheadJson(t.launch_overhead);
  if (json timeline = TimelineJson(t); !timeline.is_null()) j["timeline"] = std::move(timeline);
  if (!t.regions.empty()) j["regions"] = RegionsJson(t.regions);
  AddRangesJson(t.ranges, j);
  AddCallSitesJson(t, j);
  if (json comm = CommunicationJson(t.communication); !comm.is_null()) {
    j["communication"] = std::move(comm);
  }
  if (json graphs = GraphsJson(t.run); !graphs.is_null()) j["cuda_graphs"] = std::move(graphs);
  if (!t.steps.empty()) j["steps"] = StepsJson(t.steps);
  if (t.cpu_roofline) j["cpu_roofline"] = CpuRooflineJson(*t.cpu_roofline);
  return j;
}

}  // namespace

nlohmann::json AdviceJson(const std::vector<analyzers::Advice>& list) {
  json advice = json::array();
  for (const auto& a : list) {
    json overlaps = json::array();
    for (const auto kind : a.overlaps)
      overlaps.push_back(std::string(analyzers::AdviceKindName(kind)));
    advice.push_back({{"kind", std::string(analyzers::AdviceKindName(a.kind))},
                      {"finding", a.finding},
                      {"action", a.action},
                      {"gain_ns", NumberOrNull(a.gain_ns)},
                      {"gain_basis", a.gain_basis},
                      {"overlaps", overlaps},
                      {"combined_gain_ns", NumberOrNull(a.combined_gain_ns)},
                      {"share", a.share},
                      {"title", a.title},
                      {"gpu_ns", a.gpu_ns},
                      {"launches", a.launches},
                      {"pct_of_roof", NumberOrNull(a.pct_of_roof)},
                      {"items", a.items}});
  }
  return advice;
}

bool IsTraceCoreKey(std::string_view key) {
  return std::find(kTraceCoreKeys.begin(), kTraceCoreKeys.end(), key) != kTraceCoreKeys.end();
}

bool IsDocumentKey(std::string_view key) {
  return std::find(kDocumentKeys.begin(), kDocumentKeys.end(), key) != kDocumentKeys.end();
}

nlohmann::json BuildJsonReport(const std::vector<TraceReport>& traces, const RunViews* run) {
  json doc;
  doc["schema"] = "flopspy-report";
  doc["schema_version"] = kReportJsonSchemaVersion;
  doc["flopspy_version"] = FLOPSPY_VERSION;
  json list = json::array();
  uint64_t events = 0, launches = 0;
  double gpu_ns = 0, flops = 0;
  size_t readable = 0;
  for (const auto& t : traces) {
    list.push_back(TraceJson(t));
    events += t.summary.EventCount();
    readable += t.usable() ? 1 : 0;
    launches += t.run.launches;
    for (const auto& g : t.run.kernels) {
      gpu_ns += g.gpu_ns;
      if (g.timed.flops_source != trace::FigureSource::kUnknown) flops += g.timed.flops;
    }
  }
  doc["traces"] = list;
  const LostTotal lost = LostTotalOf(traces);
  doc["totals"] = {{"traces", traces.size()}, {"readable", readable},     {"events", events},
                   {"lost", lost.total},      {"lost_exact", lost.exact}, {"launches", launches},
                   {"kernel_gpu_ns", gpu_ns}, {"kernel_flops", flops}};
  // aggregate, ranks, stragglers when several traces were read
  if (run) {
    AddRunSections(doc, *run);
  } else {
    AddRunSections(doc, traces);
  }
  return doc;
}

SinkStatus JsonReportSink::Write(const ReportModel& model) {
  // A trace's path may be any bytes: ill-formed UTF-8 becomes U+FFFD rather than an exception.
  out_ << model.Json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return {};
}

}  // namespace flopspy::tools
