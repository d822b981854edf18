// The outputs one flopspy-report command asked for, each a sink over the one report model: the
// report on standard output (text, or --json), then the files (--html, --csv, --chrome).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "report/chrome_export.h"
#include "report/output_files.h"
#include "report/report_model.h"
#include "report/text_report.h"

namespace flopspy::tools {

struct ReportOutputs {
  bool json = false;           // the JSON document on standard output instead of text
  TextOptions text;            // how the text report is written
  std::string html_path;       // --html
  std::string csv_dir;         // --csv
  std::string chrome_path;     // --chrome
  ChromeExportOptions chrome;  // --window
  InputFiles inputs;           // the traces read, which no output may replace
};

// Renders `model` to every output in `outputs`: the standard-output report handed to `print`
// (false when it could not be written), then each file, said in one line on `err`. Returns the
// exit status: 0, or 1 when an output could not be written.
int WriteReportOutputs(const ReportModel& model, const ReportOutputs& outputs,
                       const std::function<bool(std::string_view)>& print, std::ostream& err);

}  // namespace flopspy::tools
