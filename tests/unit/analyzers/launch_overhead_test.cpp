// The launch-overhead analyzer on hand-computed timelines. Every expected figure is worked out
// in the comments from the timeline the test builds; times are CLOCK_MONOTONIC nanoseconds.
#include "flopspy/analyzers/launch_overhead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace flopspy::analyzers {
namespace {

using trace::Api;

constexpr uint64_t kUs = 1000;
constexpr uint64_t kT0 = 1'000'000'000;  // the trace's first launch
constexpr uint32_t kMainThread = 4242;

// Feeds records to an analyzer as the reader would hand them out.
class Feed {
 public:
  explicit Feed(LaunchOverheadOptions options = {}) : analyzer_(options) {
    strings_ = [this](uint32_t id) -> std::string_view {
      const auto it = texts_.find(id);
      return it == texts_.end() ? std::string_view() : std::string_view(it->second);
    };
  }

  template <class T>
  void Add(T record, uint32_t thread_id, trace::ChunkSource source) {
    record.h = trace::MakeHeader<T>(record.h.flags);
    std::vector<uint8_t> bytes(sizeof(T));
    std::memcpy(bytes.data(), &record, sizeof(T));
    const trace::RecordView view{T::kType, record.h.flags, bytes, thread_id, source, 0};
    analyzer_.Add(view, strings_);
  }

  // A kernel signature named `name`, grid (grid_x,1,1), block (block_x,1,1).
  void Signature(uint32_t id, const std::string& name, uint32_t grid_x = 1,
                 uint32_t block_x = 128) {
    const uint32_t string_id = 1000 + id;
    texts_[string_id] = name;
    trace::KernelSignatureDef def{};
    def.id = id;
    def.name = string_id;
    def.grid[0] = grid_x;
    def.grid[1] = def.grid[2] = 1;
    def.block[0] = block_x;
    def.block[1] = def.block[2] = 1;
    Add(def, 0, trace::ChunkSource::kProcess);
  }

  void Launch(uint64_t correlation, uint32_t signature, uint64_t enter, uint64_t cost,
              uint32_t thread = kMainThread, Api api = Api::kCudaLaunchKernel) {
    trace::KernelLaunchRecord l{};
    l.api = static_cast<uint16_t>(api);
    l.enter_ns = enter;
    l.duration_ns = static_cast<uint32_t>(cost);
    l.correlation = correlation;
    l.signature = signature;
    l.stream = 1;
    Add(l, thread, trace::ChunkSource::kThread);
  }

  void Call(Api api, uint64_t enter, uint64_t exit, uint64_t correlation = 0,
            uint32_t thread = kMainThread, uint8_t flags = 0) {
    trace::ApiCallRecord a{};
    a.h.flags = flags;
    a.api = static_cast<uint16_t>(api);
    a.enter_ns = enter;
    a.exit_ns = exit;
    a.correlation = correlation;
    Add(a, thread, trace::ChunkSource::kThread);
  }

  void Gpu(uint64_t correlation, uint32_t signature, uint64_t start, uint64_t end,
           int32_t device = 0, uint32_t stream = 7, uint8_t flags = 0,
           trace::GpuActivityKind kind = trace::GpuActivityKind::kKernel) {
    trace::GpuActivityRecord g{};
    g.h.flags = flags;
    g.kind = static_cast<uint8_t>(kind);
    g.start_ns = start;
    g.end_ns = end;
    g.correlation = correlation;
    g.device = device;
    g.stream = stream;
    g.signature = signature;
    Add(g, 0, trace::ChunkSource::kGpuActivity);
  }

  void Metadata(const std::string& json) {
    std::vector<uint8_t> bytes(sizeof(trace::MetadataBlock) + json.size());
    trace::MetadataBlock block{};
    block.h = trace::MakeHeader<trace::MetadataBlock>();
    block.length = static_cast<uint32_t>(json.size());
    std::memcpy(bytes.data(), &block, sizeof(block));
    std::memcpy(bytes.data() + sizeof(block), json.data(), json.size());
    const trace::RecordView view{trace::RecordType::kMetadata, 0, bytes, 0,
                                 trace::ChunkSource::kProcess, 0};
    analyzer_.Add(view, strings_);
  }

  LaunchOverheadAnalyzer& analyzer() { return analyzer_; }
  LaunchOverheadReport Finish() { return analyzer_.Finish(); }

