// The one launch-to-GPU join: either order, correlation 0 never joins, and the bound on what
// waits (the oldest are given up and counted); and the trace analysis's layer with library calls.
#include "flopspy/analyzers/correlator.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace flopspy::analyzers {
namespace {

using Join = Correlator<std::string, int>;

TEST(Correlator, LaunchFirstJoinsWhenItsGpuRecordComes) {
  Join join(8);
  EXPECT_FALSE(join.OnLaunch(7, "launch"));
  EXPECT_EQ(join.waiting_launches().size(), 1u);
  const auto launch = join.OnGpu(7, 70);
  ASSERT_TRUE(launch);
  EXPECT_EQ(*launch, "launch");
  EXPECT_EQ(join.waiting_launches().size(), 0u);
  EXPECT_EQ(join.waiting_gpu().size(), 0u);
}

TEST(Correlator, GpuRecordFirstJoinsWhenItsLaunchComes) {
  Join join(8);
  EXPECT_FALSE(join.OnGpu(7, 70));
  EXPECT_FALSE(join.OnGpu(8, 80));
  const auto gpu = join.OnLaunch(8, "launch");
  ASSERT_TRUE(gpu);
  EXPECT_EQ(*gpu, 80);
  EXPECT_EQ(join.waiting_gpu().size(), 1u);  // 7 still waits
}

TEST(Correlator, EachSideJoinsOnce) {
  Join join(8);
  join.OnLaunch(7, "launch");
  EXPECT_TRUE(join.OnGpu(7, 70));
  // A second GPU record of the same correlation (a replay) finds no launch and waits itself.
  EXPECT_FALSE(join.OnGpu(7, 71));
  EXPECT_EQ(join.waiting_gpu().size(), 1u);
}

TEST(Correlator, CorrelationZeroNeverJoinsNorWaits) {
  Join join(8);
  EXPECT_FALSE(join.OnLaunch(0, "launch"));
  EXPECT_FALSE(join.OnGpu(0, 1));
  EXPECT_EQ(join.waiting_launches().size(), 0u);
  EXPECT_EQ(join.waiting_gpu().size(), 0u);
}

TEST(Correlator, TheOldestAreGivenUpBeyondTheBound) {
  Join join(4);
  for (uint64_t c = 1; c <= 10; ++c) join.OnLaunch(c, "launch " + std::to_string(c));
  EXPECT_EQ(join.waiting_launches().size(), 4u);
  EXPECT_EQ(join.waiting_launches().evicted(), 6u);
  EXPECT_FALSE(join.OnGpu(1, 10));  // given up on: the record now waits for nothing
  const auto newest = join.OnGpu(10, 100);
  ASSERT_TRUE(newest);
  EXPECT_EQ(*newest, "launch 10");
}

TEST(Correlator, MemoryStaysBoundedOverAMillionUnmatchedLaunches) {
  Join join(1024);
  for (uint64_t c = 1; c <= 1'000'000; ++c) join.OnLaunch(c, "x");
  EXPECT_EQ(join.waiting_launches().size(), 1024u);
  EXPECT_EQ(join.waiting_launches().evicted(), 1'000'000u - 1024u);
  // Keys that joined are forgotten too: the arrival order holds at most 2 x the bound.
  for (uint64_t c = 2'000'000; c < 2'100'000; ++c) {
    join.OnLaunch(c, "y");
    join.OnGpu(c, 1);
  }
  EXPECT_LT(join.MemoryBytes(), size_t{1} << 20);
}

struct TestLaunch {
  int id = 0;
  int kernel = 0;
};
struct TestGpu {
  int id = 0;
  int kernel = 0;
  uint64_t start = 0;
};
// Records what joined: (launch id, GPU id) for a launch, (-1 - call or 0, GPU id) alone.
struct TestHooks {
  std::vector<std::pair<int, int>> joined;
  void Time(TestLaunch& l, const TestGpu& g) { joined.emplace_back(l.id, g.id); }
  void Alone(const TestGpu& g, const int* call) {
    joined.emplace_back(-1 - (call != nullptr ? *call : 0), g.id);
  }
  bool Same(const TestLaunch& l, const TestGpu& g) const { return l.kernel == g.kernel; }
  static bool Before(const TestGpu& a, const TestGpu& b) { return a.start < b.start; }
};
using CallJoin = LibraryCorrelator<TestLaunch, TestGpu, int>;
using Pair = std::pair<int, int>;

TEST(LibraryCorrelator, ALaunchOutsideACallLeavesWithItsGpuRecord) {
  CallJoin join(8);
  TestHooks h;
  join.OnLaunch(7, {1, 0}, /*thread=*/1, /*inside_call=*/false, h);
  EXPECT_EQ(join.OnGpu(7, true, {10, 0, 0}, h), CallJoin::GpuJoin::kLaunch);
  EXPECT_EQ(h.joined, std::vector<Pair>({{1, 10}}));
  EXPECT_EQ(join.waiting_launches(), 0u);
  EXPECT_EQ(join.UntimedLaunches(), 0u);
}

TEST(LibraryCorrelator, ALaunchInsideACallWaitsForTheCallAfterItsGpuRecord) {
  CallJoin join(8);
  TestHooks h;
  join.OnLaunch(7, {1, 0}, 1, /*inside_call=*/true, h);
  EXPECT_EQ(join.OnGpu(7, true, {10, 0, 0}, h), CallJoin::GpuJoin::kLaunch);
  EXPECT_EQ(h.joined, std::vector<Pair>({{1, 10}}));
  // Timed, it still waits: the call's record says whose figures it carries.
  ASSERT_EQ(join.waiting_launches(), 1u);
  const auto found = join.FindLaunch(7);
  ASSERT_NE(found.launch, nullptr);
  EXPECT_TRUE(found.timed);
  EXPECT_EQ(found.launch->id, 1);
  const std::vector<uint64_t> launched = join.TakeCallLaunches(1);
  EXPECT_EQ(launched, std::vector<uint64_t>({7}));
  EXPECT_TRUE(join.TakeCallLaunches(1).empty());  // a call takes its launches once
  join.OnCall(0, 5, launched, h);
  EXPECT_EQ(join.waiting_launches(), 0u);
  EXPECT_EQ(join.UntimedLaunches(), 0u);
}

TEST(LibraryCorrelator, ACallsLaunchWithoutAGpuRecordLeavesWithItsRecordOnceTheCallCame) {
  CallJoin join(8);
  TestHooks h;
  join.OnLaunch(7, {1, 0}, 1, true, h);
  const auto launched = join.TakeCallLaunches(1);
  join.OnCall(0, 5, launched, h);
  ASSERT_EQ(join.waiting_launches(), 1u);
  EXPECT_FALSE(join.FindLaunch(7).timed);
  EXPECT_EQ(join.OnGpu(7, true, {10, 0, 0}, h), CallJoin::GpuJoin::kLaunch);
  EXPECT_EQ(join.waiting_launches(), 0u);
}

TEST(LibraryCorrelator, SeveralGpuRecordsOnOneCallJoinItsLaunchesSameKernelFirst) {
  CallJoin join(8);
  TestHooks h;
  // Two launches inside call 900 whose GPU records carry the call's correlation, not theirs.
  join.OnLaunch(1, {1, /*kernel=*/100}, 3, true, h);
  join.OnLaunch(2, {2, /*kernel=*/200}, 3, true, h);
  // Two records come before the call's record, out of start order; both wait.
  EXPECT_EQ(join.OnGpu(900, true, {20, 100, 2000}, h), CallJoin::GpuJoin::kWaits);
  EXPECT_EQ(join.OnGpu(900, true, {21, 200, 1000}, h), CallJoin::GpuJoin::kWaits);
  EXPECT_EQ(join.waiting_gpu(), 2u);
  join.OnCall(900, 5, join.TakeCallLaunches(3), h);
  // In start order, each takes the launch of its own kernel (not simply the first launch).
  EXPECT_EQ(h.joined, std::vector<Pair>({{2, 21}, {1, 20}}));
  EXPECT_EQ(join.waiting_gpu(), 0u);
  EXPECT_EQ(join.waiting_launches(), 0u);
  // A record of the call beyond its launches still counts, as the call's.
  EXPECT_EQ(join.OnGpu(900, true, {22, 100, 3000}, h), CallJoin::GpuJoin::kCall);
  EXPECT_EQ(h.joined.back(), Pair(-1 - 5, 22));
}

TEST(LibraryCorrelator, ACallsRecordAfterItsGpuRecordsTakesTheFirstLaunchWhenNoKernelMatches) {
  CallJoin join(8);
  TestHooks h;
  join.OnLaunch(1, {1, 100}, 3, true, h);
  join.OnLaunch(2, {2, 100}, 3, true, h);
  join.OnCall(900, 5, join.TakeCallLaunches(3), h);
  EXPECT_EQ(join.OnGpu(900, true, {20, 300, 0}, h), CallJoin::GpuJoin::kCall);
  EXPECT_EQ(join.OnGpu(900, true, {21, 300, 0}, h), CallJoin::GpuJoin::kCall);
  EXPECT_EQ(h.joined, std::vector<Pair>({{1, 20}, {2, 21}}));
}

TEST(LibraryCorrelator, AMeasuredLaunchsReplaysAreCountedNotJoined) {
  CallJoin join(8);
  TestHooks h;
  // Counter mode: a replayed launch brings several GPU records, some before the launch.
  EXPECT_EQ(join.OnGpu(7, true, {10, 0, 0}, h), CallJoin::GpuJoin::kWaits);
  EXPECT_EQ(join.OnGpu(7, true, {11, 0, 0}, h), CallJoin::GpuJoin::kWaits);
  join.OnLaunch(7, {1, 0}, 1, false, h);
  EXPECT_EQ(join.OnMeasured(7, /*launch_known=*/true), 1u);  // the other waiting one
  EXPECT_EQ(join.OnGpu(7, true, {12, 0, 0}, h), CallJoin::GpuJoin::kReplay);
  EXPECT_EQ(h.joined.size(), 1u);
  EXPECT_EQ(join.waiting_gpu(), 0u);
}

TEST(LibraryCorrelator, GraphNodesAndCorrelationZeroCountAloneAtOnce) {
  CallJoin join(8);
  TestHooks h;
  EXPECT_EQ(join.OnGpu(7, /*from_cpu=*/false, {10, 0, 0}, h), CallJoin::GpuJoin::kAlone);
  EXPECT_EQ(join.OnGpu(0, true, {11, 0, 0}, h), CallJoin::GpuJoin::kAlone);
  join.OnLaunch(0, {1, 0}, 1, false, h);
  EXPECT_EQ(join.waiting_gpu(), 0u);
  EXPECT_EQ(join.waiting_launches(), 0u);
  EXPECT_EQ(h.joined, std::vector<Pair>({{-1, 10}, {-1, 11}}));
}

TEST(LibraryCorrelator, EverySideIsBounded) {
  CallJoin join(4);
  TestHooks h;
  for (int c = 1; c <= 10; ++c) join.OnLaunch(c, {c, 0}, 1, false, h);
  EXPECT_EQ(join.waiting_launches(), 4u);
  EXPECT_EQ(join.UntimedLaunches(), 10u);  // 6 given up on, 4 still waiting
  // GPU records beyond the bound do not wait: they count alone at once.
  for (int c = 101; c <= 106; ++c) join.OnGpu(c, true, {c, 0, 0}, h);
  EXPECT_EQ(join.waiting_gpu(), 4u);
  EXPECT_EQ(h.joined, std::vector<Pair>({{-1, 105}, {-1, 106}}));
  // Timed launches waiting for their call, and calls, are bounded too.
  for (int c = 201; c <= 210; ++c) {
    join.OnLaunch(c, {c, 0}, 2, true, h);
    join.OnGpu(c, true, {c, 0, 0}, h);
  }
  EXPECT_LE(join.waiting_launches(), 8u);
  for (int c = 301; c <= 310; ++c) join.OnCall(c, c, {}, h);
  EXPECT_EQ(join.calls(), 4u);
  h.joined.clear();
  EXPECT_EQ(join.FinishGpu(h), 4u);
  EXPECT_EQ(h.joined.size(), 4u);
  EXPECT_EQ(join.waiting_gpu(), 0u);
}

}  // namespace
}  // namespace flopspy::analyzers
