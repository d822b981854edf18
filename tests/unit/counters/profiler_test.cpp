// The range-profiler call sequence of a measured launch, against a mock CUPTI: the order of the
// calls, what is done once per process and once per context, the launches that are skipped, and
// a failure at every step (counter mode stops; the profiler is stopped and disabled).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "counters_profiler.h"
#include "mock_range_profiler.h"

namespace flopspy::testing {
namespace {

using interpose::CounterMeasurement;
using interpose::CounterProfiler;
using interpose::CounterStep;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const auto kStream = reinterpret_cast<CUstream>(uintptr_t{0x77});
constexpr auto kOnePass = gpuroof::PassGrouping::kOnePass;
constexpr auto kReplayed = gpuroof::PassGrouping::kReplayed;

// The device-side calls (and the program's launch) in order; host planning left out.
std::vector<std::string> DeviceCalls() {
  return CallsOf({"cuptiProfilerInitialize", "cuptiDeviceGetChipName", "cuptiRangeProfiler",
                  "cuptiProfilerHostEvaluate", "cuCtx", "cuStream", "launch"});
}

// A context's first measured launch, then DisableAll: the same calls whether the plan is
// replayed or split into one-pass groups.
const std::vector<std::string> kFirstMeasurementThenDisable = {
    "cuptiProfilerInitialize",
    "cuCtxGetCurrent",
    "cuStreamIsCapturing",
    "cuCtxGetDevice",
    "cuptiDeviceGetChipName",
    "cuptiRangeProfilerEnable",
    "cuptiRangeProfilerGetCounterDataSize",
    "cuptiRangeProfilerCounterDataImageInitialize",
    "cuptiRangeProfilerSetConfig",
    "cuptiRangeProfilerStart",
    "launch",
    "cuStreamSynchronize",
    "cuptiRangeProfilerStop",
    "cuptiRangeProfilerDecodeData",
    "cuptiRangeProfilerGetCounterDataInfo",
    "cuptiProfilerHostEvaluateToGpuValues",
    "cuptiRangeProfilerDisable"};

class Profiler : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetRangeMock();
    // Eight metrics to a pass: GH100's 18 metrics pack into three one-pass groups (8 FP
    // instruction counters; hfma, DRAM, duration and L2; the five tensor paths).
    RangeMock().metrics_per_pass = 8;
    RangeMock().values = {{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", 1000},
                          {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", 24},
                          {"dram__bytes_read.sum", 4096},
                          {"dram__bytes_write.sum", 1024},
                          {"gpu__time_duration.sum", 5000}};
  }

  // The current context's plan (set up if needed) and the group it is configured for.
  static const gpuroof::CounterPlan* PlanOf(CounterProfiler& p, uint32_t* configured) {
    std::string skip;
    CounterStep step = CounterStep::kSkipped;
    const gpuroof::CounterPlan* plan = p.CurrentPlan(kStream, false, &step, &skip, configured);
    EXPECT_NE(plan, nullptr) << skip;
    return plan;
  }

  // Before, the program's launch, After.
  CounterStep Measure(CounterProfiler& p, CounterMeasurement* m, int launch_result = 0,
                      size_t group = 0) {
    std::string skip;
    const CounterStep before = p.Before(kStream, false, group, &skip);
    if (before != CounterStep::kMeasured) return before;
    RangeMock().calls.push_back("launch");
    return p.After(launch_result, m, &skip);
  }

  // A context's first measurement, then DisableAll: the calls in order, auto range with kernel
  // replay (a one-pass configuration is not replayed), the profiler stopped and disabled.
  CounterMeasurement FirstMeasurementInOrder(CounterProfiler& p) {
    CounterMeasurement m;
    EXPECT_EQ(Measure(p, &m), CounterStep::kMeasured);
    p.DisableAll();
    EXPECT_THAT(DeviceCalls(), ::testing::ElementsAreArray(kFirstMeasurementThenDisable));
    EXPECT_EQ(RangeMock().range, CUPTI_AutoRange);
    EXPECT_EQ(RangeMock().replay, CUPTI_KernelReplay);
    EXPECT_EQ(RangeMock().synchronized_stream, 0x77u);
    EXPECT_EQ(RangeMock().enabled, 0);
    EXPECT_EQ(RangeMock().started, 0);
    return m;
  }
};

TEST_F(Profiler, ReplayedMeasurementInOrder) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kReplayed);
  const CounterMeasurement m = FirstMeasurementInOrder(p);
  // Every metric from the one launch: fp32 = fadd + 2 ffma, DRAM read + write, in 3 passes
  // (18 metrics, 8 to a pass).
  EXPECT_DOUBLE_EQ(m.values.fp32, 24 + 2 * 1000);
  EXPECT_DOUBLE_EQ(m.values.DramBytes(), 5120);
  EXPECT_DOUBLE_EQ(m.values.duration_ns, 5000);
  EXPECT_EQ(m.values.valid, 0x7Fu);
  EXPECT_EQ(m.passes, 3);
  EXPECT_EQ(p.switches(), 0u);
}

