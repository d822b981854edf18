// libflopspy.so's cuDNN hooks, from outside (docs/cudnn-hooks.md): a client of the fake
// libcudnn.so.9 runs each scenario with and without the preload; its output and exit status must
// not change, and the trace must hold one library-call record per convolution or plan run, with
// the shapes and the hand-computed figures below. A second program describes its convolution
// with NVIDIA's real libcudnn, whose getters the hooks then read.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/dnn_formulas.h"
#include "flopspy/trace/reader.h"
#include "library_calls.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

using analyzers::BlasRoutine;
using trace::FigureSource;
using trace::LibraryCallRecord;

using Outcome = TracedRun;

Outcome RunTraced(const std::vector<std::string>& argv) {
  return RunPlainAndTraced(argv, FLOPSPY_LIBRARY_PATH);
}

// Runs a client scenario; the program must behave the same with and without flopspy.
Outcome Scenario(const std::string& name) {
  Outcome run = RunTraced({FLOPSPY_CUDNN_CLIENT, name});
  EXPECT_TRUE(run.plain.exited && run.plain.exit_code == 0) << run.plain.out << run.plain.err;
  EXPECT_TRUE(run.traced.exited && run.traced.exit_code == 0) << run.traced.out << run.traced.err;
  EXPECT_EQ(run.traced.out, run.plain.out);
  EXPECT_EQ(run.trace_error, "");
  return run;
}

uint16_t Id(BlasRoutine r) {
  return static_cast<uint16_t>(r);
}
uint8_t Source(FigureSource s) {
  return static_cast<uint8_t>(s);
}

// 2 * 8 * 128 * 64 * 3*3 * 56*56: the ResNet-style convolution every conv scenario but two uses.
constexpr double kResNetFlops = 3699376128.0;
constexpr double kX = 8.0 * 64 * 56 * 56, kW = 128.0 * 64 * 9, kY = 8.0 * 128 * 56 * 56;

TEST(CudnnHooks, LegacyForwardIsOneAnalyticRecordOnTheHandlesStream) {
  const Outcome run = Scenario("legacy-forward");
  ASSERT_EQ(run.calls.size(), 1u);
  const TracedCall& c = run.calls[0];
  EXPECT_EQ(c.name, "cudnnConvolutionForward");
  EXPECT_EQ(c.record.routine, Id(BlasRoutine::kDnnConvForward));
  EXPECT_EQ(c.record.status, 0);
  EXPECT_EQ(c.stream_handle, 0x5000u);
  EXPECT_EQ(c.record.source, Source(FigureSource::kAnalytic));
  EXPECT_DOUBLE_EQ(c.record.flops, kResNetFlops);
  EXPECT_DOUBLE_EQ(c.record.bytes, 4 * (kX + kW + kY));  // beta 0: y is not read
  EXPECT_EQ(c.record.m, 8);
  EXPECT_EQ(c.record.n, 128);
  EXPECT_EQ(c.record.k, 64);
  EXPECT_EQ(analyzers::DnnShapeText(c.record), "N8 C64 56x56 -> K128 56x56, filter 3x3");
  // FP32 data, default math type: TF32 tensor cores.
  EXPECT_EQ(analyzers::BlasComputePath(c.record), analyzers::ComputePath::kTf32Tensor);
  EXPECT_LT(c.record.enter_ns, c.record.exit_ns);
  EXPECT_NE(c.record.correlation, 0u);
}

TEST(CudnnHooks, LegacyBackwardPassesCountTheForwardProductsAndWhatTheyAccumulate) {
  const Outcome run = Scenario("legacy-backward");
  ASSERT_EQ(run.calls.size(), 2u);
  EXPECT_EQ(run.calls[0].name, "cudnnConvolutionBackwardData");
  EXPECT_EQ(run.calls[0].record.routine, Id(BlasRoutine::kDnnConvBackwardData));
  EXPECT_DOUBLE_EQ(run.calls[0].record.flops, kResNetFlops);
  EXPECT_DOUBLE_EQ(run.calls[0].record.bytes, 4 * (kX + kW + kY));
  EXPECT_EQ(run.calls[1].name, "cudnnConvolutionBackwardFilter");
  EXPECT_DOUBLE_EQ(run.calls[1].record.flops, kResNetFlops);
  EXPECT_DOUBLE_EQ(run.calls[1].record.bytes, 4 * (kX + kW + kY + kW));  // beta 1: dw read
}

