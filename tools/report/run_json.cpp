#include "report/run_json.h"

#include <cmath>
#include <iterator>
#include <set>
#include <string>

#include "flopspy/analyzers/compute_path.h"
#include "report/communication_json.h"
#include "report/flop_coverage_report.h"
#include "report/json_report.h"
#include "report/json_values.h"
#include "report/trace_totals.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;

json ModelJson(const analyzers::DeviceModel& m, size_t index) {
  json props = {{"name", m.name}, {"sm_count", m.sm_count}};
  if (m.roofs && m.roofs->cc_major > 0) {
    props["cc_major"] = m.roofs->cc_major;
    props["cc_minor"] = m.roofs->cc_minor;
  }
  json j = {{"device", index},
            {"properties", props},
            {"gpus", m.gpus},
            {"active_ns", m.active_ns},
            {"kernel_ns", m.kernel_ns},
            {"copy_ns", m.copy_ns},
            {"kernels", m.kernels},
            {"gpu_ns_by_source",
             {{"analytic", m.kernel_ns_by_source[1]},
              {"catalog", m.kernel_ns_by_source[2]},
              {"counters", m.kernel_ns_by_source[3]},
              {"unknown", m.kernel_ns_by_source[0]}}},
            {"analytic_flops", m.analytic_flops},
            {"catalog_flops", m.catalog_flops},
            {"counter_flops", m.counter_flops}};
  if (m.roofs) j["roofs"] = RoofsJson(*m.roofs);
  if (m.mfu_capacity > 0) {
    j["utilization"] = {
        {"path", m.mfu_path ? std::string(analyzers::ComputePathName(*m.mfu_path)) : "mixed"},
        {"nominal_peak", m.mfu_path ? json(m.nominal_peak) : json(nullptr)},
        {"nominal_source", "per GPU"},
        {"capacity_flops", m.mfu_capacity},
        {"counted_flops_of_peak", NumberOrNull(m.mfu)}};
  } else {
    j["utilization"] = nullptr;
  }
  return j;
}

// What a trace keeps when only the run is reported in full: who it is, how it was read and
// ended, its totals; the tables and sections are the merged run's.
const std::set<std::string> kTraceFactKeys = {
    "path",       "read",     "process", "span_ns",  "records",    "lost",     "lost_total",
    "lost_exact", "warnings", "end",     "metadata", "gpu_timing", "launches", "gpu_kernel_records",
    "summary"};

}  // namespace

json AggregateJson(const analyzers::RunAggregate& a) {
  json models = json::array();
  for (size_t i = 0; i < a.models.size(); ++i) models.push_back(ModelJson(a.models[i], i));
  json kernels = json::array();
  for (const analyzers::MergedKernel& k : a.kernels) {
    json j = KernelJson(k.group, a.kernel_gpu_ns);
    j["traces"] = k.traces;
    kernels.push_back(std::move(j));
  }
  json libraries = json::array();
  for (const analyzers::MergedLibrary& l : a.libraries) {
    json j = LibraryJson(l.group);
    j["traces"] = l.traces;
    libraries.push_back(std::move(j));
  }
  return {{"traces", a.traces},
          {"processes", a.processes},
          {"ranks", a.ranks},
          {"hosts", a.hosts},
          {"gpus", a.gpus},
          {"first_realtime_ns", a.first_realtime_ns},
          {"last_realtime_ns", a.last_realtime_ns},
          {"wall_ns", a.last_realtime_ns - a.first_realtime_ns},
          {"launches", a.launches},
          {"kernel_gpu_ns", a.kernel_gpu_ns},
          {"kernel_flops", a.kernel_flops},
          {"analytic_flops", a.analytic_flops},
          {"gpu_busy_ns", a.gpu_busy_ns},
          {"gpu_window_ns", a.gpu_window_ns},
          {"busy_fraction", NumberOrNull(a.busy_fraction)},
          {"counted_flops_of_peak", NumberOrNull(a.mfu)},
          {"lost", a.lost},
          {"mixed_devices", a.mixed_models()},
          {"notes", a.notes},
          {"devices", models},
          {"kernels", kernels},
          {"library_calls", libraries}};
}