TEST_F(Profiler, ReplayedPlanIsOneGroupMeasuredEveryLaunchWithoutSwitching) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kReplayed);
  uint32_t configured = 9;
  const gpuroof::CounterPlan* plan = PlanOf(p, &configured);
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(configured, 0u);
  ASSERT_EQ(plan->groups.size(), 1u);
  EXPECT_EQ(plan->GroupsFor(false), 1u);
  CounterMeasurement m;
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Measure(p, &m), CounterStep::kMeasured);
  EXPECT_EQ(CallsOf({"cuptiRangeProfilerEnable"}).size(), 1u);
  EXPECT_EQ(CallsOf({"cuptiRangeProfilerGetCounterDataSize"}).size(), 1u);
  EXPECT_EQ(CallsOf({"cuptiRangeProfilerSetConfig"}).size(), 3u);
  EXPECT_EQ(p.switches(), 0u);
}

TEST_F(Profiler, OneMeasurementInOrder) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  const CounterMeasurement m = FirstMeasurementInOrder(p);
  // Group 0: the FP instruction counters only. fp32 = fadd + 2 ffma.
  EXPECT_DOUBLE_EQ(m.values.fp32, 24 + 2 * 1000);
  EXPECT_EQ(m.values.valid & trace::kMetricsDram, 0u);
  EXPECT_DOUBLE_EQ(m.values.DramBytes(), 0);
  EXPECT_EQ(m.passes, 1);
  EXPECT_EQ(m.chip, "GH100");
}

TEST_F(Profiler, EachPassGroupIsConfiguredAndEvaluatedOnItsOwn) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  std::string skip;
  uint32_t configured = 9;
  const gpuroof::CounterPlan* plan = PlanOf(p, &configured);
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(configured, 0u);  // none yet
  ASSERT_EQ(plan->groups.size(), 3u);
  EXPECT_EQ(plan->non_tensor_groups, 2u);
  ASSERT_EQ(p.new_contexts().size(), 1u);
  EXPECT_EQ(p.new_contexts()[0].pass_groups.size(), 3u);
  CounterMeasurement m;
  ASSERT_EQ(Measure(p, &m, 0, 1), CounterStep::kMeasured);
  // Group 1: hfma, DRAM read and write, duration, L2.
  EXPECT_DOUBLE_EQ(m.values.DramBytes(), 5120);
  EXPECT_NE(m.values.valid & trace::kMetricsDram, 0u);
  EXPECT_EQ(m.values.valid & trace::kMetricsFp32, 0u);
  EXPECT_DOUBLE_EQ(m.values.fp32, 0);
  EXPECT_DOUBLE_EQ(m.values.duration_ns, 5000);
  // A group the plan does not have is skipped, not an error.
  EXPECT_EQ(p.Before(kStream, false, 3, &skip), CounterStep::kSkipped);
  EXPECT_THAT(skip, HasSubstr("group"));
  EXPECT_EQ(RangeMock().started, 0);
}