 private:
  LaunchOverheadAnalyzer analyzer_;
  std::unordered_map<uint32_t, std::string> texts_;
  StringLookup strings_;
};

const SignatureOverhead* Find(const LaunchOverheadReport& r, const std::string& name) {
  for (const auto& s : r.signatures) {
    if (s.mangled_name == name) return &s;
  }
  return nullptr;
}

// Sampled GPU timing: between windows the GPU's idle time is unknown, so there is no verdict;
// launch costs count every launch, and launches between windows owe no GPU record.
TEST(LaunchOverheadSampled, GivesLaunchCostsButNoVerdict) {
  Feed f;
  f.Signature(7, "_Z1Ev");
  f.Metadata(R"({"gpu_timing":{"sampled":{"window_ns":1000000,"period_ns":10000000,)"
             R"("first_window_open_ns":1000000000}}})");
  for (uint64_t i = 0; i < 10; ++i) {
    f.Launch(i + 1, 7, kT0 + 10 * kUs * i, 4 * kUs);
    f.Gpu(i + 1, 7, kT0 + 10 * kUs * i + 5 * kUs, kT0 + 10 * kUs * i + 7 * kUs);
  }
  f.Metadata(R"({"gpu_window":{"event":"close","index":0,"time_ns":1001000000}})");
  for (uint64_t i = 0; i < 30; ++i) f.Launch(100 + i, 7, kT0 + 2'000'000 + 10 * kUs * i, 4 * kUs);
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.kernel_launches, 40u);
  EXPECT_TRUE(r.gpu_times);
  EXPECT_TRUE(r.gpu_sampled);
  EXPECT_EQ(r.unmatched_launches, 0u);
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kUnknown);
  EXPECT_EQ(r.judgement.rule, OverheadRule::kSampledGpuTimes);
  EXPECT_EQ(OverheadRuleName(r.judgement.rule), "sampled_gpu_times");
  EXPECT_DOUBLE_EQ(r.launch_cost.mean_ns, 4000);
  EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("GPU timing was sampled") != std::string::npos;
  }));
}

TEST(GpuSamplingWindows, ReadsWindowsFromMetadataAndIgnoresTheRest) {
  GpuSamplingWindows w;
  EXPECT_TRUE(w.TimedAt(5));  // not sampled: every launch is timed
  w.AddMetadata(R"({"capture_window":{"opened_s":1}})");
  w.AddMetadata(R"({"gpu_window":{"event":"close","time_ns":50}})");  // before sampling: ignored
  EXPECT_FALSE(w.sampled());
  w.AddMetadata(R"({"gpu_timing":{"sampled":{"window_ns":10,"period_ns":100,)"
                R"("first_window_open_ns":100}}})");
  ASSERT_TRUE(w.sampled());
  EXPECT_FALSE(w.TimedAt(99));
  EXPECT_TRUE(w.TimedAt(100));
  EXPECT_TRUE(w.TimedAt(1'000'000));  // still open
  w.AddMetadata(R"({"gpu_window":{"event":"close","time_ns":111}})");
  w.AddMetadata(R"({"gpu_window":{"event":"close","time_ns":150}})");  // not open: ignored
  w.AddMetadata(R"({"gpu_window":{"event":"open","time_ns":105}})");   // before the close
  w.AddMetadata(R"({"gpu_window":{"event":"open","time_ns":200}})");
  w.AddMetadata(R"({"gpu_window":{"event":"open","time_ns":300}})");  // already open: ignored
  w.AddMetadata("{not json");
  EXPECT_TRUE(w.TimedAt(111));
  EXPECT_FALSE(w.TimedAt(112));
  EXPECT_FALSE(w.TimedAt(199));
  EXPECT_TRUE(w.TimedAt(250));
  ASSERT_EQ(w.windows().size(), 2u);
  EXPECT_EQ(w.TimedNs(260), 11u + 60u);
}

// --- A launch-bound loop ----------------------------------------------------------------------
//
// 1000 launches back to back on one thread, each call 5 us: launch i runs
// [T0 + 5i, T0 + 5i + 5] us. Its 2 us kernel starts 4 us after the call began:
// [T0 + 5i + 4, T0 + 5i + 6] us.
//   window  = first start T0+4 to last end T0 + 5*999 + 6 = T0+5001  ->  4997 us
//   busy    = 1000 x 2 us = 2000 us                                   ->  2000/4997 = 40.02%
//   gaps    = 999 gaps [T0+5i+6, T0+5i+9] of 3 us; the next launch returns at T0+5i+10, after
//             the GPU ran dry at T0+5i+6: all starved, 2997 us       ->  2997/4997 = 59.98%
//   verdict = starved >= 50%: overhead bound (rule "starved")
//   kernel  = mean GPU 2 us < mean launch 5 us: launch-bound; excess 1000 x (5 - 2) = 3000 us
//   graphs  = per gap min(3 us, 5 us - 1 us per node) = 3 us: 999 x 3 = 2997 us saved (59.98%)
//   CPU     = 1000 launches from T0 to T0+5000 us: 200,000 launches/s; queue delay 4 us
constexpr int kLoop = 1000;

void FeedLaunchBoundLaunches(Feed& f) {
  for (int i = 0; i < kLoop; ++i) f.Launch(i + 1, 1, kT0 + 5 * kUs * i, 5 * kUs);
}
void FeedLaunchBoundKernels(Feed& f, uint64_t kernel_ns = 2 * kUs, uint64_t delay_ns = 4 * kUs) {
  for (int i = 0; i < kLoop; ++i) {
    const uint64_t start = kT0 + 5 * kUs * i + delay_ns;
    f.Gpu(i + 1, 1, start, start + kernel_ns);
  }
}