json RanksJson(const analyzers::RankTable& table, const analyzers::StragglerReport& stragglers) {
  json rows = json::array();
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const analyzers::RankRow& r = table.rows[i];
    json top = nullptr;
    if (!r.top_kernel.empty()) {
      const auto label = table.kernel_labels.find(r.top_kernel);
      top = {{"label", label != table.kernel_labels.end() ? label->second : r.top_kernel},
             {"gpu_ns", r.top_kernel_ns},
             {"share", r.kernel_ns > 0 ? json(r.top_kernel_ns / r.kernel_ns) : json(nullptr)}};
    }
    json marks = json::array();
    for (const analyzers::Straggler& s : stragglers.stragglers) {
      if (s.row == i) marks.push_back(std::string(analyzers::StragglerMetricName(s.metric)));
    }
    json step = nullptr;
    if (r.step) {
      step = {{"region", table.step_region},
              {"count", r.step->count},
              {"mean_ns", r.step->mean_ns},
              {"p50_ns", r.step->p50_ns}};
    }
    rows.push_back({{"rank", r.rank},
                    {"host", r.host},
                    {"pid", r.pid},
                    {"local_rank", r.local_rank},
                    {"traces", r.traces.size()},
                    {"start_offset_ns", r.start_offset_ns},
                    {"first_realtime_ns", r.first_realtime_ns},
                    {"span_ns", r.span_ns},
                    {"gpu_busy_ns", r.gpu_busy_ns},
                    {"gpu_window_ns", r.gpu_window_ns},
                    {"busy_fraction", NumberOrNull(r.busy_fraction)},
                    {"kernel_gpu_ns", r.kernel_ns},
                    {"flops", r.flops},
                    {"flops_per_s", NumberOrNull(r.flops_per_s)},
                    {"top_kernel", top},
                    {"straggler", marks},
                    {"analytic_flops", r.analytic_flops},
                    {"counted_flops_of_peak", NumberOrNull(r.mfu)},
                    {"launches", r.launches},
                    {"step", step},
                    {"lost", r.lost},
                    {"end", r.end}});
  }
  return rows;
}

json StragglersJson(const analyzers::StragglerReport& report, const analyzers::RankTable& ranks) {
  json list = json::array();
  for (const analyzers::Straggler& s : report.stragglers) {
    const analyzers::RankRow& r = ranks.rows.at(s.row);
    list.push_back({{"rank", r.rank},
                    {"host", r.host},
                    {"pid", r.pid},
                    {"metric", std::string(analyzers::StragglerMetricName(s.metric))},
                    {"value", s.value},
                    {"reference", s.reference},
                    {"reference_is_median", s.reference_is_median},
                    {"threshold", s.threshold},
                    {"excess", s.excess},
                    {"busy_fraction", NumberOrNull(s.busy_fraction)},
                    {"busy_reference", NumberOrNull(s.busy_reference)},
                    {"kernel", s.kernel_label},
                    {"kernel_ns", s.kernel_ns},
                    {"kernel_reference_ns", s.kernel_reference_ns},
                    {"sentence", s.sentence}});
  }
  return list;
}

void AddRunSections(json& doc, const RunViews& views) {
  json aggregate = AggregateJson(views.aggregate);
  aggregate["step_region"] =
      views.ranks.step_region.empty() ? json(nullptr) : json(views.ranks.step_region);
  aggregate["straggler_checks"] = views.stragglers.checks;
  aggregate["regime"] = RunRegimeJson(views.regime);
  aggregate["flop_coverage"] = FlopCoverageJson(views.coverage);
  aggregate["unknown_flops_kernels"] = UnknownFlopsKernelsJson(views.coverage);
  aggregate["lost_exact"] = views.lost.exact;
  if (!views.rollup.empty()) aggregate["kernel_rollup"] = KernelRollupJson(views.rollup);
  for (const std::string& note : views.ranks.notes) aggregate["notes"].push_back(note);
  aggregate["traces_in_full"] = views.traces_in_full;
  doc["aggregate"] = std::move(aggregate);
  doc["advice"] = AdviceJson(views.advice);
  doc["ranks"] = RanksJson(views.ranks, views.stragglers);
  doc["stragglers"] = StragglersJson(views.stragglers, views.ranks);
  if (!views.steps.empty()) {
    json steps = json::array();
    for (const StepAcrossRanks& s : views.steps) {
      steps.push_back({{"step", s.skew.number},
                       {"warmup", s.warmup},
                       {"ranks", s.skew.ranks},
                       {"fastest_ns", s.skew.fastest_ns},
                       {"slowest_ns", s.skew.slowest_ns},
                       {"skew_ns", s.skew.skew_ns()},
                       {"mean_ns", s.mean_ns},
                       {"straggler_rank", s.straggler_rank >= 0 ? json(s.straggler_rank) : json()},
                       {"straggler_trace", s.straggler_trace}});
    }
    doc["steps_across_ranks"] = std::move(steps);
  }
  if (json skew = CommSkewJson(views.comm_skew); !skew.is_null()) {
    doc["communication_across_ranks"] = std::move(skew);
  }
}

void AddRunSections(json& doc, const std::vector<TraceReport>& traces) {
  if (UsableTraces(traces) < 2) return;
  AddRunSections(doc, BuildRunViews(traces));
}

void KeepTraceFactsOnly(json& doc) {
  if (!doc.contains("traces") || !doc["traces"].is_array()) return;
  for (json& t : doc["traces"]) {
    if (!t.is_object()) continue;
    for (auto it = t.begin(); it != t.end();) {
      it = kTraceFactKeys.contains(it.key()) ? std::next(it) : t.erase(it);
    }
  }
}

}  // namespace flopspy::tools
