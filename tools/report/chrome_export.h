// Chrome/Perfetto Trace Event JSON: CPU slices per thread, GPU slices per device and stream,
// flow arrows from each launch to its kernel (analyzers/correlator.h joins them in either
// order), process and thread names. Kernel slices carry the figures the analysis gave their
// signature: FLOPs and bytes per execution with their sources, intensity, achieved FLOP/s,
// % of the attainable roof and regime. Opens in
// ui.perfetto.dev and chrome://tracing. Traces of several processes share one timeline, aligned
// on each trace's CLOCK_REALTIME anchor.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::tools {

struct ChromeExportResult {
  uint64_t events = 0;
  uint64_t flows = 0;
  std::vector<std::string> problems;  // traces that could not be read completely, and why
};

struct ChromeTraceInput {
  std::string path;
  // The trace's analysis (TraceReport::run), for the kernel slices' figures; null leaves them
  // unknown.
  const analyzers::TraceAnalysis* analysis = nullptr;
};

ChromeExportResult ExportChromeTrace(std::span<const ChromeTraceInput> traces, std::ostream& out);

}  // namespace flopspy::tools