void ExpectLaunchBoundLoop(const LaunchOverheadReport& r) {
  EXPECT_EQ(r.kernel_launches, 1000u);
  EXPECT_TRUE(r.gpu_times);
  EXPECT_EQ(r.gpu_kernels, 1000u);
  EXPECT_EQ(r.unmatched_launches, 0u);
  EXPECT_EQ(r.unmatched_gpu, 0u);
  ASSERT_TRUE(r.launches_per_second);
  EXPECT_DOUBLE_EQ(*r.launches_per_second, 200'000.0);
  EXPECT_DOUBLE_EQ(r.launch_cost.mean_ns, 5000.0);
  EXPECT_EQ(r.queue_delay.count, 1000u);
  EXPECT_DOUBLE_EQ(r.queue_delay.mean_ns, 4000.0);
  EXPECT_DOUBLE_EQ(r.queue_delay.p95_ns, 4000.0);

  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceOverhead& d = r.devices[0];
  EXPECT_EQ(d.window_ns, 4997 * kUs);
  EXPECT_EQ(d.busy_ns, 2000 * kUs);
  EXPECT_NEAR(d.busy_fraction, 0.4002, 1e-4);
  EXPECT_EQ(d.gaps[GapKind::kStarved].count, 999u);
  EXPECT_EQ(d.gaps[GapKind::kStarved].ns, 2997 * kUs);
  EXPECT_EQ(d.gaps[GapKind::kSynchronized].count, 0u);
  EXPECT_EQ(d.gaps[GapKind::kOther].count, 0u);
  ASSERT_EQ(r.streams.size(), 1u);
  EXPECT_EQ(r.streams[0].busy_ns, 2000 * kUs);
  EXPECT_EQ(r.streams[0].kernels, 1000u);
  EXPECT_EQ(r.streams[0].stream_def, 1u);  // learnt from the launches joined to it

  const SignatureOverhead* s = Find(r, "_Z4tinyPf");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->launches, 1000u);
  EXPECT_EQ(s->gpu.count, 1000u);
  EXPECT_DOUBLE_EQ(s->gpu.mean_ns, 2000.0);
  EXPECT_DOUBLE_EQ(s->gpu.p50_ns, 2000.0);
  ASSERT_TRUE(s->mean_launch_ns);
  EXPECT_DOUBLE_EQ(*s->mean_launch_ns, 5000.0);
  EXPECT_TRUE(s->launch_bound);
  EXPECT_EQ(s->overhead_reason, OverheadReason::kShorterThanLaunch);
  EXPECT_DOUBLE_EQ(s->launch_excess_ns, 3000.0 * kUs);
  EXPECT_EQ(s->grid[0], 1u);
  EXPECT_EQ(s->block[0], 128u);

  const OverheadJudgement& j = r.judgement;
  EXPECT_EQ(j.verdict, OverheadVerdict::kOverheadBound);
  EXPECT_EQ(j.rule, OverheadRule::kStarved);
  EXPECT_NEAR(j.starved_fraction, 0.5998, 1e-4);
  EXPECT_NEAR(j.busy_fraction, 0.4002, 1e-4);
  EXPECT_EQ(j.launch_bound_gpu_ns, 2000 * kUs);

  ASSERT_TRUE(r.graphs.available);
  EXPECT_DOUBLE_EQ(r.graphs.node_cost_ns, 1000.0);
  EXPECT_DOUBLE_EQ(r.graphs.saved_ns, 2997.0 * kUs);
  EXPECT_EQ(r.graphs.gaps_shrunk, 999u);
  EXPECT_NEAR(r.graphs.saved_fraction, 0.5998, 1e-4);
}

TEST(LaunchOverhead, LaunchBoundLoopOfTinyKernels) {
  Feed f;
  f.Signature(1, "_Z4tinyPf");
  FeedLaunchBoundLaunches(f);  // thread chunks first, as the flusher usually writes them
  FeedLaunchBoundKernels(f);   // then the GPU activity chunk
  ExpectLaunchBoundLoop(f.Finish());
}

TEST(LaunchOverhead, GpuRecordsBeforeTheirLaunches) {
  // CUPTI delivered the GPU records before the launch records were flushed: same answers.
  Feed f;
  f.Signature(1, "_Z4tinyPf");
  FeedLaunchBoundKernels(f);
  FeedLaunchBoundLaunches(f);
  ExpectLaunchBoundLoop(f.Finish());
}

TEST(LaunchOverhead, InterleavedChunksInBothOrders) {
  // Chunks of 100 launches and 100 kernels alternate, the GPU chunk sometimes first.
  Feed f;
  f.Signature(1, "_Z4tinyPf");
  for (int chunk = 0; chunk < 10; ++chunk) {
    const bool gpu_first = chunk % 2 == 1;
    for (int pass = 0; pass < 2; ++pass) {
      const bool gpu = (pass == 0) == gpu_first;
      for (int i = chunk * 100; i < chunk * 100 + 100; ++i) {
        const uint64_t enter = kT0 + 5 * kUs * i;
        if (gpu) {
          f.Gpu(i + 1, 1, enter + 4 * kUs, enter + 6 * kUs);
        } else {
          f.Launch(i + 1, 1, enter, 5 * kUs);
        }
      }
    }
  }
  ExpectLaunchBoundLoop(f.Finish());
}