TEST_F(Profiler, SetUpIsOncePerContextAndPlanningOncePerChip) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  CounterMeasurement m;
  ASSERT_EQ(Measure(p, &m), CounterStep::kMeasured);
  ASSERT_EQ(p.new_contexts().size(), 1u);
  EXPECT_EQ(p.new_contexts()[0].chip, "GH100");
  EXPECT_EQ(p.new_contexts()[0].passes, 3u);
  p.new_contexts().clear();
  RangeMock().calls.clear();
  ASSERT_EQ(Measure(p, &m), CounterStep::kMeasured);
  EXPECT_THAT(
      DeviceCalls(),
      ElementsAre("cuCtxGetCurrent", "cuStreamIsCapturing",
                  "cuptiRangeProfilerCounterDataImageInitialize", "cuptiRangeProfilerSetConfig",
                  "cuptiRangeProfilerStart", "launch", "cuStreamSynchronize",
                  "cuptiRangeProfilerStop", "cuptiRangeProfilerDecodeData",
                  "cuptiRangeProfilerGetCounterDataInfo", "cuptiProfilerHostEvaluateToGpuValues"));
  // A second context on a GPU of the same chip: enabled, but the plan is reused.
  RangeMock().context = 0xC1;
  RangeMock().calls.clear();
  ASSERT_EQ(Measure(p, &m), CounterStep::kMeasured);
  EXPECT_EQ(CallsOf({"cuptiRangeProfilerEnable"}).size(), 1u);
  EXPECT_TRUE(CallsOf({"cuptiProfilerHost"}).size() == 1u);  // Evaluate only
  EXPECT_TRUE(p.new_contexts().empty());
  EXPECT_EQ(RangeMock().enabled, 2);
  p.DisableAll();
  EXPECT_EQ(RangeMock().enabled, 0);
}

TEST_F(Profiler, APerThreadStreamLaunchSynchronisesThePerThreadStream) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  std::string skip;
  ASSERT_EQ(p.Before(nullptr, true, 0, &skip), CounterStep::kMeasured);
  CounterMeasurement m;
  ASSERT_EQ(p.After(0, &m, &skip), CounterStep::kMeasured);
  EXPECT_EQ(RangeMock().synchronized_stream, 0x2u);  // CU_STREAM_PER_THREAD
}

TEST_F(Profiler, LaunchesThatCannotBeMeasuredAreSkippedNotFatal) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  std::string skip;
  CounterMeasurement m;

  RangeMock().context = 0;
  EXPECT_EQ(p.Before(kStream, false, 0, &skip), CounterStep::kSkipped);
  EXPECT_THAT(skip, HasSubstr("context"));
  RangeMock().context = 0xC0;

  // A launch into a stream being captured: nothing is set up for it, not even the context.
  RangeMock().capturing = true;
  EXPECT_EQ(p.Before(kStream, false, 0, &skip), CounterStep::kSkipped);
  EXPECT_THAT(skip, HasSubstr("captured"));
  CounterStep step = CounterStep::kMeasured;
  uint32_t configured = 0;
  EXPECT_EQ(p.CurrentPlan(kStream, false, &step, &skip, &configured), nullptr);
  EXPECT_EQ(step, CounterStep::kSkipped);
  EXPECT_TRUE(CallsOf({"cuptiRangeProfilerStart", "cuStreamSynchronize", "cuptiRangeProfilerEnable",
                       "cuptiProfilerHost", "cuCtxGetDevice"})
                  .empty());
  RangeMock().capturing = false;

  // The program's launch failed: profiling stops, nothing is decoded.
  EXPECT_EQ(Measure(p, &m, /*launch_result=*/700), CounterStep::kSkipped);
  EXPECT_EQ(RangeMock().started, 0);
  EXPECT_TRUE(CallsOf({"cuptiRangeProfilerDecodeData"}).empty());

  // Another thread's kernel ran inside the measurement: two ranges, ambiguous.
  RangeMock().ranges = 2;
  EXPECT_EQ(Measure(p, &m), CounterStep::kSkipped);
  EXPECT_TRUE(CallsOf({"cuptiProfilerHostEvaluate"}).empty());
  RangeMock().ranges = 1;
  RangeMock().ranges_dropped = 1;
  EXPECT_EQ(Measure(p, &m), CounterStep::kSkipped);
  RangeMock().ranges_dropped = 0;

  RangeMock().fail["cuStreamSynchronize"] = CUDA_ERROR_ILLEGAL_ADDRESS;
  EXPECT_EQ(Measure(p, &m), CounterStep::kSkipped);
  EXPECT_EQ(RangeMock().started, 0);  // stopped all the same
  RangeMock().fail.clear();

  EXPECT_EQ(Measure(p, &m), CounterStep::kMeasured);
  EXPECT_TRUE(p.failure().reason.empty());
}

