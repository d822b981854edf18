#include "report/chrome_sink.h"

#include <fmt/format.h>

#include <optional>

#include "flopspy/platform/output_file.h"
#include "flopspy/platform/safe_file.h"
#include "report/gzip_stream.h"

namespace flopspy::tools {

SinkStatus ChromeReportSink::Write(const ReportModel& model) {
  platform::OutputFile file;
  std::string error;
  if (!file.Open(path_, platform::kSharedFileMode, &error)) return {false, error};
  // Each file with its analysis when the model has it (not in a comparison).
  std::vector<ChromeTraceInput> inputs;
  for (size_t i = 0; i < model.trace_files.size(); ++i) {
    const bool analysed = i < model.traces.size() && model.traces[i].path == model.trace_files[i];
    inputs.push_back({model.trace_files[i], analysed ? &model.traces[i].run : nullptr,
                      analysed ? &model.traces[i].steps : nullptr,
                      analysed ? &model.traces[i].call_sites : nullptr});
  }
  const bool gzip = path_.ends_with(".gz");
  std::optional<GzipStream> compressed;
  if (gzip) compressed.emplace(file.stream());
  const ChromeExportResult r = ExportChromeTrace(
      inputs, options_, gzip ? static_cast<std::ostream&>(*compressed) : file.stream());
  if (gzip && !compressed->Finish()) {
    // A write error of the file itself is Commit's to say; this is zlib's.
    if (file.stream().good()) return {false, "cannot write " + path_ + ": gzip compression failed"};
  }
  if (!file.Commit(&error)) return {false, error};
  return {true, fmt::format("wrote {} ({} events, {} launch-to-GPU flows: {} of {} kernel "
                            "launches joined to their kernel{})",
                            path_, r.events, r.flows, r.kernel_flows, r.kernel_launches,
                            options_.window ? " in the window" : "")};
}

}  // namespace flopspy::tools
