// The straggler rule: median and MAD with a minimum difference, one-sided, two ranks held
// against each other; and the sentences that name a straggler, worked out by hand.
#include "flopspy/analyzers/stragglers.h"

#include <gtest/gtest.h>

namespace flopspy::analyzers {
namespace {

constexpr double kMsAsNs = 1e6;

std::vector<std::optional<double>> Values(std::initializer_list<double> v) {
  return {v.begin(), v.end()};
}

TEST(Outliers, OneSlowRankAmongEqualOnes) {
  const auto v = Values({34.9, 34.9, 34.9, 41.2});
  const OutlierTest t = FindOutliers(v, OutlierSide::kHigh, 3.5, 0.10, 0);
  EXPECT_EQ(t.n, 4u);
  EXPECT_DOUBLE_EQ(t.reference, 34.9);
  EXPECT_DOUBLE_EQ(t.mad, 0);
  // MAD is 0, so the 10% floor decides: 34.9 x 1.1.
  EXPECT_NEAR(t.threshold, 38.39, 1e-9);
  ASSERT_EQ(t.outliers.size(), 1u);
  EXPECT_EQ(t.outliers[0], 3u);
}

TEST(Outliers, SmallDifferencesDoNotCount) {
  // 8% over the median: under the 10% floor however tight the others are.
  EXPECT_TRUE(FindOutliers(Values({100, 100, 100, 108}), OutlierSide::kHigh, 3.5, 0.10, 0)
                  .outliers.empty());
}

TEST(Outliers, TheMadBoundWinsWhenRanksSpread) {
  // Median 100; deviations 10, 0, 10, 50 -> MAD 10; bound 3.5 / 0.6745 x 10 = 51.9.
  const auto v = Values({90, 100, 110, 150});
  const OutlierTest t = FindOutliers(v, OutlierSide::kHigh, 3.5, 0.10, 0);
  EXPECT_DOUBLE_EQ(t.reference, 105);
  EXPECT_DOUBLE_EQ(t.mad, 10);
  EXPECT_NEAR(t.threshold, 105 + 3.5 / 0.6745 * 10, 1e-9);
  EXPECT_TRUE(t.outliers.empty());  // 150 < 156.9
  EXPECT_EQ(
      FindOutliers(Values({90, 100, 110, 170}), OutlierSide::kHigh, 3.5, 0.10, 0).outliers.size(),
      1u);
}

TEST(Outliers, TwoGroupsHaveNoStraggler) {
  EXPECT_TRUE(
      FindOutliers(Values({10, 10, 20, 20}), OutlierSide::kHigh, 3.5, 0.10, 0).outliers.empty());
}

TEST(Outliers, OnlyTheSlowSideCounts) {
  EXPECT_TRUE(
      FindOutliers(Values({50, 50, 50, 20}), OutlierSide::kHigh, 3.5, 0.10, 0).outliers.empty());
}

TEST(Outliers, LowBusyShareWithAnAbsoluteFloor) {
  // Median 0.795, MAD 0.005 -> the 10-point floor decides: below 0.695.
  const auto v = Values({0.80, 0.80, 0.79, 0.61});
  const OutlierTest t = FindOutliers(v, OutlierSide::kLow, 3.5, 0, 0.10);
  EXPECT_NEAR(t.reference, 0.795, 1e-12);
  EXPECT_NEAR(t.threshold, 0.695, 1e-12);
  ASSERT_EQ(t.outliers.size(), 1u);
  EXPECT_EQ(t.outliers[0], 3u);
}

TEST(Outliers, TwoRanksAreHeldAgainstEachOther) {
  const OutlierTest t = FindOutliers(Values({10, 12}), OutlierSide::kHigh, 3.5, 0.10, 0);
  ASSERT_EQ(t.outliers.size(), 1u);
  EXPECT_EQ(t.outliers[0], 1u);
  EXPECT_DOUBLE_EQ(t.reference, 10);
  EXPECT_DOUBLE_EQ(t.threshold, 11);
  EXPECT_TRUE(FindOutliers(Values({10, 10.5}), OutlierSide::kHigh, 3.5, 0.10, 0).outliers.empty());
}

TEST(Outliers, UnknownValuesAreSkipped) {
  std::vector<std::optional<double>> v = {1.0, std::nullopt, 1.0, 2.0};
  const OutlierTest t = FindOutliers(v, OutlierSide::kHigh, 3.5, 0.10, 0);
  EXPECT_EQ(t.n, 3u);
  ASSERT_EQ(t.outliers.size(), 1u);
  EXPECT_EQ(t.outliers[0], 3u);
  EXPECT_TRUE(FindOutliers(Values({5}), OutlierSide::kHigh, 3.5, 0.1, 0).outliers.empty());
}

// Four ranks of 100 steps; rank 3 is slow in "gemm".
RankTable FourRanks(bool with_steps) {
  RankTable t;
  t.step_region = with_steps ? "step" : "";
  t.kernel_labels = {{"gemm-key", "gemm"}, {"add-key", "add"}};
  for (int r = 0; r < 4; ++r) {
    RankRow row;
    row.rank = r;
    row.pid = 100 + r;
    row.host = "node0";
    const double step = r == 3 ? 41.2 * kMsAsNs : 34.9 * kMsAsNs;
    if (with_steps) row.step = StepTime{100, step, step};
    row.gpu_window_ns = 1'000'000'000;
    row.busy_fraction = r == 3 ? 0.61 : 0.80;
    row.gpu_busy_ns = static_cast<uint64_t>(*row.busy_fraction * 1e9);
    // Per step: gemm 20 ms (rank 3: 26 ms), add 5 ms everywhere.
    row.kernel_ns_by_key = {{"gemm-key", (r == 3 ? 26 : 20) * kMsAsNs * 100},
                            {"add-key", 5 * kMsAsNs * 100}};
    row.kernel_ns = row.kernel_ns_by_key["gemm-key"] + row.kernel_ns_by_key["add-key"];
    t.rows.push_back(row);
  }
  return t;
}

TEST(Stragglers, SlowStepIsNamedWithItsNumbers) {
  const StragglerReport r = FindStragglers(FourRanks(true));
  // Step time: rank 3. Busy share: rank 3 again (61% < 70%).
  ASSERT_EQ(r.stragglers.size(), 2u);
  const Straggler& s = r.stragglers[0];
  EXPECT_EQ(s.metric, StragglerMetric::kStepTime);
  EXPECT_EQ(s.row, 3u);
  EXPECT_DOUBLE_EQ(s.value, 41.2 * kMsAsNs);
  EXPECT_DOUBLE_EQ(s.reference, 34.9 * kMsAsNs);
  EXPECT_NEAR(s.excess, 6.3 / 34.9, 1e-12);
  EXPECT_EQ(s.kernel_label, "gemm");
  EXPECT_DOUBLE_EQ(s.kernel_ns, 26 * kMsAsNs);
  EXPECT_DOUBLE_EQ(s.kernel_reference_ns, 20 * kMsAsNs);
  EXPECT_EQ(s.sentence,
            "rank 3 takes 41.2 ms per step, 18% over the median 34.9 ms; its GPU is busy 61% vs "
            "80%; the kernel time that differs most is gemm: 26 ms vs 20 ms per step.");
  EXPECT_EQ(r.stragglers[1].metric, StragglerMetric::kBusyShare);
  EXPECT_EQ(r.stragglers[1].sentence.substr(0, 54),
            "rank 3's GPU is busy 61% of its active span, against t");
  ASSERT_EQ(r.checks.size(), 2u);
  EXPECT_NE(r.checks[0].find("median 34.9 ms"), std::string::npos) << r.checks[0];
  EXPECT_NE(r.checks[0].find("above 38.4 ms"), std::string::npos) << r.checks[0];
}

TEST(Stragglers, WithoutStepsKernelTimeIsCompared) {
  const StragglerReport r = FindStragglers(FourRanks(false));
  ASSERT_FALSE(r.stragglers.empty());
  const Straggler& s = r.stragglers[0];
  EXPECT_EQ(s.metric, StragglerMetric::kKernelTime);
  EXPECT_EQ(s.row, 3u);
  // Kernel time: 3.1 s vs 2.5 s = 24% over.
  EXPECT_EQ(s.sentence.substr(0, 59),
            "rank 3 spends 3.1 s in kernels, 24% over the median 2.5 s; ");
  EXPECT_NE(r.checks[0].find("step time: unknown"), std::string::npos) << r.checks[0];
}

TEST(Stragglers, EvenRanksHaveNone) {
  RankTable t = FourRanks(true);
  t.rows[3] = t.rows[0];
  t.rows[3].rank = 3;
  const StragglerReport r = FindStragglers(t);
  EXPECT_TRUE(r.stragglers.empty());
  EXPECT_NE(r.checks[0].find("None does"), std::string::npos) << r.checks[0];
}

TEST(Stragglers, TwoRanksNameTheOther) {
  RankTable t = FourRanks(true);
  t.rows.erase(t.rows.begin() + 1, t.rows.begin() + 3);  // ranks 0 and 3
  const StragglerReport r = FindStragglers(t);
  ASSERT_FALSE(r.stragglers.empty());
  EXPECT_EQ(r.stragglers[0].sentence.substr(0, 54),
            "rank 3 takes 41.2 ms per step, 18% over rank 0's 34.9 ");
}

TEST(Stragglers, OneRankHasNothingToCompare) {
  RankTable t = FourRanks(true);
  t.rows.resize(1);
  const StragglerReport r = FindStragglers(t);
  EXPECT_TRUE(r.stragglers.empty());
  ASSERT_EQ(r.checks.size(), 1u);
}

TEST(Stragglers, NoRankIsNamedAgainstAZeroReference) {
  RankTable t = FourRanks(false);
  t.rows.resize(2);
  t.rows[0].kernel_ns = 0;  // timed, but ran no kernel
  t.rows[1].busy_fraction = t.rows[0].busy_fraction;
  const StragglerReport r = FindStragglers(t);
  EXPECT_TRUE(r.stragglers.empty()) << r.stragglers[0].sentence;
}

TEST(Stragglers, DurationsReadLikeTheReport) {
  EXPECT_EQ(FormatDuration(850), "850 ns");
  EXPECT_EQ(FormatDuration(41.2e6), "41.2 ms");
  EXPECT_EQ(FormatDuration(3.1e9), "3.1 s");
}

}  // namespace
}  // namespace flopspy::analyzers
