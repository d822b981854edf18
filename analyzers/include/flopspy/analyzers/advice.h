// What to do about a run: findings drawn from its analysis, each with the numbers behind it,
// the action, and where it can be estimated honestly, the time it would save and how that was
// estimated. Rules are plain functions over TraceAnalysis; docs/advice.md lists them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_analysis.h"

namespace flopspy::analyzers {

enum class AdviceKind {
  kMemoryBoundExplained,  // several ops cost the same because they move the same bytes
  kFuseElementwise,       // memory-bound elementwise/reduction kernels take a large share
  kTensorCores,           // FP32 GEMMs on CUDA cores where the GPU has TF32/BF16 tensor cores
  kGemmShapes,            // alignment, tile and wave quantization lose GEMM time
  kPinnedMemory,          // host<->device copies from pageable memory
  kLaunchBound,           // kernels shorter than their launch: fuse or capture in CUDA graphs
  kFarFromRoof,           // compute-bound kernels far below their roof
  kNoGpuTiming,           // GPU times are missing
  kUnknownFigures,        // much kernel time has no FLOPs: no rule can judge it
};
std::string_view AdviceKindName(AdviceKind kind);

struct Advice {
  AdviceKind kind;
  std::string title;              // a few words for the first screen: "GEMM kernels far from roof"
  std::string finding;            // what was seen, with the numbers
  std::string action;             // what to do
  std::optional<double> gain_ns;  // estimated GPU time saved
  std::string gain_basis;         // how gain_ns was estimated ("" when there is none)
  double share = 0;               // share of the run's kernel GPU time concerned
  double gpu_ns = 0;              // that GPU time (copy time for pinned_memory)
  uint64_t launches = 0;          // GPU executions concerned (0 when not counted)
  std::optional<double> pct_of_roof;  // achieved vs roof, percent, time-weighted; when known
  // The kernels (or kernel groups) the finding covers, largest first: a merged or group finding
  // names them here and in its text ("a, b, c (+9)").
  std::vector<std::string> items;
  // Other findings whose estimated gains come from the same kernel GPU time (a cuBLAS GEMM can
  // be far from its roof, on the wrong data type and badly shaped at once): their gains do not
  // add. `combined_gain_ns` bounds what this finding and those together could save: per kernel,
  // the sum of their gains, never more than the kernel's time. gain_basis says so in words.
  std::vector<AdviceKind> overlaps;
  std::optional<double> combined_gain_ns;
};

// At most this many findings, the largest estimated gains first.
inline constexpr size_t kMaxAdvice = 10;

// Findings for one trace, most valuable (largest estimated gain, then findings without an
// estimate by share) first.
std::vector<Advice> AdviseRun(const TraceAnalysis& run,
                              const std::map<int32_t, DeviceRoofs>& roofs);

struct CallSiteReport;  // call_sites.h
// Names the lines (docs/advice.md, "Call sites"): the launch_bound and memory-bound findings of
// `advice` (AdviseRun's) say which call sites launched their kernels; a site whose kernels are
// mostly launch-bound, or the one with the most memory-bound time, gets a finding of its own
// when no finding covers them. `steps`: the trace's steps (0: none found). Ranks again.
void AddCallSiteAdvice(std::vector<Advice>& advice, const CallSiteReport& sites, size_t steps);

}  // namespace flopspy::analyzers
