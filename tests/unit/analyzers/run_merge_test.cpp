// Many traces merged into one run: groups keyed by signature and shape across traces, placed
// again on their GPU model's roofs, and the run totals; every figure worked out by hand.
#include "flopspy/analyzers/run_merge.h"

#include <gtest/gtest.h>

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;

// 100 TFLOP/s FP32, 1 TB/s DRAM.
DeviceRoofs Roofs(const std::string& name, int sms = 132) {
  DeviceRoofs r;
  r.name = name;
  r.sm_count = sms;
  r.flops[static_cast<size_t>(ComputePath::kFp32)] = {100e12, RoofSource::kDatasheet, 0};
  r.bandwidth[static_cast<size_t>(MemoryLevel::kDram)] = {1e12, RoofSource::kDatasheet, 0};
  return r;
}

KernelGroup Kernel(const std::string& name, uint32_t grid, uint64_t executions, double gpu_ns,
                   double flops, uint32_t signature) {
  KernelGroup g;
  g.signature = signature;  // trace-local: must not matter
  g.name = name;
  g.grid = {grid, 1, 1};
  g.block = {128, 1, 1};
  g.device = 0;
  g.launches = executions;
  g.executions = executions;
  g.gpu_ns = gpu_ns;
  g.path = ComputePath::kFp32;
  for (uint64_t i = 0; i < executions; ++i) {
    g.gpu_durations.Add(static_cast<uint64_t>(gpu_ns / static_cast<double>(executions)));
  }
  g.timed.flops = flops;
  g.timed.flops_source = FigureSource::kCatalog;
  g.timed.launches_with_flops = executions;
  g.timed.bytes = flops;  // intensity 1
  g.timed.bytes_source = FigureSource::kCatalog;
  g.timed.launches_with_bytes = executions;
  g.all = g.timed;
  return g;
}

LibraryGroup Sgemm(int64_t n, uint64_t calls, double gpu_ns) {
  LibraryGroup g;
  g.routine = "cublasSgemm_v2";
  g.shape.m = g.shape.n = g.shape.k = n;
  g.shape.batch = 1;
  g.calls = calls;
  g.gpu_ns = gpu_ns;
  g.flops = g.timed_flops = 2.0 * n * n * n * static_cast<double>(calls);
  g.bytes = g.timed_bytes = 12.0 * n * n * static_cast<double>(calls);
  g.source = FigureSource::kAnalytic;
  g.path = ComputePath::kFp32;
  g.device = 0;
  return g;
}

// One device busy from 0 to `span_s`, with `analytic` model FLOPs, MFU against 100 TFLOP/s.
DeviceActivity Device(double span_s, double analytic, const DeviceRoofs& roofs) {
  DeviceActivity d;
  d.device = 0;
  d.first_ns = 1'000'000'000;
  d.last_ns = d.first_ns + static_cast<uint64_t>(span_s * 1e9);
  d.kernel_ns = 1e6;
  d.kernels = 10;
  d.analytic_flops = analytic;
  d.utilization = ComputeUtilization(roofs, ComputePath::kFp32, std::nullopt, analytic, span_s);
  return d;
}

struct Fixture {
  std::map<int32_t, DeviceRoofs> roofs0{{0, Roofs("H100")}};
  std::map<int32_t, DeviceRoofs> roofs1{{0, Roofs("H100")}};
  TraceAnalysis run0, run1;
  std::vector<TraceFacts> facts;

  Fixture() {
    run0.launches = 11;
    run0.kernels = {Kernel("k", 10, 10, 1000, 1e6, 1), Kernel("j", 1, 1, 500, 0, 2)};
    run0.libraries = {Sgemm(128, 2, 2000)};
    run0.devices = {Device(1.0, 10e12, roofs0[0])};
    run1.launches = 31;
    // The same kernel "k" (another signature id in this trace) and "k" on another grid.
    run1.kernels = {Kernel("k", 10, 30, 5000, 3e6, 7), Kernel("k", 20, 1, 800, 1e5, 8)};
    run1.libraries = {Sgemm(128, 3, 3000)};
    run1.devices = {Device(2.0, 30e12, roofs1[0])};
    facts.resize(2);
    facts[0].host = facts[1].host = "node1";
    facts[0].rank = 0, facts[1].rank = 1;
    facts[0].pid = 100, facts[1].pid = 101;
    facts[0].run = &run0, facts[1].run = &run1;
    facts[0].roofs = &roofs0, facts[1].roofs = &roofs1;
    facts[0].device_ids = {{0, "GPU-a"}};
    facts[1].device_ids = {{0, "GPU-b"}};
    facts[0].gpu_busy_ns = 800, facts[0].gpu_window_ns = 1000;
    facts[1].gpu_busy_ns = 1200, facts[1].gpu_window_ns = 3000;
  }
};

