// The roofs model: roof preference, the fallback chain, ridge points and minimum times.
// Roofs are built by hand here (analyzers cannot see the device table); the numbers are the
// datasheet figures of docs/gpu-peaks.md.
#include "flopspy/analyzers/roofline.h"

#include <gtest/gtest.h>

#include <vector>

namespace flopspy::analyzers {
namespace {

using P = ComputePath;

DeviceRoofs T4Roofline() {
  DeviceRoofs r;
  r.name = "T4 (by hand)";
  r.Flops(P::kFp32) = {8.1e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kFp64) = {2.544e11, RoofSource::kComputed, 0};
  r.Flops(P::kFp16) = {1.62816e13, RoofSource::kComputed, 0};
  r.Flops(P::kFp16Tensor) = {65e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kInt8Tensor) = {130e12, RoofSource::kDatasheet, 0};
  r.Bandwidth(MemoryLevel::kDram) = {320e9, RoofSource::kDatasheet, 0};
  return r;
}

DeviceRoofs V100Roofs() {
  DeviceRoofs r;
  r.Flops(P::kFp64) = {7.8e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kFp32) = {15.7e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kFp16) = {31.3e12, RoofSource::kComputed, 0};
  r.Flops(P::kFp16Tensor) = {125e12, RoofSource::kDatasheet, 0};
  r.Bandwidth(MemoryLevel::kDram) = {900e9, RoofSource::kDatasheet, 0};
  return r;
}

DeviceRoofs A100Roofline() {
  DeviceRoofs r;
  r.Flops(P::kFp64) = {9.7e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kFp64Tensor) = {19.5e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kFp32) = {19.5e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kTf32Tensor) = {156e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kFp16Tensor) = {312e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kBf16Tensor) = {312e12, RoofSource::kDatasheet, 0};
  r.Flops(P::kInt8Tensor) = {624e12, RoofSource::kDatasheet, 0};
  r.Bandwidth(MemoryLevel::kDram) = {1555e9, RoofSource::kDatasheet, 0};
  return r;
}

TEST(Roof, PrefersMeasuredAndKeepsNominal) {
  Roof roof{312e12, RoofSource::kDatasheet, 0};
  EXPECT_DOUBLE_EQ(roof.Value(), 312e12);
  EXPECT_EQ(roof.Source(), RoofSource::kDatasheet);
  roof.measured = 280e12;
  EXPECT_DOUBLE_EQ(roof.Value(), 280e12);
  EXPECT_EQ(roof.Source(), RoofSource::kMeasured);
  EXPECT_DOUBLE_EQ(roof.Value(RoofPreference::kNominalOnly), 312e12);
  EXPECT_EQ(roof.Source(RoofPreference::kNominalOnly), RoofSource::kDatasheet);
}

TEST(Roof, MeasuredOnlyRoofIsInvisibleToNominalPreference) {
  const Roof roof{0, RoofSource::kNone, 5e12};
  EXPECT_TRUE(roof.Available());
  EXPECT_FALSE(roof.Available(RoofPreference::kNominalOnly));
  EXPECT_EQ(roof.Source(RoofPreference::kNominalOnly), RoofSource::kNone);
}

TEST(Roof, SourceNamesAreStable) {
  EXPECT_EQ(RoofSourceName(RoofSource::kDatasheet), "datasheet");
  EXPECT_EQ(RoofSourceName(RoofSource::kComputed), "computed");
  EXPECT_EQ(RoofSourceName(RoofSource::kMeasured), "measured");
  EXPECT_EQ(RoofSourceName(RoofSource::kNone), "none");
}

TEST(FallbackChain, StartsWithThePathAndEndsOnCudaCores) {
  for (int i = 1; i < kComputePathCount; ++i) {
    const auto path = static_cast<P>(i);
    const auto chain = PeakFallbackChain(path);
    ASSERT_FALSE(chain.empty()) << ComputePathName(path);
    EXPECT_EQ(chain.front(), path);
    EXPECT_FALSE(IsTensorPath(chain.back())) << ComputePathName(path);
  }
  EXPECT_TRUE(PeakFallbackChain(P::kUnknown).empty());
  const std::vector<P> half_acc(PeakFallbackChain(P::kFp16TensorHalfAcc).begin(),
                                PeakFallbackChain(P::kFp16TensorHalfAcc).end());
  EXPECT_EQ(half_acc, (std::vector<P>{P::kFp16TensorHalfAcc, P::kFp16Tensor, P::kFp16, P::kFp32}));
}

TEST(FallbackChain, Fp64TensorFallsBackToFp64WithoutFp64TensorCores) {
  const auto v100 = ResolvePeak(V100Roofs(), P::kFp64Tensor);
  ASSERT_TRUE(v100);
  EXPECT_EQ(v100->path, P::kFp64);
  EXPECT_TRUE(v100->FellBack());
  EXPECT_DOUBLE_EQ(v100->flops_per_s, 7.8e12);

  const auto a100 = ResolvePeak(A100Roofline(), P::kFp64Tensor);
  ASSERT_TRUE(a100);
  EXPECT_EQ(a100->path, P::kFp64Tensor);
  EXPECT_FALSE(a100->FellBack());
  EXPECT_DOUBLE_EQ(a100->flops_per_s, 19.5e12);
}

TEST(FallbackChain, HalfAccumulateFallsBackToTheFp32AccumulateFigure) {
  const auto peak = ResolvePeak(A100Roofline(), P::kFp16TensorHalfAcc);
  ASSERT_TRUE(peak);
  EXPECT_EQ(peak->path, P::kFp16Tensor);
  EXPECT_DOUBLE_EQ(peak->flops_per_s, 312e12);
  EXPECT_EQ(peak->source, RoofSource::kDatasheet);
}

TEST(FallbackChain, PathsMissingOnOlderPartsFallToCudaCores) {
  // TF32 on a V100 runs as FP32.
  EXPECT_EQ(ResolvePeak(V100Roofs(), P::kTf32Tensor)->path, P::kFp32);
  // BF16 on a T4: no BF16 tensor cores, no BF16 arithmetic: FP32.
  EXPECT_EQ(ResolvePeak(T4Roofline(), P::kBf16Tensor)->path, P::kFp32);
  // FP8 and FP4 data on an A100 run at the FP16 tensor rate.
  EXPECT_EQ(ResolvePeak(A100Roofline(), P::kFp8Tensor)->path, P::kFp16Tensor);
  EXPECT_EQ(ResolvePeak(A100Roofline(), P::kFp4Tensor)->path, P::kFp16Tensor);
  // INT8 on a V100 (no IMMA): the FP32 roof.
  EXPECT_EQ(ResolvePeak(V100Roofs(), P::kInt8Tensor)->path, P::kFp32);
  EXPECT_FALSE(ResolvePeak(A100Roofline(), P::kUnknown));
  EXPECT_FALSE(ResolvePeak(DeviceRoofs{}, P::kFp32));
}

TEST(FallbackChain, AMeasuredRoofOnTheRequestedPathIsUsed) {
  DeviceRoofs roofs = A100Roofline();
  roofs.Flops(P::kFp16TensorHalfAcc).measured = 290e12;
  const auto preferred = ResolvePeak(roofs, P::kFp16TensorHalfAcc);
  EXPECT_EQ(preferred->path, P::kFp16TensorHalfAcc);
  EXPECT_EQ(preferred->source, RoofSource::kMeasured);
  const auto nominal = ResolvePeak(roofs, P::kFp16TensorHalfAcc, RoofPreference::kNominalOnly);
  EXPECT_EQ(nominal->path, P::kFp16Tensor);
}

// Seed note 000: T4 at 0.32 TB/s. Ridge = peak / bandwidth.
TEST(RidgePoint, T4PerUnit) {
  const DeviceRoofs t4 = T4Roofline();
  // 8.1e12 / 320e9 = 25.3125 FLOP/B
  EXPECT_NEAR(*RidgePoint(t4, P::kFp32), 25.3125, 1e-9);
  // 65e12 / 320e9 = 203.125 FLOP/B
  EXPECT_NEAR(*RidgePoint(t4, P::kFp16Tensor), 203.125, 1e-9);
  // 130e12 / 320e9 = 406.25 op/B
  EXPECT_NEAR(*RidgePoint(t4, P::kInt8Tensor), 406.25, 1e-9);
  // 2.544e11 / 320e9 = 0.795 FLOP/B
  EXPECT_NEAR(*RidgePoint(t4, P::kFp64), 0.795, 1e-12);
  EXPECT_FALSE(RidgePoint(t4, P::kFp32, MemoryLevel::kL2));  // no L2 roof
}

TEST(RidgePoint, A100PerUnit) {
  const DeviceRoofs a100 = A100Roofline();
  EXPECT_NEAR(*RidgePoint(a100, P::kFp64), 9.7e12 / 1555e9, 1e-9);      // 6.238
  EXPECT_NEAR(*RidgePoint(a100, P::kFp32), 12.540192926, 1e-6);         // 19.5e12/1555e9
  EXPECT_NEAR(*RidgePoint(a100, P::kTf32Tensor), 100.321543408, 1e-6);  // 156e12/1555e9
  EXPECT_NEAR(*RidgePoint(a100, P::kBf16Tensor), 200.643086817, 1e-6);  // 312e12/1555e9
  EXPECT_NEAR(*RidgePoint(a100, P::kInt8Tensor), 401.286173633, 1e-6);  // 624e12/1555e9
}

// Seed note 000: "a square matrix of size 8192 of fp32 values takes at least
// (4 * 8192^2) / (0.32e12) = 0.839 ms to read".
TEST(MinSecondsToMove, SeedNoteT4MatrixRead) {
  const double bytes = 4.0 * 8192 * 8192;  // 268,435,456 B
  const auto seconds = MinSecondsToMove(T4Roofline(), bytes);
  ASSERT_TRUE(seconds);
  // 268,435,456 / 320e9 = 8.388608e-4 s
  EXPECT_NEAR(*seconds, 8.388608e-4, 1e-12);
  EXPECT_NEAR(*seconds * 1e3, 0.839, 0.0005);
  // Read and write back: 1.678 ms (the note's "0.839*2").
  EXPECT_NEAR(*MinSecondsToMove(T4Roofline(), 2 * bytes) * 1e3, 1.6777216, 1e-9);
  EXPECT_FALSE(MinSecondsToMove(DeviceRoofs{}, bytes));
  EXPECT_FALSE(MinSecondsToMove(T4Roofline(), -1));
}

}  // namespace
}  // namespace flopspy::analyzers
