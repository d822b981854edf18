// The device side of one counter-measured launch, through the CUPTI range profiler in auto-range,
// kernel-replay mode (docs/gpu-counters.md). The call sequence:
//   once per process   cuptiProfilerInitialize
//   once per context   cuCtxGetDevice, cuptiDeviceGetChipName, cuptiProfilerGetCounterAvailability,
//                      the metric plan (host: gpuroof::PlanCounters), cuptiRangeProfilerEnable,
//                      cuptiRangeProfilerGetCounterDataSize
//   per measured launch (Before)  cuptiRangeProfilerCounterDataImageInitialize,
//                      cuptiRangeProfilerSetConfig, cuptiRangeProfilerStart
//                      ... the program's launch: CUPTI replays it once per pass ...
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
  gpuroof::CounterValues values;
  uint16_t passes = 0;
  std::string chip;
};

// What the per-context setup decided, for the trace metadata.
struct CounterContextInfo {
  std::string chip;
  std::vector<std::string> metrics;
  size_t passes = 0;
  std::vector<std::string> notes;
};

class CounterProfiler {
 public:
  CounterProfiler(CounterApi api, uint32_t groups);
  ~CounterProfiler();
  CounterProfiler(const CounterProfiler&) = delete;
  CounterProfiler& operator=(const CounterProfiler&) = delete;

  // Before the program's launch on `stream` (the launch's own handle; `per_thread`: a _ptsz
  // entry point, where 0 means the per-thread stream).
  CounterStep Before(CUstream stream, bool per_thread, std::string* skip_reason);
  // After the launch returned `launch_result`.
  CounterStep After(int launch_result, CounterMeasurement* out, std::string* skip_reason);

  // Disables the range profiler on every context where it was enabled.
  void DisableAll();

  const CounterFailure& failure() const { return failure_; }
  // Set when a context was set up for the first time (cleared by the caller).
  std::vector<CounterContextInfo>& new_contexts() { return new_contexts_; }

 private:
  struct Plan;
  struct Context {
    CUpti_RangeProfiler_Object* object = nullptr;
    std::shared_ptr<Plan> plan;
    std::vector<uint8_t> counter_data;
  };

  CounterStep Fail(const char* call, CUptiResult rc);
  CounterStep FailWith(std::string reason);
  CounterStep SetUpContext(CUcontext ctx, Context** out);
  std::shared_ptr<Plan> PlanFor(CUcontext ctx, const std::string& chip, CounterStep* step);
  void StopQuietly();

  CounterApi api_;
  uint32_t groups_;
  bool initialized_ = false;
  bool failed_ = false;
  CounterFailure failure_;
  std::map<CUcontext, Context> contexts_;
  std::map<std::string, std::shared_ptr<Plan>> plans_;  // by chip
  std::vector<CounterContextInfo> new_contexts_;

  // The launch being measured.
  Context* running_ = nullptr;
  CUstream stream_ = nullptr;
};

}  // namespace flopspy::interpose
