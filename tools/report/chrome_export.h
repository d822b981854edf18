// Chrome/Perfetto Trace Event JSON: CPU slices per thread, GPU slices per device and stream,
// NVTX ranges as slices on their thread (start/end ranges as async slices), steps on a track
// of their own, flow arrows from each launch to its kernel (analyzers/correlator.h joins them in
// either order), process and thread names. Kernel slices carry the figures the analysis gave their
// signature: FLOPs and bytes per execution with their sources, intensity, achieved FLOP/s,
// % of the attainable roof and regime, and the call site that launched them; each GPU has counter
// tracks of its busy share and achieved FLOP/s (chrome_counters.h). Every pid and tid stays below
// 2^31 (chrome_ids.h). Opens in ui.perfetto.dev and chrome://tracing. Traces of several processes
// share one timeline, aligned on each trace's CLOCK_REALTIME anchor.
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "flopspy/analyzers/call_sites.h"
#include "flopspy/analyzers/steps.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "report/time_window.h"

namespace flopspy::tools {

struct ChromeExportResult {
  uint64_t events = 0;
  uint64_t flows = 0;                 // launch or copy call to its GPU work
  uint64_t kernel_launches = 0;       // launch slices written
  uint64_t kernel_flows = 0;          // of the flows, those from a kernel launch
  std::vector<std::string> problems;  // traces that could not be read completely, and why
};

struct ChromeTraceInput {
  std::string path;
  // The trace's analysis (TraceReport::run), for the kernel slices' figures and the GPUs'
  // counter tracks; null leaves the figures unknown and the counters out.
  const analyzers::TraceAnalysis* analysis = nullptr;
  // The trace's steps (TraceReport::steps): a track of their own; null leaves it out.
  const analyzers::StepReport* steps = nullptr;
  // The trace's call sites (TraceReport::call_sites, with `analysis`): each kernel launch and
  // GPU kernel slice gets its site's label as the "call_site" arg; null leaves it out.
  const analyzers::CallSiteReport* call_sites = nullptr;
};

struct ChromeExportOptions {
  // Only events that meet this stretch after the earliest trace's start (--window).
  std::optional<TimeWindow> window;
};

ChromeExportResult ExportChromeTrace(std::span<const ChromeTraceInput> traces,
                                     const ChromeExportOptions& options, std::ostream& out);

}  // namespace flopspy::tools