TEST_F(Profiler, IncompleteKernelReplayTurnsCountersOff) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  RangeMock().all_passes_submitted = false;
  CounterMeasurement m;
  EXPECT_EQ(Measure(p, &m), CounterStep::kFailed);
  EXPECT_THAT(p.failure().reason, HasSubstr("pass"));
  EXPECT_EQ(RangeMock().enabled, 0);
}

TEST_F(Profiler, PermissionErrorsAreRecognised) {
  for (const char* step : {"cuptiProfilerInitialize", "cuptiProfilerGetCounterAvailability",
                           "cuptiRangeProfilerEnable", "cuptiRangeProfilerStart"}) {
    SCOPED_TRACE(step);
    ResetRangeMock();
    RangeMock().fail[step] = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
    CounterMeasurement m;
    EXPECT_EQ(Measure(p, &m), CounterStep::kFailed);
    EXPECT_TRUE(p.failure().permission);
    EXPECT_THAT(p.failure().reason, HasSubstr(step));
    EXPECT_THAT(p.failure().reason, HasSubstr("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)"));
  }
}

// A failure at any step: counter mode stops, the range profiler is left stopped and disabled,
// and nothing more is asked of CUPTI.
class ProfilerFailure : public Profiler, public ::testing::WithParamInterface<const char*> {};

TEST_P(ProfilerFailure, StopsCleanly) {
  RangeMock().fail[GetParam()] = CUPTI_ERROR_UNKNOWN;
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  CounterMeasurement m;
  EXPECT_EQ(Measure(p, &m), CounterStep::kFailed);
  EXPECT_THAT(p.failure().reason, HasSubstr(GetParam()));
  EXPECT_FALSE(p.failure().permission);
  EXPECT_EQ(RangeMock().started, 0);
  EXPECT_EQ(RangeMock().enabled, 0);
  const size_t calls = RangeMock().calls.size();
  std::string skip;
  EXPECT_EQ(p.Before(kStream, false, 0, &skip), CounterStep::kFailed);
  EXPECT_EQ(RangeMock().calls.size(), calls);
}

