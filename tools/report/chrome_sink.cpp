#include "report/chrome_sink.h"

#include <fmt/format.h>

#include "flopspy/platform/output_file.h"
#include "flopspy/platform/safe_file.h"
#include "report/chrome_export.h"

namespace flopspy::tools {

SinkStatus ChromeReportSink::Write(const ReportModel& model) {
  platform::OutputFile file;
  std::string error;
  if (!file.Open(path_, platform::kSharedFileMode, &error)) return {false, error};
  // Each file with its analysis when the model has it (not in a comparison).
  std::vector<ChromeTraceInput> inputs;
  for (size_t i = 0; i < model.trace_files.size(); ++i) {
    const bool analysed = i < model.traces.size() && model.traces[i].path == model.trace_files[i];
    inputs.push_back({model.trace_files[i], analysed ? &model.traces[i].run : nullptr});
  }
  const ChromeExportResult r = ExportChromeTrace(inputs, file.stream());
  if (!file.Commit(&error)) return {false, error};
  return {true,
          fmt::format("wrote {} ({} events, {} launch-to-kernel flows)", path_, r.events, r.flows)};
}

}  // namespace flopspy::tools
