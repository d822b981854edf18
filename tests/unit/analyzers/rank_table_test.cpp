// The per-rank table: traces aligned on their CLOCK_REALTIME anchors, forked children kept
// with their rank (or their parent's process tree), the step region and its statistics.
#include "flopspy/analyzers/rank_table.h"

#include <gtest/gtest.h>

namespace flopspy::analyzers {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint64_t kMs = 1'000'000;

RegionStats Region(const std::string& name, std::initializer_list<uint64_t> durations) {
  RegionStats r;
  r.name = name;
  for (const uint64_t d : durations) {
    ++r.count;
    r.total_ns += static_cast<double>(d);
    r.durations.Add(d);
  }
  return r;
}

KernelGroup Kernel(const std::string& name, double gpu_ns) {
  KernelGroup g;
  g.name = name;
  g.executions = 1;
  g.gpu_ns = gpu_ns;
  return g;
}

struct Trace {
  TraceAnalysis run;
  std::vector<RegionStats> regions;
  TraceFacts facts;
};

// A trace whose monotonic clock reads `mono` ms when the wall clock reads `wall` ms, with events
// from `first` to `last` ms of its monotonic clock.
void Place(Trace& t, int32_t rank, uint32_t pid, uint64_t wall, uint64_t mono, uint64_t first,
           uint64_t last) {
  t.facts.host = "node" + std::to_string(rank < 0 ? 0 : rank / 2);
  t.facts.rank = rank;
  t.facts.local_rank = rank < 0 ? -1 : rank % 2;
  t.facts.pid = pid;
  t.facts.start_realtime_ns = wall * kMs;
  t.facts.start_monotonic_ns = mono * kMs;
  t.facts.first_ns = first * kMs;
  t.facts.last_ns = last * kMs;
  t.facts.end = "exit 0";
}

std::vector<TraceFacts> Facts(std::vector<Trace>& traces) {
  std::vector<TraceFacts> out;
  for (Trace& t : traces) {
    t.facts.run = &t.run;
    t.facts.regions = &t.regions;
    out.push_back(t.facts);
  }
  return out;
}

TEST(RankTable, StartsAreAlignedOnTheWallClock) {
  std::vector<Trace> traces(3);
  // Rank 1 starts first on the wall clock (1000 s) though its monotonic clock reads 5 s;
  // rank 0 starts 2.5 s later with a monotonic clock at 900 s. (Times in ms.)
  Place(traces[0], 0, 10, 1002500, 900000, 900100, 903100);
  Place(traces[1], 1, 11, 1000000, 5000, 5200, 6200);
  Place(traces[2], 2, 12, 1001000, 70000, 70000, 72000);
  const RankTable t = BuildRankTable(Facts(traces));
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.earliest_start_realtime_ns, 1000 * kSecond);
  EXPECT_EQ(t.rows[0].rank, 0);
  EXPECT_EQ(t.rows[0].start_offset_ns, static_cast<int64_t>(2500 * kMs));
  EXPECT_EQ(t.rows[1].start_offset_ns, 0);
  EXPECT_EQ(t.rows[2].start_offset_ns, static_cast<int64_t>(1 * kSecond));
  // First events on the wall clock: rank 0 at 1002.6 s, rank 1 at 1000.2 s.
  EXPECT_EQ(t.rows[0].first_realtime_ns, 1002600 * kMs);
  EXPECT_EQ(t.rows[1].first_realtime_ns, 1000200 * kMs);
  EXPECT_EQ(t.rows[0].span_ns, 3 * kSecond);
  EXPECT_EQ(t.rows[1].span_ns, 1 * kSecond);
  EXPECT_EQ(t.rows[1].local_rank, 1);
  EXPECT_EQ(t.rows[1].host, "node0");
}

TEST(RankTable, ForkedChildrenBelongToTheirRank) {
  std::vector<Trace> traces(3);
  Place(traces[0], 0, 100, 1000000, 10000, 10000, 12000);
  traces[0].run.kernels = {Kernel("a", 1000)};
  traces[0].run.launches = 5;
  // A data-loader worker of rank 0: same rank (inherited), forked from pid 100, its own span.
  Place(traces[1], 0, 150, 1000500, 10500, 10500, 13000);
  traces[1].facts.forked = true;
  traces[1].facts.parent_pid = 100;
  traces[1].facts.end = "signal 15";
  traces[1].run.kernels = {Kernel("a", 200)};
  traces[1].run.launches = 1;
  traces[1].facts.lost = 7;
  Place(traces[2], 1, 101, 1000000, 10000, 10000, 12000);
  const RankTable t = BuildRankTable(Facts(traces));
  ASSERT_EQ(t.rows.size(), 2u);
  const RankRow& r0 = t.rows[0];
  EXPECT_EQ(r0.traces.size(), 2u);
  EXPECT_EQ(r0.traces[0], 0u);  // the parent first
  EXPECT_EQ(r0.pid, 100u);
  EXPECT_DOUBLE_EQ(r0.kernel_ns, 1200);
  EXPECT_EQ(r0.launches, 6u);
  EXPECT_EQ(r0.lost, 7u);
  EXPECT_EQ(r0.span_ns, 3 * kSecond);  // 1000 s .. 1003 s on the wall clock
  EXPECT_EQ(r0.end, "exit 0; pid 150: signal 15");
  EXPECT_DOUBLE_EQ(r0.kernel_ns_by_key.at(KernelKey(traces[0].run.kernels[0])), 1200);
  EXPECT_TRUE(t.notes.empty());
}

