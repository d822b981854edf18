// Figures read the same in every output: the regime tag says when a row is far below its roof,
// a "?" regime says why, a row whose FLOPs are known for some launches only says for how many,
// and numbers never show an exponent.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "report/format.h"
#include "report/labels.h"
#include "report/text_labels.h"

namespace flopspy::tools {
namespace {

using analyzers::Placement;
using analyzers::Regime;
using analyzers::RoofProximity;
using analyzers::UnplacedReason;

Placement Placed(Regime regime, RoofProximity proximity) {
  Placement p;
  p.regime = regime;
  p.proximity = proximity;
  return p;
}

TEST(FigureLabels, AKernelFarBelowItsRoofIsNotPlainlyComputeBound) {
  EXPECT_EQ(RegimeTag(Placed(Regime::kComputeBound, RoofProximity::kFar)), "compute far");
  EXPECT_EQ(RegimeTag(Placed(Regime::kMemoryBound, RoofProximity::kFar)), "memory far");
  EXPECT_EQ(RegimeTag(Placed(Regime::kComputeBound, RoofProximity::kNear)), "compute");
  EXPECT_EQ(RegimeTag(Placed(Regime::kComputeBound, RoofProximity::kModerate)), "compute");
  EXPECT_EQ(RegimeTag(Placed(Regime::kOverheadBound, RoofProximity::kFar)), "overhead");
  EXPECT_EQ(RegimeTag(std::nullopt), "-");
}

TEST(FigureLabels, AnUnknownRegimeSaysWhy) {
  Placement p;
  p.unplaced_reason = UnplacedReason::kNoFlops;
  EXPECT_EQ(RegimeTag(p), "?");
  EXPECT_EQ(PlacementNote(p), "regime ?: no FLOPs known");
  EXPECT_EQ(UnplacedText("no_path"), UnplacedText(UnplacedReason::kNoPath));
  EXPECT_EQ(UnplacedText("no_gpu_time"), "no GPU time");
  EXPECT_EQ(UnplacedText("none"), "");
  // Every reason but kNone has words, and its JSON name reads back.
  for (uint8_t i = 1; i <= static_cast<uint8_t>(UnplacedReason::kNoRoofs); ++i) {
    const auto reason = static_cast<UnplacedReason>(i);
    EXPECT_FALSE(UnplacedText(reason).empty()) << int{i};
    EXPECT_EQ(UnplacedText(analyzers::UnplacedReasonName(reason)), UnplacedText(reason));
  }
}

TEST(FigureLabels, ARowWithFlopsForSomeLaunchesSaysHowMany) {
  Placement p = Placed(Regime::kComputeBound, RoofProximity::kModerate);
  p.calls = 103;
  p.calls_with_flops = 10;
  EXPECT_EQ(FlopsBasisText(p), "FLOPs for 10 of 103 launches");
  EXPECT_EQ(PlacementNote(p), "FLOPs for 10 of 103 launches");
  EXPECT_EQ(FlopsBasisText(2000, 24000), "FLOPs for 2,000 of 24,000 launches");
  p.calls_with_flops = 103;
  EXPECT_EQ(FlopsBasisText(p), "");
  EXPECT_EQ(FlopsBasisText(0, 103), "");
}

TEST(FigureLabels, NumbersNeverShowAnExponent) {
  EXPECT_EQ(Significant(1000), "1,000");
  EXPECT_EQ(Significant(1020.4), "1,020");
  EXPECT_EQ(Significant(999.4), "999");
  EXPECT_EQ(Significant(813), "813");
  EXPECT_EQ(Significant(0.0833333), "0.0833");
  EXPECT_EQ(Significant(6.67e-05), "0.0000667");
  EXPECT_EQ(Significant(1e-05), "0.00001");
  EXPECT_EQ(Significant(0), "0");
  EXPECT_EQ(Significant(2.5e6), "2.5 M");
  EXPECT_EQ(SiValue(999.7), "1 k");
  EXPECT_EQ(Duration(999'700), "1 ms");
  EXPECT_EQ(Duration(515'200), "515 us");
}

// Counts reach the HTML page as JSON doubles, and a damaged trace can carry any number there; a
// plain cast of 2^64 to uint64_t is undefined (the fuzzer found it in the lost-records fact).
TEST(FigureLabels, CountsFromDoublesSaturateInsteadOfOverflowing) {
  EXPECT_EQ(GroupedCount(1234567), "1,234,567");
  EXPECT_EQ(GroupedCount(2.9), "2");
  EXPECT_EQ(GroupedCount(-5), "0");
  EXPECT_EQ(GroupedCount(std::nan("")), "0");
  EXPECT_EQ(GroupedCount(18446744073709551616.0), "18,446,744,073,709,551,615");
  EXPECT_EQ(GroupedCount(1e300), "18,446,744,073,709,551,615");
  EXPECT_EQ(GroupedCount(std::numeric_limits<double>::infinity()), "18,446,744,073,709,551,615");
}

TEST(FigureLabels, ARoofShareReadsTheSameInTablesAndSentences) {
  EXPECT_EQ(PctText(0.434), "0.43%");
  EXPECT_EQ(PctText(4.3), "4.3%");
  EXPECT_EQ(PctText(53.2), "53%");
  EXPECT_EQ(PctText(0.004), "<0.01%");
  EXPECT_EQ(PctText(std::nullopt), "-");
  EXPECT_EQ(RoofPathLabel(analyzers::ComputePath::kTf32Tensor), "tf32-tensor");
  EXPECT_EQ(RoofPathLabel(analyzers::ComputePath::kFp32), "fp32-cuda");
}

}  // namespace
}  // namespace flopspy::tools
