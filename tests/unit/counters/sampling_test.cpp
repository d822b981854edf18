// Sampling with mocked counter values: the first N samples of a signature are measured, each
// from one launch per pass group, later launches reuse the mean; samples further apart than 1%
// are flagged once.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "flopspy/gpu_roofline/counter_sampling.h"

namespace flopspy::gpuroof {
namespace {

CounterSignature Sig(std::string shape = "n=1024", uint32_t grid = 4) {
  CounterSignature s;
  s.function = 7;
  s.grid = {grid, 1, 1};
  s.block = {256, 1, 1};
  s.shape_key = std::move(shape);
  return s;
}

CounterValues Values(double fp32, double dram_read) {
  CounterValues v;
  v.fp32 = fp32;
  v.dram_read = dram_read;
  v.valid = trace::kMetricsFp32 | trace::kMetricsDram;
  return v;
}

// One pass group measuring everything the tests' values carry.
constexpr uint32_t kOneGroup[] = {trace::kMetricsFp32 | trace::kMetricsDram};

uint32_t Claim(CounterSampler& sampler, const CounterSignature& s) {
  return sampler.Claim(s, kOneGroup).sample;
}

CounterSampler::Recorded Record(CounterSampler& sampler, const CounterSignature& s, uint32_t sample,
                                const CounterValues& v) {
  return sampler.Record(s, {sample, 0}, v);
}

TEST(CounterSampler, MeasuresTheFirstNThenLetsLaterLaunchesRunUntouched) {
  CounterSampler sampler(3);
  const CounterSignature s = Sig();
  for (uint32_t i = 1; i <= 3; ++i) {
    ASSERT_EQ(Claim(sampler, s), i);
    const auto r = Record(sampler, s, i, Values(1000, 4000));
    EXPECT_TRUE(r.sample_complete);
    EXPECT_EQ(r.samples, i);
    EXPECT_EQ(r.complete, i == 3);
    EXPECT_FALSE(r.disagree);
  }
  EXPECT_TRUE(sampler.Finished(s));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(Claim(sampler, s), 0u);  // reused, not measured
  const auto summary = sampler.Summary(s);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->samples, 3u);
  EXPECT_DOUBLE_EQ(summary->mean.Flops(), 1000);
  EXPECT_DOUBLE_EQ(summary->mean.DramBytes(), 4000);
  EXPECT_EQ(summary->mean.valid, trace::kMetricsFp32 | trace::kMetricsDram);
  EXPECT_EQ(summary->flops_spread, 0);
}

TEST(CounterSampler, EveryPartOfTheSignatureSeparatesSamples) {
  CounterSampler sampler(1);
  EXPECT_EQ(Claim(sampler, Sig("n=1024", 4)), 1u);
  EXPECT_EQ(Claim(sampler, Sig("n=2048", 4)), 1u);  // the catalog's shape parameters
  EXPECT_EQ(Claim(sampler, Sig("n=1024", 8)), 1u);  // the grid
  CounterSignature smem = Sig();
  smem.dynamic_smem = 4096;
  EXPECT_EQ(Claim(sampler, smem), 1u);
  EXPECT_EQ(Claim(sampler, Sig("n=1024", 4)), 0u);  // in flight: the slot is taken
  EXPECT_EQ(sampler.signatures(), 4u);
  EXPECT_FALSE(sampler.Summary(Sig()).has_value());
}

TEST(CounterSampler, AnAbandonedSampleGoesToALaterLaunch) {
  CounterSampler sampler(2);
  const CounterSignature s = Sig();
  EXPECT_EQ(Claim(sampler, s), 1u);
  EXPECT_EQ(Claim(sampler, s), 2u);
  EXPECT_EQ(Claim(sampler, s), 0u);
  sampler.Abandon(s, {2, 0});  // the second launch could not be measured
  EXPECT_EQ(Claim(sampler, s), 2u);
  Record(sampler, s, 1, Values(10, 10));
  Record(sampler, s, 2, Values(10, 10));
  EXPECT_EQ(Claim(sampler, s), 0u);
  EXPECT_EQ(sampler.Summary(s)->samples, 2u);
}

TEST(CounterSampler, SamplesMoreThanOnePercentApartAreFlaggedOnce) {
  CounterSampler sampler(4);
  const CounterSignature s = Sig();
  for (int i = 0; i < 4; ++i) Claim(sampler, s);
  EXPECT_FALSE(Record(sampler, s, 1, Values(1000, 50e6)).disagree);
  // 0.5% apart: within tolerance.
  EXPECT_FALSE(Record(sampler, s, 2, Values(1005, 50e6)).disagree);
  // DRAM bytes 10% apart (a cold first launch, say): flagged, naming what disagrees.
  const auto r = Record(sampler, s, 3, Values(1000, 55e6));
  EXPECT_TRUE(r.disagree);
  EXPECT_EQ(r.what, "DRAM bytes");
  EXPECT_NEAR(r.spread, 5e6 / ((50e6 + 50e6 + 55e6) / 3.0), 1e-12);
  // Further disagreement on the same signature is not flagged again.
  EXPECT_FALSE(Record(sampler, s, 4, Values(2000, 90e6)).disagree);
  const auto summary = sampler.Summary(s);
  EXPECT_EQ(summary->samples, 4u);
  EXPECT_DOUBLE_EQ(summary->mean.fp32, (1000 + 1005 + 1000 + 2000) / 4.0);
  EXPECT_GT(summary->flops_spread, 0.01);
}

// An FMA kernel on an H200 read 2 KB of DRAM in one launch and 5 KB in the next: no roofline point
// moves, so that is no disagreement; a megabyte apart is.
TEST(CounterSampler, DramSamplesUnderAMegabyteApartAgree) {
  CounterSampler sampler(3);
  const CounterSignature s = Sig();
  for (int i = 0; i < 3; ++i) Claim(sampler, s);
  EXPECT_FALSE(Record(sampler, s, 1, Values(1000, 2048)).disagree);
  EXPECT_FALSE(Record(sampler, s, 2, Values(1000, 5120)).disagree);
  const auto r = Record(sampler, s, 3, Values(1000, 2048 + kDramSpreadFloorBytes));
  EXPECT_TRUE(r.disagree);
  EXPECT_EQ(r.what, "DRAM bytes");
}

TEST(CounterSampler, FlopsDisagreementIsNamed) {
  CounterSampler sampler(2);
  const CounterSignature s = Sig();
  Claim(sampler, s), Claim(sampler, s);
  Record(sampler, s, 1, Values(100, 0));
  const auto r = Record(sampler, s, 2, Values(0, 0));
  EXPECT_TRUE(r.disagree);
  EXPECT_EQ(r.what, "FLOPs");
}

TEST(CounterSampler, StopsTrackingNewSignaturesWhenFull) {
  CounterSampler sampler(1, 0.01, 2);
  EXPECT_EQ(Claim(sampler, Sig("a")), 1u);
  EXPECT_EQ(Claim(sampler, Sig("b")), 1u);
  EXPECT_EQ(Claim(sampler, Sig("c")), 0u);
  EXPECT_EQ(sampler.untracked_launches(), 1u);
  // The launch hooks ask Finished first: a signature that can never be tracked counts as
  // finished, so its launches skip the measuring path.
  EXPECT_TRUE(sampler.Finished(Sig("d")));
  EXPECT_EQ(sampler.untracked_launches(), 2u);
  EXPECT_FALSE(CounterSampler(1).Finished(Sig("d")));  // room left: not claimed yet
}

TEST(CounterSampler, ClaimsFromManyThreadsNeverExceedTheSamples) {
  CounterSampler sampler(3);
  const CounterSignature s = Sig();
  std::atomic<int> claimed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        if (Claim(sampler, s) != 0) ++claimed;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(claimed.load(), 3);
}

// GH100's plan for a kernel that may use tensor cores: FP instructions; DRAM, duration and L2;
// then tensor paths split over two groups. A sample takes one launch per group, in order.
constexpr uint32_t kFp = trace::kMetricsFp32 | trace::kMetricsFp64 | trace::kMetricsFp16;
constexpr uint32_t kBytes = trace::kMetricsDram | trace::kMetricsDuration | trace::kMetricsL2;
constexpr uint32_t kFourGroups[] = {kFp, kBytes, trace::kMetricsTensor, trace::kMetricsTensor};

CounterValues Part(uint32_t valid, double fp32, double tensor, double dram_read) {
  CounterValues v;
  v.fp32 = fp32, v.tensor = tensor, v.dram_read = dram_read, v.valid = valid;
  return v;
}

TEST(CounterSampler, ASampleIsAssembledFromOneLaunchPerPassGroup) {
  CounterSampler sampler(2);
  const CounterSignature s = Sig();
  std::vector<SampleSlot> slots;
  for (int i = 0; i < 8; ++i) {
    // The profiler switches to the group each launch needs (as it would if switching were free).
    const SampleSlot slot = sampler.Claim(s, kFourGroups, static_cast<uint32_t>(i % 4));
    ASSERT_TRUE(slot);
    EXPECT_EQ(slot.sample, static_cast<uint32_t>(i / 4 + 1));
    EXPECT_EQ(slot.group, static_cast<uint32_t>(i % 4));
    slots.push_back(slot);
  }
  EXPECT_FALSE(sampler.Claim(s, kFourGroups));
  EXPECT_TRUE(sampler.Finished(s));

  // Sample 1, group by group: a quantity is valid once every group measuring it is in.
  auto r = sampler.Record(s, slots[0], Part(kFp, 1000, 0, 0));
  EXPECT_EQ(r.groups_done, 1u);
  EXPECT_FALSE(r.sample_complete);
  EXPECT_EQ(r.sample.valid, kFp);
  EXPECT_DOUBLE_EQ(r.sample.fp32, 1000);
  r = sampler.Record(s, slots[1], Part(trace::kMetricsDram, 0, 0, 4096));
  EXPECT_EQ(r.sample.valid, kFp | trace::kMetricsDram);
  EXPECT_DOUBLE_EQ(r.sample.DramBytes(), 4096);
  r = sampler.Record(s, slots[2], Part(trace::kMetricsTensor, 0, 300, 0));
  EXPECT_EQ(r.sample.valid & trace::kMetricsTensor, 0u);  // the other tensor group is missing
  EXPECT_EQ(r.samples, 0u);
  EXPECT_FALSE(sampler.Summary(s).has_value());
  r = sampler.Record(s, slots[3], Part(trace::kMetricsTensor, 0, 200, 0));
  EXPECT_TRUE(r.sample_complete);
  EXPECT_EQ(r.groups_done, 4u);
  EXPECT_NE(r.sample.valid & trace::kMetricsTensor, 0u);
  EXPECT_DOUBLE_EQ(r.sample.Flops(), 1000 + 300 + 200);
  EXPECT_EQ(r.samples, 1u);
  EXPECT_FALSE(r.complete);

  // Sample 2 arrives out of order (another thread's launch finished first).
  sampler.Record(s, slots[5], Part(trace::kMetricsDram, 0, 0, 4096));
  sampler.Record(s, slots[4], Part(kFp, 1000, 0, 0));
  sampler.Record(s, slots[7], Part(trace::kMetricsTensor, 0, 200, 0));
  r = sampler.Record(s, slots[6], Part(trace::kMetricsTensor, 0, 300, 0));
  EXPECT_TRUE(r.sample_complete);
  EXPECT_TRUE(r.complete);
  EXPECT_FALSE(r.disagree);
  const auto summary = sampler.Summary(s);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->samples, 2u);
  EXPECT_DOUBLE_EQ(summary->mean.Flops(), 1500);
  EXPECT_DOUBLE_EQ(summary->mean.DramBytes(), 4096);
}

