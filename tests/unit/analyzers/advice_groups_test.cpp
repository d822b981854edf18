// Advice over groups of kernels, merged findings, the coverage rule and the ranking
// (docs/advice.md). Each expected number is worked out in a comment.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flopspy/analyzers/advice.h"

namespace flopspy::analyzers {
namespace {

// 10 TFLOP/s FP32, 1 TB/s DRAM: ridge 10 FLOP/B.
DeviceRoofs GroupRoofs() {
  DeviceRoofs r;
  r.flops[static_cast<size_t>(ComputePath::kFp32)] = {10e12, RoofSource::kDatasheet, 0};
  r.bandwidth[static_cast<size_t>(MemoryLevel::kDram)] = {1e12, RoofSource::kDatasheet, 0};
  return r;
}

// A compute-bound kernel (600 FLOP/B) of `flops` in `gpu_ns`, its FLOPs known for every launch.
KernelGroup Compute(const std::string& name, const std::string& category, double gpu_ns,
                    double flops) {
  KernelGroup g;
  g.name = "void " + name + "<128>(Params)";
  g.category = category;
  g.device = 0;
  g.launches = g.executions = 1;
  g.gpu_ns = gpu_ns;
  g.timed.flops = flops;
  g.timed.bytes = flops / 600;
  g.timed.flops_source = g.timed.bytes_source = trace::FigureSource::kAnalytic;
  g.timed.launches_with_flops = g.timed.launches_with_bytes = 1;
  g.timed.flops_ns = g.timed.bytes_ns = gpu_ns;
  WorkSample w;
  w.flops = flops;
  w.bytes = g.timed.bytes;
  w.path = ComputePath::kFp32;
  w.gpu_time_ns = gpu_ns;
  w.calls = 1;
  g.placement = PlaceOnRoofline(GroupRoofs(), w);
  return g;
}

// A kernel with GPU time and no figures (a Triton kernel, an uncatalogued ATen one).
KernelGroup Unknown(const std::string& name, const std::string& category, double gpu_ns) {
  KernelGroup g;
  g.name = name;
  g.category = category;
  g.device = 0;
  g.launches = g.executions = 1;
  g.gpu_ns = gpu_ns;
  return g;
}

// A memory-bound elementwise kernel moving `bytes` in `gpu_ns`.
KernelGroup Memory(const std::string& functor, double gpu_ns, double bytes) {
  KernelGroup g;
  g.name = "void at::native::vectorized_elementwise_kernel<" + functor + ">(int)";
  g.functor = g.op = functor;
  g.family = "elementwise_vectorized";
  g.category = "elementwise";
  g.device = 0;
  g.launches = g.executions = 1;
  g.gpu_ns = gpu_ns;
  g.timed.flops = bytes / 8;
  g.timed.bytes = bytes;
  g.timed.flops_source = g.timed.bytes_source = trace::FigureSource::kCatalog;
  g.timed.launches_with_flops = g.timed.launches_with_bytes = 1;
  g.timed.flops_ns = g.timed.bytes_ns = gpu_ns;
  WorkSample w;
  w.flops = bytes / 8;
  w.bytes = bytes;
  w.path = ComputePath::kFp32;
  w.gpu_time_ns = gpu_ns;
  w.mean_launch_ns = 1000;
  g.placement = PlaceOnRoofline(GroupRoofs(), w);
  return g;
}

std::vector<const Advice*> All(const std::vector<Advice>& list, AdviceKind kind) {
  std::vector<const Advice*> out;
  for (const auto& a : list) {
    if (a.kind == kind) out.push_back(&a);
  }
  return out;
}

TraceAnalysis RunOf(std::vector<KernelGroup> kernels) {
  TraceAnalysis run;
  run.gpu_timing = true;
  run.launches = kernels.size();
  run.kernels = std::move(kernels);
  return run;
}

// The case: 120 GEMM signatures of 0.6% each, no one of them worth a finding alone, are
// one finding of 72%. Each: 0.6 GFLOP in 0.6 ms = 1 TFLOP/s, 10% of 10 TFLOP/s; its roof time
// 60 us, so 540 us above the roof; 120 of them: 64.8 ms. Five names of 24 signatures each.
TEST(AdviceGroups, ManySmallGemmsAreOneFindingOfTheirFamily) {
  std::vector<KernelGroup> kernels;
  const char* names[] = {"gemm_a", "gemm_b", "gemm_c", "gemm_d", "gemm_e"};
  for (int i = 0; i < 120; ++i) kernels.push_back(Compute(names[i % 5], "gemm", 0.6e6, 0.6e9));
  kernels.push_back(Unknown("triton_poi_fused_add_0", "triton", 20e6));  // 20 ms
  kernels.push_back(Compute("own_kernel", "other", 8e6, 8e9));           // 8 ms, 8%, own family
  const std::vector<Advice> advice = AdviseRun(RunOf(std::move(kernels)), {{0, GroupRoofs()}});
  const auto far = All(advice, AdviceKind::kFarFromRoof);
  ASSERT_EQ(far.size(), 2u);
  const Advice& gemm = *far[0];
  EXPECT_EQ(gemm.finding,
            "GEMM kernels: 120 signatures of 5 names (120 runs) take 72 ms, 72% of GPU time, "
            "compute bound at 10.0% of the fp32-cuda roof (time-weighted over the 100% of their "
            "time whose FLOPs are known); largest: gemm_a 14%, gemm_b 14%, gemm_c 14% (+2).");
  EXPECT_EQ(gemm.title, "GEMM kernels far from their roof");
  EXPECT_NEAR(*gemm.gain_ns, 64.8e6, 1);
  EXPECT_DOUBLE_EQ(gemm.share, 0.72);
  EXPECT_DOUBLE_EQ(gemm.gpu_ns, 72e6);
  EXPECT_EQ(gemm.launches, 120u);
  EXPECT_NEAR(*gemm.pct_of_roof, 10, 1e-9);
  EXPECT_EQ(gemm.items,
            (std::vector<std::string>{"gemm_a", "gemm_b", "gemm_c", "gemm_d", "gemm_e"}));
  // A family of one signature keeps the kernel's own sentence: 8 ms at 10%, 7.2 ms above.
  EXPECT_EQ(far[1]->finding,
            "void own_kernel<128>(Params) is compute bound but reaches 10% of its fp32-cuda "
            "roof over 8 ms (8.0% of GPU time).");
  EXPECT_NEAR(*far[1]->gain_ns, 7.2e6, 1);
}

// One name over many signatures is the group's subject: "gemm_a kernels".
TEST(AdviceGroups, OneNameNamesTheGroup) {
  std::vector<KernelGroup> kernels;
  for (int i = 0; i < 10; ++i) kernels.push_back(Compute("gemm_a", "gemm", 1e6, 1e9));
  const std::vector<Advice> advice = AdviseRun(RunOf(std::move(kernels)), {{0, GroupRoofs()}});
  const auto far = All(advice, AdviceKind::kFarFromRoof);
  ASSERT_EQ(far.size(), 1u);
  EXPECT_EQ(far[0]->finding,
            "gemm_a kernels: 10 signatures (10 runs) take 10 ms, 100% of GPU time, compute bound "
            "at 10% of the fp32-cuda roof (time-weighted over the 100% of their time whose FLOPs "
            "are known).");
}

// Below 5% of the kernel time, a family is not worth a finding: 4 x 1 ms of 100 ms.
TEST(AdviceGroups, ASmallFamilyIsNoFinding) {
  std::vector<KernelGroup> kernels;
  for (int i = 0; i < 4; ++i) kernels.push_back(Compute("gemm_a", "gemm", 1e6, 1e9));
  kernels.push_back(Memory("mul", 96e6, 96e9));  // at the DRAM roof: no gain, no far finding
  EXPECT_TRUE(
      All(AdviseRun(RunOf(std::move(kernels)), {{0, GroupRoofs()}}), AdviceKind::kFarFromRoof)
          .empty());
}

// Three sets of ops, each moving its bytes at its own rate (100, 300 and 600 GB/s), are one
// memory_bound_explained finding with a list, not three.
TEST(AdviceGroups, NearIdenticalFindingsMerge) {
  const std::vector<Advice> advice = AdviseRun(
      RunOf({Memory("add", 1e6, 100e6), Memory("mul", 1e6, 100e6), Memory("div", 1e6, 300e6),
             Memory("sub", 1e6, 300e6), Memory("max", 1e6, 600e6), Memory("min", 1e6, 600e6)}),
      {{0, GroupRoofs()}});
  const auto explained = All(advice, AdviceKind::kMemoryBoundExplained);
  ASSERT_EQ(explained.size(), 1u);
  const Advice& a = *explained[0];
  EXPECT_EQ(a.items,
            (std::vector<std::string>{"add, mul (1 ms per call)", "div, sub (1 ms per call)",
                                      "max, min (1 ms per call)"}));
  const std::string tail =
      " The same holds for 2 more sets of ops: div, sub (1 ms per call); max, min (1 ms per "
      "call).";
  ASSERT_GE(a.finding.size(), tail.size());
  EXPECT_EQ(a.finding.substr(a.finding.size() - tail.size()), tail) << a.finding;
  EXPECT_DOUBLE_EQ(a.share, 1.0);  // all six kernels
  EXPECT_EQ(a.launches, 6u);
  // The fusion finding lists the kernels by name, largest first (ties in order of appearance).
  const auto fuse = All(advice, AdviceKind::kFuseElementwise);
  ASSERT_EQ(fuse.size(), 1u);
  EXPECT_NE(fuse[0]->finding.find(": add, mul, div, sub, max (+1)."), std::string::npos)
      << fuse[0]->finding;
}

// 80 ms of 100 ms has no FLOPs: the coverage rule says so, by family, and what would measure it.
TEST(AdviceGroups, UnknownFlopsAreOneFindingWithTheirShare) {
  const std::vector<Advice> advice =
      AdviseRun(RunOf({Unknown("triton_poi_fused_add_0", "triton", 50e6),
                       Unknown("void at::native::foo<float>(int)", "other", 30e6),
                       Compute("gemm_a", "gemm", 20e6, 200e9)}),
                {{0, GroupRoofs()}});
  const auto unknown = All(advice, AdviceKind::kUnknownFigures);
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0]->finding,
            "80% of the kernel time (80 ms of 100 ms) runs kernels whose FLOPs are unknown, so no "
            "rule can judge it and the largest gain may hide there: triton 50%, other 30%.");
  EXPECT_NE(unknown[0]->action.find("FLOPSPY_COUNTERS=1"), std::string::npos);
  EXPECT_NE(unknown[0]->action.find("docs/kernel-catalog.md"), std::string::npos);
  EXPECT_DOUBLE_EQ(unknown[0]->share, 0.8);
  EXPECT_FALSE(unknown[0]->gain_ns.has_value());
  EXPECT_EQ(unknown[0]->items, (std::vector<std::string>{"triton", "other"}));
}