TEST(RunMerge, KernelsMergeBySignatureAcrossTraces) {
  Fixture f;
  const RunAggregate a = AggregateRun(f.facts);
  ASSERT_EQ(a.kernels.size(), 3u);  // k/10, k/20, j
  const KernelGroup& k = a.kernels[0].group;
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.grid[0], 10u);
  EXPECT_EQ(a.kernels[0].traces, 2u);
  EXPECT_EQ(k.executions, 40u);
  EXPECT_DOUBLE_EQ(k.gpu_ns, 6000);
  EXPECT_DOUBLE_EQ(k.timed.flops, 4e6);
  EXPECT_EQ(k.gpu_durations.count(), 40u);
  // Placed on the merged figures: 4e6 FLOPs in 6 us = 6.67e11 FLOP/s, intensity 1 FLOP/B.
  ASSERT_TRUE(k.placement.has_value());
  ASSERT_TRUE(k.placement->achieved_flops.has_value());
  EXPECT_NEAR(*k.placement->achieved_flops, 4e6 / 6e-6, 1);
  EXPECT_NEAR(*k.placement->intensity, 1.0, 1e-12);
  // Longest first: k/10 (6 us), k/20 (0.8 us), j (0.5 us).
  EXPECT_EQ(a.kernels[1].group.grid[0], 20u);
  EXPECT_EQ(a.kernels[1].traces, 1u);
  EXPECT_EQ(a.kernels[2].group.name, "j");
}

TEST(RunMerge, LibraryShapesMergeAndArePlaced) {
  Fixture f;
  const RunAggregate a = AggregateRun(f.facts);
  ASSERT_EQ(a.libraries.size(), 1u);
  const LibraryGroup& g = a.libraries[0].group;
  EXPECT_EQ(a.libraries[0].traces, 2u);
  EXPECT_EQ(g.calls, 5u);
  EXPECT_DOUBLE_EQ(g.gpu_ns, 5000);
  EXPECT_DOUBLE_EQ(g.timed_flops, 5 * 2.0 * 128 * 128 * 128);
  ASSERT_TRUE(g.placement.has_value());
  EXPECT_NEAR(*g.placement->achieved_flops, 5 * 2.0 * 128 * 128 * 128 / 5e-6, 1e3);
  // Another transpose is another shape.
  f.run1.libraries[0].shape.trans_a = 1;
  EXPECT_EQ(AggregateRun(f.facts).libraries.size(), 2u);
}

TEST(RunMerge, TotalsOverTheRun) {
  Fixture f;
  const RunAggregate a = AggregateRun(f.facts);
  EXPECT_EQ(a.processes, 2u);
  EXPECT_EQ(a.ranks, 2u);
  EXPECT_EQ(a.hosts, 1u);
  EXPECT_EQ(a.gpus, 2u);
  EXPECT_EQ(a.launches, 42u);
  EXPECT_DOUBLE_EQ(a.kernel_gpu_ns, 1000 + 500 + 5000 + 800);
  EXPECT_DOUBLE_EQ(a.kernel_flops, 1e6 + 0 + 3e6 + 1e5);
  // Busy: (800 + 1200) / (1000 + 3000).
  ASSERT_TRUE(a.busy_fraction.has_value());
  EXPECT_DOUBLE_EQ(*a.busy_fraction, 0.5);
  // MFU: (10 + 30) TFLOP over (1 s + 2 s) x 100 TFLOP/s = 13.3%, not the mean of 10% and 15%.
  ASSERT_TRUE(a.mfu.has_value());
  EXPECT_NEAR(*a.mfu, 40.0 / 300.0, 1e-12);
  ASSERT_EQ(a.models.size(), 1u);
  EXPECT_EQ(a.models[0].gpus, 2u);
  EXPECT_TRUE(a.notes.empty());
}