TEST(RankTable, WithoutRanksAProcessTreeIsOneRow) {
  std::vector<Trace> traces(4);
  Place(traces[0], -1, 100, 1000000, 10000, 10000, 12000);
  Place(traces[1], -1, 150, 1000000, 10000, 10000, 12000);  // child of 100
  traces[1].facts.forked = true;
  traces[1].facts.parent_pid = 100;
  Place(traces[2], -1, 160, 1000000, 10000, 10000, 12000);  // grandchild, through 150
  traces[2].facts.forked = true;
  traces[2].facts.parent_pid = 150;
  Place(traces[3], -1, 200, 1000000, 10000, 10000, 12000);  // another program
  const RankTable t = BuildRankTable(Facts(traces));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].pid, 100u);
  EXPECT_EQ(t.rows[0].traces.size(), 3u);
  EXPECT_EQ(t.rows[0].Name(), "pid 100 on node0");
  EXPECT_EQ(t.rows[1].pid, 200u);
}

TEST(RankTable, TwoUnrelatedProcessesWithOneRankAreNoted) {
  std::vector<Trace> traces(2);
  Place(traces[0], 3, 100, 1000000, 10000, 10000, 12000);
  Place(traces[1], 3, 300, 2000000, 10000, 10000, 12000);
  const RankTable t = BuildRankTable(Facts(traces));
  ASSERT_EQ(t.rows.size(), 1u);
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("rank 3 has 2 traces"), std::string::npos) << t.notes[0];
}

TEST(RankTable, StepIsTheRegionMostRanksMark) {
  std::vector<Trace> traces(3);
  for (int r = 0; r < 3; ++r) Place(traces[r], r, 100 + r, 1000000, 10000, 10000, 12000);
  // "forward" nests inside "step" (same count, less time); "init" only on rank 0, more often.
  traces[0].regions = {Region("step", {30, 40, 50}), Region("forward", {10, 10, 10}),
                       Region("init", {1, 1, 1, 1, 1})};
  traces[1].regions = {Region("step", {60, 60}), Region("forward", {20, 20})};
  traces[2].regions = {Region("forward", {5})};
  const RankTable t = BuildRankTable(Facts(traces));
  // step: 2 ranks, 5 regions; forward: 3 ranks -> forward wins on ranks.
  EXPECT_EQ(t.step_region, "forward");
  traces[2].regions.push_back(Region("step", {70}));
  const RankTable u = BuildRankTable(Facts(traces));
  // Now both have 3 ranks and 6 regions: step has more time.
  EXPECT_EQ(u.step_region, "step");
  ASSERT_TRUE(u.rows[0].step.has_value());
  EXPECT_EQ(u.rows[0].step->count, 3u);
  EXPECT_DOUBLE_EQ(u.rows[0].step->mean_ns, 40);
  EXPECT_NEAR(u.rows[0].step->p50_ns, 40, 40 / 128.0);
  EXPECT_DOUBLE_EQ(u.rows[1].step->mean_ns, 60);
}

TEST(RankTable, NoRegionsMeansNoStep) {
  std::vector<Trace> traces(2);
  Place(traces[0], 0, 100, 1000000, 10000, 10000, 12000);
  Place(traces[1], 1, 101, 1000000, 10000, 10000, 12000);
  const RankTable t = BuildRankTable(Facts(traces));
  EXPECT_TRUE(t.step_region.empty());
  EXPECT_FALSE(t.rows[0].step.has_value());
}

TEST(RankTable, BusyShareAndMfuPoolTheRowsGpus) {
  std::vector<Trace> traces(1);
  Place(traces[0], 0, 100, 1000000, 10000, 10000, 12000);
  traces[0].facts.gpu_busy_ns = 600;
  traces[0].facts.gpu_window_ns = 1000;
  DeviceRoofs roofs;
  roofs.flops[static_cast<size_t>(ComputePath::kFp32)] = {10e12, RoofSource::kDatasheet, 0};
  DeviceActivity d;
  d.first_ns = kSecond;
  d.last_ns = 3 * kSecond;  // 2 s
  d.analytic_flops = 4e12;
  d.utilization = ComputeUtilization(roofs, ComputePath::kFp32, std::nullopt, 4e12, 2.0);
  traces[0].run.devices = {d};
  const RankTable t = BuildRankTable(Facts(traces));
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*t.rows[0].busy_fraction, 0.6);
  ASSERT_TRUE(t.rows[0].mfu.has_value());
  EXPECT_DOUBLE_EQ(*t.rows[0].mfu, 4e12 / (2 * 10e12));
}

}  // namespace
}  // namespace flopspy::analyzers