// --- A memory-bound loop ----------------------------------------------------------------------
//
// 200 launches of 5 us, back to back from T0 (the CPU runs ahead); each kernel takes 2 ms and
// the GPU starts the next 1 us after the previous ends. Kernel 0 starts at T0 + 10 us:
//   kernel i: [T0 + 10 + 2001 i, T0 + 10 + 2001 i + 2000] us
//   window  = 199 x 2001 + 2000 = 400,199 us; busy = 200 x 2000 = 400,000 us -> 99.95%
//   gaps    = 199 gaps of 1 us; the next launch returned at T0 + 5(i+1) + 5 us, long before:
//             other, 199 us. Starved 0 -> not overhead bound (rule "fed")
//   kernel  = mean GPU 2 ms > mean launch 5 us: not launch-bound; graphs save nothing
TEST(LaunchOverhead, MemoryBoundLoopOfLargeKernels) {
  Feed f;
  f.Signature(2, "_Z6streamPfS_");
  for (int i = 0; i < 200; ++i) f.Launch(i + 1, 2, kT0 + 5 * kUs * i, 5 * kUs);
  for (int i = 0; i < 200; ++i) {
    const uint64_t start = kT0 + 10 * kUs + 2001 * kUs * i;
    f.Gpu(i + 1, 2, start, start + 2000 * kUs);
  }
  const LaunchOverheadReport r = f.Finish();
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceOverhead& d = r.devices[0];
  EXPECT_EQ(d.window_ns, 400'199 * kUs);
  EXPECT_EQ(d.busy_ns, 400'000 * kUs);
  EXPECT_NEAR(d.busy_fraction, 0.9995, 1e-4);
  EXPECT_EQ(d.gaps[GapKind::kStarved].count, 0u);
  EXPECT_EQ(d.gaps[GapKind::kOther].count, 199u);
  EXPECT_EQ(d.gaps[GapKind::kOther].ns, 199 * kUs);
  EXPECT_EQ(d.gaps.unattributed.count, 0u);
  const SignatureOverhead* s = Find(r, "_Z6streamPfS_");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->launch_bound);
  EXPECT_EQ(s->overhead_reason, OverheadReason::kNone);
  EXPECT_EQ(s->launch_excess_ns, 0.0);
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kNotOverheadBound);
  EXPECT_EQ(r.judgement.rule, OverheadRule::kFed);
  EXPECT_EQ(r.judgement.starved_ns, 0u);
  EXPECT_DOUBLE_EQ(r.graphs.saved_ns, 0.0);
  // Kernel i waited from its launch at T0 + 5i to T0 + 10 + 2001 i: mean over i = 0..199 of
  // 10 + 1996 i us = 10 + 1996 x 99.5 = 198,612 us.
  EXPECT_NEAR(r.queue_delay.mean_ns, 198'612.0 * kUs, 1.0);
}

// --- A synchronised gap -----------------------------------------------------------------------
//
// Kernel A launched at T0 ([T0, T0+5] us) runs [T0+10, T0+1010]. The thread then calls
// cudaDeviceSynchronize [T0+6, T0+1012], computes on the host until T0+3000 and launches B
// ([T0+3000, T0+3005]), which runs [T0+3008, T0+3108].
//   gap [T0+1010, T0+3008] = 1998 us: the launching thread was inside the sync when the GPU ran
//   dry at T0+1010 -> synchronised (B's launch came later, but only because of the sync).
//   Without the sync the same gap is starved (B's launch returned at T0+3005 > T0+1010).
void FeedSyncTimeline(Feed& f, bool with_sync, uint32_t sync_thread = kMainThread) {
  f.Signature(3, "_Z1Av");
  f.Launch(1, 3, kT0, 5 * kUs);
  if (with_sync)
    f.Call(Api::kCudaDeviceSynchronize, kT0 + 6 * kUs, kT0 + 1012 * kUs, 0, sync_thread);
  f.Launch(2, 3, kT0 + 3000 * kUs, 5 * kUs);
  f.Gpu(1, 3, kT0 + 10 * kUs, kT0 + 1010 * kUs);
  f.Gpu(2, 3, kT0 + 3008 * kUs, kT0 + 3108 * kUs);
}

TEST(LaunchOverhead, SynchronisedGap) {
  Feed f;
  FeedSyncTimeline(f, true);
  const LaunchOverheadReport r = f.Finish();
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceOverhead& d = r.devices[0];
  EXPECT_EQ(d.gaps[GapKind::kSynchronized].count, 1u);
  EXPECT_EQ(d.gaps[GapKind::kSynchronized].ns, 1998 * kUs);
  EXPECT_EQ(d.gaps[GapKind::kStarved].count, 0u);
  EXPECT_EQ(r.sync_calls, 1u);
  EXPECT_EQ(r.sync_ns, 1006 * kUs);
  // window T0+10 .. T0+3108 = 3098 us; synchronised 1998/3098 = 64.5%; starved 0: the GPU
  // waited on the program's sync, not on launches.
  EXPECT_NEAR(r.judgement.synchronized_fraction, 1998.0 / 3098.0, 1e-9);
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kNotOverheadBound);
  EXPECT_DOUBLE_EQ(r.graphs.saved_ns, 0.0);  // graphs do not remove a sync
}

