// Roofline placement and regimes against hand-computed cases, the seed notes' T4 profile, and
// HFU/MFU. Each expected value's arithmetic is in the comment beside it.
#include <gtest/gtest.h>

#include "flopspy/analyzers/roofline.h"

namespace flopspy::analyzers {
namespace {

using P = ComputePath;

DeviceRoofs A100Roofs() {
  DeviceRoofs r;
  r.Flops(P::kFp32) = {19.5e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kFp16Tensor) = {312e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kBf16Tensor) = {312e12, RoofSource::kDatasheet, 0};
  r.Bandwidth(MemoryLevel::kDram) = {1555e9, RoofSource::kDatasheet, 0};
  return r;
}

DeviceRoofs T4Roofs() {
  DeviceRoofs r;
  r.Flops(P::kFp32) = {8.1e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kFp16Tensor) = {65e12, RoofSource::kDatasheet, 0};
  r.Bandwidth(MemoryLevel::kDram) = {320e9, RoofSource::kDatasheet, 0};
  return r;
}

constexpr double kN = 67108864;  // 2^26 elements

// c = a + b in fp32 over 2^26 elements: 1 FLOP and 12 bytes (two reads, one write) per element.
WorkSample VectorAdd(double gpu_time_ns) {
  WorkSample w;
  w.flops = kN;         // 67,108,864 FLOP
  w.bytes = 12.0 * kN;  // 805,306,368 B
  w.path = P::kFp32;
  w.gpu_time_ns = gpu_time_ns;
  return w;
}

TEST(Placement, ElementwiseAddIsMemoryBoundNearTheBandwidthRoof) {
  const Placement p = PlaceOnRoofline(A100Roofs(), VectorAdd(600'000));  // 600 us
  EXPECT_EQ(p.regime, Regime::kMemoryBound);
  EXPECT_EQ(p.roof_path, P::kFp32);
  EXPECT_EQ(p.peak_source, RoofSource::kDatasheet);
  EXPECT_EQ(p.bandwidth_source, RoofSource::kDatasheet);
  // I = 1 / 12 = 0.083333 FLOP/B; ridge = 19.5e12 / 1555e9 = 12.5402 FLOP/B
  EXPECT_NEAR(*p.intensity, 1.0 / 12.0, 1e-12);
  EXPECT_NEAR(*p.ridge, 12.540192926, 1e-6);
  // attainable = min(19.5e12, 1555e9 / 12) = 1.295833e11 FLOP/s
  EXPECT_NEAR(*p.attainable_flops, 1555e9 / 12.0, 1.0);
  // achieved = 805,306,368 B / 600e-6 s = 1.342177e12 B/s = 86.31% of 1555e9
  EXPECT_NEAR(*p.achieved_bandwidth, 1.34217728e12, 1.0);
  EXPECT_NEAR(*p.pct_of_bandwidth, 86.313651, 1e-5);
  // FLOP/s against attainable is the same fraction when memory binds: 86.31%
  EXPECT_NEAR(*p.pct_of_attainable, 86.313651, 1e-5);
  EXPECT_EQ(p.proximity, RoofProximity::kNear);  // >= 80%
  // roof time = 805,306,368 / 1555e9 = 517.88 us
  EXPECT_NEAR(*p.roof_time_ns, 517881.9, 0.1);
  EXPECT_EQ(p.overhead_reason, OverheadReason::kNone);
}

TEST(Placement, LargeHalfGemmIsComputeBound) {
  WorkSample w;
  w.flops = 2.0 * 8192.0 * 8192.0 * 8192.0;  // 2mnk = 1.099511627776e12 FLOP
  w.bytes = 3.0 * 2.0 * 8192.0 * 8192.0;     // A, B read and C written once: 402,653,184 B
  w.path = P::kFp16Tensor;
  w.gpu_time_ns = 5e6;  // 5 ms
  const Placement p = PlaceOnRoofline(A100Roofs(), w);
  EXPECT_EQ(p.regime, Regime::kComputeBound);
  // I = 1.0995e12 / 402,653,184 = 2730.67 FLOP/B >= ridge 312e12 / 1555e9 = 200.64
  EXPECT_NEAR(*p.intensity, 2730.666667, 1e-5);
  EXPECT_NEAR(*p.ridge, 200.643086817, 1e-6);
  EXPECT_DOUBLE_EQ(*p.attainable_flops, 312e12);
  // achieved = 1.0995e12 / 5e-3 = 219.90 TFLOP/s = 70.48% of 312e12: between 60% and 80%
  EXPECT_NEAR(*p.achieved_flops, 2.199023255552e14, 1.0);
  EXPECT_NEAR(*p.pct_of_attainable, 70.481514, 1e-5);
  EXPECT_NEAR(*p.pct_of_peak, 70.481514, 1e-5);
  EXPECT_EQ(p.proximity, RoofProximity::kModerate);
  // roof time = 1.0995e12 / 312e12 = 3.524 ms
  EXPECT_NEAR(*p.roof_time_ns, 3524075.7, 0.1);
}

TEST(Placement, IntensityExactlyAtTheRidgeIsComputeBound) {
  DeviceRoofs r;
  r.Flops(P::kFp32) = {100e12, RoofSource::kDatasheet, 0};
  r.Bandwidth(MemoryLevel::kDram) = {1e12, RoofSource::kDatasheet, 0};
  WorkSample w;
  w.flops = 100e9;  // I = 100e9 / 1e9 = 100 = ridge 100e12 / 1e12
  w.bytes = 1e9;
  w.path = P::kFp32;
  w.gpu_time_ns = 10e6;
  EXPECT_EQ(PlaceOnRoofline(r, w).regime, Regime::kComputeBound);
  w.flops = 99e9;  // I = 99 < 100
  EXPECT_EQ(PlaceOnRoofline(r, w).regime, Regime::kMemoryBound);
}

TEST(Placement, KernelShorterThanItsLaunchIsOverheadBound) {
  WorkSample w = VectorAdd(7'000 * 100.0);  // 100 calls of 7 us each
  w.calls = 100;
  w.mean_launch_ns = 10'000;  // 10 us of CPU per launch > 7 us of GPU
  const Placement p = PlaceOnRoofline(A100Roofs(), w);
  EXPECT_EQ(p.regime, Regime::kOverheadBound);
  EXPECT_EQ(p.overhead_reason, OverheadReason::kShorterThanLaunch);
  EXPECT_DOUBLE_EQ(p.mean_gpu_ns, 7'000);
  EXPECT_TRUE(p.intensity);  // the position is still reported

  w.mean_launch_ns = 4'000;  // 7 us > 4 us and 7 us > 5 us tiny threshold: placed normally
  EXPECT_EQ(PlaceOnRoofline(A100Roofs(), w).regime, Regime::kMemoryBound);
}

TEST(Placement, TinyKernelIsOverheadBoundWithoutLaunchData) {
  WorkSample w;
  w.flops = 1024;
  w.bytes = 12288;
  w.path = P::kFp32;
  w.gpu_time_ns = 3'000;  // 3 us < 5 us
  const Placement p = PlaceOnRoofline(A100Roofs(), w);
  EXPECT_EQ(p.regime, Regime::kOverheadBound);
  EXPECT_EQ(p.overhead_reason, OverheadReason::kTinyKernel);

  RegimeThresholds graph_replay;
  graph_replay.tiny_kernel_ns = 0;  // rule off
  EXPECT_EQ(PlaceOnRoofline(A100Roofs(), w, graph_replay).regime, Regime::kMemoryBound);
}

TEST(Placement, OverheadNeedsNoFlopsOrBytes) {
  WorkSample w;
  w.gpu_time_ns = 2'000;
  w.path = P::kUnknown;
  EXPECT_EQ(PlaceOnRoofline(A100Roofs(), w).regime, Regime::kOverheadBound);
}

TEST(Placement, CopyKernelWithNoFlopsIsMemoryBound) {
  WorkSample w;
  w.flops = 0;    // known zero
  w.bytes = 1e9;  // 1 GB moved in 1 ms: 1e12 B/s = 64.31% of 1555e9
  w.path = P::kFp32;
  w.gpu_time_ns = 1e6;
  const Placement p = PlaceOnRoofline(A100Roofs(), w);
  EXPECT_EQ(p.regime, Regime::kMemoryBound);
  EXPECT_FALSE(p.attainable_flops);
  EXPECT_NEAR(*p.pct_of_bandwidth, 64.308681672, 1e-6);
  EXPECT_NEAR(*p.pct_of_attainable, 64.308681672, 1e-6);
  EXPECT_EQ(p.proximity, RoofProximity::kModerate);
}

TEST(Placement, NoFlopsOrBytesIsUnknown) {
  WorkSample w;
  w.path = P::kFp32;
  w.gpu_time_ns = 100'000;
  EXPECT_EQ(PlaceOnRoofline(A100Roofs(), w).regime, Regime::kUnknown);

  w.flops = 1e9;  // FLOPs without bytes: a rate but no intensity, so no regime
  const Placement p = PlaceOnRoofline(A100Roofs(), w);
  EXPECT_EQ(p.regime, Regime::kUnknown);
  EXPECT_FALSE(p.intensity);
  // 1e9 / 100e-6 = 1e13 FLOP/s = 51.28% of 19.5e12
  EXPECT_NEAR(*p.pct_of_peak, 51.282051282, 1e-6);
}

TEST(Placement, UnknownPathHasNoComputeRoof) {
  WorkSample w = VectorAdd(600'000);
  w.path = P::kUnknown;
  const Placement p = PlaceOnRoofline(A100Roofs(), w);
  EXPECT_EQ(p.regime, Regime::kUnknown);
  EXPECT_EQ(p.peak_source, RoofSource::kNone);
  EXPECT_NEAR(*p.pct_of_bandwidth, 86.313651, 1e-5);  // the bandwidth roof still applies
}

TEST(Placement, NoGpuTimeIsUnknown) {
  const Placement p = PlaceOnRoofline(A100Roofs(), VectorAdd(0));
  EXPECT_EQ(p.regime, Regime::kUnknown);
  EXPECT_FALSE(p.achieved_flops);
}

TEST(Placement, ZeroBytesMeansInfiniteIntensity) {
  WorkSample w;
  w.flops = 1e12;
  w.bytes = 0;
  w.path = P::kFp32;
  w.gpu_time_ns = 1e8;  // 100 ms: 1e13 FLOP/s = 51.28% of 19.5e12: far from the roof
  const Placement p = PlaceOnRoofline(A100Roofs(), w);
  EXPECT_EQ(p.regime, Regime::kComputeBound);
  EXPECT_FALSE(p.intensity);
  EXPECT_DOUBLE_EQ(*p.attainable_flops, 19.5e12);
  EXPECT_EQ(p.proximity, RoofProximity::kFar);  // < 60%
}

TEST(Placement, MeasuredRoofsArePreferredAndNominalStaysAvailable) {
  DeviceRoofs roofs = A100Roofs();
  roofs.Bandwidth(MemoryLevel::kDram).measured = 1.3e12;
  const Placement measured = PlaceOnRoofline(roofs, VectorAdd(600'000));
  EXPECT_EQ(measured.bandwidth_source, RoofSource::kMeasured);
  // 1.34217728e12 / 1.3e12 = 103.24%: above a measured roof is reported, not clamped
  EXPECT_NEAR(*measured.pct_of_bandwidth, 103.244406, 1e-5);
  EXPECT_NEAR(*measured.ridge, 19.5e12 / 1.3e12, 1e-9);  // 15.0

  const Placement nominal =
      PlaceOnRoofline(roofs, VectorAdd(600'000), {}, RoofPreference::kNominalOnly);
  EXPECT_EQ(nominal.bandwidth_source, RoofSource::kDatasheet);
  EXPECT_NEAR(*nominal.pct_of_bandwidth, 86.313651, 1e-5);
}

TEST(Placement, FallbackPathIsReported) {
  WorkSample w;
  w.flops = 1e12;
  w.bytes = 1e9;
  w.path = P::kFp16TensorHalfAcc;
  w.gpu_time_ns = 1e7;
  const Placement p = PlaceOnRoofline(A100Roofs(), w);
  EXPECT_EQ(p.requested_path, P::kFp16TensorHalfAcc);
  EXPECT_EQ(p.roof_path, P::kFp16Tensor);
  EXPECT_DOUBLE_EQ(p.peak_flops, 312e12);
}

// Seed note 000's profile of a Tesla T4 on 8192x8192 fp32 tensors (N = 67,108,864 elements).
TEST(Placement, SeedNoteT4Profile) {
  const double n = 8192.0 * 8192.0;
  // aten::pow, 2.167 ms: read x, write y = 8N bytes = 536,870,912 B; 1 FLOP per element.
  WorkSample pow;
  pow.flops = n;
  pow.bytes = 8.0 * n;
  pow.path = P::kFp32;
  pow.gpu_time_ns = 2.167e6;
  const Placement pw = PlaceOnRoofline(T4Roofs(), pow);
  EXPECT_EQ(pw.regime, Regime::kMemoryBound);  // I = 0.125 < 8.1e12 / 320e9 = 25.31
  // 536,870,912 / 320e9 = 1.6777 ms at the roof (the note's "0.839 * 2 = 1.676 ms")
  EXPECT_NEAR(*pw.roof_time_ns, 1677721.6, 0.1);
  // 536,870,912 / 2.167e-3 = 247.75 GB/s = 77.42% of 320 GB/s
  EXPECT_NEAR(*pw.pct_of_bandwidth, 77.4210, 1e-3);
  EXPECT_EQ(pw.proximity, RoofProximity::kModerate);
  // FLOP/s: 67,108,864 / 2.167e-3 = 3.097e10 = 0.38% of the FP32 roof (the note's "~12%" counts
  // pow as several FLOPs and uses a different peak)
  EXPECT_NEAR(*pw.pct_of_peak, 0.38232, 1e-4);

  // aten::mm, 230.208 ms: 2 x 8192^3 = 1.0995e12 FLOP in fp32 (no TF32 on a T4).
  WorkSample mm;
  mm.flops = 2.0 * n * 8192.0;
  mm.bytes = 12.0 * n;  // A, B read, C written: 805,306,368 B
  mm.path = P::kFp32;
  mm.gpu_time_ns = 230.208e6;
  const Placement pm = PlaceOnRoofline(T4Roofs(), mm);
  EXPECT_EQ(pm.regime, Regime::kComputeBound);  // I = 1365.3 >= 25.31
  // 1.0995e12 / 0.230208 s = 4.7762 TFLOP/s = 58.97% of 8.1 TFLOP/s: far (< 60%)
  EXPECT_NEAR(*pm.achieved_flops, 4.776166e12, 1e6);
  EXPECT_NEAR(*pm.pct_of_attainable, 58.9650, 1e-3);
  EXPECT_EQ(pm.proximity, RoofProximity::kFar);

  // aten::fill_ (ones), 1.141 ms: writes 4N = 268,435,456 B, no FLOPs.
  WorkSample fill;
  fill.flops = 0;
  fill.bytes = 4.0 * n;
  fill.path = P::kFp32;
  fill.gpu_time_ns = 1.141e6;
  const Placement pf = PlaceOnRoofline(T4Roofs(), fill);
  EXPECT_EQ(pf.regime, Regime::kMemoryBound);
  // 268,435,456 / 320e9 = 0.8389 ms at the roof; 0.8389 / 1.141 = 73.52%
  EXPECT_NEAR(*pf.roof_time_ns, 838860.8, 0.1);
  EXPECT_NEAR(*pf.pct_of_bandwidth, 73.5198, 1e-3);
}

TEST(Names, RegimeAndProximityNamesAreStable) {
  EXPECT_EQ(RegimeName(Regime::kComputeBound), "compute_bound");
  EXPECT_EQ(RegimeName(Regime::kMemoryBound), "memory_bound");
  EXPECT_EQ(RegimeName(Regime::kOverheadBound), "overhead_bound");
  EXPECT_EQ(RegimeName(Regime::kUnknown), "unknown");
  EXPECT_EQ(RoofProximityName(RoofProximity::kNear), "near");
  EXPECT_EQ(RoofProximityName(RoofProximity::kFar), "far");
  EXPECT_EQ(OverheadReasonName(OverheadReason::kTinyKernel), "tiny_kernel");
}

TEST(Utilization, HfuAndMfuAgainstTheNominalPeak) {
  DeviceRoofs roofs = A100Roofs();
  // One device, 10,000 s: 1.2e18 FLOP executed (with activation recomputation), 0.9e18 needed.
  const auto u = ComputeUtilization(roofs, P::kBf16Tensor, 1.2e18, 0.9e18, 1e4);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->roof_path, P::kBf16Tensor);
  EXPECT_EQ(u->nominal_source, RoofSource::kDatasheet);
  // HFU = 1.2e18 / 1e4 / 312e12 = 0.384615
  EXPECT_NEAR(*u->hfu, 0.384615385, 1e-9);
  // MFU = 0.9e18 / 1e4 / 312e12 = 0.288462
  EXPECT_NEAR(*u->mfu, 0.288461538, 1e-9);
  EXPECT_FALSE(u->hfu_measured);

  roofs.Flops(P::kBf16Tensor).measured = 280e12;
  const auto m = ComputeUtilization(roofs, P::kBf16Tensor, 1.2e18, 0.9e18, 1e4);
  // Nominal figures unchanged; against the measured roof: 1.2e14 / 2.8e14 = 0.428571
  EXPECT_NEAR(*m->hfu, 0.384615385, 1e-9);
  EXPECT_NEAR(*m->hfu_measured, 0.428571429, 1e-9);
  EXPECT_NEAR(*m->mfu_measured, 0.321428571, 1e-9);  // 0.9e14 / 2.8e14
}

TEST(Utilization, MissingInputs) {
  const DeviceRoofs roofs = A100Roofs();
  const auto no_model = ComputeUtilization(roofs, P::kBf16Tensor, 1e18, std::nullopt, 1e4);
  ASSERT_TRUE(no_model);
  EXPECT_TRUE(no_model->hfu);
  EXPECT_FALSE(no_model->mfu);
  EXPECT_FALSE(ComputeUtilization(roofs, P::kBf16Tensor, 1e18, 1e18, 0));
  EXPECT_FALSE(ComputeUtilization(roofs, P::kUnknown, 1e18, 1e18, 10));
  // fp16 with fp16 accumulate falls back to the fp16 tensor figure.
  EXPECT_EQ(ComputeUtilization(roofs, P::kFp16TensorHalfAcc, 1e18, 1e18, 1e4)->roof_path,
            P::kFp16Tensor);
}

}  // namespace
}  // namespace flopspy::analyzers
