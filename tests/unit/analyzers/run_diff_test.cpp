// Two runs compared per kernel signature and library shape, by hand-computed figures.
#include "flopspy/analyzers/run_diff.h"

#include <gtest/gtest.h>

#include <set>

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;

MergedKernel Kernel(const std::string& name, uint64_t count, double gpu_ns, double flops,
                    std::optional<double> pct = std::nullopt) {
  MergedKernel k;
  k.group.name = name;
  k.group.grid = {8, 1, 1};
  k.group.block = {256, 1, 1};
  k.group.executions = count;
  k.group.gpu_ns = gpu_ns;
  k.group.timed.flops = flops;
  k.group.timed.flops_source = flops > 0 ? FigureSource::kCatalog : FigureSource::kUnknown;
  k.group.device = 0;
  if (pct) {
    Placement p;
    p.pct_of_attainable = pct;
    k.group.placement = p;
  }
  k.traces = 1;
  return k;
}

RankTable Steps(double mean_ns, uint64_t count) {
  RankTable t;
  t.step_region = "step";
  RankRow r;
  r.rank = 0;
  r.step = StepTime{count, mean_ns, mean_ns};
  t.rows.push_back(r);
  return t;
}

TEST(RunDiff, PerKernelChangesSortedByTime) {
  RunAggregate a, b;
  a.models.resize(1), b.models.resize(1);
  a.models[0].name = b.models[0].name = "H100";
  // K1: 10 runs of 1e5 FLOPs each in A (1 us total), slower in B (1.5 us).
  a.kernels = {Kernel("k1", 10, 1000, 1e6, 80.0), Kernel("k2", 3, 300, 0)};
  b.kernels = {Kernel("k1", 10, 1500, 1e6, 53.0), Kernel("k3", 4, 2000, 0)};
  a.kernel_gpu_ns = 1300, b.kernel_gpu_ns = 3500;
  const RunDiff d = DiffRuns(a, Steps(40e6, 100), b, Steps(30e6, 100));
  ASSERT_EQ(d.kernels.size(), 3u);
  // Both runs mark the step: ranked per step (100 steps each): k3 +20, k1 +5, k2 -3.
  EXPECT_EQ(d.basis, DiffBasis::kPerStep);
  EXPECT_DOUBLE_EQ(d.kernels[0].rank_ns, 20);
  EXPECT_DOUBLE_EQ(d.kernels[1].rank_ns, 5);
  EXPECT_DOUBLE_EQ(*d.kernels[1].a.per_step_ns, 10);
  EXPECT_DOUBLE_EQ(*d.kernels[1].b.per_step_ns, 15);
  EXPECT_DOUBLE_EQ(d.kernels[2].rank_ns, -3);
  EXPECT_EQ(d.kernels[0].name, "k3");
  EXPECT_EQ(d.kernels[0].presence, DiffPresence::kOnlyB);
  EXPECT_DOUBLE_EQ(d.kernels[0].change_ns, 2000);
  EXPECT_FALSE(d.kernels[0].change_pct.has_value());
  const DiffRow& k1 = d.kernels[1];
  EXPECT_EQ(k1.name, "k1");
  EXPECT_EQ(k1.presence, DiffPresence::kBoth);
  EXPECT_DOUBLE_EQ(k1.change_ns, 500);
  EXPECT_DOUBLE_EQ(*k1.change_pct, 50);
  EXPECT_DOUBLE_EQ(k1.a.mean_ns, 100);
  EXPECT_DOUBLE_EQ(k1.b.mean_ns, 150);
  EXPECT_DOUBLE_EQ(*k1.mean_change_pct, 50);
  // 1e6 FLOPs in 1 us = 1e12 FLOP/s; in 1.5 us = 6.67e11: -33.3%.
  EXPECT_DOUBLE_EQ(*k1.a.flops_per_s, 1e12);
  EXPECT_NEAR(*k1.b.flops_per_s, 1e12 / 1.5, 1);
  EXPECT_NEAR(*k1.rate_change_pct, -100.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(*k1.a.pct_of_roof, 80);
  EXPECT_DOUBLE_EQ(*k1.b.pct_of_roof, 53);
  EXPECT_DOUBLE_EQ(*k1.count_change_pct, 0);
  EXPECT_EQ(d.kernels[2].name, "k2");
  EXPECT_EQ(d.kernels[2].presence, DiffPresence::kOnlyA);
  EXPECT_DOUBLE_EQ(d.kernels[2].change_ns, -300);
  EXPECT_FALSE(d.kernels[2].a.flops_per_s.has_value());  // FLOPs unknown
  EXPECT_FALSE(d.kernels[2].b.present);
  EXPECT_EQ(d.summary,
            "Kernel GPU time: A 1.3 us, B 3.5 us (+169.2%). Step time (region \"step\", mean over "
            "100 and 100 steps): A 40 ms, B 30 ms (-25.0%).");
}

TEST(RunDiff, OneGroupOnTwoModelsHasNoShareOfRoof) {
  RunAggregate a, b;
  a.kernels = {Kernel("k1", 10, 1000, 1e6, 80.0), Kernel("k1", 10, 1000, 1e6, 40.0)};
  a.kernels[1].group.device = 1;
  b.kernels = {Kernel("k1", 20, 1000, 2e6, 70.0)};
  const RunDiff d = DiffRuns(a, RankTable{}, b, RankTable{});
  ASSERT_EQ(d.kernels.size(), 1u);
  EXPECT_EQ(d.kernels[0].a.count, 20u);
  EXPECT_EQ(d.kernels[0].a.models, 2u);
  EXPECT_FALSE(d.kernels[0].a.pct_of_roof.has_value());
  EXPECT_DOUBLE_EQ(*d.kernels[0].b.pct_of_roof, 70);
  EXPECT_DOUBLE_EQ(d.kernels[0].change_ns, -1000);
  EXPECT_NE(d.summary.find("Step time unknown: neither run marks regions."), std::string::npos)
      << d.summary;
}

TEST(RunDiff, LibraryShapesCompareByRoutineAndShape) {
  RunAggregate a, b;
  MergedLibrary l;
  l.group.routine = "cublasGemmEx";
  l.group.shape.m = l.group.shape.n = l.group.shape.k = 4096;
  l.group.calls = 10;
  l.group.gpu_ns = 10e6;
  l.group.timed_flops = 10 * 2.0 * 4096.0 * 4096 * 4096;
  l.group.source = FigureSource::kAnalytic;
  a.libraries = {l};
  l.group.gpu_ns = 8e6;
  b.libraries = {l};
  l.group.shape.k = 1024;  // another shape: only in B
  b.libraries.push_back(l);
  const RunDiff d = DiffRuns(a, RankTable{}, b, RankTable{});
  ASSERT_EQ(d.libraries.size(), 2u);
  EXPECT_EQ(d.libraries[0].presence, DiffPresence::kOnlyB);  // +8 ms
  EXPECT_EQ(d.libraries[1].presence, DiffPresence::kBoth);   // -2 ms
  EXPECT_DOUBLE_EQ(*d.libraries[1].change_pct, -20);
  EXPECT_NEAR(*d.libraries[1].rate_change_pct, 25, 1e-9);
  EXPECT_EQ(d.libraries[1].label, "cublasGemmEx 4096x4096x4096 R_32F");
}

TEST(RunDiff, OneLabelTwiceIsToldApartByItsLaunchShape) {
  RunAggregate a, b;
  a.kernels = {Kernel("k1", 10, 1000, 0)};
  b.kernels = {Kernel("k1", 10, 1000, 0)};
  b.kernels[0].group.grid = {16, 1, 1};  // another signature with the same name
  const RunDiff d = DiffRuns(a, RankTable{}, b, RankTable{}, DiffMatch::kSignature);
  ASSERT_EQ(d.kernels.size(), 2u);
  std::set<std::string> labels = {d.kernels[0].label, d.kernels[1].label};
  EXPECT_EQ(labels, (std::set<std::string>{"k1 (grid 8x1x1 block 256x1x1)",
                                           "k1 (grid 16x1x1 block 256x1x1)"}));
}

TEST(RunDiff, ByNameOneKernelWhoseGridChangedIsOneRow) {
  // A batch-size change moved the grid: by name the kernel is compared with itself; by
  // signature it is one row only in A and another only in B.
  RunAggregate a, b;
  a.kernels = {Kernel("layer_norm", 10, 1000, 0)};
  b.kernels = {Kernel("layer_norm", 10, 2000, 0)};
  b.kernels[0].group.grid = {16, 1, 1};
  const RunDiff by_name = DiffRuns(a, RankTable{}, b, RankTable{});
  EXPECT_EQ(by_name.match, DiffMatch::kName);
  ASSERT_EQ(by_name.kernels.size(), 1u);
  EXPECT_EQ(by_name.kernels[0].presence, DiffPresence::kBoth);
  EXPECT_EQ(by_name.kernels[0].label, "layer_norm");
  EXPECT_DOUBLE_EQ(*by_name.kernels[0].mean_change_ns, 100);
  const RunDiff by_signature = DiffRuns(a, RankTable{}, b, RankTable{}, DiffMatch::kSignature);
  ASSERT_EQ(by_signature.kernels.size(), 2u);
  EXPECT_NE(by_signature.kernels[0].presence, DiffPresence::kBoth);
  EXPECT_EQ(DiffMatchFromName("signature"), DiffMatch::kSignature);
  EXPECT_EQ(DiffMatchFromName("name"), DiffMatch::kName);
  EXPECT_FALSE(DiffMatchFromName("foo").has_value());
}

TEST(RunDiff, WithoutStepsRanksByChangePerCallNotByTotal) {
  // B ran more calls. k2's total grew most (+5 us) but each call takes what it took in A; k1's
  // calls each got 50 ns slower: it leads, (150 - 100) x 20 = +1 us.
  RunAggregate a, b;
  a.kernels = {Kernel("k1", 10, 1000, 0), Kernel("k2", 10, 10000, 0)};
  b.kernels = {Kernel("k1", 20, 3000, 0), Kernel("k2", 15, 15000, 0)};
  const RunDiff d = DiffRuns(a, RankTable{}, b, RankTable{});
  EXPECT_EQ(d.basis, DiffBasis::kPerCall);
  ASSERT_EQ(d.kernels.size(), 2u);
  EXPECT_EQ(d.kernels[0].name, "k1");
  EXPECT_DOUBLE_EQ(d.kernels[0].rank_ns, 1000);
  EXPECT_DOUBLE_EQ(*d.kernels[0].mean_change_pct, 50);
  EXPECT_EQ(d.kernels[1].name, "k2");
  EXPECT_DOUBLE_EQ(d.kernels[1].rank_ns, 0);
  EXPECT_DOUBLE_EQ(d.kernels[1].change_ns, 5000);  // the total is still there
}

TEST(RunDiff, ShareOfRoofOfANameRowIsTimeWeighted) {
  RunAggregate a, b;
  a.kernels = {Kernel("k1", 10, 1000, 1e6, 80.0), Kernel("k1", 10, 3000, 1e6, 40.0)};
  a.kernels[1].group.grid = {16, 1, 1};
  b.kernels = {Kernel("k1", 10, 1000, 1e6, 60.0)};
  const RunDiff d = DiffRuns(a, RankTable{}, b, RankTable{});
  ASSERT_EQ(d.kernels.size(), 1u);
  EXPECT_EQ(d.kernels[0].a.signatures, 2u);
  EXPECT_EQ(d.kernels[0].a.models, 1u);
  EXPECT_DOUBLE_EQ(*d.kernels[0].a.pct_of_roof, (80.0 * 1000 + 40.0 * 3000) / 4000);
}

TEST(RunDiff, RunWithoutGpuRecordsCountsLaunchesAndHasUnknownTimes) {
  // B ran the same kernel 10 times but recorded no GPU times (no CUPTI): its count is its 10
  // launches, not 0, its time and the change are unknown, and the note says B has no GPU
  // records rather than that the runs used different GPUs.
  RunAggregate a, b;
  a.models.resize(1);
  a.models[0].name = "NVIDIA H100 SXM5 80GB";
  a.launches = 12, b.launches = 10;
  a.kernels = {Kernel("k1", 10, 1000, 1e6, 80.0), Kernel("k2", 2, 5000, 0)};
  MergedKernel untimed = Kernel("k1", 0, 0, 0);
  untimed.group.launches = 10;
  untimed.group.device = -1;
  b.kernels = {untimed};
  a.kernel_gpu_ns = 6000;
  const RunDiff d = DiffRuns(a, RankTable{}, b, RankTable{});
  ASSERT_EQ(d.kernels.size(), 2u);
  // k2 (only in A, timed, -5 us) comes first; k1, whose change is unknown, last.
  EXPECT_EQ(d.kernels[0].name, "k2");
  EXPECT_TRUE(d.kernels[0].change_known);
  const DiffRow& k1 = d.kernels[1];
  EXPECT_EQ(k1.name, "k1");
  EXPECT_EQ(k1.presence, DiffPresence::kBoth);
  EXPECT_EQ(k1.b.count, 10u);
  EXPECT_EQ(k1.b.launches, 10u);
  EXPECT_EQ(k1.b.executions, 0u);
  EXPECT_FALSE(k1.b.gpu_time_known);
  EXPECT_TRUE(k1.a.gpu_time_known);
  EXPECT_FALSE(k1.change_known);
  EXPECT_FALSE(k1.change_pct.has_value());
  EXPECT_FALSE(k1.mean_change_pct.has_value());
  EXPECT_DOUBLE_EQ(*k1.count_change_pct, 0);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("Run B has no GPU records"), std::string::npos) << d.notes[0];
  EXPECT_EQ(d.notes[0].find("different GPUs"), std::string::npos);
  EXPECT_NE(d.summary.find("Kernel GPU time: A 6 us, B unknown."), std::string::npos) << d.summary;
}