TEST(LaunchOverhead, SameGapWithoutTheSyncIsStarved) {
  Feed f;
  FeedSyncTimeline(f, false);
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.devices[0].gaps[GapKind::kStarved].ns, 1998 * kUs);
  EXPECT_EQ(r.devices[0].gaps[GapKind::kSynchronized].count, 0u);
  // starved 1998/3098 = 64.5% >= 50%: overhead bound.
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kOverheadBound);
}

TEST(LaunchOverhead, SyncOnAnotherThreadDoesNotExplainTheGap) {
  Feed f;
  FeedSyncTimeline(f, true, /*sync_thread=*/999);
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.devices[0].gaps[GapKind::kStarved].ns, 1998 * kUs);
  EXPECT_EQ(r.devices[0].gaps[GapKind::kSynchronized].count, 0u);
}

TEST(LaunchOverhead, QueuedWorkDrainingDuringASyncIsNotSynchronised) {
  // Three kernels launched [0,5] [5,10] [10,15] us run [20,120] [121,221] [222,322]; the thread
  // waits in cudaStreamSynchronize [16, 323]. The two 1 us gaps happen during the sync, but
  // the next kernel was queued long before: other, not synchronised.
  Feed f;
  f.Signature(9, "_Z1Gv");
  for (uint64_t i = 0; i < 3; ++i) f.Launch(i + 1, 9, kT0 + 5 * kUs * i, 5 * kUs);
  f.Call(Api::kCudaStreamSynchronize, kT0 + 16 * kUs, kT0 + 323 * kUs);
  for (uint64_t i = 0; i < 3; ++i) {
    f.Gpu(i + 1, 9, kT0 + (20 + 101 * i) * kUs, kT0 + (120 + 101 * i) * kUs);
  }
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.devices.at(0).gaps[GapKind::kOther].count, 2u);
  EXPECT_EQ(r.devices.at(0).gaps[GapKind::kSynchronized].count, 0u);
}

TEST(LaunchOverhead, BlockingCopyIsASyncAndItsCopyIsBusyTime) {
  // Kernel [T0+10, T0+110]; cudaMemcpy D2H called at T0+20 (blocking, returns T0+160), its copy
  // runs [T0+112, T0+150]; the next launch at T0+400 runs [T0+408, T0+410].
  //   busy = 100 + 38 + 2 = 140 us of window 400 us. Gaps: [110,112] before the copy: the copy
  //   call (a sync) was in progress -> synchronised 2 us; [150,408]: the copy call was still in
  //   progress at T0+150 -> synchronised 258 us.
  Feed f;
  f.Signature(4, "_Z1Bv");
  f.Launch(1, 4, kT0, 5 * kUs);
  f.Call(Api::kCudaMemcpy, kT0 + 20 * kUs, kT0 + 160 * kUs, 2);
  f.Launch(3, 4, kT0 + 400 * kUs, 5 * kUs);
  f.Gpu(1, 4, kT0 + 10 * kUs, kT0 + 110 * kUs);
  f.Gpu(2, 0, kT0 + 112 * kUs, kT0 + 150 * kUs, 0, 7, 0, trace::GpuActivityKind::kMemcpy);
  f.Gpu(3, 4, kT0 + 408 * kUs, kT0 + 410 * kUs);
  const LaunchOverheadReport r = f.Finish();
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].busy_ns, 140 * kUs);
  EXPECT_EQ(r.devices[0].window_ns, 400 * kUs);
  EXPECT_EQ(r.devices[0].gaps[GapKind::kSynchronized].count, 2u);
  EXPECT_EQ(r.devices[0].gaps[GapKind::kSynchronized].ns, 260 * kUs);
  EXPECT_EQ(r.gpu_copies, 1u);
  EXPECT_EQ(r.streams[0].copies, 1u);
  EXPECT_EQ(r.unmatched_gpu, 0u);
}

