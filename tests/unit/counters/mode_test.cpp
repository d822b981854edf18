// Counter mode as the launch hooks use it, against a mock CUPTI: which launches are measured,
// the KernelMetrics records it writes, the one line it owes the user when counters cannot work,
// and what it waits for before calling any device-side CUPTI function.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "catalog_param_bytes.h"
#include "counters_mode.h"
#include "mock_range_profiler.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

using interpose::CounterMode;
using interpose::CounterOptions;
using interpose::CuptiState;
using ::testing::HasSubstr;

// A PyTorch elementwise kernel: the catalog's shape key comes from its first parameter (N).
constexpr const char* kMul = kAtenMulKernel;

// A kernel as the flusher leaves it once catalogued (`catalogued` false: not yet).
std::unique_ptr<interpose::FunctionInfo> Function(uint32_t id, std::string name = kMul,
                                                  bool catalogued = true) {
  auto f = std::make_unique<interpose::FunctionInfo>();
  f->id = id;
  f->handle = 0x1000 + id;
  f->mangled_name = std::move(name);
  f->layout.count = 3;
  f->layout.known = 3;
  f->layout.offset = {0, 4, 8};
  f->layout.size = {4, 1, 24};
  f->configured_param_bytes = 32;
  f->wanted_param_bytes.store(32);
  if (catalogued) interpose::CatalogFunction(*f);
  return f;
}

class Mode : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetRangeMock();
    // Every metric but the tensor paths fits in one pass: an elementwise kernel's sample is one
    // launch (PassGroupsOfASample below packs tighter).
    RangeMock().metrics_per_pass = 32;
    RangeMock().values = {{"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 1000},
                          {"dram__bytes_read.sum", 8000},
                          {"dram__bytes_write.sum", 4000},
                          {"gpu__time_duration.sum", 2500}};
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
    EXPECT_EQ(r.record.passes, 1);
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
  // The default: every metric in one configuration, replayed by CUPTI; never a switch.
  EXPECT_EQ(j["gpu_counters"]["replay"], "kernel");
  EXPECT_EQ(j["gpu_counters"]["pass_groups"].size(), 1u);
  EXPECT_EQ(cost["switches"], 0);
  EXPECT_EQ(CallsOf({"cuptiRangeProfilerEnable"}).size(), 1u);
}

