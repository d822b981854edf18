// A placement with no regime says why, and the shared formatters of display_text.h that the
// advice and the report both use.
#include <gtest/gtest.h>

#include "flopspy/analyzers/display_text.h"
#include "flopspy/analyzers/roofline.h"

namespace flopspy::analyzers {
namespace {

DeviceRoofs Roofs() {
  DeviceRoofs r;
  r.Flops(ComputePath::kFp32) = {10e12, RoofSource::kDatasheet, 0};
  r.Bandwidth(MemoryLevel::kDram) = {1e12, RoofSource::kDatasheet, 0};
  return r;
}

WorkSample Work() {
  WorkSample w;
  w.flops = 1e9;
  w.bytes = 1e6;
  w.path = ComputePath::kFp32;
  w.gpu_time_ns = 1e6;
  return w;
}

TEST(UnplacedReason, EachMissingPieceIsNamed) {
  EXPECT_EQ(PlaceOnRoofline(Roofs(), Work()).unplaced_reason, UnplacedReason::kNone);
  WorkSample w = Work();
  w.gpu_time_ns = 0;
  EXPECT_EQ(PlaceOnRoofline(Roofs(), w).unplaced_reason, UnplacedReason::kNoGpuTime);
  w = Work();
  w.flops.reset();
  EXPECT_EQ(PlaceOnRoofline(Roofs(), w).unplaced_reason, UnplacedReason::kNoFlops);
  w = Work();
  w.bytes.reset();
  EXPECT_EQ(PlaceOnRoofline(Roofs(), w).unplaced_reason, UnplacedReason::kNoBytes);
  w = Work();
  w.path = ComputePath::kUnknown;
  const Placement no_path = PlaceOnRoofline(Roofs(), w);
  EXPECT_EQ(no_path.regime, Regime::kUnknown);
  EXPECT_EQ(no_path.unplaced_reason, UnplacedReason::kNoPath);
  w = Work();
  w.path = ComputePath::kFp64;  // no FP64 roof on this device, nor down its chain
  EXPECT_EQ(PlaceOnRoofline(Roofs(), w).unplaced_reason, UnplacedReason::kNoComputeRoof);
  DeviceRoofs no_dram = Roofs();
  no_dram.Bandwidth(MemoryLevel::kDram) = {};
  EXPECT_EQ(PlaceOnRoofline(no_dram, Work()).unplaced_reason, UnplacedReason::kNoBandwidthRoof);
  EXPECT_EQ(UnplacedReasonName(UnplacedReason::kNoFlops), "no_flops");
}

TEST(UnplacedReason, PartialFlopsArePlacedOverTheirOwnLaunches) {
  // 10 of 100 calls with FLOPs (1e8 each, in 10 us each); bytes for all (1e5 each).
  WorkSample w;
  w.flops = 10 * 1e8;
  w.bytes = 100 * 1e5;
  w.path = ComputePath::kFp32;
  w.gpu_time_ns = 100 * 10e3;
  w.calls = 100;
  w.calls_with_flops = 10;
  w.flops_time_ns = 10 * 10e3;
  const Placement p = PlaceOnRoofline(Roofs(), w);
  // 1e9 FLOPs in 100 us = 10 TFLOP/s, not 1e9 over 1 ms; intensity per call 1e8 / 1e5 = 1000.
  EXPECT_NEAR(*p.achieved_flops, 10e12, 1);
  EXPECT_NEAR(*p.intensity, 1000, 1e-9);
  EXPECT_EQ(p.calls, 100u);
  EXPECT_EQ(p.calls_with_flops, 10u);
  // Roof time per call max(1e8 / 10e12, 1e5 / 1e12) = 10 us, for 100 calls: 1 ms.
  EXPECT_NEAR(*p.roof_time_ns, 1e6, 1e-6);
}

TEST(DisplayText, OneFormatterPerFigure) {
  EXPECT_EQ(PercentText(0.434), "0.43%");
  EXPECT_EQ(PercentText(43.4), "43%");
  EXPECT_EQ(PercentText(4.34), "4.3%");
  EXPECT_EQ(PercentText(0), "0%");
  EXPECT_EQ(DurationText(1000.0 * 1000), "1 ms");
  EXPECT_EQ(DurationText(515'200), "515 us");
  EXPECT_EQ(DurationText(999'960), "1 ms");  // not "1e+03 us"
  EXPECT_EQ(DurationText(850), "850 ns");
  EXPECT_EQ(RoofLabel(ComputePath::kTf32Tensor), "tf32-tensor");
  EXPECT_EQ(RoofLabel(ComputePath::kBf16Tensor), "bf16-tensor");
  EXPECT_EQ(RoofLabel(ComputePath::kFp32), "fp32-cuda");
}

}  // namespace
}  // namespace flopspy::analyzers
