#include "counters_profiler.h"

namespace flopspy::interpose {
namespace {

// A CUPTI parameter struct: zeroed, with its size set.
template <class T>
T Params(size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}

// Ranges a counter data image holds. One is ours; the rest catch kernels another thread launched
// in the same context during the measurement (auto range profiles them too), which makes the
// sample ambiguous: it is then discarded, not misattributed.
constexpr size_t kMaxRanges = 8;

// cuda.h: CU_STREAM_PER_THREAD. A _ptsz launch on stream 0 ran on the per-thread stream.
const CUstream kPerThreadStream = reinterpret_cast<CUstream>(uintptr_t{0x2});

}  // namespace

struct CounterProfiler::Plan {
  gpuroof::CounterPlan plan;
  std::vector<std::vector<const char*>> names;  // per group, into its host's terms()
};

CounterProfiler::CounterProfiler(CounterApi api, uint32_t groups, gpuroof::PassGrouping grouping)
    : api_(std::move(api)), groups_(groups), grouping_(grouping) {}

CounterProfiler::~CounterProfiler() = default;

CounterStep CounterProfiler::FailWith(std::string reason) {
  if (!failed_) {
    failed_ = true;
    failure_.reason = std::move(reason);
  }
  DisableAll();
  return CounterStep::kFailed;
}

CounterStep CounterProfiler::Fail(const char* call, CUptiResult rc) {
  if (!failed_ && rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) failure_.permission = true;
  return FailWith(std::string(call) + ": " + CounterErrorText(api_, rc));
}

void CounterProfiler::StopQuietly() {
  if (running_ == nullptr) return;
  auto stop = Params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = running_->object;
  api_.cuptiRangeProfilerStop(&stop);
  running_ = nullptr;
}

void CounterProfiler::DisableAll() {
  StopQuietly();
  for (auto& [ctx, c] : contexts_) {
    if (c.object == nullptr) continue;
    auto p =
        Params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = c.object;
    api_.cuptiRangeProfilerDisable(&p);
    c.object = nullptr;
  }
}

std::shared_ptr<CounterProfiler::Plan> CounterProfiler::PlanFor(CUcontext ctx,
                                                                const std::string& chip,
                                                                CounterStep* step) {
  if (const auto it = plans_.find(chip); it != plans_.end()) return it->second;
  // The counter availability image lets the host API plan for exactly this device; without
  // it CUPTI plans for the chip in general (good enough for the metrics flopspy uses).
  std::vector<uint8_t> availability;
  if (api_.cuptiProfilerGetCounterAvailability != nullptr) {
    auto p = Params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    p.ctx = ctx;
    CUptiResult rc = api_.cuptiProfilerGetCounterAvailability(&p);
    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
      *step = Fail("cuptiProfilerGetCounterAvailability", rc);
      return nullptr;
    }
    if (rc == CUPTI_SUCCESS && p.counterAvailabilityImageSize > 0) {
      availability.assign(p.counterAvailabilityImageSize, 0);
      p.pCounterAvailabilityImage = availability.data();
      rc = api_.cuptiProfilerGetCounterAvailability(&p);
      if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
        *step = Fail("cuptiProfilerGetCounterAvailability", rc);
        return nullptr;
      }
      if (rc != CUPTI_SUCCESS) availability.clear();
    }
  }
  std::string error;
  std::optional<gpuroof::CounterPlan> plan =
      gpuroof::PlanCounters(api_.lookup, chip, availability, groups_, grouping_, &error);
  if (!plan) {
    *step = FailWith("no counter configuration for " + chip + ": " + error);
    return nullptr;
  }
  auto p = std::make_shared<Plan>();
  p->plan = std::move(*plan);
  CounterContextInfo info;
  info.chip = chip;
  for (const gpuroof::PassGroup& g : p->plan.groups) {
    p->names.push_back(gpuroof::MetricNames(g.host->terms()));
    std::vector<std::string> group;
    for (const auto& t : g.host->terms()) {
      info.metrics.push_back(t.name);
      group.push_back(t.name);
    }
    info.pass_groups.push_back(std::move(group));
  }
  info.non_tensor_groups = p->plan.non_tensor_groups;
  info.passes = p->plan.passes;
  info.notes = p->plan.notes;
  plans_.emplace(chip, p);
  new_contexts_.push_back(std::move(info));
  return p;
}