TEST(RunDiff, DifferentGpusAreNamedOnlyWhenBothRunsHaveOne) {
  RunAggregate a, b;
  a.models.resize(1), b.models.resize(1);
  a.models[0].name = "H100";
  b.models[0].name = "A100";
  a.kernels = {Kernel("k1", 10, 1000, 0)};
  b.kernels = {Kernel("k1", 10, 2000, 0)};
  const RunDiff d = DiffRuns(a, RankTable{}, b, RankTable{});
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("different GPUs (A: H100; B: A100)"), std::string::npos);
  b.models.clear();  // B's traces describe no device, but have GPU times
  const RunDiff e = DiffRuns(a, RankTable{}, b, RankTable{});
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_NE(e.notes[0].find("Run B names no GPU"), std::string::npos) << e.notes[0];
}

TEST(RunDiff, PooledStepOverRanks) {
  RankTable t = Steps(10, 100);
  RankRow r;
  r.step = StepTime{300, 20, 20};
  t.rows.push_back(r);
  const DiffStep s = PooledStep(t);
  EXPECT_EQ(s.count, 400u);
  EXPECT_EQ(s.ranks, 2u);
  EXPECT_DOUBLE_EQ(s.mean_ns, (10.0 * 100 + 20.0 * 300) / 400);
}

}  // namespace
}  // namespace flopspy::analyzers
