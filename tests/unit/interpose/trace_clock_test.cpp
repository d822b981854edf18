// The TSC trace clock (trace_clock.h). The steering is driven with simulated clocks: a TSC and a
// CLOCK_MONOTONIC that drift apart (NTP changing the kernel clock's rate), a TSC that changes
// rate, CPUs whose counters differ. Every publication is checked to keep time from going
// backwards and the mapping close to CLOCK_MONOTONIC. The process clock is then run for real:
// readers on other threads while the flusher's tick republishes.
#include "trace_clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

namespace flopspy::interpose {
namespace {

using Kind = ClockSteering::Decision::Kind;

// A machine's two clocks, advanced together in true nanoseconds.
struct SimulatedClocks {
  double monotonic = 5e11;
  double tsc = 1e15;
  double tsc_per_ns = 2.995;  // a 2.995 GHz TSC
  double monotonic_rate = 1;  // CLOCK_MONOTONIC ns per true ns: NTP slews it
  double cpu_offset = 0;      // ticks added on the CPU the flusher last ran on
  uint64_t jitter_state = 12345;

  void Advance(double ns) {
    monotonic += ns * monotonic_rate;
    tsc += ns * tsc_per_ns;
  }
  uint64_t Ticks() const { return static_cast<uint64_t>(tsc + cpu_offset); }
  // Both clocks at one instant, the midpoint off by up to 20 ticks as a real read's is.
  ClockPair Pair() {
    jitter_state = jitter_state * 6364136223846793005ull + 1442695040888963407ull;
    const auto jitter = static_cast<int64_t>((jitter_state >> 33) % 41) - 20;
    return {static_cast<uint64_t>(static_cast<int64_t>(Ticks()) + jitter),
            static_cast<uint64_t>(monotonic), 60};
  }
};

// Runs the steering every `period_ns` for `passes`; `change(pass, clocks)` alters the machine.
// Checks at every publication that readers cannot see time go backwards, and returns the
// largest error (mapping against CLOCK_MONOTONIC) seen after `settle` passes.
template <class Change>
double Steer(ClockSteering& steering, SimulatedClocks& clocks, int passes, double period_ns,
             int settle, Change change) {
  double worst = 0;
  for (int pass = 0; pass < passes; ++pass) {
    change(pass, clocks);
    clocks.Advance(period_ns);
    const std::optional<PiecewiseMapping> before = steering.published();
    const ClockSteering::Decision d = steering.Observe(clocks.Pair(), clocks.Ticks());
    if (d.kind == Kind::kGiveUp) return -1;
    if (d.kind == Kind::kPublish && before) {
      // Up to the switch the new mapping is the old one, and it never steps down at the switch.
      const PiecewiseMapping& next = d.mapping;
      for (uint64_t t = clocks.Ticks() - 1000; t < next.switch_ticks; t += 100'000) {
        EXPECT_EQ(next.Map(t), before->Map(t)) << "pass " << pass;
      }
      EXPECT_LE(next.Map(next.switch_ticks - 1), next.Map(next.switch_ticks));
      EXPECT_LE(next.Map(next.switch_ticks), next.Map(next.switch_ticks + 1));
      EXPECT_GT(next.switch_ticks, clocks.Ticks());  // ahead of its publication
    }
    if (pass >= settle && steering.published()) {
      const double error =
          static_cast<double>(steering.published()->Map(clocks.Ticks())) - clocks.monotonic;
      worst = std::max(worst, std::fabs(error));
    }
  }
  return worst;
}

constexpr double kPeriodNs = 50e6;  // the flusher's default pass

TEST(ClockSteeringTest, CalibratesThenTracksClockMonotonicWithinAMicrosecond) {
  ClockSteering steering;
  SimulatedClocks clocks;
  EXPECT_FALSE(steering.on_tsc());
  const double worst = Steer(steering, clocks, 400, kPeriodNs, 20, [](int, SimulatedClocks&) {});
  ASSERT_TRUE(steering.on_tsc());
  EXPECT_LT(worst, 1000.0);
  EXPECT_NEAR(steering.NsPerTick(), 1 / 2.995, 1e-6);
  EXPECT_GT(steering.publications(), 100u);
}

TEST(ClockSteeringTest, WaitsForTwoCalibrationsThatAgree) {
  ClockSteering steering;
  SimulatedClocks clocks;
  int passes_before_tsc = 0;
  while (!steering.on_tsc() && passes_before_tsc < 10) {
    clocks.Advance(10e6);
    steering.Observe(clocks.Pair(), clocks.Ticks());
    ++passes_before_tsc;
  }
  // Origin, a candidate 20 ms later, its confirmation 20 ms after that.
  EXPECT_EQ(passes_before_tsc, 5);
  // Published at or just above CLOCK_MONOTONIC: a read right after it was clock_gettime.
  const double at = static_cast<double>(steering.published()->Map(clocks.Ticks()));
  EXPECT_GE(at + 20 / 2.995, clocks.monotonic);
  EXPECT_LT(at, clocks.monotonic + 100);
}

TEST(ClockSteeringTest, FollowsNtpChangingTheKernelClocksRateWithoutGoingBackwards) {
  ClockSteering steering;
  SimulatedClocks clocks;
  // 400 ppm faster from 5 s, 300 ppm slower from 20 s, then back.
  const double transient = Steer(steering, clocks, 700, kPeriodNs, 20, [](int pass, auto& c) {
    if (pass == 100) c.monotonic_rate = 1 + 400e-6;
    if (pass == 400) c.monotonic_rate = 1 - 300e-6;
    if (pass == 600) c.monotonic_rate = 1;
  });
  ASSERT_GE(transient, 0) << "gave up";
  EXPECT_LT(transient, 150'000.0);  // well inside the tolerance that would end the TSC
  // Settled again: within a microsecond.
  const double settled = Steer(steering, clocks, 100, kPeriodNs, 40, [](int, auto&) {});
  EXPECT_LT(settled, 1000.0);
  EXPECT_FALSE(steering.given_up());
}

TEST(ClockSteeringTest, GivesUpWhenTheTscChangesRate) {
  ClockSteering steering;
  SimulatedClocks clocks;
  Steer(steering, clocks, 40, kPeriodNs, 0, [](int, auto&) {});
  ASSERT_TRUE(steering.on_tsc());
  const uint64_t last = steering.published()->Map(clocks.Ticks());
  clocks.tsc_per_ns *= 1.02;  // a TSC that follows the core's frequency
  ClockSteering::Decision d;
  for (int pass = 0; pass < 5 && d.kind != Kind::kGiveUp; ++pass) {
    clocks.Advance(kPeriodNs);
    d = steering.Observe(clocks.Pair(), clocks.Ticks());
  }
  ASSERT_EQ(d.kind, Kind::kGiveUp);
  EXPECT_NE(d.reason.find("drifted"), std::string::npos) << d.reason;
  // Readers go back to CLOCK_MONOTONIC held at or above every TSC time handed out.
  EXPECT_GT(d.floor_ns, last);
  EXPECT_TRUE(steering.given_up());
  EXPECT_FALSE(steering.on_tsc());
  clocks.Advance(kPeriodNs);
  EXPECT_EQ(steering.Observe(clocks.Pair(), clocks.Ticks()).kind, Kind::kNothing);
}

TEST(ClockSteeringTest, NeverUsesCountersThatDifferBetweenCpus) {
  ClockSteering steering;
  SimulatedClocks clocks;
  // The flusher lands on CPUs whose counters are 1 ms apart, in turn.
  const double result = Steer(steering, clocks, 40, 25e6, 0, [](int pass, auto& c) {
    c.cpu_offset = pass % 2 == 0 ? 0 : 2.995e6;
  });
  EXPECT_EQ(result, -1);
  EXPECT_TRUE(steering.given_up());
  EXPECT_EQ(steering.publications(), 0u);
}

TEST(ClockSteeringTest, GivesUpWhenAMigrationShowsAnotherCpusCounterLater) {
  ClockSteering steering;
  SimulatedClocks clocks;
  Steer(steering, clocks, 40, kPeriodNs, 0, [](int, auto&) {});
  ASSERT_TRUE(steering.on_tsc());
  clocks.cpu_offset = -2.995e9;  // a CPU whose counter is a second behind
  clocks.Advance(kPeriodNs);
  const ClockSteering::Decision d = steering.Observe(clocks.Pair(), clocks.Ticks());
  EXPECT_EQ(d.kind, Kind::kGiveUp);
  EXPECT_NE(d.reason.find("backwards"), std::string::npos) << d.reason;
}

TEST(ClockSteeringTest, SmallOffsetsBetweenCpusAreAbsorbed) {
  ClockSteering steering;
  SimulatedClocks clocks;
  // 100 ns between two CPUs: within what a clock pair's read spreads over anyway.
  const double worst = Steer(steering, clocks, 200, kPeriodNs, 20,
                             [](int pass, auto& c) { c.cpu_offset = pass % 2 == 0 ? 0 : 300; });
  ASSERT_GE(worst, 0);
  EXPECT_LT(worst, 2000.0);
}

// --- The process's clock, for real.

struct ProcessClockTest : ::testing::Test {
  ~ProcessClockTest() override { ResetTraceClockForTest(); }
};

TEST_F(ProcessClockTest, IsClockMonotonicUntilCalibratedAndWhenRefused) {
  ResetTraceClockForTest();
  const uint64_t a = MonotonicNs();
  const uint64_t now = TraceNowNs();
  EXPECT_GE(now, a);
  EXPECT_LE(now, MonotonicNs());
  EXPECT_EQ(TraceClockStart(ClockChoice::kMonotonic), "FLOPSPY_CLOCK=monotonic");
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(TraceClockTick(nullptr), "");
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  const std::string summary = TraceClockSummary();
  EXPECT_NE(summary.find("\"source\":\"CLOCK_MONOTONIC\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("FLOPSPY_CLOCK=monotonic"), std::string::npos) << summary;
}

TEST_F(ProcessClockTest, ReadersNeverSeeTimeGoBackwardsWhileTheFlusherSteers) {
  ResetTraceClockForTest();
  if (const std::string refusal = TraceClockStart(ClockChoice::kTsc); !refusal.empty()) {
    GTEST_SKIP() << "no TSC here: " << refusal;
  }
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> backwards{0};
  std::atomic<uint64_t> reads{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 2; ++i) {
    readers.emplace_back([&] {
      uint64_t last = 0, n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        const uint64_t now = TraceNowNs();
        if (now < last) backwards.fetch_add(1);
        last = now;
        ++n;
      }
      reads.fetch_add(n);
    });
  }
  std::string switched;
  for (int pass = 0; pass < 60; ++pass) {
    std::string warning;
    if (std::string metadata = TraceClockTick(&warning); !metadata.empty()) switched = metadata;
    EXPECT_EQ(warning, "");
    std::this_thread::sleep_for(std::chrono::milliseconds(12));
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(backwards.load(), 0u) << "of " << reads.load() << " reads";
  ASSERT_NE(switched.find("\"source\":\"tsc\""), std::string::npos) << switched;
  // On the TSC now, and on CLOCK_MONOTONIC within 50 us (a VM's vCPU may pause between reads).
  const uint64_t before = MonotonicNs();
  const uint64_t tsc_time = TraceNowNs();
  const uint64_t after = MonotonicNs();
  EXPECT_GE(tsc_time + 50'000, before);
  EXPECT_LE(tsc_time, after + 50'000);
  EXPECT_NE(TraceClockSummary().find("\"tsc_mappings\""), std::string::npos);

  // A fork() in the middle of a publication leaves the slot being written odd in the child:
  // the next publications must still make readable slots.
  namespace detail = trace_clock_detail;
  const uint32_t idle = detail::g_state.active.load() == 1 ? 1 : 0;
  detail::g_state.slots[idle].version.fetch_add(1);
  for (int pass = 0; pass < 4; ++pass) {
    TraceClockTick(nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(12));
  }
  for (const detail::Slot& slot : detail::g_state.slots) EXPECT_EQ(slot.version.load() % 2, 0u);
  uint64_t mapped = 0;
  EXPECT_TRUE(detail::TryMap(detail::g_state.slots[detail::g_state.active.load() - 1], ReadTicks(),
                             &mapped));
  EXPECT_NEAR(static_cast<double>(mapped), static_cast<double>(MonotonicNs()), 100'000.0);
}

}  // namespace
}  // namespace flopspy::interpose