TEST(CounterSampler, KernelsWithoutTensorPathsNeedFewerLaunchesPerSample) {
  CounterSampler sampler(3);
  const CounterSignature s = Sig();
  // The non-tensor groups only (an ATen elementwise kernel): two launches per sample.
  const std::span<const uint32_t> two(kFourGroups, 2);
  for (uint32_t i = 0; i < 6; ++i) {
    const SampleSlot slot = sampler.Claim(s, two, i % 2);
    ASSERT_TRUE(slot);
    EXPECT_EQ(slot.sample, i / 2 + 1);
    EXPECT_EQ(slot.group, i % 2);
    const auto r =
        sampler.Record(s, slot, slot.group == 0 ? Part(kFp, 10, 0, 0) : Part(kBytes, 0, 0, 80));
    EXPECT_EQ(r.sample_complete, slot.group == 1);
  }
  EXPECT_FALSE(sampler.Claim(s, two));
  EXPECT_EQ(sampler.Summary(s)->samples, 3u);
  EXPECT_EQ(sampler.Summary(s)->mean.valid & trace::kMetricsTensor, 0u);
}

TEST(CounterSampler, TheConfiguredGroupIsTakenWhileTheSignatureNeedsIt) {
  CounterSampler sampler(2);
  const CounterSignature s = Sig();
  // The profiler is set for group 0: both samples of group 0 first, no switch.
  EXPECT_EQ(sampler.Claim(s, kFourGroups, 0).group, 0u);
  const SampleSlot second = sampler.Claim(s, kFourGroups, 0);
  EXPECT_EQ(second.sample, 2u);
  EXPECT_EQ(second.group, 0u);
  // Group 0 is done: the group with the fewest slots taken, the first on a tie.
  const SampleSlot third = sampler.Claim(s, kFourGroups, 0);
  EXPECT_EQ(third.sample, 1u);
  EXPECT_EQ(third.group, 1u);
  // The profiler has switched to group 1: it stays there.
  EXPECT_EQ(sampler.Claim(s, kFourGroups, 1).group, 1u);
  EXPECT_EQ(sampler.Claim(s, kFourGroups, 1).group, 2u);
  EXPECT_EQ(sampler.Claim(s, kFourGroups, 2).group, 2u);
  EXPECT_EQ(sampler.Claim(s, kFourGroups, 2).group, 3u);
  EXPECT_FALSE(sampler.Finished(s));
  EXPECT_EQ(sampler.Claim(s, kFourGroups, 3).group, 3u);
  EXPECT_TRUE(sampler.Finished(s));
  EXPECT_FALSE(sampler.Claim(s, kFourGroups, 3));
  // A preferred group the signature does not have (a tensor group, for a kernel without
  // tensor paths) is no obstacle.
  const CounterSignature other = Sig("n=4");
  EXPECT_EQ(sampler.Claim(other, std::span<const uint32_t>(kFourGroups, 2), 3).group, 0u);
}