TEST(AdviceGroups, KnownFlopsNeedNoCoverageFinding) {
  // 20 ms of 100 ms unknown: under the 25% that makes it worth saying.
  const std::vector<Advice> advice = AdviseRun(
      RunOf({Unknown("triton_poi_fused_add_0", "triton", 20e6), Compute("g", "gemm", 80e6, 8e11)}),
      {{0, GroupRoofs()}});
  EXPECT_TRUE(All(advice, AdviceKind::kUnknownFigures).empty());
}

// Ranked by estimated gain; findings without an estimate after them, the larger share first;
// at most kMaxAdvice. Twelve families of one far kernel each, 25 ms to 36 ms (each at 10% of its
// roof: gain 90% of its time), and 130 ms without FLOPs (no estimate, ranked after all gains).
TEST(AdviceGroups, RankedByGainAndCapped) {
  std::vector<KernelGroup> kernels;
  for (int i = 0; i < 12; ++i) {
    const double ns = (25 + i) * 1e6;
    kernels.push_back(Compute("k" + std::to_string(i), "family" + std::to_string(i), ns, ns * 1e3));
  }
  kernels.push_back(Unknown("triton_poi_fused_add_0", "triton", 130e6));  // 26% of 496 ms
  const std::vector<Advice> advice = AdviseRun(RunOf(std::move(kernels)), {{0, GroupRoofs()}});
  ASSERT_EQ(advice.size(), kMaxAdvice);
  // The largest, k11 (36 ms, gain 32.4 ms), first; the smallest two (25 and 26 ms) and the
  // coverage finding (no estimate) fall past the tenth.
  EXPECT_EQ(advice[0].items, std::vector<std::string>{"k11"});
  EXPECT_NEAR(*advice[0].gain_ns, 32.4e6, 1);
  for (size_t i = 1; i < advice.size(); ++i) {
    ASSERT_TRUE(advice[i].gain_ns.has_value());
    EXPECT_GT(*advice[i - 1].gain_ns, *advice[i].gain_ns);
  }
  EXPECT_EQ(advice.back().items, std::vector<std::string>{"k2"});
}