// The launching thread never demangles or classifies: a kernel the flusher has not catalogued
// yet runs untouched, after asking the flusher once.
TEST_F(Mode, AKernelNotYetCataloguedRunsUntouchedAndTheFlusherIsAskedOnce) {
  auto mode = Make();
  const auto mul = Function(5, kMul, /*catalogued=*/false);
  Launch(*mode, mul.get(), 1 << 20, 1);
  Launch(*mode, mul.get(), 1 << 20, 2);
  EXPECT_EQ(said_.catalog_requests, 1);
  EXPECT_EQ(Starts(), 0u);
  EXPECT_TRUE(said_.records.empty());
  interpose::CatalogFunction(*mul);  // the flusher's pass
  ASSERT_NE(mul->kernel_class.load(), nullptr);
  Launch(*mode, mul.get(), 1 << 20, 3);
  EXPECT_EQ(Starts(), 1u);
  ASSERT_EQ(said_.records.size(), 1u);
  EXPECT_EQ(said_.records[0].record.correlation, 3u);
  EXPECT_EQ(said_.catalog_requests, 1);
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

// Eight metrics to a pass: GH100's metrics pack into three groups, two without tensor paths. An
// ATen elementwise kernel takes two launches per sample; an unknown kernel three. Each launch's
// record carries its sample so far; FLOPs count once every FP group is in.
TEST_F(Mode, PassGroupsOfASample) {
  RangeMock().metrics_per_pass = 8;
  RangeMock().values["sm__ops_path_tensor_src_tf32_dst_fp32.sum"] = 512;
  RangeMock().values["sm__sass_thread_inst_executed_op_hfma_pred_on.sum"] = 10;
  CounterOptions options;
  options.samples = 2;
  options.grouping = gpuroof::PassGrouping::kOnePass;
  auto mode = Make(options);
  const auto mul = Function(5);
  for (uint64_t i = 1; i <= 6; ++i) Launch(*mode, mul.get(), 1 << 20, 100 + i);
  EXPECT_EQ(Starts(), 4u);  // 2 samples x 2 groups
  ASSERT_EQ(said_.records.size(), 4u);
  // Group 0 for both samples, then one switch to group 1 for both.
  EXPECT_EQ(mode->cost().switches, 1u);
  const auto& first = said_.records[0].record;
  EXPECT_EQ(first.samples, 1);
  // Group 0 has 8 FP instruction counters but not hfma: FP16 is not complete yet, so its part
  // is left out (0) and the record says it holds part of a sample.
  EXPECT_EQ(first.valid,
            uint32_t{trace::kMetricsFp32 | trace::kMetricsFp64 | trace::kMetricsPartialSample});
  EXPECT_DOUBLE_EQ(first.flops_fp32, 1000);
  EXPECT_DOUBLE_EQ(first.flops_fp16, 0);
  EXPECT_EQ(said_.records[1].record.samples, 2);
  EXPECT_EQ(said_.records[1].record.valid, first.valid);
  const auto& second = said_.records[2].record;
  EXPECT_EQ(second.samples, 1);
  EXPECT_EQ(second.correlation, 103u);
  EXPECT_EQ(second.valid & trace::kMetricsPartialSample, 0u);  // sample 1 is whole now
  EXPECT_EQ(second.valid & trace::kMetricsTensor, 0u);         // never measured for an ATen kernel
  EXPECT_NE(second.valid & trace::kMetricsDram, 0u);
  EXPECT_NE(second.valid & trace::kMetricsFp16, 0u);
  EXPECT_DOUBLE_EQ(second.flops_fp32, 1000);
  EXPECT_DOUBLE_EQ(second.flops_fp16, 4 * 10);
  EXPECT_DOUBLE_EQ(second.dram_read_bytes, 8000);
  EXPECT_EQ(said_.records[3].record.samples, 2);

  // A kernel the catalog does not know may use tensor cores: three launches per sample. The
  // profiler is set for group 1: both samples of it first, then group 0, then group 2.
  const auto unknown = Function(9, "_Z13my_own_kernelPfS_i");
  for (uint64_t i = 1; i <= 8; ++i) Launch(*mode, unknown.get(), 1 << 20, 300 + i);
  ASSERT_EQ(said_.records.size(), 4u + 6u);
  EXPECT_EQ(mode->cost().switches, 3u);
  EXPECT_EQ(said_.records[8].record.correlation, 305u);  // sample 1's last group
  const auto& whole = said_.records[8].record;
  EXPECT_EQ(whole.samples, 1);
  EXPECT_NE(whole.valid & trace::kMetricsTensor, 0u);
  EXPECT_DOUBLE_EQ(whole.tensor_ops, 512);
  EXPECT_EQ(mode->cost().samples, 10u);
  const auto cost = nlohmann::json::parse(mode->CostJson());
  EXPECT_EQ(cost["gpu_counters_cost"]["samples"], 10);
  EXPECT_EQ(cost["gpu_counters_cost"]["switches"], 3);
  EXPECT_GE(cost["gpu_counters_cost"]["launch_ns"].get<uint64_t>(), 0u);
  ASSERT_EQ(said_.metadata.size(), 1u);
  const auto j = nlohmann::json::parse(said_.metadata[0]);
  EXPECT_EQ(j["gpu_counters"]["pass_groups"].size(), 3u);
  EXPECT_EQ(j["gpu_counters"]["non_tensor_groups"], 2);
  EXPECT_EQ(j["gpu_counters"]["replay"], "launches");
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

// An exception inside counter mode (the hook catches it) gives the measurement up: the next
// launch of the signature takes the sample, instead of counter mode never measuring again.
TEST_F(Mode, AnExceptionWhileMeasuringGivesTheSampleUpAndMeasuringGoesOn) {
  CounterOptions options;
  options.samples = 1;
  auto mode = Make(options);
  const auto mul = Function(5);
  // Before throws (a signature of 1024 elements), then After (one of 2048).
  const std::pair<const char*, int32_t> cases[] = {{"cuptiRangeProfilerStart", 1024},
                                                   {"cuptiProfilerHostEvaluateToGpuValues", 2048}};
  for (const auto& [where, n] : cases) {
    SCOPED_TRACE(where);
    said_.records.clear();
    RangeMock().throw_in = where;
    EXPECT_THROW(Launch(*mode, mul.get(), n, 1), std::bad_alloc);  // the hook would catch it
    EXPECT_EQ(RangeMock().started, 0);
    EXPECT_TRUE(said_.records.empty());
    Launch(*mode, mul.get(), n, 2);
    ASSERT_EQ(said_.records.size(), 1u);
    EXPECT_EQ(said_.records[0].record.correlation, 2u);
  }
  EXPECT_FALSE(mode->off());
}

TEST_F(Mode, MetricGroupsReachThePlan) {
  CounterOptions options;
  options.groups = gpuroof::kCounterFp64 | gpuroof::kCounterTime;
  auto mode = Make(options);
  const auto mul = Function(5);
  Launch(*mode, mul.get(), 1024, 1);
  ASSERT_EQ(said_.metadata.size(), 1u);
  const auto metrics = nlohmann::json::parse(said_.metadata[0])["gpu_counters"]["metrics"];
  ASSERT_EQ(metrics.size(), 4u);  // dadd, dmul, dfma and the duration
  EXPECT_EQ(metrics[3], "gpu__time_duration.sum");
  EXPECT_EQ(RangeMock().added_metrics.back(), "gpu__time_duration.sum");
}

}  // namespace
}  // namespace flopspy::testing