TEST(CounterSampler, AnAbandonedGroupIsRetakenBeforeNewSlots) {
  CounterSampler sampler(2);
  const CounterSignature s = Sig();
  const SampleSlot first = sampler.Claim(s, kFourGroups, 0);
  const SampleSlot second = sampler.Claim(s, kFourGroups, 1);
  EXPECT_EQ(second.group, 1u);
  sampler.Abandon(s, second);
  EXPECT_FALSE(sampler.Finished(s));
  const SampleSlot again = sampler.Claim(s, kFourGroups, 1);
  EXPECT_EQ(again.sample, 1u);
  EXPECT_EQ(again.group, 1u);
  EXPECT_EQ(sampler.Claim(s, kFourGroups, 2).group, 2u);
  // An abandoned slot of another group comes before a new slot of a group not preferred.
  sampler.Abandon(s, again);
  EXPECT_EQ(sampler.Claim(s, kFourGroups, 0).sample, 2u);  // group 0 still has a new slot
  const SampleSlot retaken = sampler.Claim(s, kFourGroups, 0);
  EXPECT_EQ(retaken.sample, 1u);
  EXPECT_EQ(retaken.group, 1u);
  // A slot of another layout, or no slot, records nothing.
  EXPECT_EQ(sampler.Record(s, {1, 9}, Part(kFp, 1, 0, 0)).groups_done, 0u);
  EXPECT_EQ(sampler.Record(s, {}, Part(kFp, 1, 0, 0)).groups_done, 0u);
  EXPECT_EQ(sampler.Record(s, first, Part(kFp, 1, 0, 0)).groups_done, 1u);
}

TEST(RelativeSpread, HandlesZeroMeans) {
  EXPECT_EQ(RelativeSpread(5, 5, 5), 0);
  EXPECT_EQ(RelativeSpread(0, 0, 0), 0);
  EXPECT_EQ(RelativeSpread(-1, 1, 0), 1);
  EXPECT_DOUBLE_EQ(RelativeSpread(99, 101, 100), 0.02);
}

}  // namespace
}  // namespace flopspy::gpuroof
