// Many traces as one run: kernel signatures and library shapes merged across processes, placed
// again against the roofs of their GPU model, and the run's totals (processes, ranks, hosts,
// GPUs, GPU busy, kernel time, FLOPs, MFU over every device). docs/flopspy-report.md, "Many
// traces", says what each figure means.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flopspy/analyzers/region_stats.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::analyzers {

// One trace as the many-trace views need it. The pointers are to data the caller keeps alive
// (null: none). Times are the trace's own CLOCK_MONOTONIC nanoseconds.
struct TraceFacts {
  std::string label;  // the file, for notes
  std::string host;
  uint32_t pid = 0;
  uint32_t parent_pid = 0;
  bool forked = false;  // a child the process forked (kFileForkedChild)
  int32_t rank = -1;
  int32_t local_rank = -1;
  uint64_t start_realtime_ns = 0;   // the CLOCK_REALTIME / CLOCK_MONOTONIC anchor pair read at
  uint64_t start_monotonic_ns = 0;  // start: realtime = monotonic + (realtime0 - monotonic0)
  uint64_t first_ns = UINT64_MAX;   // first and last event
  uint64_t last_ns = 0;
  uint64_t gpu_busy_ns = 0;    // union of GPU work, pooled over the process's devices
  uint64_t gpu_window_ns = 0;  // first GPU work to last, pooled over devices
  uint64_t lost = 0;           // records lost
  std::string end;             // how it ended, in words ("exit 0", "signal 9", "incomplete")
  const TraceAnalysis* run = nullptr;
  const std::vector<RegionStats>* regions = nullptr;
  const std::map<int32_t, DeviceRoofs>* roofs = nullptr;  // by device index
  // A name for each GPU that is the same in every process using it (its UUID), by index;
  // devices missing here are told apart by host, pid and index.
  std::map<int32_t, std::string> device_ids;

  // Nanoseconds to add to this trace's monotonic times to get CLOCK_REALTIME.
  int64_t RealtimeOffset() const {
    return static_cast<int64_t>(start_realtime_ns - start_monotonic_ns);
  }
  bool HasEvents() const { return first_ns != UINT64_MAX && last_ns >= first_ns; }
};

// One GPU model of the run: its roofs (those of the first GPU of the model seen, measured
// ceilings included) and the activity of every GPU of that model, summed.
struct DeviceModel {
  std::string name;  // the roofs' name, "unknown GPU" without roofs
  int sm_count = 0;
  std::optional<DeviceRoofs> roofs;
  uint32_t gpus = 0;  // distinct GPUs
  double active_ns = 0;
  double kernel_ns = 0;
  double copy_ns = 0;
  uint64_t kernels = 0;
  std::array<double, 4> kernel_ns_by_source{};  // by trace::FigureSource
  double analytic_flops = 0;
  double catalog_flops = 0;
  double counter_flops = 0;
  // MFU over the model's GPUs: their analytic FLOPs over the sum of active span x nominal
  // peak of each GPU that has a utilization figure. nullopt without analytic FLOPs.
  double mfu_capacity = 0;  // sum of seconds x peak FLOP/s
  std::optional<double> mfu;
  std::optional<ComputePath> mfu_path;  // the path of every GPU's peak, when they agree
  double nominal_peak = 0;              // that path's peak, when they agree
};

// A kernel signature (name, grid, block, catalog shape) on one GPU model, over every trace.
struct MergedKernel {
  KernelGroup group;    // group.device is the index of the model in RunAggregate::models
  uint32_t traces = 0;  // how many traces ran it
};

// A cuBLAS/cuBLASLt routine and shape (m, n, k, batch, types, transposes, epilogue) on one GPU
// model, over every trace.
struct MergedLibrary {
  LibraryGroup group;  // group.device is the model index
  uint32_t traces = 0;
};

struct RunAggregate {
  size_t traces = 0;     // traces given
  size_t processes = 0;  // traces that could be read
  size_t ranks = 0;      // distinct ranks (0 when no trace has one)
  size_t hosts = 0;
  size_t gpus = 0;
  std::vector<DeviceModel> models;
  std::vector<MergedKernel> kernels;     // longest GPU time first
  std::vector<MergedLibrary> libraries;  // longest GPU time first
  uint64_t launches = 0;
  double kernel_gpu_ns = 0;
  double kernel_flops = 0;  // FLOPs of the timed kernel executions with a known figure
  double analytic_flops = 0;
  uint64_t gpu_busy_ns = 0;
  uint64_t gpu_window_ns = 0;
  std::optional<double> busy_fraction;  // busy over window, pooled over every GPU
  std::optional<double> mfu;            // over every GPU with a utilization figure
  double mfu_capacity = 0;
  uint64_t lost = 0;
  // The run on the wall clock: the earliest first event to the latest last event, each trace's
  // monotonic times moved to CLOCK_REALTIME by its anchor pair.
  uint64_t first_realtime_ns = 0;
  uint64_t last_realtime_ns = 0;
  std::vector<std::string> notes;  // mixed GPU models, work that could not be placed...

  bool mixed_models() const { return models.size() > 1; }
};

// Merges the traces' analyses. Groups whose model has no roofs stay unplaced (a note says so).
RunAggregate AggregateRun(std::span<const TraceFacts> traces,
                          const RegimeThresholds& thresholds = {});

// The merged run as one analysis, for what takes one (advice): the merged groups (their device
// is the model's index), every trace's copies; and the roofs of each model by that index.
TraceAnalysis MergedAnalysis(const RunAggregate& run, std::span<const TraceFacts> traces);
std::map<int32_t, DeviceRoofs> ModelRoofs(const RunAggregate& run);

// Keys that say when two groups are the same work; the GPU model is not part of them.
std::string KernelKey(const KernelGroup& g);
std::string LibraryKey(const LibraryGroup& g);
// A short name: the catalog's functor and the function's base name, with the shape in
// brackets ("MulFunctor · vectorized_elementwise_kernel [n=1000]").
std::string KernelShortLabel(const KernelGroup& g);
// "cublasGemmEx 4096x4096x4096 b8 R_16BF->R_32F"
std::string LibraryShortLabel(const LibraryGroup& g);

}  // namespace flopspy::analyzers
