// --chrome FILE: the Chrome/Perfetto timeline of the model's traces (chrome_export.h), written
// to a new file put in place at the end, never half written.
#pragma once

#include <string>
#include <utility>

#include "report/report_sink.h"

namespace flopspy::tools {

class ChromeReportSink : public ReportSink {
 public:
  explicit ChromeReportSink(std::string path) : path_(std::move(path)) {}
  SinkStatus Write(const ReportModel& model) override;

 private:
  std::string path_;
};

}  // namespace flopspy::tools
