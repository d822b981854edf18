// Advice that names the line (analyzers/src/advice_call_sites.cpp, docs/advice.md "Call sites"):
// a finding of its own for a launch-bound site or the largest memory-bound site, or the sites
// added to the finding that already covers their kernels.
#include <gtest/gtest.h>

#include "flopspy/analyzers/advice.h"
#include "flopspy/analyzers/call_sites.h"

namespace flopspy::analyzers {
namespace {

CallSite Site(const char* label, double gpu_ns, double launches) {
  CallSite s;
  s.label = label;
  s.gpu_ns = gpu_ns;
  s.launches = launches;
  return s;
}

CallSiteReport Report(std::vector<CallSite> sites) {
  CallSiteReport r;
  r.samples = 10;
  for (const CallSite& s : sites) r.kernel_ns += s.gpu_ns;
  for (CallSite& s : sites) s.share = s.gpu_ns / r.kernel_ns;
  r.sites = std::move(sites);
  return r;
}

TEST(CallSiteAdvice, ALaunchBoundSiteGetsAFindingNamingItsLine) {
  CallSite tiny = Site("model.py:88 (Block.forward)", 3'400'000, 412);
  tiny.launch_bound_ns = 2'000'000;
  CallSite big = Site("model.py:90 (Block.mlp)", 10'000'000, 20);
  big.regime_ns[static_cast<size_t>(Regime::kComputeBound)] = 10'000'000;
  std::vector<Advice> advice;
  AddCallSiteAdvice(advice, Report({big, tiny}), 4);
  ASSERT_EQ(advice.size(), 1u);
  const Advice& a = advice[0];
  EXPECT_EQ(a.kind, AdviceKind::kLaunchBound);
  EXPECT_EQ(a.finding,
            "model.py:88 (Block.forward) launches 412 kernels, 103 per step, that are mostly "
            "shorter than their launch (2 ms of its 3.4 ms GPU time launch-bound).");
  EXPECT_NE(a.action.find("CUDA graph"), std::string::npos);
  EXPECT_FALSE(a.gain_ns.has_value());
  EXPECT_EQ(a.items, std::vector<std::string>{"model.py:88 (Block.forward)"});
  EXPECT_DOUBLE_EQ(a.gpu_ns, 2'000'000);
  EXPECT_EQ(a.launches, 412u);
}

TEST(CallSiteAdvice, FewLaunchesOrLittleLaunchBoundTimeIsNoFinding) {
  CallSite few = Site("a.py:1 (f)", 1'000'000, 50);  // under 100 launches
  few.launch_bound_ns = 900'000;
  CallSite mostly_long = Site("b.py:2 (g)", 1'000'000, 500);  // 40% launch-bound
  mostly_long.launch_bound_ns = 400'000;
  std::vector<Advice> advice;
  AddCallSiteAdvice(advice, Report({few, mostly_long}), 0);
  EXPECT_TRUE(advice.empty());
}

TEST(CallSiteAdvice, AnExistingLaunchBoundFindingNamesTheSitesInstead) {
  CallSite tiny = Site("model.py:88 (Block.forward)", 3'400'000, 412);
  tiny.launch_bound_ns = 1'200'000;
  std::vector<Advice> advice(1);
  advice[0].kind = AdviceKind::kLaunchBound;
  advice[0].finding = "412 runs of 3 kernels are shorter than it takes to launch them.";
  AddCallSiteAdvice(advice, Report({tiny}), 0);
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_EQ(advice[0].finding,
            "412 runs of 3 kernels are shorter than it takes to launch them. Launched from: "
            "model.py:88 (Block.forward) (1.2 ms of its 3.4 ms) launch-bound.");
}

TEST(CallSiteAdvice, TheTopMemoryBoundSiteIsNamed) {
  CallSite mem = Site("model.py:61 (Attention.forward)", 4'000'000, 30);
  mem.regime_ns[static_cast<size_t>(Regime::kMemoryBound)] = 3'000'000;
  CallSite small = Site("model.py:70 (Norm.forward)", 6'000'000, 30);
  small.regime_ns[static_cast<size_t>(Regime::kMemoryBound)] = 1'000'000;
  std::vector<Advice> advice;
  AddCallSiteAdvice(advice, Report({small, mem}), 0);
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_EQ(advice[0].kind, AdviceKind::kFuseElementwise);
  EXPECT_EQ(advice[0].finding,
            "model.py:61 (Attention.forward) holds the most memory-bound kernel time: 3 ms (30% "
            "of kernel time) of its 4 ms, over 30 launches.");
  // With a fuse_elementwise finding already there, the sites join it.
  std::vector<Advice> existing(1);
  existing[0].kind = AdviceKind::kFuseElementwise;
  existing[0].finding = "Memory-bound kernels take 40%.";
  AddCallSiteAdvice(existing, Report({small, mem}), 0);
  ASSERT_EQ(existing.size(), 1u);
  EXPECT_EQ(existing[0].finding,
            "Memory-bound kernels take 40%. Launched from: model.py:61 (Attention.forward) (3 ms "
            "of its 4 ms); model.py:70 (Norm.forward) (1 ms of its 6 ms) memory-bound.");
}

TEST(CallSiteAdvice, BackwardAndUnattributedTimeIsNeverALine) {
  CallSite backward = Site("backward, no call site", 4'000'000, 500);
  backward.kind = CallSiteKind::kBackward;
  backward.launch_bound_ns = 4'000'000;
  backward.regime_ns[static_cast<size_t>(Regime::kMemoryBound)] = 4'000'000;
  std::vector<Advice> advice;
  AddCallSiteAdvice(advice, Report({backward}), 0);
  EXPECT_TRUE(advice.empty());
}

TEST(CallSiteAdvice, NewFindingsAreRankedWithTheOthers) {
  CallSite tiny = Site("model.py:88 (Block.forward)", 3'400'000, 412);
  tiny.launch_bound_ns = 2'000'000;
  std::vector<Advice> advice(2);
  advice[0].kind = AdviceKind::kFarFromRoof;
  advice[0].gain_ns = 5e6;
  advice[0].share = 0.5;
  advice[1].kind = AdviceKind::kUnknownFigures;
  advice[1].share = 0.01;
  AddCallSiteAdvice(advice, Report({tiny}), 0);
  ASSERT_EQ(advice.size(), 3u);
  EXPECT_EQ(advice[0].kind, AdviceKind::kFarFromRoof);  // an estimated gain first
  EXPECT_EQ(advice[1].kind, AdviceKind::kLaunchBound);  // then by share: 100% of 3.4 ms
  EXPECT_EQ(advice[2].kind, AdviceKind::kUnknownFigures);
}

}  // namespace
}  // namespace flopspy::analyzers
