#include "report/report_model.h"

#include <utility>

#include "report/json_report.h"
#include "report/run_json.h"

namespace flopspy::tools {

const nlohmann::json& ReportModel::Json() const {
  if (!json_) {
    json_ = diff ? BuildDiffJson(diff->a, diff->b, diff->diff)
                 : BuildJsonReport(traces, run ? &*run : nullptr);
    if (!diff) (*json_)["view"] = ViewOptionsJson(view);
    if (!diff) KeepTopKernelRows(*json_, view);  // --top in JSON, CSV and HTML alike
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
  for (TraceReport& t : model.traces) {
    ApplyViewOptions(t.run.kernels, view);
    t.rollup = BuildKernelRollup(t.run.kernels, view);
  }
  for (const TraceReport& t : model.traces) model.trace_files.push_back(t.path);
  if (UsableTraces(model.traces) > 1) {
    model.run = BuildRunViews(model.traces, thresholds);
    std::vector<analyzers::KernelGroup> merged;
    for (const analyzers::MergedKernel& k : model.run->aggregate.kernels) merged.push_back(k.group);
    model.run->rollup = BuildKernelRollup(merged, view);
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
