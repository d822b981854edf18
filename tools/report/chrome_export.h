// Chrome/Perfetto Trace Event JSON: CPU slices per thread, GPU slices per device and stream,
// flow arrows from each launch to its kernel, process and thread names. Opens in
// ui.perfetto.dev and chrome://tracing. Traces of several processes share one timeline, aligned
// on each trace's CLOCK_REALTIME anchor.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace flopspy::tools {

struct ChromeExportResult {
  uint64_t events = 0;
  uint64_t flows = 0;
  std::vector<std::string> problems;  // traces that could not be read completely, and why
};

ChromeExportResult ExportChromeTrace(const std::vector<std::string>& trace_paths,
                                     std::ostream& out);

}  // namespace flopspy::tools
