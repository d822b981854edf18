// flopspy-report --html FILE: the report as one self-contained HTML page (inline CSS, script
// and SVG; nothing fetched), rendered from the report model (docs/report-html.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/report_sink.h"

namespace flopspy::tools {

// The page for a report document as BuildJsonReport makes it.
std::string RenderHtmlReport(const nlohmann::json& report);

class HtmlReportSink : public ReportSink {
 public:
  explicit HtmlReportSink(std::string path) : path_(std::move(path)) {}
  SinkStatus Write(const ReportModel& model) override;

 private:
  std::string path_;
};

}  // namespace flopspy::tools
