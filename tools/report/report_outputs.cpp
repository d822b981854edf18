#include "report/report_outputs.h"

#include <memory>
#include <sstream>
#include <vector>

#include "flopspy/platform/terminal_text.h"
#include "report/chrome_sink.h"
#include "report/csv_report.h"
#include "report/html_report.h"
#include "report/json_report.h"

namespace flopspy::tools {

int WriteReportOutputs(const ReportModel& model, const ReportOutputs& outputs,
                       const std::function<bool(std::string_view)>& print, std::ostream& err) {
  int status = 0;
  std::ostringstream out;
  std::unique_ptr<ReportSink> standard;
  if (outputs.json) {
    standard = std::make_unique<JsonReportSink>(out);
  } else {
    standard = std::make_unique<TextReportSink>(outputs.text, out);
  }
  standard->Write(model);
  if (!print(out.str())) status = 1;

  std::vector<std::unique_ptr<ReportSink>> files;
  if (!outputs.html_path.empty())
    files.push_back(std::make_unique<HtmlReportSink>(outputs.html_path));
  if (!outputs.csv_dir.empty()) {
    files.push_back(std::make_unique<CsvReportSink>(outputs.csv_dir, outputs.inputs));
  }
  if (!outputs.chrome_path.empty()) {
    files.push_back(std::make_unique<ChromeReportSink>(outputs.chrome_path, outputs.chrome));
  }
  for (const auto& sink : files) {
    const SinkStatus written = sink->Write(model);
    err << "flopspy-report: " << platform::EscapeControls(written.message) << "\n";
    if (!written.ok) status = 1;
  }
  return status;
}

}  // namespace flopspy::tools