TEST(AdviceGroups, NoEstimateRanksAfterAnEstimate) {
  // Coverage (80% share, no estimate) after a 10-ms far kernel (9 ms gain, 20% share).
  const std::vector<Advice> advice = AdviseRun(
      RunOf({Unknown("triton_poi_fused_add_0", "triton", 40e6), Compute("g", "gemm", 10e6, 1e10)}),
      {{0, GroupRoofs()}});
  ASSERT_EQ(advice.size(), 2u);
  EXPECT_EQ(advice[0].kind, AdviceKind::kFarFromRoof);
  EXPECT_EQ(advice[1].kind, AdviceKind::kUnknownFigures);
}

// Without estimates, the larger share first: 60 ms without FLOPs (60%) before the explanation of
// add and mul (2 x 20 ms, 40%), both after the fusion estimate (each 2 GB in 20 ms where the
// roof allows 2 ms: 36 ms).
TEST(AdviceGroups, WithoutEstimatesTheLargerShareFirst) {
  const std::vector<Advice> advice =
      AdviseRun(RunOf({Memory("add", 20e6, 2e9), Memory("mul", 20e6, 2e9),
                       Unknown("triton_poi_fused_add_0", "triton", 60e6)}),
                {{0, GroupRoofs()}});
  ASSERT_EQ(advice.size(), 3u);
  EXPECT_EQ(advice[0].kind, AdviceKind::kFuseElementwise);
  EXPECT_NEAR(*advice[0].gain_ns, 36e6, 1);
  EXPECT_EQ(advice[1].kind, AdviceKind::kUnknownFigures);
  EXPECT_EQ(advice[2].kind, AdviceKind::kMemoryBoundExplained);
}

}  // namespace
}  // namespace flopspy::analyzers
