// The hot path of every recorded CUDA call: a correlation id, the CUPTI correlation scope, the
// mark that stops a runtime call's driver call being recorded twice, and the records themselves,
// written in place in the thread's ring. The order in which a launch uses them is
// instrumented_launch.h; naming a kernel the first time is function_naming.h (cold).
#pragma once

#include <cstdint>

#include "cupti_session.h"
#include "flopspy/trace/schema.h"
#include "function_table.h"

namespace flopspy::interpose {

// Set while a runtime hook is inside the real runtime call: the driver call that the runtime
// makes underneath (a launch, a copy, a synchronisation) is the same call and is not recorded
// again.
extern thread_local bool tls_in_runtime_call __attribute__((tls_model("initial-exec")));

class RuntimeCallScope {
 public:
  // `active` false (a driver hook): leaves the mark as it is.
  explicit RuntimeCallScope(bool active = true) : previous_(tls_in_runtime_call) {
    tls_in_runtime_call = previous_ || active;
  }
  ~RuntimeCallScope() { tls_in_runtime_call = previous_; }
  RuntimeCallScope(const RuntimeCallScope&) = delete;
  RuntimeCallScope& operator=(const RuntimeCallScope&) = delete;

 private:
  bool previous_;
};

// A correlation id unique in the process, without atomics: the thread's slot in the high bits.
uint64_t NextCorrelation() noexcept;

// What a correlation scope is around. Kernel launches and library calls push nothing when
// kernels are joined by stream order (FLOPSPY_GPU_JOIN=stream, stream_order_join.h): a library
// call then waits in its stream's order instead. Other calls (copies, sets, graph launches)
// always push.
enum class CorrelatedCall { kOther, kLaunch, kLibrary };

// Around the real call of a recorded CUDA call: GPU timing starts at the first CUDA call (never
// in the library constructor; a library call starts nothing: its launches do), and the call's
// correlation id is pushed to CUPTI as an external id, so the GPU records of what it launched
// come back joined to it.
// Pushed only while CUPTI collects (never between the windows of sampled GPU timing), and
// popped only when pushed: a window that closes in between must not pop an outer call's id.
class GpuCorrelationScope {
 public:
  explicit GpuCorrelationScope(uint64_t correlation, CorrelatedCall call = CorrelatedCall::kOther) {
    if (call != CorrelatedCall::kLibrary) CuptiSession::EnsureStarted();
    pushed_ = call == CorrelatedCall::kOther
                  ? CuptiSession::PushCorrelationIfCollecting(correlation)
                  : CuptiSession::PushLaunchCorrelationIfCollecting(correlation);
  }
  ~GpuCorrelationScope() {
    if (pushed_) CuptiSession::PopCorrelation();
  }
  GpuCorrelationScope(const GpuCorrelationScope&) = delete;
  GpuCorrelationScope& operator=(const GpuCorrelationScope&) = delete;

 private:
  bool pushed_;
};

// Where the kernel parameters are: an array of pointers (kernelParams / args), or the packed
// buffer of a launch with `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER).
struct ParamSource {
  void** params = nullptr;
  void** extra = nullptr;
};

struct LaunchShape {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t cluster[3] = {0, 0, 0};
  uint32_t dynamic_smem = 0;
  uint64_t stream = 0;
  bool per_thread_stream = false;  // a _ptsz entry point: stream 0 means the per-thread stream
  bool from_runtime = false;       // recorded by a runtime hook (trace::kLaunchFromRuntime)
  // A real function of the driver the launch went to (a driver hook's), naming the driver copy
  // to ask for the current device the first time; nullptr: the loaded libcuda.
  const void* driver = nullptr;
};

// Writes the raw launch record, with the device of the thread's current context (the device the
// launch runs on). `enter_ns`/`exit_ns` bracket the real call only. `graph_node`: the launch ran
// nothing but made this node of a CUDA graph (stream capture, graph API): the launch is flagged
// kLaunchCaptured and the node's record, given the launch's correlation, follows it.
void RecordLaunch(trace::Api api, uint64_t enter_ns, uint64_t exit_ns, int32_t result,
                  uint64_t correlation, const FunctionInfo* function, const LaunchShape& shape,
                  const ParamSource& params,
                  const trace::GraphNodeRecord* graph_node = nullptr) noexcept;

// Copies up to `wanted` leading parameter bytes, packed as the layout says. Returns the count.
// Never dereferences a parameter's value, only reads the parameters themselves.
uint32_t CopyParams(const FunctionInfo* function, const ParamSource& source, uint32_t wanted,
                    uint8_t* out, bool* truncated) noexcept;

// An API call record (synchronisation, copies, sets, graph launches). `driver`: as
// LaunchShape::driver.
void RecordApiCall(trace::Api api, uint64_t enter_ns, uint64_t exit_ns, int32_t result,
                   uint64_t correlation, uint64_t stream, uint64_t bytes, uint32_t detail,
                   bool synchronizing, const void* driver = nullptr) noexcept;

}  // namespace flopspy::interpose
