// The stream-order join (stream_order_join.h): kernel records joined to their launches by the
// order of their stream, driven as the flusher drives it. CUPTI streams are learned, records
// come in any order across streams, some are lost, some have no launch, some were launched by a
// library flopspy does not see, some arrive before their launch record.
#include "stream_order_join.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace flopspy::interpose {
namespace {

constexpr uint64_t kMs = 1'000'000;

KernelIdentity Identity(const std::string& name, uint32_t grid = 64) {
  KernelIdentity k;
  k.name_hash = KernelNameHash(name);
  k.grid[0] = grid;
  k.grid[1] = k.grid[2] = 1;
  k.block[0] = 128;
  k.block[1] = k.block[2] = 1;
  return k;
}

LaunchStream Stream(uint64_t handle, int32_t device = 0, uint32_t owner = 0) {
  return {.handle = handle, .device = device, .per_thread_owner = owner};
}

struct Gpu {
  uint32_t context = 1;
  uint32_t stream = 0;
  int32_t device = 0;
};

// Drives a join and keeps what it sends on, by CUPTI correlation id (each record's own tag).
class Harness {
 public:
  explicit Harness(StreamOrderJoinOptions options = {}) : join(options) {}

  void Launch(uint64_t handle, const std::string& kernel, uint64_t correlation, uint64_t enter,
              uint32_t grid = 64) {
    join.AddLaunch(Stream(handle), Identity(kernel, grid), correlation, enter);
  }
  // A kernel record; `tag` stands in for CUPTI's own correlation id to find it again.
  void Kernel(Gpu gpu, const std::string& kernel, uint32_t tag, uint64_t start,
              uint32_t grid = 64) {
    trace::GpuActivityRecord r{};
    r.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    r.start_ns = start;
    r.end_ns = start + 1000;
    r.cupti_correlation = tag;
    r.device = gpu.device;
    r.stream = gpu.stream;
    r.context = gpu.context;
    join.AddKernel(r, Identity(kernel, grid));
  }
  void Pass(bool final = false) {
    join.Pass(final, [&](const trace::GpuActivityRecord& r) {
      EXPECT_EQ(sent.count(r.cupti_correlation), 0u) << "sent twice: " << r.cupti_correlation;
      sent[r.cupti_correlation] = r.correlation;
      ++emitted;
    });
  }
  // The launch correlation record `tag` was joined to; -1 if not sent yet.
  int64_t JoinedTo(uint32_t tag) const {
    const auto it = sent.find(tag);
    return it == sent.end() ? -1 : static_cast<int64_t>(it->second);
  }

  StreamOrderJoin join;
  std::map<uint32_t, uint64_t> sent;
  size_t emitted = 0;
};

TEST(StreamOrderJoin, JoinsEachKernelToItsLaunchInStreamOrder) {
  Harness h;
  const char* kernels[] = {"_Z1av", "_Z1bv", "_Z1av", "_Z1av", "_Z1bv"};
  for (uint32_t i = 0; i < 5; ++i) h.Launch(0x7000, kernels[i], 100 + i, i * kMs);
  for (uint32_t i = 0; i < 5; ++i) h.Kernel({.stream = 13}, kernels[i], i + 1, i * kMs + 10'000);
  h.Pass();
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(h.JoinedTo(i + 1), 100 + i);
  EXPECT_EQ(h.join.stats().joined, 5u);
  EXPECT_EQ(h.join.stats().streams_mapped, 1u);
  EXPECT_EQ(h.join.queued_launches(), 0u);
  EXPECT_EQ(h.join.waiting_records(), 0u);
}

TEST(StreamOrderJoin, StreamsInterleavedOnTheCpuAndReorderedOnTheWayBack) {
  Harness h;
  // Two streams, launched alternately; CUPTI hands back stream 22's records before stream 21's.
  const char* on_a[] = {"_Z1av", "_Z1bv", "_Z1av"};
  const char* on_b[] = {"_Z1cv", "_Z1cv", "_Z1dv"};
  for (uint32_t i = 0; i < 3; ++i) {
    h.Launch(0xA000, on_a[i], 10 + i, (2 * i) * kMs);
    h.Launch(0xB000, on_b[i], 20 + i, (2 * i + 1) * kMs);
  }
  for (uint32_t i = 0; i < 3; ++i) h.Kernel({.stream = 22}, on_b[i], 200 + i, (2 * i + 2) * kMs);
  h.Pass();
  for (uint32_t i = 0; i < 3; ++i) h.Kernel({.stream = 21}, on_a[i], 100 + i, (2 * i + 1) * kMs);
  h.Pass();
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(h.JoinedTo(100 + i), 10 + i);
    EXPECT_EQ(h.JoinedTo(200 + i), 20 + i);
  }
  EXPECT_EQ(h.join.stats().streams_mapped, 2u);
  EXPECT_EQ(h.join.stats().ambiguous_maps, 0u);
}

TEST(StreamOrderJoin, StreamsRunningTheSameKernelsAreToldApartByWhenTheyRan) {
  Harness h;
  // The same loop on two streams, one launched 10 ms after the other. CUPTI's stream 7 (the
  // later one) comes back first; its kernels started after both were launched.
  for (uint32_t i = 0; i < 4; ++i) h.Launch(0xA000, "_Z4stepv", 10 + i, i * kMs);
  for (uint32_t i = 0; i < 4; ++i) h.Launch(0xB000, "_Z4stepv", 20 + i, (10 + i) * kMs);
  for (uint32_t i = 0; i < 4; ++i) h.Kernel({.stream = 7}, "_Z4stepv", 70 + i, (20 + i) * kMs);
  for (uint32_t i = 0; i < 4; ++i) h.Kernel({.stream = 5}, "_Z4stepv", 50 + i, (5 + i) * kMs);
  h.Pass();
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(h.JoinedTo(50 + i), 10 + i);  // started at 5 ms: only stream A was launched then
    EXPECT_EQ(h.JoinedTo(70 + i), 20 + i);
  }
}

