// An output of flopspy-report: text, JSON, CSV, HTML and the Chrome export each render the one
// report model (report_model.h), so they show the same kernels with the same figures.
#pragma once

#include <string>

#include "report/report_model.h"

namespace flopspy::tools {

struct SinkStatus {
  bool ok = true;
  std::string message;  // what was written, or why it could not be; "" for standard output
};

class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual SinkStatus Write(const ReportModel& model) = 0;
};

}  // namespace flopspy::tools
