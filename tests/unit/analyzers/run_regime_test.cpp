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

LaunchOverheadReport Overhead(OverheadVerdict verdict, double busy, double starved) {
  LaunchOverheadReport r;
  r.gpu_times = true;
  r.judgement.verdict = verdict;
  r.judgement.busy_fraction = busy;
  r.judgement.starved_fraction = starved;
  return r;
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
            "overhead bound, 5.0% unknown; the GPU was busy 80.5% of its window and waited for "
            "launches 19.5%");
}

TEST(RunRegime, AStarvedGpuMakesTheRunOverheadBoundWhateverItsKernels) {
  const std::vector<KernelGroup> rows = {Row(1e6, Regime::kComputeBound)};
  const RunRegime r = ClassifyRun(rows, Overhead(OverheadVerdict::kOverheadBound, 0.3, 0.7));
  EXPECT_EQ(r.regime, Regime::kOverheadBound);
  EXPECT_EQ(r.rule, RunRegimeRule::kStarved);
  EXPECT_EQ(r.sentence.rfind("overhead bound: the GPU waited for kernel launches 70.0%", 0), 0u)
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
  const RunRegime r = ClassifyRun(rows, LaunchOverheadReport{});
  EXPECT_EQ(r.regime, Regime::kUnknown);
  EXPECT_EQ(r.rule, RunRegimeRule::kNoKernelTime);
}

TEST(RunRegime, WithoutAnOverheadVerdictTheSentenceSaysNothingOfWaiting) {
  const std::vector<KernelGroup> rows = {Row(1e6, Regime::kMemoryBound)};
  const RunRegime r = ClassifyRun(rows, LaunchOverheadReport{});
  EXPECT_EQ(r.regime, Regime::kMemoryBound);
  EXPECT_EQ(r.sentence.find("waited"), std::string::npos) << r.sentence;
}

}  // namespace
}  // namespace flopspy::analyzers
