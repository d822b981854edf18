// Counter mode as the launch hooks use it, against a mock CUPTI: which launches are measured,
// the KernelMetrics records it writes, the one line it owes the user when counters cannot work,
// and what it waits for before calling any device-side CUPTI function.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "counters_mode.h"
#include "mock_range_profiler.h"

namespace flopspy::testing {
namespace {

using interpose::CounterMode;
using interpose::CounterOptions;
using interpose::CuptiState;
using ::testing::HasSubstr;

// A PyTorch elementwise kernel: the catalog's shape key comes from its first parameter (N).
constexpr char kMul[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::MulFunctor<float>, at::detail::Array<char*, "
    "3>)";

std::unique_ptr<interpose::FunctionInfo> Function(uint32_t id, std::string name = kMul) {
  auto f = std::make_unique<interpose::FunctionInfo>();
  f->id = id;
  f->handle = 0x1000 + id;
  f->mangled_name = std::move(name);
  f->layout.count = 3;
  f->layout.known = 3;
  f->layout.offset = {0, 4, 8};
  f->layout.size = {4, 1, 24};
  f->wanted_param_bytes.store(32);
  return f;
}

class Mode : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetRangeMock();
    RangeMock().values = {{"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 1000},
                          {"dram__bytes_read.sum", 8000},
                          {"dram__bytes_write.sum", 4000}};
  }

  std::unique_ptr<CounterMode> Make(CounterOptions options = {}, bool driver_loaded = true,
                                    CuptiState timing = CuptiState::kActive) {
    return std::make_unique<CounterMode>(options,
                                         MockCounterEnvironment(&said_, driver_loaded, timing));
  }

  // What a launch hook does, with a program launch that returns `result`.
  int Launch(CounterMode& mode, const interpose::FunctionInfo* f, int32_t n, uint64_t correlation,
             int result = 0) {
    interpose::LaunchShape shape;
    shape.grid[0] = static_cast<uint32_t>((n + 1023) / 1024);
    shape.block[0] = 256;
    shape.stream = 0x77;
    char functor = 0;
    char array[24] = {};
    void* args[3] = {&n, &functor, array};
    CounterMode::Ticket ticket;
    mode.Begin({f, &shape, {args, nullptr}, correlation}, &ticket);
    RangeMock().calls.push_back("launch");
    mode.End(&ticket, result);
    mode.Emit(&ticket);
    return result;
  }

  size_t Starts() const { return CallsOf({"cuptiRangeProfilerStart"}).size(); }

  CounterSaid said_;
};

TEST_F(Mode, TheFirstNLaunchesOfASignatureAreMeasuredAndLaterOnesRunUntouched) {
  CounterOptions options;
  options.samples = 3;
  auto mode = Make(options);
  const auto mul = Function(5);
  for (uint64_t i = 1; i <= 10; ++i) Launch(*mode, mul.get(), 1 << 20, 100 + i);
  EXPECT_EQ(Starts(), 3u);
  EXPECT_EQ(CallsOf({"launch"}).size(), 10u);
  ASSERT_EQ(said_.records.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const interpose::RawKernelMetrics& r = said_.records[i];
    EXPECT_EQ(r.record.h.type, static_cast<uint8_t>(interpose::RawType::kKernelMetrics));
    EXPECT_EQ(r.record.correlation, 101 + i);
    EXPECT_EQ(r.record.samples, i + 1);
    EXPECT_EQ(r.record.passes, 3);
    EXPECT_DOUBLE_EQ(r.record.flops_fp32, 1000);
    EXPECT_DOUBLE_EQ(r.record.dram_read_bytes, 8000);
    EXPECT_TRUE(r.record.valid & trace::kMetricsDram);
    EXPECT_EQ(r.function, 5u);
    EXPECT_EQ(r.grid[0], 1024u);
    EXPECT_EQ(r.block[0], 256u);
  }
  // Another element count is another signature (the catalog's shape parameters).
  Launch(*mode, mul.get(), 4096, 200);
  EXPECT_EQ(Starts(), 4u);
  EXPECT_EQ(mode->measured(), 4u);
  // What measuring cost, for the trace's end (gpu_counters_cost).
  EXPECT_EQ(mode->cost().samples, 4u);
  EXPECT_EQ(mode->cost().abandoned, 0u);
  const auto cost = nlohmann::json::parse(mode->CostJson())["gpu_counters_cost"];
  EXPECT_EQ(cost["samples"], 4);
  EXPECT_TRUE(cost.contains("launch_ns") && cost.contains("readout_ns"));
  EXPECT_TRUE(said_.reports.empty());
  // The chip's plan went into the trace metadata once.
  ASSERT_EQ(said_.metadata.size(), 1u);
  const auto j = nlohmann::json::parse(said_.metadata[0]);
  EXPECT_TRUE(j["gpu_counters"]["available"].get<bool>());
  EXPECT_EQ(j["gpu_counters"]["chip"], "GH100");
  EXPECT_EQ(j["gpu_counters"]["samples_per_signature"], 3);
}

TEST_F(Mode, SamplesThatDisagreeAreWarnedOnce) {
  CounterOptions options;
  options.samples = 3;
  RangeMock().value_sequence = {
      {{"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 1000}},
      {{"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 1000}},
      {{"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 1100}},  // 10% more
      {{"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 500}},
      {{"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 900}}};
  auto mode = Make(options);
  const auto a = Function(5);
  const auto b = Function(6);
  for (uint64_t i = 0; i < 3; ++i) Launch(*mode, a.get(), 1 << 20, 10 + i);
  for (uint64_t i = 0; i < 3; ++i) Launch(*mode, b.get(), 1 << 20, 20 + i);  // disagrees too
  ASSERT_EQ(said_.reports.size(), 1u);
  EXPECT_THAT(said_.reports[0], HasSubstr("disagree by"));
  EXPECT_THAT(said_.reports[0], HasSubstr("FLOPs"));
  EXPECT_THAT(said_.reports[0], HasSubstr("vectorized_elementwise_kernel"));
  EXPECT_FALSE(mode->off());  // a warning, not a failure
  EXPECT_EQ(said_.records.size(), 6u);
}

TEST_F(Mode, NoPermissionIsOneClearLine) {
  RangeMock().fail["cuptiRangeProfilerEnable"] = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  auto mode = Make();
  const auto mul = Function(5);
  EXPECT_EQ(Launch(*mode, mul.get(), 1 << 20, 1), 0);
  EXPECT_EQ(Launch(*mode, mul.get(), 1 << 20, 2), 0);
  ASSERT_EQ(said_.reports.size(), 1u);
  EXPECT_EQ(said_.reports[0],
            "GPU counters need profiling permission (cuptiRangeProfilerEnable: "
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35); run as root or load the NVIDIA driver with "
            "NVreg_RestrictProfilingToAdminUsers=0); FLOPs from the catalog only");
  EXPECT_EQ(said_.codes[0], trace::WarningCode::kCountersUnavailable);
  EXPECT_TRUE(mode->off());
  EXPECT_TRUE(said_.records.empty());
  const auto j = nlohmann::json::parse(said_.metadata.back());
  EXPECT_FALSE(j["gpu_counters"]["available"].get<bool>());
  EXPECT_TRUE(j["gpu_counters"]["permission"].get<bool>());
}

// A failure at any step: one warning, counter mode off for good, the launch runs and its result
// is the program's.
class ModeFailure : public Mode, public ::testing::WithParamInterface<const char*> {};

TEST_P(ModeFailure, TurnsCounterModeOffWithOneWarning) {
  RangeMock().fail[GetParam()] = 999;  // CUDA_ERROR_UNKNOWN and CUPTI_ERROR_UNKNOWN alike
  auto mode = Make();
  const auto mul = Function(5);
  EXPECT_EQ(Launch(*mode, mul.get(), 1 << 20, 1, /*result=*/0), 0);
  EXPECT_EQ(Launch(*mode, mul.get(), 1 << 20, 2, /*result=*/0), 0);
  EXPECT_EQ(Launch(*mode, mul.get(), 1 << 20, 3, /*result=*/719), 719);
  EXPECT_TRUE(mode->off());
  ASSERT_EQ(said_.reports.size(), 1u);
  EXPECT_THAT(said_.reports[0], HasSubstr("GPU counters unavailable: "));
  EXPECT_THAT(said_.reports[0], HasSubstr("; FLOPs from the catalog only"));
  EXPECT_EQ(CallsOf({"launch"}).size(), 3u);
  EXPECT_TRUE(said_.records.empty());
  EXPECT_EQ(RangeMock().started, 0);
  EXPECT_EQ(RangeMock().enabled, 0);
}

INSTANTIATE_TEST_SUITE_P(EveryStep, ModeFailure,
                         ::testing::Values("cuInit", "cuDeviceGetCount", "cuptiProfilerInitialize",
                                           "cuptiDeviceGetChipName", "cuptiProfilerHostInitialize",
                                           "cuptiRangeProfilerEnable",
                                           "cuptiRangeProfilerSetConfig", "cuptiRangeProfilerStart",
                                           "cuptiRangeProfilerStop", "cuptiRangeProfilerDecodeData",
                                           "cuptiProfilerHostEvaluateToGpuValues"),
                         [](const auto& p) { return std::string(p.param); });

TEST_F(Mode, ADriverThatDoesNotInitialiseGetsNoDeviceSideCuptiCall) {
  RangeMock().fail["cuInit"] = CUDA_ERROR_NO_DEVICE;
  auto mode = Make();
  const auto mul = Function(5);
  Launch(*mode, mul.get(), 1024, 1);
  EXPECT_TRUE(CallsOf({"cupti"}).empty());
  ASSERT_EQ(said_.reports.size(), 1u);
  EXPECT_THAT(said_.reports[0], HasSubstr("cuInit returned 100"));
}

TEST_F(Mode, WaitsForTheDriverToBeLoadedThenGivesUp) {
  CounterOptions options;
  options.max_driver_waits = 2;
  auto mode = Make(options, /*driver_loaded=*/false);
  const auto mul = Function(5);
  Launch(*mode, mul.get(), 1024, 1);
  Launch(*mode, mul.get(), 1024, 2);
  EXPECT_FALSE(mode->off());
  Launch(*mode, mul.get(), 1024, 3);
  EXPECT_TRUE(mode->off());
  ASSERT_EQ(said_.reports.size(), 1u);
  EXPECT_THAT(said_.reports[0], HasSubstr("no CUDA driver is loaded"));
  EXPECT_TRUE(CallsOf({"cu"}).empty());
}

TEST_F(Mode, WaitsForTheGpuTimingSessionAndLeavesCuptiToAnotherTool) {
  {
    auto mode = Make({}, true, CuptiState::kNotStarted);
    const auto mul = Function(5);
    Launch(*mode, mul.get(), 1024, 1);
    EXPECT_FALSE(mode->off());
    EXPECT_TRUE(CallsOf({"cu"}).empty());
    EXPECT_EQ(mode->sampler().signatures(), 0u);  // no sample was claimed
  }
  {
    auto mode = Make({}, true, CuptiState::kUnavailable);
    const auto mul = Function(5);
    Launch(*mode, mul.get(), 1024, 1);
    EXPECT_TRUE(mode->off());
    ASSERT_EQ(said_.reports.size(), 1u);
    EXPECT_THAT(said_.reports[0], HasSubstr("CUPTI is unavailable (CUPTI is in use by nsys)"));
    EXPECT_TRUE(CallsOf({"cu"}).empty());
  }
}

TEST_F(Mode, WorksWithGpuTimingOff) {
  CounterOptions options;
  options.timing_off = true;  // the session is unavailable by choice
  auto mode = Make(options, true, CuptiState::kUnavailable);
  const auto mul = Function(5);
  Launch(*mode, mul.get(), 1024, 1);
  EXPECT_EQ(said_.records.size(), 1u);
  EXPECT_TRUE(said_.reports.empty());
}

TEST_F(Mode, CollectivesAndUnidentifiedKernelsAreNeverMeasured) {
  auto mode = Make();
  const auto nccl =
      Function(7, "_Z29ncclDevKernel_AllReduce_Sum_f3RingLL24ncclDevKernelArgsStorage");
  Launch(*mode, nccl.get(), 1024, 1);
  interpose::FunctionInfo unknown;  // id 0: the driver could not identify it
  Launch(*mode, &unknown, 1024, 2);
  Launch(*mode, nullptr, 1024, 3);
  EXPECT_EQ(Starts(), 0u);
  EXPECT_TRUE(said_.records.empty());
  EXPECT_FALSE(mode->off());
}

TEST_F(Mode, AFailedLaunchIsNotASampleAndALaterOneTakesItsPlace) {
  CounterOptions options;
  options.samples = 1;
  auto mode = Make(options);
  const auto mul = Function(5);
  EXPECT_EQ(Launch(*mode, mul.get(), 1024, 1, /*result=*/1), 1);
  EXPECT_TRUE(said_.records.empty());
  EXPECT_EQ(mode->cost().abandoned, 1u);  // its profiling ran, its sample was dropped
  EXPECT_EQ(mode->cost().samples, 0u);
  Launch(*mode, mul.get(), 1024, 2);
  ASSERT_EQ(said_.records.size(), 1u);
  EXPECT_EQ(said_.records[0].record.correlation, 2u);
  EXPECT_EQ(said_.records[0].record.samples, 1);
  Launch(*mode, mul.get(), 1024, 3);
  EXPECT_EQ(said_.records.size(), 1u);
}

TEST_F(Mode, ALaunchDuringAMeasurementRunsUntouchedAndKeepsItsSampleForLater) {
  CounterOptions options;
  options.samples = 1;
  auto mode = Make(options);
  const auto a = Function(5);
  const auto b = Function(6);
  int32_t n = 1024;
  char functor = 0;
  char array[24] = {};
  void* args[3] = {&n, &functor, array};
  interpose::LaunchShape shape;
  shape.grid[0] = 1, shape.block[0] = 256;
  CounterMode::Ticket outer, inner;
  mode->Begin({a.get(), &shape, {args, nullptr}, 1}, &outer);
  ASSERT_TRUE(outer.measuring);
  // Another launch (another thread's, or one made from inside this launch) while measuring.
  mode->Begin({b.get(), &shape, {args, nullptr}, 2}, &inner);
  EXPECT_FALSE(inner.measuring);
  mode->End(&inner, 0);
  mode->End(&outer, 0);
  mode->Emit(&inner);
  mode->Emit(&outer);
  ASSERT_EQ(said_.records.size(), 1u);
  EXPECT_EQ(said_.records[0].record.correlation, 1u);
  // b's sample was given back: its next launch is measured.
  Launch(*mode, b.get(), 1024, 3);
  ASSERT_EQ(said_.records.size(), 2u);
  EXPECT_EQ(said_.records[1].record.correlation, 3u);
}

TEST_F(Mode, MetricGroupsReachThePlan) {
  CounterOptions options;
  options.groups = gpuroof::kCounterFp64 | gpuroof::kCounterTime;
  auto mode = Make(options);
  const auto mul = Function(5);
  Launch(*mode, mul.get(), 1024, 1);
  const std::vector<std::string> added = RangeMock().added_metrics;
  ASSERT_EQ(added.size(), 4u);
  EXPECT_EQ(added[3], "gpu__time_duration.sum");
}

}  // namespace
}  // namespace flopspy::testing
