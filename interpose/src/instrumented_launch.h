// The one protocol of a recorded kernel launch, for the driver's and the runtime's launch hooks
// alike (docs/architecture.md, the hot path). Its order matters:
//
//   1. the kernel's table entry (one lock-free lookup; first sight names it, cold and once);
//   2. a correlation id (a thread-local increment);
//   3. counter mode's scope (FLOPSPY_COUNTERS, counters_mode.h: one relaxed load when off);
//   4. the runtime mark (a runtime hook only: the driver call underneath is this launch);
//   5. CUPTI's correlation push, so the GPU records of the launch come back joined to it;
//   6. the clock, read right around the real call only;
//   7. after the pop: while a stream capture is open anywhere, where the launch went (a graph
//      node, cuStreamGetCaptureInfo; one relaxed load otherwise); the launch record, written in
//      place in the thread's ring; counter mode's KernelMetrics record, if this launch was
//      measured, follows it;
//   8. the launch's call stacks, if the capture policy samples it (stack_capture.h).
//
// Nothing thrown may reach the program (hooks have C callers): every step is noexcept, and the
// cold ones (naming, device metadata, counter mode) catch inside.
#pragma once

#include <cstdint>
#include <type_traits>

#include "clock.h"
#include "counters_mode.h"
#include "function_naming.h"
#include "graph_registry.h"
#include "launch_record.h"
#include "stack_capture.h"

namespace flopspy::interpose {

// Which call a launch hook saw, and the handle it launched.
struct LaunchSite {
  trace::Api api;
  uint64_t handle;  // CUfunction, CUkernel, cudaKernel_t or a host stub
  FunctionKind kind;
  const void* runtime = nullptr;  // a runtime hook's real function (function_naming.h)
};

// Runs `call()` (the real launch) as a recorded launch and returns its result.
template <class Call>
auto InstrumentedLaunch(const LaunchSite& site, const LaunchShape& shape, const ParamSource& params,
                        Call&& call) noexcept -> decltype(call()) {
  static_assert(std::is_nothrow_invocable_v<Call>, "the real call must be noexcept");
  const FunctionInfo* function = FunctionFor(site.handle, site.kind, site.runtime);
  const uint64_t correlation = NextCorrelation();
  CounterLaunch counters(function, shape, params, correlation);
  decltype(call()) result;
  uint64_t enter, exit;
  {
    RuntimeCallScope runtime(shape.from_runtime);
    GpuCorrelationScope timing(correlation, CorrelatedCall::kLaunch);
    counters.Begin();
    enter = NowNs();
    result = call();
    exit = NowNs();
    counters.End(static_cast<int>(result));
  }
  trace::GraphNodeRecord node{};
  const trace::GraphNodeRecord* captured = nullptr;
  if (CapturesOpen() && static_cast<int>(result) == 0) {
    if (const auto into = CaptureOf(shape.stream, shape.per_thread_stream)) {
      node.h.flags = trace::kGraphNodeCaptured;
      node.graph = into->graph;
      node.node = into->node;
      node.capture_id = into->capture_id;
      captured = &node;
    }
  }
  RecordLaunch(site.api, enter, exit, static_cast<int32_t>(result), correlation, function, shape,
               params, captured);
  NoteLaunchStacks(function, shape, correlation);
  return result;
}

// The cluster dimensions among a launch's attributes (cuLaunchKernelEx's CUlaunchAttribute,
// cudaLaunchKernelExC's cudaLaunchAttribute: `value` is the member holding the union).
template <class Attribute, class Id, class Value>
void NoteCluster(LaunchShape& shape, const Attribute* attributes, unsigned count, Id cluster_id,
                 Value Attribute::*value) noexcept {
  constexpr unsigned kMaxAttributes = 64;  // a corrupt count must not walk off into memory
  for (unsigned i = 0; attributes != nullptr && i < count && i < kMaxAttributes; ++i) {
    if (attributes[i].id != cluster_id) continue;
    const auto& dim = (attributes[i].*value).clusterDim;
    shape.cluster[0] = dim.x, shape.cluster[1] = dim.y, shape.cluster[2] = dim.z;
  }
}

}  // namespace flopspy::interpose
