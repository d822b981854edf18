// BindRoof and PlaceRate: the one placement rule, for rates measured over a span (CPU samples).
#include <gtest/gtest.h>

#include <limits>

#include "flopspy/analyzers/roofline.h"

namespace flopspy::analyzers {
namespace {

TEST(BindRoof, TheLowerOfThePeakAndTheBandwidthSlopeBinds) {
  // Peak 100, bandwidth 10: ridge 10 FLOP/B.
  BindingRoof b = BindRoof(100, 10, 2.0);
  EXPECT_EQ(b.regime, Regime::kMemoryBound);
  EXPECT_DOUBLE_EQ(b.attainable_flops, 20);
  b = BindRoof(100, 10, 10.0);  // at the ridge: compute bound
  EXPECT_EQ(b.regime, Regime::kComputeBound);
  EXPECT_DOUBLE_EQ(b.attainable_flops, 100);
  b = BindRoof(100, 10, 50.0);
  EXPECT_EQ(b.regime, Regime::kComputeBound);
  EXPECT_DOUBLE_EQ(b.attainable_flops, 100);
}

TEST(BindRoof, WithoutAnIntensityOrABandwidthRoofOnlyTheComputeRoofBinds) {
  for (const std::optional<double> intensity :
       {std::optional<double>(), std::optional<double>(std::numeric_limits<double>::infinity())}) {
    const BindingRoof b = BindRoof(100, 10, intensity);
    EXPECT_EQ(b.regime, Regime::kComputeBound);
    EXPECT_DOUBLE_EQ(b.attainable_flops, 100);
  }
  const BindingRoof no_bandwidth = BindRoof(100, 0, 0.5);
  EXPECT_EQ(no_bandwidth.regime, Regime::kComputeBound);
  EXPECT_DOUBLE_EQ(no_bandwidth.attainable_flops, 100);
}

TEST(PlaceRate, FillsThePlacementAsThePercentOfTheBindingRoof) {
  const Placement p = PlaceRate(2000e9, 180e9, 9e9, 0.1);  // attainable 18 GFLOP/s
  EXPECT_EQ(p.regime, Regime::kMemoryBound);
  EXPECT_DOUBLE_EQ(*p.attainable_flops, 18e9);
  EXPECT_DOUBLE_EQ(*p.pct_of_attainable, 50);
  EXPECT_DOUBLE_EQ(*p.pct_of_peak, 100 * 9e9 / 2000e9);
  EXPECT_DOUBLE_EQ(*p.ridge, 2000.0 / 180);
  EXPECT_EQ(p.proximity, RoofProximity::kFar);
  EXPECT_DOUBLE_EQ(*p.achieved_flops, 9e9);
}

TEST(PlaceRate, NoWorkAtNoIntensityAttainsNothing) {
  const Placement p = PlaceRate(2000e9, 180e9, 0.0, 0.0);
  EXPECT_EQ(p.regime, Regime::kMemoryBound);
  EXPECT_DOUBLE_EQ(*p.attainable_flops, 0);
  EXPECT_FALSE(p.pct_of_attainable);  // no share of a zero roof
}

TEST(PlaceRate, NothingIsPlacedWithoutARateOrAComputeRoof) {
  Placement p = PlaceRate(2000e9, 180e9, std::nullopt, 1.0);
  EXPECT_EQ(p.regime, Regime::kUnknown);
  EXPECT_FALSE(p.attainable_flops);
  EXPECT_DOUBLE_EQ(*p.ridge, 2000.0 / 180);  // the roofs are still reported
  p = PlaceRate(0, 180e9, 1e9, 1.0);
  EXPECT_EQ(p.regime, Regime::kUnknown);
  EXPECT_FALSE(p.attainable_flops);
  EXPECT_FALSE(p.ridge);
}

}  // namespace
}  // namespace flopspy::analyzers
