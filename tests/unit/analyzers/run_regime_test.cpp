// The run's regime: the launch-overhead verdict first, then the regime holding the most kernel
// time, unknown when too much kernel time has none. Shares worked out in the comments.
#include "flopspy/analyzers/run_regime.h"

#include <gtest/gtest.h>

namespace flopspy::analyzers {
namespace {

KernelGroup Row(double gpu_ns, std::optional<Regime> regime) {
  KernelGroup g;
  g.gpu_ns = gpu_ns;
  if (regime) {
    g.placement = Placement{};
    g.placement->regime = *regime;
  }
  return g;
}

OverheadJudgement Overhead(OverheadVerdict verdict, double busy, double starved) {
  OverheadJudgement j;
  j.verdict = verdict;
  j.busy_fraction = busy;
  j.starved_fraction = starved;
  return j;
}

TEST(RunRegime, TheRegimeWithTheMostKernelTimeWins) {
  // 6 ms compute, 3 ms memory, 0.5 ms overhead, 0.5 ms not placed: 60/30/5/5%.
  const std::vector<KernelGroup> rows = {
      Row(6e6, Regime::kComputeBound), Row(2e6, Regime::kMemoryBound),
      Row(1e6, Regime::kMemoryBound), Row(0.5e6, Regime::kOverheadBound), Row(0.5e6, {})};
  const RunRegime r =
      ClassifyRun(rows, Overhead(OverheadVerdict::kPartlyOverheadBound, 0.805, 0.195));
  EXPECT_EQ(r.regime, Regime::kComputeBound);
  EXPECT_EQ(r.rule, RunRegimeRule::kKernelTime);
  EXPECT_DOUBLE_EQ(r.kernel_ns, 10e6);
  EXPECT_DOUBLE_EQ(r.kernel_ns_by_regime[static_cast<size_t>(Regime::kMemoryBound)], 3e6);
  EXPECT_DOUBLE_EQ(r.kernel_fraction_by_regime[static_cast<size_t>(Regime::kUnknown)], 0.05);
  EXPECT_EQ(r.sentence,
            "compute bound: 60.0% of kernel time compute bound, 30.0% memory bound, 5.0% "
            "overhead bound, 5.0% unknown (no FLOPs known); the GPU window was 80.5% busy and "
            "19.5% waiting for "
            "launches");
}

TEST(RunRegime, ARegimeHoldsOnlyTheLaunchesWhoseFlopsAreKnown) {
  // A 103 ms GEMM row placed from the 10 ms of its 10 launches with FLOPs (of 103), and a 7 ms
  // memory-bound row with all its FLOPs: 10 + 7 = 17 ms of 110 ms placed, 93 ms unknown, all for
  // want of FLOPs, as the coverage by source says.
  std::vector<KernelGroup> rows = {Row(103e6, Regime::kComputeBound),
                                   Row(7e6, Regime::kMemoryBound)};
  rows[0].timed.flops_source = trace::FigureSource::kAnalytic;
  rows[0].timed.flops_ns = 10e6;
  rows[0].placement->calls = 103;
  rows[0].placement->calls_with_flops = 10;
  rows[0].placement->flops_time_ns = 10e6;
  rows[1].timed.flops_source = trace::FigureSource::kCatalog;
  rows[1].timed.flops_ns = 7e6;
  const RunRegime r = ClassifyRun(rows, Overhead(OverheadVerdict::kNotOverheadBound, 1.0, 0));
  EXPECT_DOUBLE_EQ(r.kernel_ns_by_regime[static_cast<size_t>(Regime::kComputeBound)], 10e6);
  EXPECT_DOUBLE_EQ(r.kernel_ns_by_regime[static_cast<size_t>(Regime::kUnknown)], 93e6);
  EXPECT_DOUBLE_EQ(r.kernel_ns_without_flops, 93e6);
  EXPECT_EQ(r.regime, Regime::kUnknown);
  EXPECT_EQ(r.rule, RunRegimeRule::kUnplaced);
  // 17 / 110 = 15.5% placed: 10 / 17 = 58.8% compute, 7 / 17 = 41.2% memory.
  EXPECT_NE(
      r.sentence.find("84.5% is unplaced for want of FLOPs; of the 15.5% placed, 58.8% is compute "
                      "bound, 41.2% is memory bound"),
      std::string::npos)
      << r.sentence;
}

TEST(RunRegime, AStarvedGpuMakesTheRunOverheadBoundWhateverItsKernels) {
  const std::vector<KernelGroup> rows = {Row(1e6, Regime::kComputeBound)};
  const RunRegime r = ClassifyRun(rows, Overhead(OverheadVerdict::kOverheadBound, 0.3, 0.7));
  EXPECT_EQ(r.regime, Regime::kOverheadBound);
  EXPECT_EQ(r.rule, RunRegimeRule::kStarved);
  EXPECT_EQ(r.sentence.rfind("overhead bound: the GPU window was 70.0% waiting for kernel", 0), 0u)
      << r.sentence;
}

TEST(RunRegime, MostKernelTimeUnplacedIsUnknown) {
  // Half the kernel time without a regime is enough to say nothing.
  const std::vector<KernelGroup> rows = {Row(1e6, Regime::kMemoryBound),
                                         Row(1e6, Regime::kUnknown)};
  const RunRegime r = ClassifyRun(rows, Overhead(OverheadVerdict::kNotOverheadBound, 0.9, 0.01));
  EXPECT_EQ(r.regime, Regime::kUnknown);
  EXPECT_EQ(r.rule, RunRegimeRule::kUnplaced);
  EXPECT_NE(r.sentence.find("50.0% of kernel time has no regime"), std::string::npos) << r.sentence;
}

TEST(RunRegime, NoKernelTimeIsUnknown) {
  const std::vector<KernelGroup> rows = {Row(0, Regime::kComputeBound)};
  const RunRegime r = ClassifyRun(rows, OverheadJudgement{});
  EXPECT_EQ(r.regime, Regime::kUnknown);
  EXPECT_EQ(r.rule, RunRegimeRule::kNoKernelTime);
}

TEST(RunRegime, WithoutAnOverheadVerdictTheSentenceSaysNothingOfWaiting) {
  const std::vector<KernelGroup> rows = {Row(1e6, Regime::kMemoryBound)};
  const RunRegime r = ClassifyRun(rows, OverheadJudgement{});
  EXPECT_EQ(r.regime, Regime::kMemoryBound);
  EXPECT_EQ(r.sentence.find("waited"), std::string::npos) << r.sentence;
}

TEST(RunRegime, PooledJudgementsDecideAsOneTrace) {
  // Two traces: one starved 80% of a 10 ms window, one 10% of 30 ms: 11 of 40 ms pooled (27.5%),
  // partly overhead bound; the first alone would be overhead bound.
  OverheadJudgement pooled;
  pooled.window_ns = 40'000'000;
  pooled.starved_ns = 11'000'000;
  pooled.busy_ns = 29'000'000;
  DecideOverheadVerdict(pooled, /*gpu_times=*/true);
  EXPECT_EQ(pooled.verdict, OverheadVerdict::kPartlyOverheadBound);
  EXPECT_DOUBLE_EQ(pooled.starved_fraction, 0.275);
  OverheadJudgement one;
  one.window_ns = 10'000'000;
  one.starved_ns = 8'000'000;
  one.busy_ns = 2'000'000;
  DecideOverheadVerdict(one, true);
  EXPECT_EQ(one.verdict, OverheadVerdict::kOverheadBound);
  OverheadJudgement none;
  DecideOverheadVerdict(none, /*gpu_times=*/false);
  EXPECT_EQ(none.verdict, OverheadVerdict::kUnknown);
}

}  // namespace
}  // namespace flopspy::analyzers
