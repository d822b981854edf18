// The GPU timeline: interval packing, the sync index, gap classification and the device walk.
#include <gtest/gtest.h>

#include <vector>

#include "flopspy/analyzers/gpu_timeline.h"

namespace flopspy::analyzers {
namespace {

constexpr uint64_t kMicrosecond = 1000;

GpuInterval Kernel(uint64_t start_us, uint64_t end_us) {
  return GpuInterval::Make(start_us * kMicrosecond, end_us * kMicrosecond, GpuWorkKind::kKernel);
}

// A kernel whose launch call on `thread` ran [enter_us, exit_us].
GpuInterval Launched(uint64_t start_us, uint64_t end_us, uint64_t enter_us, uint64_t exit_us,
                     uint16_t thread = 0) {
  GpuInterval iv = Kernel(start_us, end_us);
  iv.SetSubmit(exit_us * kMicrosecond, thread,
               static_cast<uint32_t>((exit_us - enter_us) * kMicrosecond), true);
  return iv;
}

TEST(BusyBins, UnionSpreadOverBinsAndClipped) {
  // Two overlapping kernels [5, 25) and [10, 30) us, one clipped [35, 60): bins of 10 us
  // from 0 to 40 us.
  std::vector<GpuInterval> iv = {Kernel(5, 25), Kernel(10, 30), Kernel(35, 60)};
  SortIntervals(iv);
  const std::vector<float> bins = BusyBins(iv, 0, 10 * kMicrosecond, 4);
  ASSERT_EQ(bins.size(), 4u);
  EXPECT_FLOAT_EQ(bins[0], 0.5f);  // 5..10
  EXPECT_FLOAT_EQ(bins[1], 1.0f);  // union, not 1.5
  EXPECT_FLOAT_EQ(bins[2], 1.0f);
  EXPECT_FLOAT_EQ(bins[3], 0.5f);  // 35..40; the rest is past the window
  EXPECT_TRUE(BusyBins(iv, 0, 0, 4).empty());
  EXPECT_TRUE(BusyBins(iv, 0, 10, 0).empty());
  // Work before the window is clipped too.
  EXPECT_EQ(BusyBins(iv, 40 * kMicrosecond, 10 * kMicrosecond, 2),
            (std::vector<float>{1.0f, 1.0f}));
}

TEST(GpuInterval, PacksIntoTwentyFourBytes) {
  GpuInterval iv = GpuInterval::Make(5'000, 7'500, GpuWorkKind::kMemcpy, GpuInterval::kGraphNode);
  EXPECT_EQ(sizeof(iv), 24u);
  EXPECT_EQ(iv.start_ns, 5'000u);
  EXPECT_EQ(iv.end_ns(), 7'500u);
  EXPECT_EQ(iv.kind(), GpuWorkKind::kMemcpy);
  EXPECT_TRUE(iv.Has(GpuInterval::kGraphNode));
  EXPECT_FALSE(iv.Has(GpuInterval::kSubmitKnown));
  EXPECT_EQ(iv.thread_slot(), kUnknownThreadSlot);

  // The kernel started 1 us before its launch call returned: a negative lead.
  iv.SetSubmit(6'000, 17, 0, false);
  EXPECT_TRUE(iv.Has(GpuInterval::kSubmitKnown));
  EXPECT_EQ(iv.SubmitExitNs(), 6'000u);
  EXPECT_EQ(iv.thread_slot(), 17);
  EXPECT_EQ(iv.end_ns(), 7'500u);  // unchanged by SetSubmit
  EXPECT_EQ(iv.kind(), GpuWorkKind::kMemcpy);

  // Queued for 3 s after its call returned: saturated and flagged.
  GpuInterval late = GpuInterval::Make(10'000'000'000, 10'000'001'000, GpuWorkKind::kKernel);
  late.SetSubmit(7'000'000'000, 1, 5'000, true);
  EXPECT_TRUE(late.Has(GpuInterval::kLeadSaturated));
  EXPECT_TRUE(late.Has(GpuInterval::kEagerLaunch));
  EXPECT_EQ(late.launch_cost_ns, 5'000u);

  // Over 2^40 ns is clamped rather than wrapped.
  const GpuInterval huge = GpuInterval::Make(1, (uint64_t{1} << 41), GpuWorkKind::kKernel);
  EXPECT_EQ(huge.duration_ns(), GpuInterval::kMaxDuration);
}

TEST(SyncIndex, NestedAndPerThread) {
  // Thread 0: an outer call [100, 500] with a nested one [120, 130]; thread 1: [600, 700].
  SyncIndex index({{100, 500, 0}, {120, 130, 0}, {600, 700, 1}});
  EXPECT_TRUE(index.InProgress(0, 300));  // inside the outer call, after the nested one ended
  EXPECT_TRUE(index.InProgress(0, 100));
  EXPECT_TRUE(index.InProgress(0, 500));
  EXPECT_FALSE(index.InProgress(0, 99));
  EXPECT_FALSE(index.InProgress(0, 501));
  EXPECT_FALSE(index.InProgress(0, 650));  // thread 1's call, not thread 0's
  EXPECT_TRUE(index.InProgress(1, 650));
  EXPECT_FALSE(index.InProgress(2, 650));
  EXPECT_TRUE(index.InProgress(kUnknownThreadSlot, 650));  // any thread
  EXPECT_TRUE(index.InProgress(kUnknownThreadSlot, 300));
  EXPECT_FALSE(index.InProgress(kUnknownThreadSlot, 550));
}

TEST(ClassifyGap, EachKind) {
  const SyncIndex none;
  // The previous work ended at 100 us. The next kernel's launch returned at 105 us: starved.
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Launched(110, 112, 100, 105), none), GapKind::kStarved);
  // Its launch began before 100 us but was still in progress then: starved too.
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Launched(110, 112, 96, 101), none), GapKind::kStarved);
  // Its launch had returned at 90 us: the work was queued, so the GPU waited on something else.
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Launched(110, 112, 85, 90), none), GapKind::kOther);
  // Unknown origin: other, and flagged.
  bool unattributed = false;
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Kernel(110, 112), none, &unattributed),
            GapKind::kOther);
  EXPECT_TRUE(unattributed);
  // The launching thread (0) was in a sync from 50 to 101 us: synchronised, even though the
  // launch came after.
  const SyncIndex sync({{50 * kMicrosecond, 101 * kMicrosecond, 0}});
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Launched(110, 112, 104, 105, 0), sync),
            GapKind::kSynchronized);
  // ...but not when another thread (1) launched the next kernel.
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Launched(110, 112, 104, 105, 1), sync),
            GapKind::kStarved);
  // Work already queued when the GPU ran dry is not waiting for the sync: other.
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Launched(110, 112, 85, 90, 0), sync), GapKind::kOther);
  // Unknown origin while some thread was in a sync: synchronised.
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Kernel(110, 112), sync, &unattributed),
            GapKind::kSynchronized);
  EXPECT_FALSE(unattributed);
  // A sync that began after the GPU ran dry did not make it idle.
  const SyncIndex late_sync({{101 * kMicrosecond, 102 * kMicrosecond, 0}});
  EXPECT_EQ(ClassifyGap(100 * kMicrosecond, Launched(110, 112, 104, 105, 0), late_sync),
            GapKind::kStarved);
}

