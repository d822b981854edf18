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

// The device-side calls (and the program's launch) in order; host planning left out.
std::vector<std::string> DeviceCalls() {
  return CallsOf({"cuptiProfilerInitialize", "cuptiDeviceGetChipName", "cuptiRangeProfiler",
                  "cuptiProfilerHostEvaluate", "cuCtx", "cuStream", "launch"});
}

class Profiler : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetRangeMock();
    RangeMock().values = {{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", 1000},
                          {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", 24},
                          {"dram__bytes_read.sum", 4096},
                          {"dram__bytes_write.sum", 1024}};
  }

  // Before, the program's launch, After.
  CounterStep Measure(CounterProfiler& p, CounterMeasurement* m, int launch_result = 0) {
    std::string skip;
    const CounterStep before = p.Before(kStream, false, &skip);
    if (before != CounterStep::kMeasured) return before;
    RangeMock().calls.push_back("launch");
    return p.After(launch_result, m, &skip);
  }
};

TEST_F(Profiler, OneMeasurementInOrder) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups);
  CounterMeasurement m;
  ASSERT_EQ(Measure(p, &m), CounterStep::kMeasured);
  p.DisableAll();
  EXPECT_THAT(DeviceCalls(),
              ElementsAre("cuptiProfilerInitialize", "cuCtxGetCurrent", "cuStreamIsCapturing",
                          "cuCtxGetDevice", "cuptiDeviceGetChipName", "cuptiRangeProfilerEnable",
                          "cuptiRangeProfilerGetCounterDataSize",
                          "cuptiRangeProfilerCounterDataImageInitialize",
                          "cuptiRangeProfilerSetConfig", "cuptiRangeProfilerStart", "launch",
                          "cuStreamSynchronize", "cuptiRangeProfilerStop",
                          "cuptiRangeProfilerDecodeData", "cuptiRangeProfilerGetCounterDataInfo",
                          "cuptiProfilerHostEvaluateToGpuValues", "cuptiRangeProfilerDisable"));
  // Per launch: auto range, kernel replay (CUPTI replays the one launch per pass).
  EXPECT_EQ(RangeMock().range, CUPTI_AutoRange);
  EXPECT_EQ(RangeMock().replay, CUPTI_KernelReplay);
  EXPECT_EQ(RangeMock().synchronized_stream, 0x77u);
  // fp32 = fadd + 2 ffma; DRAM read + write.
  EXPECT_DOUBLE_EQ(m.values.fp32, 24 + 2 * 1000);
  EXPECT_DOUBLE_EQ(m.values.DramBytes(), 5120);
  EXPECT_EQ(m.passes, 3);
  EXPECT_EQ(m.chip, "GH100");
  EXPECT_EQ(RangeMock().enabled, 0);
  EXPECT_EQ(RangeMock().started, 0);
}

TEST_F(Profiler, SetUpIsOncePerContextAndPlanningOncePerChip) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups);
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
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups);
  std::string skip;
  ASSERT_EQ(p.Before(nullptr, true, &skip), CounterStep::kMeasured);
  CounterMeasurement m;
  ASSERT_EQ(p.After(0, &m, &skip), CounterStep::kMeasured);
  EXPECT_EQ(RangeMock().synchronized_stream, 0x2u);  // CU_STREAM_PER_THREAD
}

TEST_F(Profiler, LaunchesThatCannotBeMeasuredAreSkippedNotFatal) {
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups);
  std::string skip;
  CounterMeasurement m;

  RangeMock().context = 0;
  EXPECT_EQ(p.Before(kStream, false, &skip), CounterStep::kSkipped);
  EXPECT_THAT(skip, HasSubstr("context"));
  RangeMock().context = 0xC0;

  RangeMock().capturing = true;
  EXPECT_EQ(p.Before(kStream, false, &skip), CounterStep::kSkipped);
  EXPECT_THAT(skip, HasSubstr("captured"));
  EXPECT_TRUE(CallsOf({"cuptiRangeProfilerStart", "cuStreamSynchronize"}).empty());
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
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups);
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
    CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups);
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
  CounterProfiler p(MockCounterApi(), gpuroof::kAllCounterGroups);
  CounterMeasurement m;
  EXPECT_EQ(Measure(p, &m), CounterStep::kFailed);
  EXPECT_THAT(p.failure().reason, HasSubstr(GetParam()));
  EXPECT_FALSE(p.failure().permission);
  EXPECT_EQ(RangeMock().started, 0);
  EXPECT_EQ(RangeMock().enabled, 0);
  const size_t calls = RangeMock().calls.size();
  std::string skip;
  EXPECT_EQ(p.Before(kStream, false, &skip), CounterStep::kFailed);
  EXPECT_EQ(RangeMock().calls.size(), calls);
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
