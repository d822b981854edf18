// An output of flopspy-report that renders from the report model (the --json document,
// docs/report-json.md). The text report renders from the analysis structs instead; every other
// output (HTML, CSV) is a sink over the JSON, so it shows exactly what --json holds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flopspy::tools {

struct SinkStatus {
  bool ok = true;
  std::string message;  // what was written, or why it could not be
};

class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual SinkStatus Write(const nlohmann::json& report) = 0;
};

}  // namespace flopspy::tools