TEST(StreamOrderJoin, IdenticalStreamsWaitForMoreRecordsThenTakeTheOneLaunchedFirst) {
  StreamOrderJoinOptions options;
  options.records_to_map = 3;
  Harness h(options);
  for (uint32_t i = 0; i < 3; ++i) h.Launch(0xA000, "_Z4stepv", 10 + i, i * kMs);
  for (uint32_t i = 0; i < 3; ++i) h.Launch(0xB000, "_Z4stepv", 20 + i, (1 + i) * kMs);
  h.Kernel({.stream = 5}, "_Z4stepv", 50, 30 * kMs);
  h.Pass();
  EXPECT_EQ(h.emitted, 0u) << "one record cannot tell two identical streams apart";
  h.Kernel({.stream = 5}, "_Z4stepv", 51, 31 * kMs);
  h.Kernel({.stream = 5}, "_Z4stepv", 52, 32 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(50), 10);
  EXPECT_EQ(h.JoinedTo(52), 12);
  EXPECT_EQ(h.join.stats().ambiguous_maps, 1u);
}

TEST(StreamOrderJoin, ALostRecordPassesOverItsLaunch) {
  Harness h;
  h.Launch(0x1, "_Z1av", 1, 0);
  h.Launch(0x1, "_Z1bv", 2, 1 * kMs);
  h.Launch(0x1, "_Z1av", 3, 2 * kMs);
  h.Kernel({.stream = 3}, "_Z1av", 10, 1 * kMs);
  h.Kernel({.stream = 3}, "_Z1av", 12, 3 * kMs);  // b's record was dropped by CUPTI
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
  EXPECT_EQ(h.JoinedTo(12), 3);
  EXPECT_EQ(h.join.stats().launches_passed_over, 1u);
  EXPECT_EQ(h.join.queued_launches(), 0u);
}

