// One trace read and summarised: the facts every report output starts from.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/analyzers/advice.h"
#include "flopspy/analyzers/call_sites.h"
#include "flopspy/analyzers/communication.h"
#include "flopspy/analyzers/launch_overhead.h"
#include "flopspy/analyzers/ranges.h"
#include "flopspy/analyzers/region_stats.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/steps.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/cpu_roofline/cpu_roofline_report.h"
#include "flopspy/gpu_roofline/ceilings.h"
#include "flopspy/gpu_roofline/device_properties.h"
#include "flopspy/trace/reader.h"
#include "report/kernel_rollup.h"

namespace flopspy::tools {

struct TraceReport {
  std::string path;
  bool header_ok = false;
  trace::FileHeader header{};
  std::string host;
  trace::ReadSummary read;  // how reading went (status, where it stopped, why)
  analyzers::TraceSummary summary;
  nlohmann::json metadata = nlohmann::json::object();  // metadata blocks merged in file order
  // The GPUs the process used (from its "devices" metadata) and their roofs, by device index.
  std::map<int32_t, gpuroof::DeviceProperties> devices;
  std::map<int32_t, analyzers::DeviceRoofs> roofs;
  analyzers::TraceAnalysis run;
  // Kernel time by family and name (BuildReportModel fills it, with the view options applied).
  KernelRollup rollup;
  std::vector<analyzers::Advice> advice;
  std::vector<analyzers::RegionStats> regions;
  // NVTX ranges and flopspy regions with their kernels, and the steps found
  // (docs/flopspy-report.md).
  analyzers::RangeReport ranges;
  analyzers::CallSiteReport call_sites;  // docs/call-sites.md
  // NCCL calls with their kernels' times, and their table (docs/nccl.md).
  analyzers::CommLog comm_log;
  analyzers::CommReport communication;
  analyzers::StepReport steps;
  // CPU roofline points (FLOPSPY_CPU_ROOFLINE) and the chart they make with the machine's roofs.
  std::vector<cpuroof::LabeledSample> cpu_samples;
  std::optional<cpuroof::CpuRooflineChart> cpu_roofline;
  analyzers::LaunchOverheadReport launch_overhead;  // empty() without launches or GPU work
  // What the report refused in the file beside the reading's own stop (metadata nested too
  // deep): also in summary.warnings; flopspy-report says each on stderr.
  std::vector<std::string> problems;

  bool usable() const { return header_ok && read.records > 0; }
  // Wall time covered by the trace's events, 0 if none.
  uint64_t duration_ns() const;
};

// Metadata nested deeper than this is refused: flopspy writes a few levels, and every
// consumer of the merged metadata (merge_patch, the JSON writer, the CSV flattening) recurses
// once per level.
inline constexpr int kMaxMetadataDepth = 64;

struct ReportOptions {
  // Measured GPU ceilings (`flopspy ceilings --gpu`); preferred over datasheet roofs when present.
  std::optional<gpuroof::CeilingsFile> ceilings;
  analyzers::RegimeThresholds thresholds;
  // Run the launch-overhead analysis on a second thread beside the others, a chunk at a time (the
  // results are the same). AnalyzeTraces sets it when there are fewer files than cores.
  bool parallel_analyses = false;
  // --step-range and --model-flops-per-step; without the latter, the trace's config.model_flops
  // (FLOPSPY_MODEL_FLOPS) when it has one.
  analyzers::StepOptions steps;
  // --frames-from; AnalyzeTrace sets the native resolver (libdw) itself.
  analyzers::CallSiteOptions call_sites;
  // --inductor-cache: figures of Triton kernels the catalog cannot model (may be null).
  std::shared_ptr<const analyzers::ExternalKernelFigures> kernel_figures;
};

// Where measured ceilings are kept: $FLOPSPY_CEILINGS, else $XDG_CACHE_HOME/flopspy (or
// ~/.cache/flopspy) /gpu-ceilings.json.
std::string DefaultCeilingsPath();

// Reads a trace completely, in one pass: its summary, its run analysis, its devices' roofs.
// `progress` (optional) gets bytes read so far and the file size.
TraceReport AnalyzeTrace(const std::string& path, const ReportOptions& options = {},
                         const std::function<void(uint64_t, uint64_t)>& progress = nullptr);
// The same from an open reader (memory in tests and the fuzzer); `path` only names it.
TraceReport AnalyzeTrace(trace::TraceReader reader, const std::string& path,
                         const ReportOptions& options = {},
                         const std::function<void(uint64_t, uint64_t)>& progress = nullptr);

// Several traces, read in parallel (one thread per core, never more than the files).
// `progress` (optional) gets a file's index in `paths` and its bytes read so far, from the
// reading threads.
std::vector<TraceReport> AnalyzeTraces(
    const std::vector<std::string>& paths, const ReportOptions& options = {},
    const std::function<void(size_t, uint64_t)>& progress = nullptr);

}  // namespace flopspy::tools