CounterStep CounterProfiler::SetUpContext(CUcontext ctx, Context** out) {
  if (const auto it = contexts_.find(ctx); it != contexts_.end()) {
    if (it->second.object == nullptr) return FailWith("the range profiler was disabled");
    *out = &it->second;
    return CounterStep::kMeasured;
  }
  CUdevice device = 0;
  if (const CUresult r = api_.cuCtxGetDevice(&device); r != CUDA_SUCCESS) {
    return FailWith("cuCtxGetDevice returned " + std::to_string(static_cast<int>(r)));
  }
  auto name = Params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  name.deviceIndex = static_cast<size_t>(device);
  if (const CUptiResult rc = api_.cuptiDeviceGetChipName(&name);
      rc != CUPTI_SUCCESS || name.pChipName == nullptr) {
    return Fail("cuptiDeviceGetChipName", rc != CUPTI_SUCCESS ? rc : CUPTI_ERROR_UNKNOWN);
  }
  const std::string chip = name.pChipName;
  CounterStep step = CounterStep::kMeasured;
  std::shared_ptr<Plan> plan = PlanFor(ctx, chip, &step);
  if (!plan) return step;

  auto enable =
      Params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = ctx;
  if (const CUptiResult rc = api_.cuptiRangeProfilerEnable(&enable);
      rc != CUPTI_SUCCESS || enable.pRangeProfilerObject == nullptr) {
    return Fail("cuptiRangeProfilerEnable", rc != CUPTI_SUCCESS ? rc : CUPTI_ERROR_UNKNOWN);
  }
  Context& c = contexts_[ctx];
  c.ctx = ctx;
  c.object = enable.pRangeProfilerObject;
  c.plan = plan;
  *out = &c;
  return CounterStep::kMeasured;
}

CounterStep CounterProfiler::Configure(Context& c, size_t group) {
  if (c.configured == group) return CounterStep::kMeasured;
  if (c.configured != kNoGroup) {
    // Another group's configuration: a new range profiler object takes the new one (setting a
    // second configuration on one object measured zeros on an H200, docs/validation.md run 5).
    ++switches_;
    auto disable =
        Params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    disable.pRangeProfilerObject = c.object;
    const CUptiResult disabled = api_.cuptiRangeProfilerDisable(&disable);
    c.object = nullptr;
    c.configured = kNoGroup;
    if (disabled != CUPTI_SUCCESS) return Fail("cuptiRangeProfilerDisable", disabled);
    auto enable =
        Params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = c.ctx;
    if (const CUptiResult rc = api_.cuptiRangeProfilerEnable(&enable);
        rc != CUPTI_SUCCESS || enable.pRangeProfilerObject == nullptr) {
      return Fail("cuptiRangeProfilerEnable", rc != CUPTI_SUCCESS ? rc : CUPTI_ERROR_UNKNOWN);
    }
    c.object = enable.pRangeProfilerObject;
  }
  std::vector<const char*>& names = c.plan->names[group];
  auto size = Params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = c.object;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = kMaxRanges;
  size.maxNumRangeTreeNodes = kMaxRanges;
  if (const CUptiResult rc = api_.cuptiRangeProfilerGetCounterDataSize(&size);
      rc != CUPTI_SUCCESS || size.counterDataSize == 0) {
    return Fail("cuptiRangeProfilerGetCounterDataSize",
                rc != CUPTI_SUCCESS ? rc : CUPTI_ERROR_UNKNOWN);
  }
  c.counter_data.assign(size.counterDataSize, 0);
  c.configured = group;
  return CounterStep::kMeasured;
}

const gpuroof::CounterPlan* CounterProfiler::CurrentPlan(CUstream stream, bool per_thread,
                                                         CounterStep* step,
                                                         std::string* skip_reason,
                                                         uint32_t* configured_group) {
  Context* c = nullptr;
  *step = Prepare(stream, per_thread, &c, skip_reason);
  if (*step != CounterStep::kMeasured) return nullptr;
  *configured_group = c->configured == kNoGroup ? 0 : static_cast<uint32_t>(c->configured);
  return &c->plan->plan;
}

CounterStep CounterProfiler::Prepare(CUstream& stream, bool per_thread, Context** out,
                                     std::string* skip_reason) {
  if (failed_) return CounterStep::kFailed;
  if (!initialized_) {
    auto p = Params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (const CUptiResult rc = api_.cuptiProfilerInitialize(&p); rc != CUPTI_SUCCESS) {
      return Fail("cuptiProfilerInitialize", rc);
    }
    initialized_ = true;
  }
  CUcontext ctx = nullptr;
  if (api_.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
    *skip_reason = "no current CUDA context";
    return CounterStep::kSkipped;
  }
  if (per_thread && stream == nullptr) stream = kPerThreadStream;
  // A launch into a graph being captured does not run now, and synchronising its stream would
  // break the capture; nor is a context set up for profiling in the middle of a capture.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (api_.cuStreamIsCapturing(stream, &capture) != CUDA_SUCCESS ||
      capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    *skip_reason = "the stream is being captured into a CUDA graph";
    return CounterStep::kSkipped;
  }
  return SetUpContext(ctx, out);
}

