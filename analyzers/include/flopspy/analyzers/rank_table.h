// One row per rank of a distributed job (per process tree when there are no ranks): where it
// sits on the wall clock, how busy its GPUs were, its kernel time, FLOPs, MFU and step time.
// Traces are aligned on their CLOCK_REALTIME anchors; the traces of one rank (a process and the
// children it forked, which inherit its rank) make one row. docs/flopspy-report.md, "Many
// traces", has the rules.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flopspy/analyzers/run_merge.h"

namespace flopspy::analyzers {

struct StepTime {
  uint64_t count = 0;  // completed regions
  double mean_ns = 0;
  double p50_ns = 0;
};

struct RankRow {
  int32_t rank = -1;  // -1: no rank; the row is the process tree of `pid` on `host`
  std::string host;   // of the first trace (the process that was not forked)
  uint32_t pid = 0;
  int32_t local_rank = -1;
  std::vector<size_t> traces;  // indices into the input, the first one first
  // The first trace's CLOCK_REALTIME start minus the earliest start of any trace.
  int64_t start_offset_ns = 0;
  // First event to last event over the row's traces, on the wall clock.
  uint64_t first_realtime_ns = 0;
  uint64_t span_ns = 0;
  uint64_t gpu_busy_ns = 0;
  uint64_t gpu_window_ns = 0;
  std::optional<double> busy_fraction;
  double kernel_ns = 0;
  double flops = 0;                   // timed kernel executions with a known FLOP figure
  double flops_ns = 0;                // GPU time of those executions: the basis of flops_per_s
  std::optional<double> flops_per_s;  // achieved: flops over flops_ns, none without FLOPs
  double analytic_flops = 0;
  double mfu_capacity = 0;  // sum over its GPUs of active seconds x nominal peak
  std::optional<double> mfu;
  uint64_t launches = 0;
  std::optional<StepTime> step;  // of RankTable::step_region
  uint64_t lost = 0;
  std::string end;  // the first trace's end; other traces' problems are added ("; 1 child ...")
  // Kernel GPU time per KernelKey, for telling where a straggler's time goes.
  std::map<std::string, double> kernel_ns_by_key;
  // The kernel (KernelKey) with the most GPU time in the row; "" without kernel time.
  std::string top_kernel;
  double top_kernel_ns = 0;

  // "rank 3", or "pid 4242 on node1" without a rank.
  std::string Name() const;
};

struct RankTable {
  std::vector<RankRow> rows;  // by rank, then host and pid
  uint64_t earliest_start_realtime_ns = 0;
  // The marked region taken as the step: the name most ranks have (then the most completed
  // regions, then the most time). Empty when no trace has a region.
  std::string step_region;
  std::map<std::string, std::string> kernel_labels;  // KernelKey -> short label
  std::vector<std::string> notes;
};

// Rows of the readable traces (those with `run` set).
RankTable BuildRankTable(std::span<const TraceFacts> traces);

}  // namespace flopspy::analyzers