TEST(DeviceTimeline, TwoStreamsUnionGapsAndGraphsEstimate) {
  // Stream A: [0,100] [300,400] us; stream B: [50,200] [350,500] us.
  // Union: [0,200] + [300,500] = 400 us busy of a 500 us window; A alone 200, B alone 300.
  // One gap [200,300]: the next work, A's [300,400], was launched [240,250] (cost 10 us), so
  // its launch had not returned when the device ran dry at 200: starved, 100 us.
  // Graphs estimate with 1 us per node: min(gap 100, cost 10 - 1) = 9 us.
  const std::vector<GpuInterval> a = {Kernel(0, 100), Launched(300, 400, 240, 250)};
  const std::vector<GpuInterval> b = {Kernel(50, 200), Kernel(350, 500)};
  const std::vector<std::span<const GpuInterval>> streams = {a, b};
  const DeviceTimeline t = AnalyzeDeviceTimeline(streams, SyncIndex{}, {1000});
  EXPECT_EQ(t.window_ns(), 500 * kMicrosecond);
  EXPECT_EQ(t.busy_ns, 400 * kMicrosecond);
  EXPECT_EQ(t.intervals, 4u);
  ASSERT_EQ(t.stream_busy_ns.size(), 2u);
  EXPECT_EQ(t.stream_busy_ns[0], 200 * kMicrosecond);
  EXPECT_EQ(t.stream_busy_ns[1], 300 * kMicrosecond);
  EXPECT_EQ(t.gaps[GapKind::kStarved].count, 1u);
  EXPECT_EQ(t.gaps[GapKind::kStarved].ns, 100 * kMicrosecond);
  EXPECT_EQ(t.gaps.TotalNs(), 100 * kMicrosecond);
  EXPECT_DOUBLE_EQ(t.graphs_saved_ns, 9 * kMicrosecond);
  EXPECT_EQ(t.graphs_gaps, 1u);
}

TEST(DeviceTimeline, EmptyAndAdjacent) {
  const std::vector<GpuInterval> none;
  const std::vector<std::span<const GpuInterval>> empty = {none};
  const DeviceTimeline e = AnalyzeDeviceTimeline(empty, SyncIndex{});
  EXPECT_EQ(e.window_ns(), 0u);
  EXPECT_EQ(e.busy_ns, 0u);
  // Back to back: no gap at all.
  const std::vector<GpuInterval> s = {Kernel(0, 10), Kernel(10, 20), Kernel(20, 30)};
  const std::vector<std::span<const GpuInterval>> one = {s};
  const DeviceTimeline t = AnalyzeDeviceTimeline(one, SyncIndex{});
  EXPECT_EQ(t.busy_ns, 30 * kMicrosecond);
  EXPECT_EQ(t.gaps.TotalCount(), 0u);
}

}  // namespace
}  // namespace flopspy::analyzers