// --- Streams and devices ----------------------------------------------------------------------
//
// Device 0, stream 1: [0,100] [300,400]; stream 2: [50,200] [350,500] (us after T0).
//   union [0,200] + [300,500] = 400 us busy of a 500 us window (80%); stream 1 200 us (40%),
//   stream 2 300 us (60%). Gap [200,300]: next is stream 1's [300,400], launched [240,250]:
//   starved 100 us.
// Device 1, stream 3: [1000,1100] [1100,1200] [1500,1600].
//   busy 300 us of a 600 us window (50%). Gap [1200,1500]: next launched [900,905], returned
//   long before: other, 300 us.
// Pooled: window 1100, busy 700, starved 100 (9.1% < 10%): not overhead bound.
TEST(LaunchOverhead, StreamsAndDevices) {
  Feed f;
  f.Signature(5, "_Z1Cv");
  const auto at = [](uint64_t us) { return kT0 + us * kUs; };
  // Launches whose timing does not matter for the gaps were made early: [0,1] us etc.
  f.Launch(1, 5, at(0), 1 * kUs);
  f.Launch(2, 5, at(1), 1 * kUs);
  f.Launch(3, 5, at(2), 1 * kUs);
  f.Launch(4, 5, at(240), 10 * kUs);
  f.Launch(5, 5, at(3), 1 * kUs);
  f.Launch(6, 5, at(4), 1 * kUs);
  f.Launch(7, 5, at(5), 1 * kUs);
  f.Launch(8, 5, at(900), 5 * kUs);
  f.Gpu(1, 5, at(0) + 500, at(100), 0, 1);  // starts 0.5 us in: the window begins there
  f.Gpu(2, 5, at(50), at(200), 0, 2);
  f.Gpu(4, 5, at(300), at(400), 0, 1);
  f.Gpu(5, 5, at(350), at(500), 0, 2);
  f.Gpu(6, 5, at(1000), at(1100), 1, 3);
  f.Gpu(7, 5, at(1100), at(1200), 1, 3);
  f.Gpu(8, 5, at(1500), at(1600), 1, 3);
  f.Gpu(3, 5, at(2), at(2), 9, 9);  // a zero-length record on device 9: no window
  const LaunchOverheadReport r = f.Finish();
  ASSERT_EQ(r.devices.size(), 3u);
  const DeviceOverhead& d0 = r.devices[0];
  const DeviceOverhead& d1 = r.devices[1];
  EXPECT_EQ(d0.device, 0);
  EXPECT_EQ(d0.window_ns, 500 * kUs - 500);
  EXPECT_EQ(d0.busy_ns, 400 * kUs - 500);
  EXPECT_EQ(d0.gaps[GapKind::kStarved].ns, 100 * kUs);
  EXPECT_EQ(d0.gaps.TotalCount(), 1u);
  EXPECT_EQ(d1.device, 1);
  EXPECT_EQ(d1.window_ns, 600 * kUs);
  EXPECT_EQ(d1.busy_ns, 300 * kUs);
  EXPECT_DOUBLE_EQ(d1.busy_fraction, 0.5);
  EXPECT_EQ(d1.gaps[GapKind::kOther].ns, 300 * kUs);
  EXPECT_EQ(r.devices[2].window_ns, 0u);

  // Streams: device order, busiest first within a device.
  ASSERT_EQ(r.streams.size(), 4u);
  EXPECT_EQ(r.streams[0].cupti_stream, 2u);
  EXPECT_EQ(r.streams[0].busy_ns, 300 * kUs);
  EXPECT_EQ(r.streams[1].cupti_stream, 1u);
  EXPECT_EQ(r.streams[1].busy_ns, 200 * kUs - 500);
  EXPECT_EQ(r.streams[2].cupti_stream, 3u);
  EXPECT_DOUBLE_EQ(r.streams[2].busy_fraction, 0.5);

  // One timeline window for all devices: 0.5 us to 1600 us in 200 bins.
  EXPECT_EQ(r.timeline_start_ns, at(0) + 500);
  ASSERT_EQ(r.timeline_bins, 200u);
  EXPECT_EQ(r.timeline_bin_ns, (1600 * kUs - 500 + 199) / 200);
  for (const StreamOverhead& s : r.streams) {
    if (s.busy_ns == 0) continue;
    ASSERT_EQ(s.timeline.size(), 200u);
    double busy = 0;
    for (const float bin : s.timeline) busy += bin * static_cast<double>(r.timeline_bin_ns);
    EXPECT_NEAR(busy, static_cast<double>(s.busy_ns), 0.01 * static_cast<double>(s.busy_ns));
  }
  // Stream 3 ran [1000, 1200] us: a bin in the middle is full, one at 700 us is empty.
  const auto bin_at = [&](uint64_t us) {
    return (at(us) - r.timeline_start_ns) / r.timeline_bin_ns;
  };
  EXPECT_FLOAT_EQ(r.streams[2].timeline[bin_at(1100)], 1.0f);
  EXPECT_FLOAT_EQ(r.streams[2].timeline[bin_at(700)], 0.0f);

  EXPECT_EQ(r.judgement.window_ns, 1100 * kUs - 500);
  EXPECT_EQ(r.judgement.starved_ns, 100 * kUs);
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kNotOverheadBound);
}

// --- Verdict thresholds -----------------------------------------------------------------------
//
// The launch-bound loop of 5 us launches with longer kernels, each starting 2 us into its
// launch call: a kernel of k us runs [5i+2, 5i+2+k]; the next launch returns at 5i+10 > 5i+2+k,
// so each of the 999 gaps (5 - k us) is starved. The window runs from 2 us to the last end,
// 4995 + 2 + k us: it is 4995 + k us long.
//   k = 3:   starved 999 x 2 = 1998 of 4998 us (39.98% >= 25%), and launch-bound kernels
//            (3 < 5 us) busy 3000 us (60.02%): together >= 50%: bound by the second rule
//   k = 4:   starved 999 of 4999 us (19.98%): under 25%, over 10%: partly overhead bound
//   k = 4.9: starved 99.9 of 4999.9 us (2.0%): not overhead bound
LaunchOverheadReport Loop(uint64_t kernel_ns) {
  Feed f;
  f.Signature(1, "_Z4tinyPf");
  FeedLaunchBoundLaunches(f);
  FeedLaunchBoundKernels(f, kernel_ns, 2 * kUs);
  return f.Finish();
}