TEST(RunMerge, SameGpuInTwoProcessesCountsOnce) {
  Fixture f;
  f.facts[1].device_ids = {{0, "GPU-a"}};  // a forked child on its parent's GPU
  EXPECT_EQ(AggregateRun(f.facts).gpus, 1u);
}

TEST(RunMerge, DifferentGpuModelsArePlacedPerModel) {
  Fixture f;
  f.roofs1 = {{0, Roofs("A100", 108)}};
  f.roofs1[0].flops[static_cast<size_t>(ComputePath::kFp32)].nominal = 20e12;
  const RunAggregate a = AggregateRun(f.facts);
  ASSERT_EQ(a.models.size(), 2u);
  EXPECT_TRUE(a.mixed_models());
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes[0].find("different GPU models"), std::string::npos) << a.notes[0];
  // "k" on grid 10 now appears once per model, each on its own roofs.
  int found = 0;
  for (const MergedKernel& k : a.kernels) {
    if (k.group.name != "k" || k.group.grid[0] != 10) continue;
    ++found;
    ASSERT_TRUE(k.group.placement.has_value());
    const double peak = a.models[k.group.device].name == "A100" ? 20e12 : 100e12;
    EXPECT_DOUBLE_EQ(k.group.placement->peak_flops, peak);
  }
  EXPECT_EQ(found, 2);
}

TEST(RunMerge, GroupsWithoutRoofsStayUnplacedAndSaySo) {
  Fixture f;
  f.facts[1].roofs = nullptr;  // the trace had no device metadata
  const RunAggregate a = AggregateRun(f.facts);
  bool unplaced = false;
  for (const MergedKernel& k : a.kernels) {
    if (k.group.device >= 0 && a.models[k.group.device].name == "unknown GPU") {
      EXPECT_FALSE(k.group.placement.has_value());
      unplaced = true;
    }
  }
  EXPECT_TRUE(unplaced);
  bool said = false;
  for (const auto& n : a.notes) said = said || n.find("roofs are unknown") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(RunMerge, UnreadableTracesCountAsTracesOnly) {
  Fixture f;
  f.facts.emplace_back();  // no run: could not be read
  const RunAggregate a = AggregateRun(f.facts);
  EXPECT_EQ(a.traces, 3u);
  EXPECT_EQ(a.processes, 2u);
}

TEST(RunMerge, WallClockSpanUsesEachTracesAnchor) {
  Fixture f;
  // Trace 0: monotonic 50 s is realtime 1000 s; events 50.0 s .. 51.0 s -> 1000 .. 1001 s.
  f.facts[0].start_realtime_ns = 1000'000'000'000;
  f.facts[0].start_monotonic_ns = 50'000'000'000;
  f.facts[0].first_ns = 50'000'000'000;
  f.facts[0].last_ns = 51'000'000'000;
  // Trace 1 (another host's clock): monotonic 7 s is realtime 1000.5 s; events 7 .. 9 s.
  f.facts[1].start_realtime_ns = 1000'500'000'000;
  f.facts[1].start_monotonic_ns = 7'000'000'000;
  f.facts[1].first_ns = 7'000'000'000;
  f.facts[1].last_ns = 9'000'000'000;
  const RunAggregate a = AggregateRun(f.facts);
  EXPECT_EQ(a.first_realtime_ns, 1000'000'000'000u);
  EXPECT_EQ(a.last_realtime_ns, 1002'500'000'000u);
}

TEST(RunMerge, KeysAndLabels) {
  KernelGroup g =
      Kernel("void at::native::vectorized_elementwise_kernel<4, F>(int, F)", 4, 1, 1, 1, 1);
  g.functor = "mul";
  g.shape_key = "n=1000";
  EXPECT_EQ(KernelShortLabel(g), "mul · vectorized_elementwise_kernel [n=1000]");
  KernelGroup h = g;
  h.signature = 99;
  EXPECT_EQ(KernelKey(g), KernelKey(h));
  h.block[0] = 256;
  EXPECT_NE(KernelKey(g), KernelKey(h));
  const LibraryGroup l = Sgemm(64, 1, 1);
  EXPECT_EQ(LibraryShortLabel(l).substr(0, 24), "cublasSgemm_v2 64x64x64 ");
}

}  // namespace
}  // namespace flopspy::analyzers