TEST(CudnnHooks, GroupedChannelsLastHalfConvolution) {
  const Outcome run = Scenario("legacy-grouped-nhwc");
  ASSERT_EQ(run.calls.size(), 2u);
  for (const TracedCall& c : run.calls) {
    EXPECT_DOUBLE_EQ(c.record.flops, 2.0 * 16 * 256 * 8 * 9 * 14 * 14);
    EXPECT_EQ(c.record.batch, 32);
    EXPECT_EQ(analyzers::DnnShapeText(c.record),
              "N16 C256 28x28 -> K256 14x14, filter 3x3, stride 2x2, 32 groups, channels last");
    EXPECT_EQ(analyzers::BlasComputePath(c.record), analyzers::ComputePath::kFp16Tensor);
  }
}

TEST(CudnnHooks, ThreeDimensionalConvolution) {
  const Outcome run = Scenario("legacy-3d");
  ASSERT_EQ(run.calls.size(), 1u);
  EXPECT_DOUBLE_EQ(run.calls[0].record.flops, 2.0 * 2 * 32 * 16 * 27 * 8 * 32 * 32);
  EXPECT_EQ(analyzers::DnnShapeText(run.calls[0].record),
            "N2 C16 8x32x32 -> K32 8x32x32, filter 3x3x3");
}

TEST(CudnnHooks, BiasActivationCountsBiasAndReluApart) {
  const Outcome run = Scenario("legacy-bias-activation");
  ASSERT_EQ(run.calls.size(), 1u);
  const LibraryCallRecord& r = run.calls[0].record;
  EXPECT_EQ(run.calls[0].name, "cudnnConvolutionBiasActivationForward");
  EXPECT_DOUBLE_EQ(r.flops, kResNetFlops);
  EXPECT_DOUBLE_EQ(r.epilogue_flops, 2 * kY);  // alpha2 0: z is not added
  EXPECT_DOUBLE_EQ(r.bytes, 4 * (kX + kW + kY + 128));
}