TEST(LaunchOverhead, VerdictStarvedPlusLaunchBound) {
  const LaunchOverheadReport r = Loop(3 * kUs);
  EXPECT_NEAR(r.judgement.starved_fraction, 1998.0 / 4998.0, 1e-9);
  EXPECT_NEAR(r.judgement.launch_bound_fraction, 3000.0 / 4998.0, 1e-9);
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kOverheadBound);
  EXPECT_EQ(r.judgement.rule, OverheadRule::kStarvedAndLaunchBound);
}

TEST(LaunchOverhead, VerdictPartly) {
  const LaunchOverheadReport r = Loop(4 * kUs);
  EXPECT_NEAR(r.judgement.starved_fraction, 999.0 / 4999.0, 1e-9);
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kPartlyOverheadBound);
  EXPECT_EQ(r.judgement.rule, OverheadRule::kPartlyStarved);
}

TEST(LaunchOverhead, VerdictFed) {
  const LaunchOverheadReport r = Loop(4900);
  EXPECT_NEAR(r.judgement.starved_fraction, 99.9 / 4999.9, 1e-9);
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kNotOverheadBound);
  // Still launch-bound per kernel (4.9 < 5 us): the table says so even when the run is fed.
  EXPECT_TRUE(r.signatures.at(0).launch_bound);
}

TEST(LaunchOverhead, LaunchBoundFollowsTheRooflineRule) {
  // Mean GPU 4 us, launch 3 us: not shorter than its launch, but under the roofline's 5 us
  // tiny-kernel rule. Mean GPU 6 us: neither.
  for (const auto& [gpu_ns, reason] : std::vector<std::pair<uint64_t, OverheadReason>>{
           {4000, OverheadReason::kTinyKernel},
           {6000, OverheadReason::kNone},
           {2000, OverheadReason::kShorterThanLaunch}}) {
    Feed f;
    f.Signature(1, "_Z1Dv");
    f.Launch(1, 1, kT0, 3 * kUs);
    f.Gpu(1, 1, kT0 + 10 * kUs, kT0 + 10 * kUs + gpu_ns);
    const LaunchOverheadReport r = f.Finish();
    ASSERT_EQ(r.signatures.size(), 1u);
    EXPECT_EQ(r.signatures[0].overhead_reason, reason) << gpu_ns;
    EXPECT_EQ(r.signatures[0].launch_bound, reason == OverheadReason::kShorterThanLaunch);
  }
}

// --- Graph and device-launched kernels --------------------------------------------------------
//
// cudaGraphLaunch [T0, T0+10] us (correlation 77) replays three nodes: [20,22] [23,25] [26,28].
// A second replay, launched [100,110] (correlation 78), runs [112,114] [115,117] [118,120].
// A device-launched kernel (no call at all) runs [200,210].
//   busy = 6 x 2 + 10 = 22 us; window 20 .. 210 = 190 us.
//   gaps between nodes of one replay: their graph launch had returned: other, 4 x 1 us.
//   gap [28,112]: the second graph launch returned at 110 > 28: starved, 84 us.
//   gap [120,200]: before the device-launched kernel: other, unattributed, 80 us.
TEST(LaunchOverhead, GraphAndDeviceKernelsCountAsBusyWithoutLaunchCost) {
  Feed f;
  f.Signature(6, "_Z4nodev");
  f.Launch(77, 0, kT0, 10 * kUs, kMainThread, Api::kCudaGraphLaunch);
  f.Launch(78, 0, kT0 + 100 * kUs, 10 * kUs, kMainThread, Api::kCudaGraphLaunch);
  const uint8_t graph = trace::kGpuFromGraph;
  for (const auto& [corr, start] : std::vector<std::pair<uint64_t, uint64_t>>{
           {77, 20}, {77, 23}, {77, 26}, {78, 112}, {78, 115}, {78, 118}}) {
    f.Gpu(corr, 6, kT0 + start * kUs, kT0 + (start + 2) * kUs, 0, 7, graph);
  }
  f.Gpu(0, 6, kT0 + 200 * kUs, kT0 + 210 * kUs, 0, 7, trace::kGpuDeviceLaunched);
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.kernel_launches, 0u);
  EXPECT_EQ(r.graph_launches, 2u);
  EXPECT_DOUBLE_EQ(r.graph_launch_cost.mean_ns, 10'000.0);
  EXPECT_EQ(r.graph_kernels, 6u);
  EXPECT_EQ(r.device_kernels, 1u);
  EXPECT_EQ(r.unmatched_gpu, 0u);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceOverhead& d = r.devices[0];
  EXPECT_EQ(d.busy_ns, 22 * kUs);
  EXPECT_EQ(d.window_ns, 190 * kUs);
  EXPECT_EQ(d.gaps[GapKind::kStarved].ns, 84 * kUs);
  EXPECT_EQ(d.gaps[GapKind::kOther].count, 5u);
  EXPECT_EQ(d.gaps[GapKind::kOther].ns, 84 * kUs);
  EXPECT_EQ(d.gaps.unattributed.ns, 80 * kUs);
  const SignatureOverhead* s = Find(r, "_Z4nodev");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->gpu.count, 7u);
  EXPECT_EQ(s->without_launch, 7u);
  EXPECT_EQ(s->launches, 0u);
  EXPECT_FALSE(s->mean_launch_ns);
  EXPECT_FALSE(s->launch_bound);     // no launch cost of its own
  EXPECT_FALSE(r.graphs.available);  // nothing launched eagerly
  EXPECT_DOUBLE_EQ(d.graphs_saved_ns, 0.0);
}