TEST(StreamOrderJoin, AKernelIsNeverJoinedToALaunchMadeAfterItStarted) {
  StreamOrderJoinOptions options;
  options.max_wait_passes = 0;
  Harness h(options);
  h.Launch(0x1, "_Z1av", 1, 0);
  h.Launch(0x1, "_Z1bv", 2, 1 * kMs);
  h.Launch(0x1, "_Z1av", 3, 10 * kMs);
  h.Kernel({.stream = 3}, "_Z1av", 10, 1 * kMs);
  // An `a` that started at 3 ms is not the one launched at 10 ms: it is a stranger, and b's
  // record is still owed.
  h.Kernel({.stream = 3}, "_Z1av", 11, 3 * kMs);
  h.Kernel({.stream = 3}, "_Z1bv", 12, 4 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
  EXPECT_EQ(h.JoinedTo(11), 0);
  EXPECT_EQ(h.JoinedTo(12), 2);
  EXPECT_EQ(h.join.stats().launches_passed_over, 0u);
}

// A loop of a, b, c. Launch records the hooks wrote can be lost (a thread buffer that ran
// full); then a record's own launch is missing and the same kernel's next launch is not its own.
TEST(StreamOrderJoin, ALostLaunchRecordDoesNotShiftEveryJoinAfterIt) {
  Harness h;
  const char* loop[] = {"_Z1av", "_Z1bv", "_Z1cv"};
  for (uint32_t i = 1; i < 12; ++i) h.Launch(0x1, loop[i % 3], 100 + i, i * kMs);  // not a0
  h.join.NoteLostLaunches(1);
  for (uint32_t i = 0; i < 12; ++i) h.Kernel({.stream = 3}, loop[i % 3], i, (20 + i) * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(0), 0);
  for (uint32_t i = 1; i < 12; ++i) EXPECT_EQ(h.JoinedTo(i), 100 + i) << i;
  EXPECT_EQ(h.join.stats().without_launch, 1u);
  EXPECT_EQ(h.join.stats().launches_passed_over, 0u);
}

TEST(StreamOrderJoin, WithLaunchesAndRecordsBothLostTheNextRecordTellsWhich) {
  Harness h;
  const char* loop[] = {"_Z1av", "_Z1bv", "_Z1cv"};
  for (uint32_t i = 0; i < 9; ++i) {
    if (i != 4) h.Launch(0x1, loop[i % 3], 100 + i, i * kMs);  // launch b1 lost
  }
  h.join.NoteLostLaunches(1);
  h.join.NoteLostRecords(1);
  for (uint32_t i = 0; i < 9; ++i) {
    if (i != 1) h.Kernel({.stream = 3}, loop[i % 3], i, (20 + i) * kMs);  // record b0 lost
  }
  h.Pass();
  EXPECT_EQ(h.JoinedTo(0), 100);
  EXPECT_EQ(h.JoinedTo(2), 102) << "b0's record was lost: its launch is passed over";
  EXPECT_EQ(h.JoinedTo(3), 103);
  EXPECT_EQ(h.JoinedTo(4), 0) << "b1's launch was lost: its record stays unjoined";
  for (uint32_t i = 5; i < 9; ++i) EXPECT_EQ(h.JoinedTo(i), 100 + i) << i;
  EXPECT_EQ(h.join.stats().launches_passed_over, 1u);
  EXPECT_EQ(h.join.stats().without_launch, 1u);
}

TEST(StreamOrderJoin, RecordsWithoutLaunchesThatCameTogetherGiveUpTogether) {
  StreamOrderJoinOptions options;
  options.max_wait_passes = 2;
  Harness h(options);
  for (uint32_t i = 0; i < 10; ++i) h.Kernel({.stream = 3}, "_Z7strangev", i, (1 + i) * kMs);
  h.Launch(0x1, "_Z1av", 50, 0);
  h.Kernel({.stream = 3}, "_Z1av", 20, 20 * kMs);
  h.Pass();  // maps the stream through a's launch
  for (int pass = 0; pass < 3; ++pass) h.Pass();
  EXPECT_EQ(h.emitted, 11u) << "ten strangers wait max_wait_passes in all, not one after another";
  EXPECT_EQ(h.JoinedTo(20), 50);
}

TEST(StreamOrderJoin, ARecordWithoutALaunchWaitsAFewPassesThenGoesOnUnjoined) {
  StreamOrderJoinOptions options;
  options.max_wait_passes = 2;
  Harness h(options);
  h.Launch(0x1, "_Z1av", 1, 0);
  h.Kernel({.stream = 3}, "_Z1av", 10, 1 * kMs);
  h.Kernel({.stream = 3}, "_Z7unknownv", 11, 2 * kMs);  // a kernel flopspy never saw launched
  h.Kernel({.stream = 3}, "_Z1bv", 12, 3 * kMs);
  h.Launch(0x1, "_Z1bv", 2, 1 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
  EXPECT_EQ(h.JoinedTo(11), -1) << "its launch record may come in the next pass";
  EXPECT_EQ(h.JoinedTo(12), -1) << "the stream's later records wait behind it";
  h.Pass();
  h.Pass();
  EXPECT_EQ(h.JoinedTo(11), 0);
  EXPECT_EQ(h.JoinedTo(12), 2);
  EXPECT_EQ(h.join.stats().unjoined, 1u);
  EXPECT_EQ(h.join.stats().launches_passed_over, 0u);
}

TEST(StreamOrderJoin, ARecordBeforeItsLaunchRecordJoinsWhenTheLaunchComes) {
  Harness h;
  // The kernel ran and its buffer came back before the hook's record reached the flusher.
  h.Kernel({.stream = 3}, "_Z1av", 10, 5 * kMs);
  h.Pass();
  EXPECT_EQ(h.emitted, 0u);
  h.Launch(0x1, "_Z1av", 1, 4 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
}

TEST(StreamOrderJoin, KernelsALibraryLaunchedUnseenJoinItsCall) {
  Harness h;
  // cublasSgemm from 1 to 2.5 ms; inside it a hooked launch at 2 ms, whose record the flusher
  // sees first. The call also ran two kernels flopspy never saw launched. Then a launch of the
  // program's own.
  h.Launch(0x1, "_Z4gemmv", 2, 2 * kMs);
  h.join.AddLibraryCall(Stream(0x1), 100, 1 * kMs, 2.5 * kMs);
  h.Launch(0x1, "_Z4reluv", 3, 5 * kMs);
  h.Kernel({.stream = 3}, "_Z6splitkv", 10, 3 * kMs);
  h.Kernel({.stream = 3}, "_Z4gemmv", 11, 4 * kMs);
  h.Kernel({.stream = 3}, "_Z6reducev", 12, 4.5 * kMs);
  h.Kernel({.stream = 3}, "_Z4reluv", 13, 6 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 100);
  EXPECT_EQ(h.JoinedTo(11), 2);
  EXPECT_EQ(h.JoinedTo(12), 100);
  EXPECT_EQ(h.JoinedTo(13), 3);
  EXPECT_EQ(h.join.stats().joined_to_library, 2u);
  EXPECT_EQ(h.join.stats().launches_passed_over, 0u);
  EXPECT_EQ(h.join.queued_launches(), 0u) << "the call leaves once a later launch ran";
}

TEST(StreamOrderJoin, BackToBackLibraryCallsTakeTheKernelsOfTheirTurn) {
  Harness h;
  // Three calls flopspy sees no launch of (NCCL's, say), the stream idle between them; then a
  // launch of the program's own so that the stream is mapped.
  h.Launch(0x1, "_Z4initv", 1, 0);
  h.join.AddLibraryCall(Stream(0x1), 100, 1 * kMs, 1.1 * kMs);
  h.join.AddLibraryCall(Stream(0x1), 101, 3 * kMs, 3.1 * kMs);
  h.join.AddLibraryCall(Stream(0x1), 102, 5 * kMs, 5.1 * kMs);
  h.Kernel({.stream = 3}, "_Z4initv", 10, 0.5 * kMs);
  h.Kernel({.stream = 3}, "_Z9allreducev", 11, 1.2 * kMs);
  h.Kernel({.stream = 3}, "_Z9allreducev", 12, 3.2 * kMs);
  h.Kernel({.stream = 3}, "_Z9allreducev", 13, 5.2 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
  EXPECT_EQ(h.JoinedTo(11), 100);
  EXPECT_EQ(h.JoinedTo(12), 101);
  EXPECT_EQ(h.JoinedTo(13), 102);
}

TEST(StreamOrderJoin, ALibraryCallAloneMapsNoStream) {
  Harness h;
  h.join.AddLibraryCall(Stream(0x1), 100, 1 * kMs, 2 * kMs);
  h.Kernel({.stream = 9}, "_Z10ncclKernelv", 10, 3 * kMs);  // a stream nobody launched on
  h.Pass(/*final=*/true);
  EXPECT_EQ(h.JoinedTo(10), 0);
  EXPECT_EQ(h.join.stats().streams_mapped, 0u);
}

TEST(StreamOrderJoin, ARecordHandedBackOutOfOrderWithinItsStreamIsPutInPlace) {
  Harness h;
  h.Launch(0x1, "_Z1av", 1, 0);
  h.Launch(0x1, "_Z1bv", 2, 1 * kMs);
  h.Kernel({.stream = 3}, "_Z1bv", 11, 3 * kMs);  // another thread's buffer came back first
  h.Kernel({.stream = 3}, "_Z1av", 10, 2 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
  EXPECT_EQ(h.JoinedTo(11), 2);
  EXPECT_EQ(h.join.stats().launches_passed_over, 0u);
}

TEST(StreamOrderJoin, ALibraryCallDoesNotTakeAKernelWhileEarlierLaunchesAreOwed) {
  StreamOrderJoinOptions options;
  options.max_wait_passes = 0;
  Harness h(options);
  h.Launch(0x1, "_Z1av", 1, 0);
  h.join.AddLibraryCall(Stream(0x1), 100, 1 * kMs, 1.5 * kMs);
  h.Kernel({.stream = 3}, "_Z1av", 10, 1 * kMs);
  h.Pass();
  h.Launch(0x1, "_Z1bv", 2, 2 * kMs);
  h.Launch(0x1, "_Z1cv", 3, 3 * kMs);
  h.join.AddLibraryCall(Stream(0x1), 101, 4 * kMs, 4.5 * kMs);
  // Launch b was made before call 101, so a stranger here is not 101's.
  h.Kernel({.stream = 3}, "_Z7strangev", 11, 5 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
  EXPECT_EQ(h.JoinedTo(11), 100) << "call 100 is at the queue's head: the stranger is its";
  h.Kernel({.stream = 3}, "_Z1bv", 12, 6 * kMs);
  h.Kernel({.stream = 3}, "_Z7strangev", 13, 7 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(12), 2);
  EXPECT_EQ(h.JoinedTo(13), 0) << "launch c is owed before call 101";
}

TEST(StreamOrderJoin, LaunchesOfSeveralThreadsOnOneStreamAreQueuedInTheOrderTheyWereMade) {
  Harness h;
  // The flusher encodes the main thread's buffer (the optimizer's launches, 10 and 11 ms) before
  // the autograd thread's (backward, 1 to 3 ms), all on the same stream: the GPU ran backward
  // first.
  h.Launch(0x5, "_Z4adamv", 10, 10 * kMs);
  h.Launch(0x5, "_Z4adamv", 11, 11 * kMs);
  h.Launch(0x5, "_Z8backwardv", 1, 1 * kMs);
  h.Launch(0x5, "_Z8backwardv", 2, 2 * kMs);
  h.Launch(0x5, "_Z4gradv", 3, 3 * kMs);
  h.Kernel({.stream = 3}, "_Z8backwardv", 21, 4 * kMs);
  h.Kernel({.stream = 3}, "_Z8backwardv", 22, 5 * kMs);
  h.Kernel({.stream = 3}, "_Z4gradv", 23, 6 * kMs);
  h.Kernel({.stream = 3}, "_Z4adamv", 30, 12 * kMs);
  h.Kernel({.stream = 3}, "_Z4adamv", 31, 13 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(21), 1);
  EXPECT_EQ(h.JoinedTo(22), 2);
  EXPECT_EQ(h.JoinedTo(23), 3);
  EXPECT_EQ(h.JoinedTo(30), 10);
  EXPECT_EQ(h.JoinedTo(31), 11);
  EXPECT_EQ(h.join.stats().launches_passed_over, 0u);
}

TEST(StreamOrderJoin, EachThreadHasItsOwnPerThreadDefaultStream) {
  Harness h;
  constexpr uint64_t kPerThread = 0x2;
  h.join.AddLaunch(Stream(kPerThread, 0, 501), Identity("_Z1av"), 1, 0);
  h.join.AddLaunch(Stream(kPerThread, 0, 502), Identity("_Z1bv"), 2, 1 * kMs);
  h.join.AddLaunch(Stream(kPerThread, 0, 501), Identity("_Z1bv"), 3, 2 * kMs);
  h.Kernel({.stream = 40}, "_Z1bv", 20, 2 * kMs);  // thread 502's stream
  h.Kernel({.stream = 39}, "_Z1av", 10, 1 * kMs);  // thread 501's
  h.Kernel({.stream = 39}, "_Z1bv", 11, 3 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
  EXPECT_EQ(h.JoinedTo(11), 3);
  EXPECT_EQ(h.JoinedTo(20), 2);
  EXPECT_EQ(h.join.stats().launches_passed_over, 0u);
}

TEST(StreamOrderJoin, DevicesAreNeverMixed) {
  Harness h;
  h.join.AddLaunch(Stream(0x1, 1), Identity("_Z1av"), 1, 0);
  h.Kernel({.stream = 3, .device = 0}, "_Z1av", 10, 1 * kMs);
  h.Pass(/*final=*/true);
  EXPECT_EQ(h.JoinedTo(10), 0);
  EXPECT_EQ(h.join.stats().streams_mapped, 0u);
}

TEST(StreamOrderJoin, KernelsMustAgreeOnNameGridAndBlockButAnUnnamedLaunchFitsAnyName) {
  KernelIdentity a = Identity("_Z1av");
  EXPECT_TRUE(SameKernel(a, Identity("_Z1av")));
  EXPECT_FALSE(SameKernel(a, Identity("_Z1bv")));
  EXPECT_FALSE(SameKernel(a, Identity("_Z1av", 65)));
  KernelIdentity other_block = a;
  other_block.block[1] = 2;
  EXPECT_FALSE(SameKernel(a, other_block));
  KernelIdentity unnamed = a;
  unnamed.name_hash = 0;
  EXPECT_TRUE(SameKernel(unnamed, Identity("_Z1av")));
  EXPECT_EQ(KernelNameHash(""), 0u);
  EXPECT_NE(KernelNameHash("x"), 0u);
}

TEST(StreamOrderJoin, OnlyLaunchesInsideSampledWindowsAreQueued) {
  Harness h;
  h.Launch(0x1, "_Z1av", 1, 1 * kMs);
  h.join.WindowClosed(2 * kMs);
  h.Launch(0x1, "_Z1av", 2, 3 * kMs);  // between windows: no record will come
  h.Kernel({.stream = 3}, "_Z1av", 10, 1.5 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(10), 1);
  EXPECT_EQ(h.join.queued_launches(), 0u);
  h.join.WindowOpened(10 * kMs);
  h.Launch(0x1, "_Z1av", 3, 11 * kMs);
  h.Kernel({.stream = 3}, "_Z1av", 11, 12 * kMs);
  h.Pass();
  EXPECT_EQ(h.JoinedTo(11), 3);
  EXPECT_EQ(h.join.stats().launches_dropped, 1u);
  EXPECT_EQ(h.join.stats().launches_passed_over, 0u);
}

TEST(StreamOrderJoin, WhatIsLeftQueuedBeforeAWindowOpensIsDropped) {
  Harness h;
  h.Launch(0x1, "_Z1av", 1, 1 * kMs);  // its record never came
  h.join.WindowClosed(2 * kMs);
  h.join.WindowOpened(10 * kMs);
  EXPECT_EQ(h.join.queued_launches(), 0u);
  EXPECT_EQ(h.join.stats().launches_dropped, 1u);
}

TEST(StreamOrderJoin, BoundsHoldUnderAFlood) {
  StreamOrderJoinOptions options;
  options.max_queued = 8;
  options.max_waiting = 4;
  Harness h(options);
  for (uint32_t i = 0; i < 20; ++i) h.Launch(0x1, "_Z1av", i + 1, i * kMs);
  h.Pass();
  EXPECT_EQ(h.join.queued_launches(), 8u);
  EXPECT_EQ(h.join.stats().launches_dropped, 12u);
  for (uint32_t i = 0; i < 10; ++i) h.Kernel({.stream = 3}, "_Z7strangev", 100 + i, 30 * kMs);
  h.Pass();
  EXPECT_EQ(h.join.stats().records_dropped, 6u);
  EXPECT_LE(h.join.waiting_records(), 4u);
  h.Pass(/*final=*/true);
  EXPECT_EQ(h.emitted, 10u) << "every record goes on, joined or not";
  EXPECT_EQ(h.join.waiting_records(), 0u);
}

TEST(StreamOrderJoin, TheFinalPassSendsEverythingOn) {
  Harness h;
  h.Kernel({.stream = 3}, "_Z1av", 10, 1 * kMs);  // no launch stream at all
  h.Launch(0x1, "_Z1bv", 1, 0);
  h.Kernel({.stream = 4}, "_Z1bv", 11, 1 * kMs);
  h.Kernel({.stream = 4}, "_Z1cv", 12, 2 * kMs);
  h.Pass(/*final=*/true);
  EXPECT_EQ(h.JoinedTo(10), 0);
  EXPECT_EQ(h.JoinedTo(11), 1);
  EXPECT_EQ(h.JoinedTo(12), 0);
  EXPECT_EQ(h.join.waiting_records(), 0u);
}

}  // namespace
}  // namespace flopspy::interpose
