// The device side of one counter-measured launch, through the CUPTI range profiler in auto-range,
// kernel-replay mode (docs/gpu-counters.md). The call sequence:
//   once per process   cuptiProfilerInitialize
//   once per context   cuCtxGetDevice, cuptiDeviceGetChipName, cuptiProfilerGetCounterAvailability,
//                      the metric plan (host: gpuroof::PlanCounters, pass groups),
//                      cuptiRangeProfilerEnable
//   when the context's pass group changes (the first measured launch; one-pass groups only
//   later: a switch first disables and re-enables, giving a new object)
//                      cuptiRangeProfilerGetCounterDataSize for the group
//   per measured launch (Before)  cuptiRangeProfilerCounterDataImageInitialize,
//                      cuptiRangeProfilerSetConfig with the group's configuration,
//                      cuptiRangeProfilerStart
//                      ... the program's launch: CUPTI replays it once per pass of the group
//                      (once in all for a one-pass group) ...
//   (After)            cuStreamSynchronize, cuptiRangeProfilerStop, cuptiRangeProfilerDecodeData,
//                      the range count and cuptiProfilerHostEvaluateToGpuValues (host)
//   on failure, and at DisableAll   cuptiRangeProfilerDisable per enabled context
// A profiler serves one launch at a time (the caller serialises). It never touches the program's
// launch or its result.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "counters_api.h"
#include "flopspy/gpu_roofline/counter_host.h"
#include "flopspy/gpu_roofline/counter_metrics.h"

namespace flopspy::interpose {

enum class CounterStep {
  kMeasured,  // Before: profiling started, call After; After: values are in the measurement
  kSkipped,   // this launch is not measured (no context, stream capture, launch failed...)
  kFailed,    // counter mode cannot work: stop using it (failure() says why)
};

struct CounterFailure {
  std::string reason;       // "cuptiRangeProfilerEnable: CUPTI_ERROR_... (35)"
  bool permission = false;  // the driver refused counter access to this user
};

struct CounterMeasurement {
  gpuroof::CounterValues values;  // the group's quantities
  uint16_t passes = 0;
  std::string chip;
};

// What the per-context setup decided, for the trace metadata.
struct CounterContextInfo {
  std::string chip;
  std::vector<std::string> metrics;
  std::vector<std::vector<std::string>> pass_groups;  // metric names per group
  size_t non_tensor_groups = 0;
  size_t passes = 0;
  std::vector<std::string> notes;
};

class CounterProfiler {
 public:
  CounterProfiler(CounterApi api, uint32_t groups, gpuroof::PassGrouping grouping);
  ~CounterProfiler();
  CounterProfiler(const CounterProfiler&) = delete;
  CounterProfiler& operator=(const CounterProfiler&) = delete;

  // The plan of the current context for a launch on `stream` (as for Before), setting the
  // context up if needed (nullptr: skipped, e.g. the stream is being captured, or failed, with
  // `step` saying which), and the pass group the context is configured for (0 before any):
  // measuring another costs a switch. Valid until DisableAll.
  const gpuroof::CounterPlan* CurrentPlan(CUstream stream, bool per_thread, CounterStep* step,
                                          std::string* skip_reason, uint32_t* configured_group);
  // Before the program's launch on `stream` (the launch's own handle; `per_thread`: a _ptsz
  // entry point, where 0 means the per-thread stream): measures pass group `group` of the
  // current context's plan.
  CounterStep Before(CUstream stream, bool per_thread, size_t group, std::string* skip_reason);
  // After the launch returned `launch_result`.
  CounterStep After(int launch_result, CounterMeasurement* out, std::string* skip_reason);

  // Disables the range profiler on every context where it was enabled.
  void DisableAll();
  // Stops a measurement Before started, without reading it (its launch will not reach After).
  void Cancel() { StopQuietly(); }

  const CounterFailure& failure() const { return failure_; }
  // Configuration switches so far (a new range profiler object each; one-pass groups only).
  uint64_t switches() const { return switches_; }
  // Set when a context was set up for the first time (cleared by the caller).
  std::vector<CounterContextInfo>& new_contexts() { return new_contexts_; }

 private:
  struct Plan;
  static constexpr size_t kNoGroup = ~size_t{0};
  struct Context {
    CUcontext ctx = nullptr;
    CUpti_RangeProfiler_Object* object = nullptr;
    std::shared_ptr<Plan> plan;
    size_t configured = kNoGroup;       // the group counter_data is sized and initialised for
    std::vector<uint8_t> counter_data;  // for the configured group
  };

  CounterStep Fail(const char* call, CUptiResult rc);
  CounterStep FailWith(std::string reason);
  CounterStep SetUpContext(CUcontext ctx, Context** out);
  // Makes `c` ready to measure `group`: on a switch, a new range profiler object.
  CounterStep Configure(Context& c, size_t group);
  // Initialises CUPTI's profiler once, then finds the current context and sets it up, unless the
  // launch cannot be measured (no context, `stream` being captured: nothing is set up then).
  // `stream` becomes the handle to synchronise.
  CounterStep Prepare(CUstream& stream, bool per_thread, Context** out, std::string* skip_reason);
  std::shared_ptr<Plan> PlanFor(CUcontext ctx, const std::string& chip, CounterStep* step);
  void StopQuietly();

  CounterApi api_;
  uint32_t groups_;
  gpuroof::PassGrouping grouping_;
  bool initialized_ = false;
  uint64_t switches_ = 0;
  bool failed_ = false;
  CounterFailure failure_;
  std::map<CUcontext, Context> contexts_;
  std::map<std::string, std::shared_ptr<Plan>> plans_;  // by chip
  std::vector<CounterContextInfo> new_contexts_;

  // The launch being measured.
  Context* running_ = nullptr;
  size_t running_group_ = 0;
  CUstream stream_ = nullptr;
};

}  // namespace flopspy::interpose
