// Sampling with mocked counter values: the first N launches of a signature are measured, later
// ones reuse the mean; samples further apart than 1% are flagged once.
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

TEST(CounterSampler, MeasuresTheFirstNThenLetsLaterLaunchesRunUntouched) {
  CounterSampler sampler(3);
  const CounterSignature s = Sig();
  for (uint32_t i = 1; i <= 3; ++i) {
    ASSERT_EQ(sampler.Claim(s), i);
    const auto r = sampler.Record(s, Values(1000, 4000));
    EXPECT_EQ(r.samples, i);
    EXPECT_EQ(r.complete, i == 3);
    EXPECT_FALSE(r.disagree);
  }
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sampler.Claim(s), 0u);  // reused, not measured
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
  EXPECT_EQ(sampler.Claim(Sig("n=1024", 4)), 1u);
  EXPECT_EQ(sampler.Claim(Sig("n=2048", 4)), 1u);  // the catalog's shape parameters
  EXPECT_EQ(sampler.Claim(Sig("n=1024", 8)), 1u);  // the grid
  CounterSignature smem = Sig();
  smem.dynamic_smem = 4096;
  EXPECT_EQ(sampler.Claim(smem), 1u);
  EXPECT_EQ(sampler.Claim(Sig("n=1024", 4)), 0u);  // in flight: the slot is taken
  EXPECT_EQ(sampler.signatures(), 4u);
  EXPECT_FALSE(sampler.Summary(Sig()).has_value());
}

TEST(CounterSampler, AnAbandonedSampleGoesToALaterLaunch) {
  CounterSampler sampler(2);
  const CounterSignature s = Sig();
  EXPECT_EQ(sampler.Claim(s), 1u);
  EXPECT_EQ(sampler.Claim(s), 2u);
  EXPECT_EQ(sampler.Claim(s), 0u);
  sampler.Abandon(s);  // the second launch could not be measured
  EXPECT_EQ(sampler.Claim(s), 2u);
  sampler.Record(s, Values(10, 10));
  sampler.Record(s, Values(10, 10));
  EXPECT_EQ(sampler.Claim(s), 0u);
  EXPECT_EQ(sampler.Summary(s)->samples, 2u);
}

TEST(CounterSampler, SamplesMoreThanOnePercentApartAreFlaggedOnce) {
  CounterSampler sampler(4);
  const CounterSignature s = Sig();
  for (int i = 0; i < 4; ++i) sampler.Claim(s);
  EXPECT_FALSE(sampler.Record(s, Values(1000, 50e6)).disagree);
  // 0.5% apart: within tolerance.
  EXPECT_FALSE(sampler.Record(s, Values(1005, 50e6)).disagree);
  // DRAM bytes 10% apart (a cold first launch, say): flagged, naming what disagrees.
  const auto r = sampler.Record(s, Values(1000, 55e6));
  EXPECT_TRUE(r.disagree);
  EXPECT_EQ(r.what, "DRAM bytes");
  EXPECT_NEAR(r.spread, 5e6 / ((50e6 + 50e6 + 55e6) / 3.0), 1e-12);
  // Further disagreement on the same signature is not flagged again.
  EXPECT_FALSE(sampler.Record(s, Values(2000, 90e6)).disagree);
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
  for (int i = 0; i < 3; ++i) sampler.Claim(s);
  EXPECT_FALSE(sampler.Record(s, Values(1000, 2048)).disagree);
  EXPECT_FALSE(sampler.Record(s, Values(1000, 5120)).disagree);
  const auto r = sampler.Record(s, Values(1000, 2048 + kDramSpreadFloorBytes));
  EXPECT_TRUE(r.disagree);
  EXPECT_EQ(r.what, "DRAM bytes");
}

TEST(CounterSampler, FlopsDisagreementIsNamed) {
  CounterSampler sampler(2);
  const CounterSignature s = Sig();
  sampler.Claim(s), sampler.Claim(s);
  sampler.Record(s, Values(100, 0));
  const auto r = sampler.Record(s, Values(0, 0));
  EXPECT_TRUE(r.disagree);
  EXPECT_EQ(r.what, "FLOPs");
}

TEST(CounterSampler, StopsTrackingNewSignaturesWhenFull) {
  CounterSampler sampler(1, 0.01, 2);
  EXPECT_EQ(sampler.Claim(Sig("a")), 1u);
  EXPECT_EQ(sampler.Claim(Sig("b")), 1u);
  EXPECT_EQ(sampler.Claim(Sig("c")), 0u);
  EXPECT_EQ(sampler.untracked_launches(), 1u);
}

TEST(CounterSampler, ClaimsFromManyThreadsNeverExceedTheSamples) {
  CounterSampler sampler(3);
  const CounterSignature s = Sig();
  std::atomic<int> claimed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        if (sampler.Claim(s) != 0) ++claimed;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(claimed.load(), 3);
}

TEST(RelativeSpread, HandlesZeroMeans) {
  EXPECT_EQ(RelativeSpread(5, 5, 5), 0);
  EXPECT_EQ(RelativeSpread(0, 0, 0), 0);
  EXPECT_EQ(RelativeSpread(-1, 1, 0), 1);
  EXPECT_DOUBLE_EQ(RelativeSpread(99, 101, 100), 0.02);
}

}  // namespace
}  // namespace flopspy::gpuroof