// --- No GPU records ---------------------------------------------------------------------------
//
// CUPTI was unavailable: 300 launches of kernel E at 4 us and 100 of kernel F at 8 us, one
// every 10 us from T0. Launch costs stand; 400 launches over T0 .. T0 + 3990 + 8 = 3998 us is
// 100,050 launches/s; no busy time, no verdict.
TEST(LaunchOverhead, NoGpuRecordsStillReportsLaunchCosts) {
  Feed f;
  f.Signature(7, "_Z1Ev");
  f.Signature(8, "_Z1Fv");
  for (int i = 0; i < 400; ++i) {
    const bool e = i % 4 != 3;
    f.Launch(i + 1, e ? 7 : 8, kT0 + 10 * kUs * i, e ? 4 * kUs : 8 * kUs);
  }
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.kernel_launches, 400u);
  EXPECT_FALSE(r.gpu_times);
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(r.judgement.verdict, OverheadVerdict::kUnknown);
  EXPECT_EQ(r.judgement.rule, OverheadRule::kNoGpuTimes);
  EXPECT_FALSE(r.graphs.available);
  ASSERT_TRUE(r.launches_per_second);
  EXPECT_NEAR(*r.launches_per_second, 400 / 3998e-6, 1e-6);
  EXPECT_DOUBLE_EQ(r.launch_cost.mean_ns, (300 * 4000.0 + 100 * 8000.0) / 400);
  const SignatureOverhead* e = Find(r, "_Z1Ev");
  const SignatureOverhead* fk = Find(r, "_Z1Fv");
  ASSERT_NE(e, nullptr);
  ASSERT_NE(fk, nullptr);
  EXPECT_EQ(e->launches, 300u);
  EXPECT_DOUBLE_EQ(*e->mean_launch_ns, 4000.0);
  EXPECT_EQ(fk->launches, 100u);
  EXPECT_DOUBLE_EQ(*fk->mean_launch_ns, 8000.0);
  EXPECT_EQ(e->gpu.count, 0u);
  EXPECT_FALSE(e->launch_bound);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("GPU times are missing"), std::string::npos) << r.notes[0];
}

// --- Bounded memory ---------------------------------------------------------------------------

TEST(LaunchOverhead, PendingJoinsAreBounded) {
  // At most 64 launches may wait for their GPU record. 10,000 launches with no GPU record: the
  // state stays small and every one is counted unmatched.
  LaunchOverheadOptions options;
  options.max_pending = 64;
  Feed f(options);
  f.Signature(1, "_Z4tinyPf");
  for (int i = 0; i < 10'000; ++i) f.Launch(i + 1, 1, kT0 + i * kUs, 500);
  EXPECT_LT(f.analyzer().MemoryBytes(), 64 * 1024u);
  // GPU records for the last 10 launches still join: they were among the 64 kept.
  for (int i = 9'990; i < 10'000; ++i) f.Gpu(i + 1, 1, kT0 + i * kUs + 100, kT0 + i * kUs + 200);
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.unmatched_launches, 9'990u);
  EXPECT_EQ(r.queue_delay.count, 10u);
  EXPECT_EQ(r.kernel_launches, 10'000u);
}

TEST(LaunchOverhead, IntervalsCostTwentyFourBytesEach) {
  // 100,000 kernels, each joined at once: what is held is the intervals (24 bytes each, vector
  // growth aside), the histograms and a small table.
  Feed f;
  f.Signature(1, "_Z4tinyPf");
  for (int i = 0; i < 100'000; ++i) {
    f.Launch(i + 1, 1, kT0 + 5 * kUs * i, 5 * kUs);
    f.Gpu(i + 1, 1, kT0 + 5 * kUs * i + 4 * kUs, kT0 + 5 * kUs * i + 6 * kUs);
  }
  EXPECT_LT(f.analyzer().MemoryBytes(), 100'000u * 24 * 2 + 64 * 1024);
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.devices.at(0).gaps[GapKind::kStarved].count, 99'999u);
  EXPECT_LT(f.analyzer().MemoryBytes(), 64 * 1024u);  // released by Finish
}

TEST(LaunchOverhead, FailedLaunchesWaitForNothing) {
  Feed f;
  f.Signature(1, "_Z4tinyPf");
  trace::KernelLaunchRecord l{};
  l.api = static_cast<uint16_t>(Api::kCuLaunchKernel);
  l.enter_ns = kT0;
  l.duration_ns = 3000;
  l.correlation = 5;
  l.signature = 1;
  l.result = 1;  // CUDA_ERROR_INVALID_VALUE
  f.Add(l, kMainThread, trace::ChunkSource::kThread);
  const LaunchOverheadReport r = f.Finish();
  EXPECT_EQ(r.failed_launches, 1u);
  EXPECT_EQ(r.unmatched_launches, 0u);
  EXPECT_EQ(r.signatures.at(0).failed_launches, 1u);
}

}  // namespace
}  // namespace flopspy::analyzers
