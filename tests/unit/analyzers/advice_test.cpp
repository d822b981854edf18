// Advice rules against hand-built analyses; each expected gain is worked out in a comment.
#include "flopspy/analyzers/advice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "flopspy/analyzers/kernel_catalog.h"

namespace flopspy::analyzers {
namespace {

// 10 TFLOP/s FP32, 80 TFLOP/s TF32 tensor, 1 TB/s DRAM.
DeviceRoofs AdviceRoofs() {
  DeviceRoofs r;
  r.flops[static_cast<size_t>(ComputePath::kFp32)] = {10e12, RoofSource::kDatasheet, 0};
  r.flops[static_cast<size_t>(ComputePath::kTf32Tensor)] = {80e12, RoofSource::kDatasheet, 0};
  r.bandwidth[static_cast<size_t>(MemoryLevel::kDram)] = {1e12, RoofSource::kDatasheet, 0};
  return r;
}

KernelGroup MemoryKernel(const std::string& functor, double gpu_ns, double bytes) {
  KernelGroup g;
  g.name = "void at::native::vectorized_elementwise_kernel<" + functor + ">(int)";
  g.functor = functor;
  g.family = "elementwise_vectorized";
  g.device = 0;
  g.executions = 1;
  g.launches = 1;
  g.gpu_ns = gpu_ns;
  g.timed.bytes = bytes;
  g.timed.bytes_source = trace::FigureSource::kCatalog;
  g.timed.launches_with_bytes = 1;
  WorkSample w;
  w.flops = bytes / 8;  // 1 FLOP per 8 bytes (a float in, a float out)
  w.bytes = bytes;
  w.path = ComputePath::kFp32;
  w.gpu_time_ns = gpu_ns;
  w.mean_launch_ns = 1000;
  g.placement = PlaceOnRoofline(AdviceRoofs(), w);
  return g;
}

const Advice* Find(const std::vector<Advice>& list, AdviceKind kind) {
  for (const auto& a : list) {
    if (a.kind == kind) return &a;
  }
  return nullptr;
}

void AddTimed(KernelGroup& g, const KernelEstimate& e) {
  g.timed.flops = g.all.flops = e.flops;
  g.timed.special_ops = g.all.special_ops = e.special_ops;
  g.timed.bytes = g.all.bytes = e.bytes;
  g.timed.flops_source = g.all.flops_source = e.source;
  g.timed.bytes_source = g.all.bytes_source = e.bytes_source;
  g.timed.launches_with_flops = g.all.launches_with_flops = 1;
  g.timed.launches_with_bytes = g.all.launches_with_bytes = 1;
}

TEST(Advice, ExplainsWhySinCostsAsMuchAsMul) {
  TraceAnalysis run;
  run.gpu_timing = true;
  run.launches = 2;
  // Both move 512 MB; at 1 TB/s the roof time is 0.512 ms; both take ~0.6 ms.
  run.kernels.push_back(MemoryKernel("sin", 600'000, 512e6));
  run.kernels.push_back(MemoryKernel("mul", 620'000, 512e6));
  const auto advice = AdviseRun(run, {{0, AdviceRoofs()}});
  const Advice* a = Find(advice, AdviceKind::kMemoryBoundExplained);
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->finding.find("mul, sin"), std::string::npos) << a->finding;
  EXPECT_NE(a->finding.find("512 MB"), std::string::npos) << a->finding;
  EXPECT_NE(a->finding.find("memory bound"), std::string::npos);
}

// The seed notes' workload (docs/demo.md): 8192 x 8192 fp32 on a Tesla T4 (8.1 TFLOP/s
// FP32, 320 GB/s). Bytes and FLOPs come from the kernel catalog for real kernel names
// (tests/data/kernel_names/corpus.tsv), as the report would compute them.
DeviceRoofs T4() {
  DeviceRoofs r;
  r.flops[static_cast<size_t>(ComputePath::kFp32)] = {8.1e12, RoofSource::kDatasheet, 0};
  r.bandwidth[static_cast<size_t>(MemoryLevel::kDram)] = {320e9, RoofSource::kDatasheet, 0};
  return r;
}

KernelGroup SeedKernel(const char* name, double gpu_ns) {
  constexpr int32_t kN = 8192 * 8192;
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &kN, 4);
  LaunchFacts launch;
  launch.params = bytes;
  const KernelEstimate e = EstimateKernel(name, launch);
  EXPECT_EQ(e.source, trace::FigureSource::kCatalog) << e.reason;
  KernelGroup g;
  g.name = name;
  g.functor = e.functor;
  g.family = std::string(KernelFamilyName(e.family));
  g.device = 0;
  g.executions = g.launches = 1;
  g.gpu_ns = gpu_ns;
  AddTimed(g, e);
  WorkSample w;
  w.flops = e.flops;
  w.bytes = e.bytes;
  w.path = e.path;
  w.gpu_time_ns = gpu_ns;
  w.mean_launch_ns = 5000;
  g.placement = PlaceOnRoofline(T4(), w);
  return g;
}

// [S15] sin, [S05] x * 0.5 (scalar in the functor), [S14] x * y.
constexpr char kSeedSin[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::sin_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{"
    "lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::sin_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{"
    "lambda(float)#1}, std::array<char*, 2ul>)";
constexpr char kSeedMulScalar[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, "
    "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, "
    "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> "
    ">, std::array<char*, 2ul>)";
constexpr char kSeedMul[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
    "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, "
    "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> "
    ">, std::array<char*, 3ul>)";

TEST(Advice, SeedWorkloadSinCostsAsMuchAsMulInNumbers) {
  // sin and x * 0.5 both read and write 8192^2 floats: 536,870,912 bytes and 67,108,864 FLOPs
  // (0.125 FLOP/B; the T4's ridge is 8.1e12 / 320e9 = 25.3 FLOP/B). At 1.90 and 1.92 ms they
  // move 283 and 280 GB/s, 88% and 87% of 320 GB/s: 88% on average.
  TraceAnalysis run;
  run.gpu_timing = true;
  run.kernels.push_back(SeedKernel(kSeedSin, 1'900'000));
  run.kernels.push_back(SeedKernel(kSeedMulScalar, 1'920'000));
  ASSERT_EQ(run.kernels[0].placement->regime, Regime::kMemoryBound);
  EXPECT_DOUBLE_EQ(*run.kernels[0].placement->intensity, 0.125);
  const auto advice = AdviseRun(run, {{0, T4()}});
  const Advice* a = Find(advice, AdviceKind::kMemoryBoundExplained);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->finding,
            "mul, sin each take about 1.91 ms per call although their arithmetic differs: all "
            "are memory bound, each moving 537 MB at about 88% of the DRAM roof (320 GB/s), "
            "with at most 0.125 FLOP per byte against a ridge of 25.3 FLOP/B. Their time is the "
            "bytes they move, not their arithmetic.");
  EXPECT_DOUBLE_EQ(a->share, 1.0);
}

TEST(Advice, SeedWorkloadMulOfTwoTensorsTakesItsExtraBytes) {
  // x * y streams three tensors: 805,306,368 bytes, 1.5 times sin's, and takes 1.5 times as
  // long (2.85 ms) at the same 283 GB/s. Same rate, different bytes: still explained.
  TraceAnalysis run;
  run.gpu_timing = true;
  run.kernels.push_back(SeedKernel(kSeedSin, 1'900'000));
  run.kernels.push_back(SeedKernel(kSeedMul, 2'850'000));
  const auto advice = AdviseRun(run, {{0, T4()}});
  const Advice* a = Find(advice, AdviceKind::kMemoryBoundExplained);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->finding,
            "mul, sin are memory bound and move their bytes at the same rate, 283 GB/s, about "
            "88% of the DRAM roof (320 GB/s), whatever their arithmetic: each call's time "
            "follows its bytes (sin 537 MB in 1.9 ms, mul 805 MB in 2.85 ms), with at most "
            "0.125 FLOP per byte against a ridge of 25.3 FLOP/B. Their time is the bytes they "
            "move, not their arithmetic.");
}

TEST(Advice, DifferentRatesAreNotExplainedTogether) {
  // Same bytes, but mul takes twice as long as sin: something else is going on.
  TraceAnalysis run;
  run.gpu_timing = true;
  run.kernels.push_back(SeedKernel(kSeedSin, 1'900'000));
  run.kernels.push_back(SeedKernel(kSeedMulScalar, 3'800'000));
  EXPECT_EQ(Find(AdviseRun(run, {{0, T4()}}), AdviceKind::kMemoryBoundExplained), nullptr);
}

TEST(Advice, FusionGainIsTheTimeAboveTheBandwidthRoof) {
  TraceAnalysis run;
  run.gpu_timing = true;
  run.kernels.push_back(MemoryKernel("sin", 600'000, 512e6));
  run.kernels.push_back(MemoryKernel("mul", 620'000, 512e6));
  const auto advice = AdviseRun(run, {{0, AdviceRoofs()}});
  const Advice* a = Find(advice, AdviceKind::kFuseElementwise);
  ASSERT_NE(a, nullptr);
  // Roof time 512e6 B / 1e12 B/s = 512 us each: (600 - 512) + (620 - 512) = 196 us above it.
  ASSERT_TRUE(a->gain_ns.has_value());
  EXPECT_NEAR(*a->gain_ns, 196'000, 1);
  EXPECT_DOUBLE_EQ(a->share, 1.0);
}

TEST(Advice, Fp32GemmsCouldUseTensorCores) {
  TraceAnalysis run;
  run.gpu_timing = true;
  LibraryGroup g;
  g.routine = "cublasSgemm_v2";
  g.path = ComputePath::kFp32;
  g.device = 0;
  g.calls = 10;
  g.gpu_ns = 8e6;  // 8 ms
  g.timed_flops = 40e9;
  g.timed_bytes = 100e6;
  WorkSample w;
  w.flops = g.timed_flops;
  w.bytes = g.timed_bytes;
  w.path = ComputePath::kFp32;
  w.gpu_time_ns = g.gpu_ns;
  g.placement = PlaceOnRoofline(AdviceRoofs(), w);
  run.libraries.push_back(g);
  const auto advice = AdviseRun(run, {{0, AdviceRoofs()}});
  const Advice* a = Find(advice, AdviceKind::kTensorCores);
  ASSERT_NE(a, nullptr);
  // 8 ms x 10/80 = 1 ms at the same efficiency; moving 100 MB takes 0.1 ms: gain 7 ms.
  ASSERT_TRUE(a->gain_ns.has_value());
  EXPECT_NEAR(*a->gain_ns, 7e6, 1);
  EXPECT_NE(a->finding.find("8 times faster"), std::string::npos) << a->finding;
}

// The audit's case: one 1 ms cuBLAS SGEMM kernel, compute bound at 20% of the FP32 roof, whose
// call runs on CUDA cores and whose grid fills half a wave. Three findings concern the same
// 1 ms (far from the roof, tensor cores, the wave): each gain may be right, but they do not add.
TraceAnalysis OneCublasGemm() {
  TraceAnalysis run;
  run.gpu_timing = true;
  run.launches = 1;
  KernelGroup k;
  k.name = "ampere_sgemm_128x128_nn";
  k.device = 0;
  k.launches = k.executions = 1;
  k.gpu_ns = 1e6;
  k.inside_library = true;
  k.path = ComputePath::kFp32;
  // 2e9 FLOPs and 12.6 MB in 1 ms: 2 TFLOP/s, 20% of 10 TFLOP/s at 159 FLOP/B (ridge 10).
  k.timed.flops = 2e9;
  k.timed.bytes = 12.6e6;
  k.timed.flops_source = k.timed.bytes_source = trace::FigureSource::kAnalytic;
  k.timed.launches_with_flops = k.timed.launches_with_bytes = 1;
  WorkSample w;
  w.flops = k.timed.flops;
  w.bytes = k.timed.bytes;
  w.path = ComputePath::kFp32;
  w.gpu_time_ns = k.gpu_ns;
  w.calls = 1;
  k.placement = PlaceOnRoofline(AdviceRoofs(), w);
  run.kernels.push_back(k);
  LibraryGroup g;
  g.routine = "cublasSgemm_v2";
  g.path = ComputePath::kFp32;
  g.device = 0;
  g.calls = 1;
  g.kernels = 1;
  g.gpu_ns = 1e6;
  g.timed_flops = k.timed.flops;
  g.timed_bytes = k.timed.bytes;
  g.kernel_time = {{0, 1e6}};
  g.placement = k.placement;
  GemmFinding wave;
  wave.kind = GemmFindingKind::kWaveQuantization;
  wave.severity = FindingSeverity::kSevere;
  wave.lost_fraction = 0.5;
  wave.sentence = "half a wave";
  g.findings.push_back(wave);
  run.libraries.push_back(g);
  return run;
}

TEST(Advice, ALibraryKernelIsNeverToldToUseALibraryKernel) {
  const TraceAnalysis run = OneCublasGemm();
  ASSERT_EQ(run.kernels[0].placement->regime, Regime::kComputeBound);
  const auto advice = AdviseRun(run, {{0, AdviceRoofs()}});
  const Advice* far = Find(advice, AdviceKind::kFarFromRoof);
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(far->action.find("library kernel"), std::string::npos) << far->action;
  EXPECT_NE(far->action.find("cuBLAS's own"), std::string::npos) << far->action;
  // A kernel of the program's own still gets the suggestion.
  TraceAnalysis own = OneCublasGemm();
  own.kernels[0].inside_library = false;
  own.libraries.clear();
  const Advice* own_far = Find(AdviseRun(own, {{0, AdviceRoofs()}}), AdviceKind::kFarFromRoof);
  ASSERT_NE(own_far, nullptr);
  EXPECT_NE(own_far->action.find("library kernel"), std::string::npos);
  EXPECT_TRUE(own_far->overlaps.empty());
  EXPECT_FALSE(own_far->combined_gain_ns.has_value());
}

TEST(Advice, GainsOnOneKernelOverlapAndTogetherStayWithinItsTime) {
  const TraceAnalysis run = OneCublasGemm();
  const auto advice = AdviseRun(run, {{0, AdviceRoofs()}});
  const Advice* far = Find(advice, AdviceKind::kFarFromRoof);
  const Advice* tensor = Find(advice, AdviceKind::kTensorCores);
  const Advice* shapes = Find(advice, AdviceKind::kGemmShapes);
  ASSERT_NE(far, nullptr);
  ASSERT_NE(tensor, nullptr);
  ASSERT_NE(shapes, nullptr);
  // Far: roof time 2e9 / 10e12 = 0.2 ms, gain 0.8 ms. Tensor cores: 1 ms x 10/80 = 0.125 ms
  // (moving 12.6 MB takes 12.6 us), gain 0.875 ms. Wave: half of 1 ms, 0.5 ms. They sum to
  // 2.175 ms on a 1 ms kernel; together they can save at most the 1 ms.
  EXPECT_NEAR(*far->gain_ns, 0.8e6, 1);
  EXPECT_NEAR(*tensor->gain_ns, 0.875e6, 1);
  EXPECT_NEAR(*shapes->gain_ns, 0.5e6, 1);
  for (const Advice* a : {far, tensor, shapes}) {
    EXPECT_EQ(a->overlaps.size(), 2u) << AdviceKindName(a->kind);
    ASSERT_TRUE(a->combined_gain_ns.has_value());
    EXPECT_DOUBLE_EQ(*a->combined_gain_ns, 1e6);
    EXPECT_NE(a->gain_basis.find("do not add up"), std::string::npos) << a->gain_basis;
    EXPECT_NE(a->gain_basis.find("at most 1 ms"), std::string::npos) << a->gain_basis;
  }
  EXPECT_NE(std::find(far->overlaps.begin(), far->overlaps.end(), AdviceKind::kTensorCores),
            far->overlaps.end());
  EXPECT_NE(std::find(far->overlaps.begin(), far->overlaps.end(), AdviceKind::kGemmShapes),
            far->overlaps.end());
}

TEST(Advice, GainsOnDifferentKernelsDoNotOverlap) {
  // The GEMM on one kernel, fusion on two elementwise kernels: no shared time.
  TraceAnalysis run = OneCublasGemm();
  run.libraries[0].findings.clear();
  run.libraries[0].path = ComputePath::kTf32Tensor;  // no tensor-core finding either
  run.kernels.push_back(MemoryKernel("sin", 600'000, 512e6));
  run.kernels.push_back(MemoryKernel("mul", 620'000, 512e6));
  const auto advice = AdviseRun(run, {{0, AdviceRoofs()}});
  const Advice* far = Find(advice, AdviceKind::kFarFromRoof);
  const Advice* fuse = Find(advice, AdviceKind::kFuseElementwise);
  ASSERT_NE(far, nullptr);
  ASSERT_NE(fuse, nullptr);
  EXPECT_TRUE(far->overlaps.empty());
  EXPECT_TRUE(fuse->overlaps.empty());
  EXPECT_EQ(fuse->gain_basis.find("do not add up"), std::string::npos);
}

TEST(Advice, PageableCopiesMeasuredAgainstPinnedOnes) {
  TraceAnalysis run;
  run.gpu_timing = true;
  CopyGroup pageable;
  pageable.from_gpu = true;
  pageable.kind = trace::CopyKind::kHostToDevice;
  pageable.src = trace::MemoryKind::kPageable;
  pageable.dst = trace::MemoryKind::kDevice;
  pageable.bytes = 1e9;
  pageable.ns = 200e6;  // 5 GB/s
  CopyGroup pinned = pageable;
  pinned.src = trace::MemoryKind::kPinned;
  pinned.bytes = 1e9;
  pinned.ns = 50e6;  // 20 GB/s
  run.copies = {pageable, pinned};
  const auto advice = AdviseRun(run, {});
  const Advice* a = Find(advice, AdviceKind::kPinnedMemory);
  ASSERT_NE(a, nullptr);
  // 1 GB at 20 GB/s = 50 ms instead of 200 ms: 150 ms saved.
  ASSERT_TRUE(a->gain_ns.has_value());
  EXPECT_NEAR(*a->gain_ns, 150e6, 1);
}

TEST(Advice, SaysWhenGpuTimesAreMissing) {
  TraceAnalysis run;
  run.launches = 42;
  run.gpu_timing = false;
  const auto advice = AdviseRun(run, {});
  ASSERT_FALSE(advice.empty());
  EXPECT_EQ(advice[0].kind, AdviceKind::kNoGpuTiming);
  EXPECT_NE(advice[0].finding.find("42 kernel launches"), std::string::npos);
}

// 200 launches of a 2 us kernel at 5 us each, the first of them 3 ms (CUDA's lazy loading
// loads the module): the advice quotes the 5 us the regime was decided on, not a mean of 20 us.
TEST(Advice, LaunchBoundQuotesTheSteadyLaunchCost) {
  KernelGroup g = MemoryKernel("add", 200 * 2000.0, 200 * 1e3);
  g.executions = g.launches = 200;
  g.first_launches = 1;
  g.first_launch_ns = 3e6;
  g.launch_ns = 3e6 + 199 * 5000.0;
  WorkSample w;
  w.flops = 200 * 1e3 / 8;
  w.bytes = 200 * 1e3;
  w.path = ComputePath::kFp32;
  w.gpu_time_ns = g.gpu_ns;
  w.calls = 200;
  w.mean_launch_ns = SteadyLaunchNs(g);
  g.placement = PlaceOnRoofline(AdviceRoofs(), w);
  ASSERT_EQ(g.placement->regime, Regime::kOverheadBound);
  TraceAnalysis run;
  run.gpu_timing = true;
  run.kernels.push_back(g);
  const std::vector<Advice> advice = AdviseRun(run, {});
  const Advice* a = Find(advice, AdviceKind::kLaunchBound);
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->finding.find("2 us on the GPU against 5 us of CPU per launch"), std::string::npos)
      << a->finding;
}

TEST(Advice, NothingToSayAboutAnEmptyRun) {
  EXPECT_TRUE(AdviseRun(TraceAnalysis{}, {}).empty());
}

TEST(Advice, LargestGainFirst) {
  TraceAnalysis run;
  run.gpu_timing = true;
  run.kernels.push_back(MemoryKernel("sin", 600'000, 512e6));
  CopyGroup pageable;
  pageable.from_gpu = true;
  pageable.kind = trace::CopyKind::kHostToDevice;
  pageable.src = trace::MemoryKind::kPageable;
  pageable.bytes = 1e9;
  pageable.ns = 200e6;
  CopyGroup pinned = pageable;
  pinned.src = trace::MemoryKind::kPinned;
  pinned.ns = 50e6;
  run.copies = {pageable, pinned};
  const auto advice = AdviseRun(run, {{0, AdviceRoofs()}});
  ASSERT_GE(advice.size(), 2u);
  EXPECT_EQ(advice[0].kind, AdviceKind::kPinnedMemory);  // 150 ms beats 88 us
}

}  // namespace
}  // namespace flopspy::analyzers
