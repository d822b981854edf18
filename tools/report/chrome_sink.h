// --chrome FILE: the Chrome/Perfetto timeline of the model's traces (chrome_export.h), written
// to a new file put in place at the end, never half written; gzip when FILE ends in ".gz".
#pragma once

#include <string>
#include <utility>

#include "report/chrome_export.h"
#include "report/report_sink.h"

namespace flopspy::tools {

class ChromeReportSink : public ReportSink {
 public:
  explicit ChromeReportSink(std::string path, ChromeExportOptions options = {})
      : path_(std::move(path)), options_(std::move(options)) {}
  SinkStatus Write(const ReportModel& model) override;

 private:
  std::string path_;
  ChromeExportOptions options_;
};

}  // namespace flopspy::tools
