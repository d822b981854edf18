// The advice entry point: every rule over one trace's analysis, then the merge, the overlap
// accounting and the ranking (advice_merge.cpp). docs/advice.md lists the rules.
#include "flopspy/analyzers/advice.h"

#include "advice_internal.h"

namespace flopspy::analyzers {

std::string_view AdviceKindName(AdviceKind kind) {
  switch (kind) {
    case AdviceKind::kMemoryBoundExplained:
      return "memory_bound_explained";
    case AdviceKind::kFuseElementwise:
      return "fuse_elementwise";
    case AdviceKind::kTensorCores:
      return "tensor_cores";
    case AdviceKind::kGemmShapes:
      return "gemm_shapes";
    case AdviceKind::kPinnedMemory:
      return "pinned_memory";
    case AdviceKind::kLaunchBound:
      return "launch_bound";
    case AdviceKind::kFarFromRoof:
      return "far_from_roof";
    case AdviceKind::kNoGpuTiming:
      return "no_gpu_timing";
    case AdviceKind::kUnknownFigures:
      return "unknown_figures";
  }
  return "unknown";
}

std::vector<Advice> AdviseRun(const TraceAnalysis& run,
                              const std::map<int32_t, DeviceRoofs>& roofs) {
  using namespace advice_detail;
  Findings found;
  const double total = KernelTime(run);
  NoGpuTiming(run, found);
  MemoryBoundExplained(run, total, found);
  FuseElementwise(run, total, found);
  TensorCores(run, roofs, total, found);
  GemmShapes(run, total, found);
  PinnedMemory(run, found);
  LaunchBound(run, total, found);
  FarFromRoof(run, total, found);
  Coverage(run, total, found);
  MergeExplained(found);
  MarkOverlaps(run, found);
  return Rank(std::move(found.list), kMaxAdvice);
}

}  // namespace flopspy::analyzers
