// Training steps, found without code changes, and the figures of each (docs/flopspy-report.md,
// "Steps"). Sources, the first that works: ranges named like steps (NVTX or flopspy regions,
// or the user's --step-range pattern); the optimizer's kernels (a step ends at each burst);
// repeated launches of one executable graph; the period of the kernel launch sequence.
// Warm-up steps (the first ones, much slower or with extra kernels) are set apart from the
// steady-state figures.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flopspy/analyzers/ranges.h"
#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::analyzers {

enum class StepSource : uint8_t { kNone, kRanges, kOptimizer, kGraph, kPeriod };
std::string_view StepSourceName(StepSource source);  // "none", "ranges", "optimizer", ...

struct StepOptions {
  std::string pattern;              // --step-range: an ECMAScript regex searched in range names
  double model_flops_per_step = 0;  // --model-flops-per-step / FLOPSPY_MODEL_FLOPS; 0: not given
};

struct Step {
  uint32_t number = 0;  // from 1, per process
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;
  bool warmup = false;
  uint64_t kernels = 0;
  double kernel_ns = 0;
  double busy_ns = 0;                 // union of kernel and copy intervals inside the step
  std::array<double, 4> regime_ns{};  // kernel time by Regime (unknown, compute, memory, overhead)
  double flops = 0;                   // counted
  double flops_ns = 0;                // kernel time whose FLOPs are known
  double launch_bound_ns = 0;         // kernels that ran shorter than their launch call took
  uint64_t copies = 0;
  double copy_bytes = 0;
  double copy_ns = 0;
  double time_ns() const { return end_ns > begin_ns ? static_cast<double>(end_ns - begin_ns) : 0; }
};

// Figures over a set of steps (the steady ones, or all when every step is warm-up).
struct StepSummary {
  uint64_t steps = 0;
  double mean_ns = 0, p50_ns = 0, p95_ns = 0;
  double busy_share = 0;          // busy time over step time
  double flops = 0;               // counted FLOPs per step (mean)
  double flop_rate = 0;           // achieved FLOP/s of counted FLOPs, over the time that has them
  double flop_coverage = 0;       // share of kernel time whose FLOPs are known
  double launch_bound_share = 0;  // of kernel time
  std::array<double, 4> regime_share{};  // of kernel time
  std::optional<double> mfu;             // model FLOPs per step / mean step time / peak
};

struct StepReport {
  StepSource source = StepSource::kNone;
  std::string detail;    // the range name, optimizer kernel, graph or period that made the steps
  std::string basis;     // "cpu" (range edges) or "gpu" (kernel starts)
  std::string why_none;  // when no steps were found
  std::vector<Step> steps;
  uint32_t warmup = 0;  // the first steps, set apart
  StepSummary steady;
  std::vector<uint32_t> slowest;  // steady step numbers, slowest first (up to 3)
  double model_flops_per_step = 0;
  double peak_flops = 0;  // the roof MFU is computed against; 0 when unknown
  bool empty() const { return steps.empty(); }
};

// One step number across ranks (the run view's per-step table): its fastest and slowest time
// and the rank that took longest (the straggler), over the ranks that have that step.
struct StepSkew {
  uint32_t number = 0;
  uint32_t ranks = 0;  // how many ranks had this step
  double fastest_ns = 0;
  double slowest_ns = 0;
  size_t straggler = 0;  // index into the reports given
  double skew_ns() const { return slowest_ns - fastest_ns; }
};
// Steps of the same number across `ranks` (one StepReport per trace; null ones skipped).
std::vector<StepSkew> AlignSteps(std::span<const StepReport* const> ranks);

// Range names that mark steps: ProfilerStep#N, training_step_N, train_step, step, step N.
bool IsStepRangeName(std::string_view name);

// Steps of one trace. `analysis` must be finished (its activities' groups index its kernels).
// Throws std::regex_error for a bad options.pattern (the CLI checks it first).
StepReport FindSteps(const RangeLog& ranges, const TraceAnalysis& analysis,
                     const StepOptions& options = {});

// The kernel-derived sources alone, over kernels in launch order: each step as a half-open
// range of kernel indices; empty when the source finds fewer than two steps.
using KernelSpan = std::pair<size_t, size_t>;
// A step ends after each burst of optimizer kernels; kernels after the last burst are in none.
std::vector<KernelSpan> OptimizerSteps(std::span<const std::string_view> names);
bool IsOptimizerKernel(std::string_view name);
// The repeating unit of the sequence: each step starts at an occurrence of the earliest kernel
// signature seen once per step; the first step also holds what came before, the last what
// came after.
std::vector<KernelSpan> PeriodSteps(std::span<const uint32_t> signatures);

}  // namespace flopspy::analyzers
