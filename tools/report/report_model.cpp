#include "report/report_model.h"

#include <map>
#include <utility>

#include "flopspy/analyzers/advice.h"
#include "report/call_sites_json.h"
#include "report/call_sites_view.h"
#include "report/group_rollup.h"
#include "report/json_report.h"
#include "report/run_json.h"

namespace flopspy::tools {
namespace {

// --by-call-site: each trace's kernel rows under its call sites (docs/report-json.md).
void AddByCallSiteJson(nlohmann::json& doc, const std::vector<TraceReport>& traces) {
  if (!doc.contains("traces") || !doc["traces"].is_array()) return;
  nlohmann::json& list = doc["traces"];
  for (size_t i = 0; i < traces.size() && i < list.size(); ++i) {
    if (!traces[i].call_sites.empty()) list[i]["by_call_site"] = ByCallSiteJson(traces[i]);
  }
}

}  // namespace

const nlohmann::json& ReportModel::Json() const {
  if (!json_) {
    json_ = diff ? BuildDiffJson(diff->a, diff->b, diff->diff)
                 : BuildJsonReport(traces, run ? &*run : nullptr);
    if (!diff) (*json_)["view"] = ViewOptionsJson(view);
    if (!diff) KeepTopKernelRows(*json_, view);  // --top in JSON, CSV and HTML alike
    if (!diff && view.by_call_site) AddByCallSiteJson(*json_, traces);
    if (run && !run->traces_in_full) KeepTraceFactsOnly(*json_);
  }
  return *json_;
}

ReportModel BuildReportModel(std::vector<TraceReport> traces,
                             const analyzers::RegimeThresholds& thresholds,
                             const ViewOptions& view) {
  ReportModel model;
  model.view = view;
  model.traces = std::move(traces);
  // --group-by range|step rows read the activities' kernel indices: before the rows move.
  std::map<std::string, RollupRow> run_groups;
  bool run_groups_found = false;
  for (TraceReport& t : model.traces) {
    bool found = false;
    std::map<std::string, RollupRow> groups = GroupRollupRows(t, view, &found);
    MergeGroupRollupRows(run_groups, groups);
    run_groups_found = run_groups_found || found;
    // The advice names the lines that launched its kernels (docs/advice.md, "Call sites").
    analyzers::AddCallSiteAdvice(t.advice, t.call_sites, t.steps.steps.size());
    // Call sites name kernel rows by index: mapped to the reordered rows after.
    const std::vector<KernelRowKey> kernel_keys = KernelRowKeys(t.run);
    ApplyViewOptions(t.run.kernels, view);
    RemapCallSiteKernels(t.call_sites, kernel_keys, t.run);
    t.rollup = BuildKernelRollup(t.run.kernels, view);
    SetGroupRollup(t.rollup, std::move(groups), found, view);
  }
  for (const TraceReport& t : model.traces) model.trace_files.push_back(t.path);
  if (UsableTraces(model.traces) > 1) {
    model.run = BuildRunViews(model.traces, thresholds);
    std::vector<analyzers::KernelGroup> merged;
    for (const analyzers::MergedKernel& k : model.run->aggregate.kernels) merged.push_back(k.group);
    model.run->rollup = BuildKernelRollup(merged, view);
    SetGroupRollup(model.run->rollup, std::move(run_groups), run_groups_found, view);
    model.run->traces_in_full = view.per_trace || UsableTraces(model.traces) <= kFullTracesUpTo;
  }
  return model;
}

ReportModel BuildDiffModel(DiffRun a, DiffRun b, analyzers::DiffMatch match) {
  ReportModel model;
  model.diff = std::make_unique<DiffModel>();
  model.diff->diff = DiffOf(a, b, match);
  model.diff->a = std::move(a);
  model.diff->b = std::move(b);
  for (const DiffRun* run : {&model.diff->a, &model.diff->b}) {
    for (const TraceReport& t : run->traces) model.trace_files.push_back(t.path);
  }
  return model;
}

}  // namespace flopspy::tools