TEST(CudnnHooks, AFailedCallKeepsItsStatusAndShapeAndCountsNothing) {
  const Outcome run = Scenario("legacy-failing");
  ASSERT_EQ(run.calls.size(), 1u);
  EXPECT_EQ(run.calls[0].record.status, CUDNN_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(run.calls[0].record.m, 8);
  EXPECT_EQ(run.calls[0].record.flops, 0);
  EXPECT_EQ(run.calls[0].record.source, Source(FigureSource::kAnalytic));
}

TEST(CudnnHooks, AnUnreadableDescriptorIsRecordedAsSuch) {
  const Outcome run = Scenario("legacy-bad-descriptor");
  ASSERT_EQ(run.calls.size(), 1u);
  const LibraryCallRecord& r = run.calls[0].record;
  EXPECT_EQ(r.status, CUDNN_STATUS_BAD_PARAM);
  EXPECT_TRUE(r.flags & trace::kLibDescriptorIncomplete);
  EXPECT_EQ(r.flops, 0);
}

// 16x64x56x56 half images (3,211,264 elements), 64 float parameters (docs/cudnn-hooks.md §2.1).
constexpr double kNormElements = 16.0 * 64 * 56 * 56;

TEST(CudnnHooks, BatchNormPassesFollowTheLayerNormConvention) {
  const Outcome run = Scenario("legacy-batch-norm");
  ASSERT_EQ(run.calls.size(), 3u);
  EXPECT_EQ(run.calls[0].name, "cudnnBatchNormalizationForwardTraining");
  EXPECT_DOUBLE_EQ(run.calls[0].record.flops, kNormElements * 8 + 64);
  EXPECT_DOUBLE_EQ(run.calls[0].record.bytes, kNormElements * 2 * 2 + 64 * 4 * 8);
  EXPECT_EQ(run.calls[1].name, "cudnnBatchNormalizationForwardInference");
  EXPECT_DOUBLE_EQ(run.calls[1].record.flops, kNormElements * 4 + 64);
  EXPECT_EQ(run.calls[2].name, "cudnnBatchNormalizationBackward");
  EXPECT_DOUBLE_EQ(run.calls[2].record.flops, kNormElements * 10 + 64);
  EXPECT_DOUBLE_EQ(run.calls[2].record.bytes, kNormElements * 2 * 3 + 64 * 4 * 5);
  for (const TracedCall& c : run.calls) {
    EXPECT_EQ(c.record.source, Source(FigureSource::kAnalytic));
    EXPECT_EQ(c.stream_handle, 0x5000u);
    EXPECT_EQ(analyzers::DnnShapeText(c.record), "N16 C64 56x56, spatial, channels last");
    EXPECT_EQ(analyzers::BlasComputePath(c.record), analyzers::ComputePath::kFp32);
  }
}

TEST(CudnnHooks, BatchNormExCountsItsAddAndActivationApart) {
  const Outcome run = Scenario("legacy-batch-norm-ex");
  ASSERT_EQ(run.calls.size(), 2u);
  EXPECT_EQ(run.calls[0].name, "cudnnBatchNormalizationForwardTrainingEx");
  EXPECT_DOUBLE_EQ(run.calls[0].record.flops, kNormElements * 8 + 64);
  EXPECT_DOUBLE_EQ(run.calls[0].record.epilogue_flops, kNormElements * 2);
  EXPECT_DOUBLE_EQ(run.calls[0].record.bytes, kNormElements * 2 * 3 + 64 * 4 * 8);  // z too
  EXPECT_EQ(run.calls[1].name, "cudnnBatchNormalizationBackwardEx");
  EXPECT_DOUBLE_EQ(run.calls[1].record.bytes, kNormElements * 2 * 5 + 64 * 4 * 5);
  EXPECT_EQ(analyzers::DnnShapeText(run.calls[1].record),
            "N16 C64 56x56, spatial, + add + activation, channels last");
}

// Half X and W, ReLU into half Z through a virtual Y: the fused graph's traffic is X, W and Z.
void ExpectConvReluGraph(const TracedCall& c) {
  EXPECT_EQ(c.name, "cudnnBackendExecute");
  EXPECT_EQ(c.record.routine, Id(BlasRoutine::kDnnGraph));
  EXPECT_EQ(c.record.source, Source(FigureSource::kAnalytic));
  EXPECT_DOUBLE_EQ(c.record.flops, kResNetFlops);
  EXPECT_DOUBLE_EQ(c.record.epilogue_flops, kY);
  EXPECT_DOUBLE_EQ(c.record.bytes, 2 * (kX + kW + kY));
  EXPECT_EQ(c.stream_handle, 0x5000u);
  EXPECT_FALSE(c.record.flags & trace::kLibDescriptorIncomplete);
  EXPECT_EQ(analyzers::DnnShapeText(c.record),
            "graph of 2 ops, conv_forward N8 C64 56x56 -> K128 56x56, filter 3x3, channels last");
  EXPECT_EQ(analyzers::BlasComputePath(c.record), analyzers::ComputePath::kFp16Tensor);
}

TEST(CudnnHooks, BackendPlanFromHeuristicsIsRecordedOnEveryRun) {
  const Outcome run = Scenario("backend-conv");
  ASSERT_EQ(run.calls.size(), 3u);
  for (const TracedCall& c : run.calls) ExpectConvReluGraph(c);
  EXPECT_NE(run.calls[0].record.correlation, run.calls[1].record.correlation);
}

TEST(CudnnHooks, BackendPlanOfAHandBuiltEngine) {
  const Outcome run = Scenario("backend-plan-built-by-hand");
  ASSERT_EQ(run.calls.size(), 2u);
  for (const TracedCall& c : run.calls) ExpectConvReluGraph(c);
}

TEST(CudnnHooks, BackendAttentionMatmulsAreFourBHSSD) {
  const Outcome run = Scenario("backend-matmul");
  ASSERT_EQ(run.calls.size(), 1u);
  const LibraryCallRecord& r = run.calls[0].record;
  EXPECT_DOUBLE_EQ(r.flops, 4.0 * 16 * 128 * 128 * 64);
  // Q, K, V and O; the scale is passed by value and S, P are virtual.
  EXPECT_DOUBLE_EQ(r.bytes, 2.0 * 4 * 16 * 128 * 64);
  EXPECT_EQ(analyzers::DnnShapeText(r), "graph of 3 ops, matmul 128x128x64 b16");
}

TEST(CudnnHooks, BackendSdpaOperationFollowsTheAttentionConvention) {
  const Outcome run = Scenario("backend-sdpa");
  ASSERT_EQ(run.calls.size(), 1u);
  const LibraryCallRecord& r = run.calls[0].record;
  EXPECT_EQ(r.source, Source(FigureSource::kAnalytic));
  EXPECT_DOUBLE_EQ(r.flops, 4.0 * 2 * 16 * 1024 * 1024 * 128);  // 2·b·h·s²·(d + d_v)
  // Q and O at 16 heads, K and V at 4 (BF16), the float statistics.
  EXPECT_DOUBLE_EQ(r.bytes, 2.0 * 2 * 1024 * 128 * (16 + 16 + 4 + 4) + 4.0 * 2 * 16 * 1024);
  EXPECT_EQ(analyzers::DnnShapeText(r),
            "graph of 1 op, sdpa_forward b2 h16 h_k4 s_q1024 s_k1024 d128");
}

TEST(CudnnHooks, BackendGraphOfAnUnmodelledOperationHasNoFigures) {
  const Outcome run = Scenario("backend-unknown-op");
  ASSERT_EQ(run.calls.size(), 1u);
  const LibraryCallRecord& r = run.calls[0].record;
  EXPECT_EQ(r.source, Source(FigureSource::kUnknown));
  EXPECT_TRUE(r.flags & trace::kLibDescriptorIncomplete);
  EXPECT_EQ(analyzers::DnnShapeText(r), "graph of 1 op, 1 without a model");
}

TEST(CudnnHooks, BackendPlanNeverFinalizedFailsAsWithoutFlopspy) {
  const Outcome run = Scenario("backend-unfinalized");
  ASSERT_EQ(run.calls.size(), 1u);
  const LibraryCallRecord& r = run.calls[0].record;
  EXPECT_EQ(r.status, CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(analyzers::DnnShapeText(r), "plan not seen built: no shapes");
}

TEST(CudnnHooks, RealLibraryDescriptorsAreReadThroughItsGetters) {
  if (std::string(FLOPSPY_CUDNN_REAL).empty()) GTEST_SKIP() << "no libcudnn.so.9 in the toolkit";
  const Outcome run = RunTraced({FLOPSPY_CUDNN_REAL});
  ASSERT_TRUE(run.traced.exited && run.traced.exit_code == 0) << run.traced.err;
  EXPECT_EQ(run.traced.out, run.plain.out);
  ASSERT_EQ(run.calls.size(), 3u) << run.trace_error;
  const std::string shape =
      "N16 C256 28x28 -> K256 14x14, filter 3x3, stride 2x2, 32 groups, channels last";
  for (const TracedCall& c : run.calls) {
    // No handle: NVIDIA's library refuses each call, but its descriptors were read back.
    EXPECT_EQ(c.record.status, CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(analyzers::DnnShapeText(c.record), shape) << c.name;
    EXPECT_EQ(c.record.type_a, analyzers::cuda_type::kR16F);
    EXPECT_EQ(analyzers::BlasComputePath(c.record), analyzers::ComputePath::kFp16Tensor);
    EXPECT_TRUE(c.record.flags & trace::kLibStreamUnknown);
  }
  EXPECT_EQ(run.calls[0].name, "cudnnConvolutionForward");
  EXPECT_EQ(run.calls[1].name, "cudnnConvolutionBackwardData");
  EXPECT_EQ(run.calls[2].name, "cudnnConvolutionBackwardFilter");
}

// Every hook is exported, and is a function NVIDIA's libcudnn.so.9 exports under that name.
TEST(CudnnHooks, EveryHookIsExportedAndNamesARealEntryPoint) {
  const std::set<std::string> flopspy = ExportedSymbols(FLOPSPY_LIBRARY_PATH);
  std::set<std::string> hooks;
  for (const std::string& name : flopspy) {
    if (name.rfind("cudnn", 0) == 0) hooks.insert(name);
  }
  EXPECT_EQ(hooks.size(), 15u);
  for (const char* name :
       {"cudnnConvolutionForward", "cudnnConvolutionBackwardData", "cudnnConvolutionBackwardFilter",
        "cudnnConvolutionBiasActivationForward", "cudnnBatchNormalizationForwardTraining",
        "cudnnBatchNormalizationForwardTrainingEx", "cudnnBatchNormalizationForwardInference",
        "cudnnBatchNormalizationBackward", "cudnnBatchNormalizationBackwardEx",
        "cudnnBackendCreateDescriptor", "cudnnBackendDestroyDescriptor", "cudnnBackendSetAttribute",
        "cudnnBackendGetAttribute", "cudnnBackendFinalize", "cudnnBackendExecute"}) {
    EXPECT_TRUE(hooks.contains(name)) << name;
  }
  const std::string real = FLOPSPY_CUDNN_REAL_LIBRARY;
  if (real.empty()) GTEST_SKIP() << "no libcudnn.so.9 in the toolkit to compare with";
  const std::set<std::string> nvidia = ExportedSymbols(real);
  for (const std::string& name : hooks) EXPECT_TRUE(nvidia.contains(name)) << name;
}

}  // namespace
}  // namespace flopspy::testing
