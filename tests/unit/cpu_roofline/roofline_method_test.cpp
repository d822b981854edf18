// The method on synthetic counts: W per family with vector-width weights, multiplex scaling,
// counter wrap, Q aggregated over controllers and sockets, I / Ir / Iw, flags.
#include "flopspy/cpu_roofline/roofline_method.h"

#include <gtest/gtest.h>

#include <cmath>

namespace flopspy::cpuroof {
namespace {

using trace::CpuSampleScope;

Channel Flops(const char* name, double weight, Precision p) {
  Channel c;
  c.name = name;
  c.quantity = Quantity::kFlops;
  c.weight = weight;
  c.precision = p;
  return c;
}
Channel Bytes(const char* name, Direction d) {
  Channel c;
  c.name = name;
  c.quantity = Quantity::kBytes;
  c.weight = 64;
  c.direction = d;
  c.system_wide = true;
  return c;
}
Channel Plain(const char* name, Quantity q) {
  Channel c;
  c.name = name;
  c.quantity = q;
  return c;
}

Snapshot Snap(uint64_t t, std::vector<ChannelValue> v) {
  return Snapshot{t, std::move(v)};
}
ChannelValue V(uint64_t raw, uint64_t enabled = 0, uint64_t running = 0) {
  return ChannelValue{raw, enabled, running, true};
}

Capabilities AllValid(uint32_t work_flags = 0, uint32_t traffic_flags = 0) {
  Capabilities c;
  c.valid_mask = ~0u;
  c.work_flags = work_flags;
  c.traffic_flags = traffic_flags;
  return c;
}

TEST(CounterDelta, WrapsAtTheCounterWidth) {
  EXPECT_EQ(CounterDelta(10, 25, 64), 15u);
  EXPECT_EQ(CounterDelta((uint64_t{1} << 48) - 5, 10, 48), 15u);
  EXPECT_EQ(CounterDelta(UINT64_MAX - 1, 3, 64), 5u);
}

TEST(Method, SkylakeServerDgemmWeightsLanes) {
  // A DGEMM of n = 1000 with AVX-512 FMAs: 2 n^3 flops = 1.25e8 512-bit FMA instructions, each
  // counted twice by FP_ARITH_INST_RETIRED (FMA = 2 operations per lane) and weighted 8 lanes.
  const std::vector<Channel> ch = {
      Flops("sd", 1, Precision::kDp),    Flops("pd128", 2, Precision::kDp),
      Flops("pd256", 4, Precision::kDp), Flops("pd512", 8, Precision::kDp),
      Flops("ss", 1, Precision::kSp),    Flops("ps512", 16, Precision::kSp)};
  const auto a = Snap(0, {V(0), V(0), V(0), V(0), V(0), V(0)});
  const auto b = Snap(1'000'000'000, {V(1000), V(0), V(0), V(250'000'000), V(0), V(10)});
  const auto r = ComputeSample(ch, a, b, AllValid(), CpuSampleScope::kInterval, {});
  EXPECT_DOUBLE_EQ(r.flops_dp, 1000 + 2e9);
  EXPECT_DOUBLE_EQ(r.flops_sp, 160);
  EXPECT_DOUBLE_EQ(r.flops_any, 1000 + 2e9 + 160);
  EXPECT_TRUE(r.valid & trace::kCpuFlopsDp);
  EXPECT_TRUE(r.valid & trace::kCpuFlopsSp);
  EXPECT_FALSE(r.valid & trace::kCpuFlopsHp);
  EXPECT_FALSE(r.flags & trace::kCpuNoPrecisionSplit);
  EXPECT_EQ(r.scope, static_cast<uint8_t>(CpuSampleScope::kInterval));
}

TEST(Method, ZenCountsFlopsDirectlyWithoutSplit) {
  const std::vector<Channel> ch = {Flops("fp_ret_sse_avx_ops.all", 1, Precision::kAny)};
  Capabilities caps = AllValid(trace::kCpuNoPrecisionSplit);
  caps.valid_mask = trace::kCpuFlopsAny;
  const auto r = ComputeSample(ch, Snap(0, {V(5)}), Snap(50'000'000, {V(2'000'005)}), caps,
                               CpuSampleScope::kInterval, {});
  EXPECT_DOUBLE_EQ(r.flops_any, 2e6);
  EXPECT_EQ(r.valid, static_cast<uint32_t>(trace::kCpuFlopsAny));
  EXPECT_TRUE(r.flags & trace::kCpuNoPrecisionSplit);
}

TEST(Method, MultiplexedCountsAreScaledAndFlagged) {
  const std::vector<Channel> ch = {Flops("pd256", 4, Precision::kDp),
                                   Plain("cycles", Quantity::kCycles)};
  const auto a = Snap(0, {V(0, 0, 0), V(0, 0, 0)});
  const auto b = Snap(100, {V(1000, 400, 100), V(5000, 400, 400)});
  const auto r = ComputeSample(ch, a, b, AllValid(), CpuSampleScope::kInterval, {});
  EXPECT_DOUBLE_EQ(r.flops_dp, 1000 * 4 * 4.0);  // on a counter a quarter of the time
  EXPECT_DOUBLE_EQ(r.running_fraction, 0.25);
  EXPECT_TRUE(r.flags & trace::kCpuMultiplexed);
  EXPECT_DOUBLE_EQ(r.cycles, 5000);
}

TEST(Method, NeverScheduledCountersAreMissingNotZero) {
  const std::vector<Channel> ch = {Flops("pd256", 4, Precision::kDp),
                                   Plain("cycles", Quantity::kCycles)};
  const auto a = Snap(0, {V(0, 0, 0), V(0, 0, 0)});
  const auto b = Snap(100, {V(0, 400, 0), V(5000, 400, 400)});
  const auto r = ComputeSample(ch, a, b, AllValid(), CpuSampleScope::kInterval, {});
  EXPECT_FALSE(r.valid & trace::kCpuFlopsDp);
  EXPECT_FALSE(r.valid & trace::kCpuFlopsAny);
  EXPECT_TRUE(r.valid & trace::kCpuCycles);
}

TEST(Method, TrafficIsSummedOverEveryControllerAndSocket) {
  // Two sockets x two controllers: perfplot once kept only the last socket (`=+` for `+=`).
  std::vector<Channel> ch;
  std::vector<ChannelValue> a, b;
  uint64_t expect_rd = 0, expect_wr = 0;
  for (int socket = 0; socket < 2; ++socket) {
    for (int imc = 0; imc < 2; ++imc) {
      ch.push_back(Bytes("rd", Direction::kRead));
      ch.push_back(Bytes("wr", Direction::kWrite));
      const uint64_t rd = 1000 * (1 + socket * 2 + imc), wr = 100 * (1 + socket * 2 + imc);
      a.push_back(V(7));
      a.push_back(V(7));
      b.push_back(V(7 + rd));
      b.push_back(V(7 + wr));
      expect_rd += rd;
      expect_wr += wr;
    }
  }
  const auto r = ComputeSample(ch, Snap(0, a), Snap(1'000'000'000, b),
                               AllValid(0, trace::kCpuSystemWideMemory), CpuSampleScope::kRun, {});
  EXPECT_DOUBLE_EQ(r.bytes_read, 64.0 * static_cast<double>(expect_rd));
  EXPECT_DOUBLE_EQ(r.bytes_write, 64.0 * static_cast<double>(expect_wr));
  EXPECT_DOUBLE_EQ(r.bytes_any, r.bytes_read + r.bytes_write);
  EXPECT_TRUE(r.flags & trace::kCpuSystemWideMemory);
}

TEST(Method, UndirectedTrafficHasNoReadWriteSplit) {
  const std::vector<Channel> ch = {Bytes("df0", Direction::kAny), Bytes("df1", Direction::kAny)};
  const auto r = ComputeSample(ch, Snap(0, {V(0), V(0)}), Snap(20'000'000, {V(10), V(30)}),
                               AllValid(), CpuSampleScope::kInterval, {});
  EXPECT_DOUBLE_EQ(r.bytes_any, 40 * 64.0);
  EXPECT_FALSE(r.valid & trace::kCpuBytesRead);
  EXPECT_FALSE(r.valid & trace::kCpuBytesWrite);
}

TEST(Method, ChannelsLeftOutAndMasksAreRespected) {
  std::vector<Channel> ch = {Flops("dp", 1, Precision::kDp), Flops("sp", 1, Precision::kSp),
                             Bytes("rd", Direction::kRead)};
  ch[2].counted = false;  // its set was incomplete
  Capabilities caps;
  caps.valid_mask = trace::kCpuFlopsDp | trace::kCpuFlopsAny;  // SP incomplete
  const auto r =
      ComputeSample(ch, Snap(0, {V(0), V(0), V(0)}), Snap(20'000'000, {V(10), V(1000), V(50)}),
                    caps, CpuSampleScope::kInterval, {});
  EXPECT_DOUBLE_EQ(r.flops_dp, 10);
  EXPECT_DOUBLE_EQ(r.flops_any, 10);  // SP left out of the sum
  EXPECT_FALSE(r.valid & trace::kCpuBytesAny);
}

TEST(Method, FailedReadsAndMismatchedSnapshots) {
  const std::vector<Channel> ch = {Flops("dp", 1, Precision::kDp)};
  ChannelValue bad = V(5);
  bad.ok = false;
  auto r = ComputeSample(ch, Snap(0, {V(0)}), Snap(20'000'000, {bad}), AllValid(),
                         CpuSampleScope::kInterval, {});
  EXPECT_EQ(r.valid, 0u);
  r = ComputeSample(ch, Snap(0, {}), Snap(1000, {V(1)}), AllValid(), CpuSampleScope::kInterval, {});
  EXPECT_EQ(r.valid, 0u);
  EXPECT_TRUE(r.flags & trace::kCpuTooShort);
}

TEST(Method, ShortPointsAreFlagged) {
  const std::vector<Channel> ch = {Plain("task-clock", Quantity::kTaskClock)};
  MethodOptions o;
  o.min_trusted_ns = 10'000'000;
  auto r = ComputeSample(ch, Snap(0, {V(0)}), Snap(9'999'999, {V(5)}), AllValid(),
                         CpuSampleScope::kRegion, o);
  EXPECT_TRUE(r.flags & trace::kCpuTooShort);
  r = ComputeSample(ch, Snap(0, {V(0)}), Snap(10'000'000, {V(5)}), AllValid(),
                    CpuSampleScope::kRegion, o);
  EXPECT_FALSE(r.flags & trace::kCpuTooShort);
  EXPECT_DOUBLE_EQ(r.task_clock_ns, 5);
}

TEST(Derive, IntensitiesPerformanceAndClock) {
  trace::CpuSampleRecord r{};
  r.begin_ns = 0;
  r.end_ns = 2'000'000'000;
  r.valid = trace::kCpuFlopsAny | trace::kCpuBytesAny | trace::kCpuBytesRead |
            trace::kCpuBytesWrite | trace::kCpuCycles | trace::kCpuTaskClock;
  r.flops_any = 8e9;
  r.bytes_read = 3e9;
  r.bytes_write = 1e9;
  r.bytes_any = 4e9;
  r.cycles = 6e9;
  r.task_clock_ns = 2e9;
  const DerivedPoint d = Derive(r);
  EXPECT_DOUBLE_EQ(d.seconds, 2);
  EXPECT_DOUBLE_EQ(*d.flops_per_s, 4e9);
  EXPECT_DOUBLE_EQ(*d.bytes_per_s, 2e9);
  EXPECT_DOUBLE_EQ(*d.intensity, 2);
  EXPECT_DOUBLE_EQ(*d.intensity_read, 8.0 / 3);
  EXPECT_DOUBLE_EQ(*d.intensity_write, 8);
  EXPECT_DOUBLE_EQ(*d.flops_per_cycle, 8.0 / 6);
  EXPECT_DOUBLE_EQ(*d.ghz, 3);
  EXPECT_DOUBLE_EQ(*d.cpu_utilisation, 1);

  r.bytes_write = 0;  // no writes at all: Iw is infinite, not a division by zero
  EXPECT_TRUE(std::isinf(*Derive(r).intensity_write));
  r.valid &= ~trace::kCpuFlopsAny;
  EXPECT_FALSE(Derive(r).intensity);
  EXPECT_FALSE(Derive(r).flops_per_s);
}

TEST(FlagNames, RoundTrip) {
  const auto names = FlagNameList(trace::kCpuMultiplexed | trace::kCpuTooShort);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], "multiplexed");
  EXPECT_EQ(FlagFromName("too_short"), static_cast<uint32_t>(trace::kCpuTooShort));
  EXPECT_EQ(FlagFromName("nonsense"), 0u);
  EXPECT_EQ(ValidNameList(trace::kCpuBytesRead)[0], "bytes_read");
}

}  // namespace
}  // namespace flopspy::cpuroof

namespace flopspy::cpuroof {
namespace {

TEST(Method, HybridPCoreCountsAreNotExtrapolated) {
  std::vector<Channel> ch = {Flops("pd256", 4, Precision::kDp)};
  ch[0].scale = false;  // stops while the thread runs on an E-core
  const auto r = ComputeSample(ch, Snap(0, {V(0, 0, 0)}), Snap(100, {V(1000, 400, 100)}),
                               AllValid(), CpuSampleScope::kInterval, {});
  EXPECT_DOUBLE_EQ(r.flops_dp, 4000);
  EXPECT_DOUBLE_EQ(r.running_fraction, 0.25);
  EXPECT_FALSE(r.flags & trace::kCpuMultiplexed);
}

}  // namespace
}  // namespace flopspy::cpuroof