CounterStep CounterProfiler::Before(CUstream stream, bool per_thread, size_t group,
                                    std::string* skip_reason) {
  Context* c = nullptr;
  if (const CounterStep step = Prepare(stream, per_thread, &c, skip_reason);
      step != CounterStep::kMeasured) {
    return step;
  }
  if (group >= c->plan->plan.groups.size()) {
    *skip_reason = "no pass group " + std::to_string(group);
    return CounterStep::kSkipped;
  }
  if (const CounterStep step = Configure(*c, group); step != CounterStep::kMeasured) return step;

  auto init = Params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = c->object;
  init.counterDataSize = c->counter_data.size();
  init.pCounterData = c->counter_data.data();
  if (const CUptiResult rc = api_.cuptiRangeProfilerCounterDataImageInitialize(&init);
      rc != CUPTI_SUCCESS) {
    return Fail("cuptiRangeProfilerCounterDataImageInitialize", rc);
  }
  const std::vector<uint8_t>& image = c->plan->plan.groups[group].host->config_image();
  auto config = Params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = c->object;
  config.configSize = image.size();
  config.pConfig = image.data();
  config.counterDataImageSize = c->counter_data.size();
  config.pCounterDataImage = c->counter_data.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_KernelReplay;
  config.maxRangesPerPass = kMaxRanges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  if (const CUptiResult rc = api_.cuptiRangeProfilerSetConfig(&config); rc != CUPTI_SUCCESS) {
    return Fail("cuptiRangeProfilerSetConfig", rc);
  }
  auto start =
      Params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = c->object;
  if (const CUptiResult rc = api_.cuptiRangeProfilerStart(&start); rc != CUPTI_SUCCESS) {
    return Fail("cuptiRangeProfilerStart", rc);
  }
  running_ = c;
  running_group_ = group;
  stream_ = stream;
  return CounterStep::kMeasured;
}

CounterStep CounterProfiler::After(int launch_result, CounterMeasurement* out,
                                   std::string* skip_reason) {
  if (running_ == nullptr) return failed_ ? CounterStep::kFailed : CounterStep::kSkipped;
  Context* c = running_;
  if (launch_result != 0) {
    StopQuietly();
    *skip_reason = "the launch failed";
    return CounterStep::kSkipped;
  }
  // Kernel replay runs the passes inside the launch; the sync makes sure the last one is done
  // before its counters are decoded.
  const CUresult sync = api_.cuStreamSynchronize(stream_);
  auto stop = Params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = c->object;
  const CUptiResult stopped = api_.cuptiRangeProfilerStop(&stop);
  running_ = nullptr;
  if (stopped != CUPTI_SUCCESS) return Fail("cuptiRangeProfilerStop", stopped);
  if (sync != CUDA_SUCCESS) {
    *skip_reason = "cuStreamSynchronize returned " + std::to_string(static_cast<int>(sync));
    return CounterStep::kSkipped;
  }
  if (!stop.isAllPassSubmitted) {
    return FailWith("kernel replay did not submit every pass (CUPTI wants more passes)");
  }
  auto decode = Params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = c->object;
  if (const CUptiResult rc = api_.cuptiRangeProfilerDecodeData(&decode); rc != CUPTI_SUCCESS) {
    return Fail("cuptiRangeProfilerDecodeData", rc);
  }
  const gpuroof::PassGroup& group = c->plan->plan.groups[running_group_];
  const gpuroof::HostProfiler& host = *group.host;
  std::string error;
  size_t ranges = 0;
  if (!host.RangeCount(c->counter_data, &ranges, &error)) return FailWith(error);
  if (decode.numOfRangeDropped > 0 || ranges != 1) {
    *skip_reason = std::to_string(ranges) + " kernels ran while the launch was measured";
    return CounterStep::kSkipped;
  }
  std::vector<double> values;
  if (!host.Evaluate(c->counter_data, 0, &values, &error)) return FailWith(error);
  out->values = gpuroof::EvaluateCounters(host.terms(), values);
  // A kernel takes time: a duration of 0 means the hardware counted with another configuration
  // than the group's (what switching configurations on one object did on an H200). Replayed
  // plans never switch.
  if (grouping_ == gpuroof::PassGrouping::kOnePass &&
      (out->values.valid & trace::kMetricsDuration) != 0 && out->values.duration_ns <= 0) {
    return FailWith("the counters of metric group " + std::to_string(running_group_) +
                    " read zero (a kernel duration of 0 ns): CUPTI did not apply its "
                    "configuration; FLOPSPY_COUNTERS_REPLAY=kernel measures without switching");
  }
  out->passes = static_cast<uint16_t>(std::min<size_t>(group.passes, UINT16_MAX));
  out->chip = c->plan->plan.chip;
  return CounterStep::kMeasured;
}

}  // namespace flopspy::interpose