TEST_F(Profiler, SwitchingGroupsTakesANewRangeProfilerObject) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  CounterMeasurement m;
  ASSERT_EQ(Measure(p, &m, 0, 0), CounterStep::kMeasured);
  EXPECT_DOUBLE_EQ(m.values.fp32, 2024);
  RangeMock().calls.clear();
  // The mock keeps an object's first configuration, as an H200 did: only a new object counts
  // group 1's DRAM bytes.
  ASSERT_EQ(Measure(p, &m, 0, 1), CounterStep::kMeasured);
  EXPECT_THAT(
      DeviceCalls(),
      ElementsAre("cuCtxGetCurrent", "cuStreamIsCapturing", "cuptiRangeProfilerDisable",
                  "cuptiRangeProfilerEnable", "cuptiRangeProfilerGetCounterDataSize",
                  "cuptiRangeProfilerCounterDataImageInitialize", "cuptiRangeProfilerSetConfig",
                  "cuptiRangeProfilerStart", "launch", "cuStreamSynchronize",
                  "cuptiRangeProfilerStop", "cuptiRangeProfilerDecodeData",
                  "cuptiRangeProfilerGetCounterDataInfo", "cuptiProfilerHostEvaluateToGpuValues"));
  EXPECT_DOUBLE_EQ(m.values.DramBytes(), 5120);
  EXPECT_EQ(p.switches(), 1u);
  EXPECT_EQ(RangeMock().enabled, 1);
  uint32_t configured = 0;
  ASSERT_NE(PlanOf(p, &configured), nullptr);
  EXPECT_EQ(configured, 1u);
  // The same group again: no switch.
  RangeMock().calls.clear();
  ASSERT_EQ(Measure(p, &m, 0, 1), CounterStep::kMeasured);
  EXPECT_TRUE(CallsOf({"cuptiRangeProfilerEnable", "cuptiRangeProfilerDisable"}).empty());
  EXPECT_EQ(p.switches(), 1u);
  p.DisableAll();
  EXPECT_EQ(RangeMock().enabled, 0);
}

TEST_F(Profiler, AGroupThatMeasuresNoKernelTimeStopsCounterMode) {
  // What a configuration that never reached the hardware looks like: every counter 0, the
  // kernel's duration too.
  RangeMock().values.erase("gpu__time_duration.sum");
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  CounterMeasurement m;
  ASSERT_EQ(Measure(p, &m, 0, 0), CounterStep::kMeasured);  // group 0 has no duration metric
  EXPECT_EQ(Measure(p, &m, 0, 1), CounterStep::kFailed);
  EXPECT_THAT(p.failure().reason, HasSubstr("metric group 1 read zero"));
  EXPECT_THAT(p.failure().reason, HasSubstr("FLOPSPY_COUNTERS_REPLAY=kernel"));
  EXPECT_EQ(RangeMock().enabled, 0);
}

TEST_F(Profiler, AFailedSwitchStopsCounterModeCleanly) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups, kOnePass);
  CounterMeasurement m;
  ASSERT_EQ(Measure(p, &m, 0, 0), CounterStep::kMeasured);
  RangeMock().fail["cuptiRangeProfilerEnable"] = CUPTI_ERROR_UNKNOWN;
  EXPECT_EQ(Measure(p, &m, 0, 1), CounterStep::kFailed);
  EXPECT_THAT(p.failure().reason, HasSubstr("cuptiRangeProfilerEnable"));
  EXPECT_EQ(RangeMock().enabled, 0);
  EXPECT_EQ(RangeMock().started, 0);
}

INSTANTIATE_TEST_SUITE_P(
    EveryStep, ProfilerFailure,
    ::testing::Values("cuptiProfilerInitialize", "cuptiDeviceGetChipName",
                      "cuptiProfilerHostInitialize", "cuptiProfilerHostGetBaseMetrics",
                      "cuptiProfilerHostConfigAddMetrics", "cuptiProfilerHostGetNumOfPasses",
                      "cuptiRangeProfilerEnable", "cuptiRangeProfilerGetCounterDataSize",
                      "cuptiRangeProfilerCounterDataImageInitialize", "cuptiRangeProfilerSetConfig",
                      "cuptiRangeProfilerStart", "cuptiRangeProfilerStop",
                      "cuptiRangeProfilerDecodeData", "cuptiRangeProfilerGetCounterDataInfo",
                      "cuptiProfilerHostEvaluateToGpuValues"),
    [](const auto& p) { return std::string(p.param); });

}  // namespace
}  // namespace flopspy::testing
