// Step detection: optimizer bursts, the period of a launch sequence (with warm-up and noise),
// step ranges (NVTX names, the user's pattern), repeated graphs, and the figures of each step.
#include "flopspy/analyzers/steps.h"

#include <gtest/gtest.h>

#include <regex>

#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::analyzers {
namespace {

using testing::TraceBuilder;
using trace::ChunkSource;
using trace::RangeEdge;
using Spans = std::vector<KernelSpan>;

constexpr char kAdam[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<"
    "float, 4, (at::native::ADAM_MODE)1, false>>(...)";

TEST(StepNames, MatchTheFrameworksPatterns) {
  for (const char* name :
       {"ProfilerStep#3", "training_step_12", "train_step", "step", "step 4", "Step#7", "step_2"}) {
    EXPECT_TRUE(IsStepRangeName(name)) << name;
  }
  for (const char* name : {"forward", "stepper", "optimizer.step", "ProfilerStep"}) {
    EXPECT_FALSE(IsStepRangeName(name)) << name;
  }
}

TEST(OptimizerSteps, EachBurstEndsAStep) {
  EXPECT_TRUE(IsOptimizerKernel(kAdam));
  EXPECT_TRUE(IsOptimizerKernel("void multi_tensor_apply_kernel<SGDFunctor<float>>"));
  EXPECT_FALSE(IsOptimizerKernel("void multi_tensor_apply_kernel<BinaryOpListAlphaFunctor>"));
  // fwd bwd adam adam | fwd bwd adam | fwd bwd helper adam adam | tail
  const std::vector<std::string_view> names = {"fwd", "bwd", kAdam, kAdam,  "fwd", "bwd", kAdam,
                                               "fwd", "bwd", kAdam, "lerp", kAdam, "eval"};
  EXPECT_EQ(OptimizerSteps(names), (Spans{{0, 4}, {4, 7}, {7, 12}}));
  const std::vector<std::string_view> one = {"fwd", kAdam, "fwd"};
  EXPECT_TRUE(OptimizerSteps(one).empty());
}

TEST(PeriodSteps, PureRepetition) {
  std::vector<uint32_t> seq;
  for (int i = 0; i < 5; ++i) seq.insert(seq.end(), {1, 2, 3, 4});
  EXPECT_EQ(PeriodSteps(seq), (Spans{{0, 4}, {4, 8}, {8, 12}, {12, 16}, {16, 20}}));
}

TEST(PeriodSteps, WarmupExtrasJoinTheFirstStep) {
  // Autotuning kernels 8 and 9 before the first step; kernel 2 runs twice per step.
  std::vector<uint32_t> seq = {9, 8, 8};
  for (int i = 0; i < 4; ++i) seq.insert(seq.end(), {1, 2, 3, 2, 4});
  EXPECT_EQ(PeriodSteps(seq), (Spans{{0, 8}, {8, 13}, {13, 18}, {18, 23}}));
}

TEST(PeriodSteps, NoiseDoesNotMoveTheBoundaries) {
  // Step unit {5, 1, 2, 3}; kernel 7 sneaks in at odd places (4 times: not the step count).
  std::vector<uint32_t> seq;
  for (int i = 0; i < 6; ++i) {
    seq.insert(seq.end(), {5, 1, 2, 3});
    if (i == 1 || i == 2 || i == 4) seq.push_back(7);
    if (i == 4) seq.push_back(7);
  }
  // Step starts: 0, 4, 9, 14, 18, 24.
  EXPECT_EQ(PeriodSteps(seq), (Spans{{0, 4}, {4, 9}, {9, 14}, {14, 18}, {18, 24}, {24, 28}}));
}

TEST(PeriodSteps, NothingRepeatsNoSteps) {
  EXPECT_TRUE(PeriodSteps(std::vector<uint32_t>{1, 2, 3, 4, 5, 6}).empty());
  EXPECT_TRUE(PeriodSteps(std::vector<uint32_t>{1, 1, 1, 1, 1}).empty());  // one signature
}

// Whole traces through TraceAnalyzer, RangeCollector and FindSteps.
class FindStepsTest : public ::testing::Test {
 protected:
  FindStepsTest() {
    b_.String(1, testing::kAtenMulKernel).String(2, "gemm_kernel").String(3, kAdam);
    b_.String(10, "ProfilerStep#1").String(11, "ProfilerStep#2").String(12, "ProfilerStep#3");
    b_.String(13, "ProfilerStep#4").String(14, "iteration").String(15, "forward");
    trace::FunctionDef mul = testing::KernelFunction(1, 1, 3);
    testing::SetElementwiseLayout(mul, 4, 24);
    b_.Add(mul).Add(testing::KernelFunction(2, 2)).Add(testing::KernelFunction(3, 3));
    for (uint32_t i = 1; i <= 3; ++i) b_.Add(testing::KernelSignature(i, i, 4, 1, 256));
  }

  // A kernel launched at `t` (launch call 1 µs) that runs `gpu_ns` from t + 2 µs.
  void Kernel(uint32_t signature, uint64_t t, uint64_t gpu_ns, uint32_t thread = 7) {
    ++correlation_;
    b_.Chunk(ChunkSource::kThread, thread)
        .Add(testing::KernelLaunch(signature, correlation_, t, 1000, 1000));
    b_.Chunk(ChunkSource::kGpuActivity)
        .Add(testing::KernelExecution(signature, correlation_, t + 2000, gpu_ns, 1));
  }
  // One training step from `t`: mul (1 µs on the GPU), gemm (50 µs), adam (5 µs).
  void TrainStep(uint64_t t) {
    Kernel(1, t, 1000);
    Kernel(2, t + 10'000, 50'000);
    Kernel(3, t + 70'000, 5000);
  }

  StepReport Find(const StepOptions& options = {}) {
    trace::TraceReader reader(trace::MemorySource(b_.Bytes()));
    TraceAnalyzer analyzer;
    RangeCollector ranges;
    const StringLookup strings = [&](uint32_t id) { return reader.String(id); };
    reader.ForEachRecord([&](const trace::RecordView& r) {
      analyzer.Add(r, strings);
      ranges.Add(r, strings);
    });
    return FindSteps(ranges.Finish(), analyzer.Finish({}), options);
  }

  TraceBuilder b_;
  uint64_t correlation_ = 0;
};

TEST_F(FindStepsTest, NvtxStepRangesComeFirstAndTheSlowFirstStepIsWarmup) {
  // Four ProfilerStep ranges of 100 µs, the first 400 µs (autotuning).
  uint64_t t = 1'000'000;
  for (uint32_t i = 0; i < 4; ++i) {
    const uint64_t length = i == 0 ? 400'000 : 100'000;
    b_.Chunk(ChunkSource::kThread, 7).Add(testing::RangeEvent(RangeEdge::kPush, t, 10 + i));
    TrainStep(t + 1000);
    b_.Chunk(ChunkSource::kThread, 7).Add(testing::RangeEvent(RangeEdge::kPop, t + length));
    t += length + 10'000;
  }
  const StepReport report = Find();
  EXPECT_EQ(report.source, StepSource::kRanges);
  EXPECT_EQ(report.basis, "cpu");
  EXPECT_EQ(report.detail, "ProfilerStep#1");
  ASSERT_EQ(report.steps.size(), 4u);
  EXPECT_EQ(report.steps[0].begin_ns, 1'000'000u);
  EXPECT_EQ(report.steps[0].end_ns, 1'400'000u);
  EXPECT_EQ(report.steps[1].begin_ns, 1'410'000u);
  EXPECT_EQ(report.warmup, 1u);
  EXPECT_TRUE(report.steps[0].warmup);
  EXPECT_EQ(report.steady.steps, 3u);
  EXPECT_DOUBLE_EQ(report.steady.mean_ns, 100'000);
  EXPECT_EQ(report.steps[1].kernels, 3u);
  EXPECT_DOUBLE_EQ(report.steps[1].kernel_ns, 56'000);
  EXPECT_DOUBLE_EQ(report.steps[1].busy_ns, 56'000);
  EXPECT_DOUBLE_EQ(report.steps[1].flops, 1000);  // the multiply's
  EXPECT_DOUBLE_EQ(report.steps[1].flops_ns, 1000);
  // The multiply ran 1 µs, as long as its launch call: not shorter, so not launch bound.
  EXPECT_DOUBLE_EQ(report.steps[1].launch_bound_ns, 0);
  EXPECT_DOUBLE_EQ(report.steady.busy_share, 0.56);
}

TEST_F(FindStepsTest, UserPatternPicksOtherRanges) {
  for (uint64_t t : {1'000'000u, 2'000'000u}) {
    b_.Chunk(ChunkSource::kThread, 7).Add(testing::RangeEvent(RangeEdge::kPush, t, 14));
    TrainStep(t + 1000);
    b_.Chunk(ChunkSource::kThread, 7).Add(testing::RangeEvent(RangeEdge::kPop, t + 200'000));
  }
  StepOptions options;
  options.pattern = "^iter";
  options.model_flops_per_step = 1e6;
  const StepReport report = Find(options);
  EXPECT_EQ(report.source, StepSource::kRanges);
  EXPECT_EQ(report.steps.size(), 2u);
  EXPECT_FALSE(report.steady.mfu.has_value());  // no device peak in this trace
  EXPECT_THROW(FindSteps({}, {}, StepOptions{"(", 0}), std::regex_error);
}

TEST_F(FindStepsTest, OptimizerKernelsWithoutRanges) {
  for (int i = 0; i < 5; ++i) TrainStep(1'000'000 + static_cast<uint64_t>(i) * 100'000);
  const StepReport report = Find();
  EXPECT_EQ(report.source, StepSource::kOptimizer);
  EXPECT_EQ(report.basis, "gpu");
  ASSERT_EQ(report.steps.size(), 5u);
  // GPU windows: from the step's first kernel start to the next step's.
  EXPECT_EQ(report.steps[0].begin_ns, 1'002'000u);
  EXPECT_EQ(report.steps[0].end_ns, 1'102'000u);
  EXPECT_EQ(report.steps[4].end_ns, 1'477'000u);  // its last kernel's end
  EXPECT_EQ(report.warmup, 0u);
}

TEST_F(FindStepsTest, PeriodWhenNothingElseAndNoneWithoutRepetition) {
  for (int i = 0; i < 4; ++i) {
    const uint64_t t = 1'000'000 + static_cast<uint64_t>(i) * 100'000;
    Kernel(1, t, 1000);
    Kernel(2, t + 10'000, 50'000);
  }
  const StepReport report = Find();
  EXPECT_EQ(report.source, StepSource::kPeriod);
  EXPECT_EQ(report.steps.size(), 4u);
  EXPECT_EQ(report.detail, "2 kernels per step");

  TraceBuilder empty;
  trace::TraceReader reader(trace::MemorySource(empty.Bytes()));
  const StepReport none = FindSteps({}, {}, {});
  EXPECT_EQ(none.source, StepSource::kNone);
  EXPECT_FALSE(none.why_none.empty());
}

TEST(GraphSteps, EachLaunchOfTheMostLaunchedGraphIsAStep) {
  TraceAnalysis run;
  for (uint64_t launch = 1; launch <= 3; ++launch) {
    for (uint64_t node = 0; node < 2; ++node) {
      TimedActivity a;
      a.from_graph = true;
      a.graph_id = 5;
      a.correlation = launch;
      a.start_ns = launch * 1000 + node * 100;
      a.end_ns = a.start_ns + 50;
      run.activities.push_back(a);
    }
  }
  const StepReport report = FindSteps({}, run, {});
  EXPECT_EQ(report.source, StepSource::kGraph);
  ASSERT_EQ(report.steps.size(), 3u);
  EXPECT_EQ(report.steps[0].begin_ns, 1000u);
  EXPECT_EQ(report.steps[0].end_ns, 2000u);
  EXPECT_EQ(report.steps[2].end_ns, 3150u);
  EXPECT_EQ(report.steps[2].kernels, 2u);
}

TEST(AlignSteps, SkewAndStragglerPerStepNumber) {
  StepReport a, b;
  for (uint32_t n = 1; n <= 3; ++n) {
    a.steps.push_back({.number = n, .begin_ns = n * 100, .end_ns = n * 100 + 50});
    b.steps.push_back({.number = n, .begin_ns = n * 100, .end_ns = n * 100 + (n == 2 ? 90 : 40)});
  }
  b.steps.pop_back();  // rank b stopped after step 2
  const StepReport* ranks[] = {&a, nullptr, &b};
  const std::vector<StepSkew> skew = AlignSteps(ranks);
  ASSERT_EQ(skew.size(), 3u);
  EXPECT_EQ(skew[0].straggler, 0u);
  EXPECT_DOUBLE_EQ(skew[0].skew_ns(), 10);
  EXPECT_EQ(skew[1].straggler, 2u);
  EXPECT_DOUBLE_EQ(skew[1].slowest_ns, 90);
  EXPECT_EQ(skew[2].ranks, 1u);
  EXPECT_DOUBLE_EQ(skew[2].skew_ns(), 0);
}

}  // namespace
}  // namespace flopspy::analyzers
