// The regime of a whole run (docs/architecture.md, "Words the code uses"): compute, memory or
// overhead bound, decided from where its kernel time sits on the roofline and from whether the GPU
// waited for the CPU, with the numbers behind the verdict. docs/flopspy-report.md, "Run summary",
// states the rules.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

#include "flopspy/analyzers/launch_overhead.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::analyzers {

// Which rule decided.
enum class RunRegimeRule : uint8_t {
  kNoKernelTime = 0,  // unknown: no kernel has GPU time
  kStarved = 1,     // overhead bound: the launch-overhead verdict says the GPU waited for launches
  kUnplaced = 2,    // unknown: too much kernel time has no regime (FLOPs and bytes unknown)
  kKernelTime = 3,  // the regime holding the most kernel time
};
std::string_view RunRegimeRuleName(RunRegimeRule rule);

struct RunRegimeThresholds {
  // At or above this share of kernel time without a regime, the run's regime is unknown.
  double unplaced_fraction = 0.5;
};

struct RunRegime {
  Regime regime = Regime::kUnknown;
  RunRegimeRule rule = RunRegimeRule::kNoKernelTime;
  double kernel_ns = 0;  // GPU time of every kernel row: the basis of every share below
  // Kernel GPU time by the regime of its row (index: Regime; kUnknown also holds rows that
  // were not placed), and the same as fractions of kernel_ns. A compute or memory regime stands
  // only for the launches whose FLOPs are known (the same basis as the FLOP coverage by source):
  // a row's launches without FLOPs are unknown time.
  std::array<double, 4> kernel_ns_by_regime{};
  std::array<double, 4> kernel_fraction_by_regime{};
  // Of the unknown time, the part with no FLOP figure (the rest has FLOPs but no bytes or roof).
  double kernel_ns_without_flops = 0;
  // From the launch-overhead analysis (docs/launch-overhead.md), all devices pooled.
  OverheadVerdict overhead = OverheadVerdict::kUnknown;
  double busy_fraction = 0;
  double starved_fraction = 0;
  std::string sentence;  // the verdict with its numbers, for every output
};

// The part of a kernel row's GPU time its regime stands for: all of it for an overhead-bound row
// (a verdict that needs no FLOPs), only the launches whose FLOPs are known for a compute or
// memory regime; none for a row without a regime. The run's regime shares and the report's
// rollups both count time this way.
double RegimeTimeNs(const KernelGroup& g);

// `overhead`: the launch-overhead verdict of the same run (one trace's, or the traces' pooled
// with DecideOverheadVerdict).
RunRegime ClassifyRun(std::span<const KernelGroup> kernels, const OverheadJudgement& overhead,
                      const RunRegimeThresholds& thresholds = {});

}  // namespace flopspy::analyzers
