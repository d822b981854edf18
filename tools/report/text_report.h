// The terminal report.
#pragma once

#include <ostream>
#include <vector>

#include "report/report_sink.h"
#include "report/run_views.h"
#include "report/trace_report.h"
#include "report/view_options.h"

namespace flopspy::tools {

struct TextOptions {
  bool color = false;  // ANSI colour, only when writing to a terminal
  ViewOptions view;    // the model's --top, --sort, --group-by (already applied to its rows)
};

// The run section comes from `run` when given (the model's), else from views built here when
// two or more traces are readable.
void WriteTextReport(const std::vector<TraceReport>& traces, const TextOptions& options,
                     std::ostream& out, const RunViews* run = nullptr);

// The terminal report of the model (of a comparison for --diff) on `out`.
class TextReportSink : public ReportSink {
 public:
  TextReportSink(const TextOptions& options, std::ostream& out) : options_(options), out_(out) {}
  SinkStatus Write(const ReportModel& model) override;

 private:
  TextOptions options_;
  std::ostream& out_;
};

}  // namespace flopspy::tools
