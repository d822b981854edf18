// The one typed model every output of flopspy-report renders (docs/flopspy-report.md): the
// traces read, one TraceReport each; the run views when two or more could be read; or, for
// --diff, the two runs and their comparison. main.cpp builds it once; each output (text, JSON,
// CSV, HTML, Chrome) is a ReportSink over it, and the --json document is its serialisation.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/analyzers/run_diff.h"
#include "report/diff_report.h"
#include "report/run_views.h"
#include "report/trace_report.h"
#include "report/view_options.h"

namespace flopspy::tools {

// Two runs compared (--diff A B).
struct DiffModel {
  DiffRun a;
  DiffRun b;
  analyzers::RunDiff diff;
};

// Move-only: the run views point into `traces` (a moved vector keeps its elements in place).
class ReportModel {
 public:
  ReportModel() = default;
  ReportModel(ReportModel&&) = default;
  ReportModel& operator=(ReportModel&&) = default;
  ReportModel(const ReportModel&) = delete;
  ReportModel& operator=(const ReportModel&) = delete;

  std::vector<TraceReport> traces;  // in the order given; empty for a comparison
  std::optional<RunViews> run;      // when two or more traces could be read
  std::unique_ptr<DiffModel> diff;  // --diff: the comparison instead of `traces`
  // The files read, in order: the Chrome export streams their events again.
  std::vector<std::string> trace_files;
  // --top, --sort, --group-by, --filter: already applied to the traces' kernel rows and
  // rollups; the outputs read `top` for their table lengths, and the JSON states them.
  ViewOptions view;

  // The --json document (docs/report-json.md), serialised on first use and kept, so that the
  // sinks that read it (CSV, HTML) share one.
  const nlohmann::json& Json() const;

 private:
  mutable std::optional<nlohmann::json> json_;
};

// `view` must be valid (ViewOptionsError).
ReportModel BuildReportModel(std::vector<TraceReport> traces,
                             const analyzers::RegimeThresholds& thresholds = {},
                             const ViewOptions& view = {});
ReportModel BuildDiffModel(DiffRun a, DiffRun b,
                           analyzers::DiffMatch match = analyzers::DiffMatch::kName);

}  // namespace flopspy::tools
