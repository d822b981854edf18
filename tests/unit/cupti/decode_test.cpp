// Decoding mock activity buffers (built from the CUPTI 13 header structs) into GpuActivityRecords:
// every field, the external-correlation join in every order CUPTI may deliver, and what is
// dropped and why.
#include <gtest/gtest.h>

#include "clock.h"
#include "cupti_decode.h"
#include "mock_cupti.h"

namespace flopspy::testing {
namespace {

using interpose::ActivityBufferView;
using interpose::ActivityDecoder;
using interpose::DecoderOptions;

constexpr uint64_t kT0 = 5'000'000'000;  // any time after the decoder's valid_from

class Decode : public ::testing::Test {
 protected:
  void SetUp() override { ResetMock(); }

  DecoderOptions Options(uint32_t version = 130001) {
    DecoderOptions o;
    o.cupti_version = version;
    o.valid_from_ns = kT0 - 1'000'000'000;
    return o;
  }
  // One pass over `buffers`.
  void Pass(ActivityDecoder& decoder, std::vector<ActivityBuffer*> buffers, bool final = false) {
    std::vector<ActivityBufferView> views;
    for (ActivityBuffer* b : buffers) views.push_back(b->view());
    decoder.Decode(views, MockNextRecord, sink_, kT0 + 10'000'000'000, final);
  }

  RecordingSink sink_;
};

TEST_F(Decode, KernelFieldsAndTimesAsTheyAre) {
  ActivityDecoder decoder(Options());
  auto k = Kernel(5, kT0 + 100, kT0 + 350, "_Z6addOnePfi");
  k.deviceId = 3;
  k.contextId = 9;
  k.streamId = 13;
  k.gridX = 40;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 128;
  k.blockY = 4;
  k.blockZ = 2;
  k.dynamicSharedMemory = 4096;
  k.clusterX = 2;
  k.clusterY = 1;
  k.clusterZ = 1;
  ActivityBuffer buffer;
  buffer.Add(External(5, 77)).Add(ApiRecord(5)).Add(k);
  Pass(decoder, {&buffer});

  ASSERT_EQ(sink_.records.size(), 1u);
  const trace::GpuActivityRecord& r = sink_.records[0];
  EXPECT_EQ(r.h.type, static_cast<uint8_t>(trace::RecordType::kGpuActivity));
  EXPECT_EQ(r.h.size(), sizeof(trace::GpuActivityRecord));
  EXPECT_EQ(r.kind, static_cast<uint8_t>(trace::GpuActivityKind::kKernel));
  // The clock: CUPTI was given NowNs, so its timestamps are flopspy's, copied unchanged.
  EXPECT_EQ(r.start_ns, kT0 + 100);
  EXPECT_EQ(r.end_ns, kT0 + 350);
  EXPECT_EQ(r.correlation, 77u);
  EXPECT_EQ(r.cupti_correlation, 5u);
  EXPECT_EQ(r.device, 3);
  EXPECT_EQ(r.context, 9u);
  EXPECT_EQ(r.stream, 13u);
  EXPECT_EQ(r.h.flags, 0);
  EXPECT_EQ(r.graph_id, 0u);
  ASSERT_EQ(r.signature, 1u);
  const auto& sig = sink_.signatures[0];
  EXPECT_EQ(sig.name, "_Z6addOnePfi");
  EXPECT_EQ(sig.shape.grid[0], 40u);
  EXPECT_EQ(sig.shape.grid[1], 2u);
  EXPECT_EQ(sig.shape.block[0], 128u);
  EXPECT_EQ(sig.shape.block[1], 4u);
  EXPECT_EQ(sig.shape.block[2], 2u);
  EXPECT_EQ(sig.shape.cluster[0], 2u);
  EXPECT_EQ(sig.shape.cluster[1], 1u);
  EXPECT_EQ(sig.shape.dynamic_smem, 4096u);
  EXPECT_EQ(decoder.stats().kernels, 1u);
  EXPECT_EQ(decoder.stats().joined, 1u);
  EXPECT_EQ(decoder.stats().api_records, 1u);
  EXPECT_EQ(decoder.stats().external_correlations, 1u);
}

TEST_F(Decode, RealNowNsTimestampsPassTheClockCheck) {
  const uint64_t now = interpose::NowNs();
  DecoderOptions o = Options();
  o.valid_from_ns = now - 1'000'000'000;
  ActivityDecoder decoder(o);
  ActivityBuffer buffer;
  buffer.Add(Kernel(0, now + 10, now + 20, "k"));
  std::vector<ActivityBufferView> views{buffer.view()};
  decoder.Decode(views, MockNextRecord, sink_, interpose::NowNs(), false);
  ASSERT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(sink_.records[0].start_ns, now + 10);
  EXPECT_EQ(sink_.records[0].end_ns, now + 20);
}

TEST_F(Decode, KernelWithoutClusterMatchesLaunchesWithout) {
  ActivityDecoder decoder(Options());
  auto k = Kernel(0, kT0, kT0 + 1, "k");
  k.clusterX = k.clusterY = k.clusterZ = 1;  // what CUPTI may report for a plain launch
  ActivityBuffer buffer;
  buffer.Add(k);
  Pass(decoder, {&buffer});
  ASSERT_EQ(sink_.signatures.size(), 1u);
  EXPECT_EQ(sink_.signatures[0].shape.cluster[0], 0u);
  EXPECT_EQ(sink_.signatures[0].shape.cluster[2], 0u);
}

TEST_F(Decode, MemcpyAndMemset) {
  ActivityDecoder decoder(Options());
  CUpti_ActivityMemcpyPtoP4 peer{};
  peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  peer.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  peer.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  peer.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  peer.bytes = 1 << 20;
  peer.start = kT0 + 5;
  peer.end = kT0 + 9;
  peer.deviceId = 1;
  peer.streamId = 3;
  peer.correlationId = 12;
  ActivityBuffer buffer;
  buffer.Add(External(10, 1000))
      .Add(ApiRecord(10, CUPTI_ACTIVITY_KIND_RUNTIME,
                     CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020))
      .Add(Memcpy(10, kT0 + 1, kT0 + 4, 4096, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
                  CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE))
      .Add(External(11, 1001))
      .Add(ApiRecord(11))
      .Add(Memset(11, kT0 + 2, kT0 + 3, 512, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE))
      .Add(ApiRecord(12))
      .Add(peer);
  Pass(decoder, {&buffer});

  ASSERT_EQ(sink_.records.size(), 3u);
  const auto& copy = sink_.records[0];
  EXPECT_EQ(copy.kind, static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy));
  EXPECT_EQ(copy.copy_kind, static_cast<uint8_t>(trace::CopyKind::kHostToDevice));
  EXPECT_EQ(copy.src_kind, static_cast<uint8_t>(trace::MemoryKind::kPageable));
  EXPECT_EQ(copy.dst_kind, static_cast<uint8_t>(trace::MemoryKind::kDevice));
  EXPECT_EQ(copy.bytes, 4096u);
  EXPECT_EQ(copy.correlation, 1000u);
  EXPECT_EQ(copy.signature, 0u);
  const auto& set = sink_.records[1];
  EXPECT_EQ(set.kind, static_cast<uint8_t>(trace::GpuActivityKind::kMemset));
  EXPECT_EQ(set.dst_kind, static_cast<uint8_t>(trace::MemoryKind::kDevice));
  EXPECT_EQ(set.bytes, 512u);
  EXPECT_EQ(set.correlation, 1001u);
  const auto& p = sink_.records[2];
  EXPECT_EQ(p.kind, static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy));
  EXPECT_EQ(p.copy_kind, static_cast<uint8_t>(trace::CopyKind::kPeer));
  EXPECT_EQ(p.bytes, 1u << 20);
  EXPECT_EQ(p.device, 1);
  EXPECT_EQ(p.stream, 3u);
  EXPECT_EQ(p.correlation, 0u);  // no flopspy id was pushed around that call
  EXPECT_EQ(p.cupti_correlation, 12u);
  EXPECT_EQ(decoder.stats().memcpys, 2u);
  EXPECT_EQ(decoder.stats().memsets, 1u);
}

TEST_F(Decode, CopyAndMemoryKinds) {
  using interpose::MapCopyKind;
  using interpose::MapMemoryKind;
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD), trace::CopyKind::kHostToDevice);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA), trace::CopyKind::kHostToDevice);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH), trace::CopyKind::kDeviceToHost);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH), trace::CopyKind::kDeviceToHost);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD), trace::CopyKind::kDeviceToDevice);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_ATOA), trace::CopyKind::kDeviceToDevice);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD), trace::CopyKind::kDeviceToDevice);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_DTOA), trace::CopyKind::kDeviceToDevice);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH), trace::CopyKind::kHostToHost);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP), trace::CopyKind::kPeer);
  EXPECT_EQ(MapCopyKind(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN), trace::CopyKind::kUnknown);
  EXPECT_EQ(MapCopyKind(250), trace::CopyKind::kUnknown);
  EXPECT_EQ(MapMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE), trace::MemoryKind::kPageable);
  EXPECT_EQ(MapMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_PINNED), trace::MemoryKind::kPinned);
  EXPECT_EQ(MapMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE), trace::MemoryKind::kDevice);
  EXPECT_EQ(MapMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC), trace::MemoryKind::kDevice);
  EXPECT_EQ(MapMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_ARRAY), trace::MemoryKind::kArray);
  EXPECT_EQ(MapMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED), trace::MemoryKind::kManaged);
  EXPECT_EQ(MapMemoryKind(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC), trace::MemoryKind::kManaged);
  EXPECT_EQ(MapMemoryKind(99), trace::MemoryKind::kUnknown);
}

TEST_F(Decode, GraphKernelsShareTheGraphLaunchCorrelation) {
  ActivityDecoder decoder(Options());
  ActivityBuffer buffer;
  buffer.Add(External(40, 900))
      .Add(ApiRecord(40, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch));
  for (uint64_t node = 1; node <= 3; ++node) {
    auto k = Kernel(40, kT0 + node * 10, kT0 + node * 10 + 5, "_Z4stepv");
    k.graphId = 6;
    k.graphNodeId = 0x100000000ull + node;
    buffer.Add(k);
  }
  Pass(decoder, {&buffer});
  ASSERT_EQ(sink_.records.size(), 3u);
  for (uint64_t node = 1; node <= 3; ++node) {
    const auto& r = sink_.records[node - 1];
    EXPECT_EQ(r.correlation, 900u);
    EXPECT_EQ(r.graph_id, 6u);
    EXPECT_EQ(r.graph_node_id, 0x100000000ull + node);
    EXPECT_EQ(r.h.flags, trace::kGpuFromGraph);
    EXPECT_EQ(r.signature, 1u);  // same kernel, same shape
  }
}

TEST_F(Decode, DeviceLaunchedKernelsOnCuda13) {
  ActivityDecoder decoder(Options(130001));
  auto child = Kernel(0, kT0 + 1, kT0 + 2, "_Z5childv");
  child.isDeviceLaunched = 1;
  ActivityBuffer buffer;
  buffer.Add(Kernel(0, kT0, kT0 + 5, "_Z6parentv")).Add(child);
  Pass(decoder, {&buffer});
  ASSERT_EQ(sink_.records.size(), 2u);
  EXPECT_EQ(sink_.records[0].h.flags, 0);
  EXPECT_EQ(sink_.records[1].h.flags, trace::kGpuDeviceLaunched);
}

TEST_F(Decode, Cuda12Kernel9RecordsNeverReadPastTheirEnd) {
  // A CUDA 12.9 library writes Kernel9 (208 bytes): the byte where Kernel10 keeps
  // isDeviceLaunched is the next record's kind.
  Mock().kernel_record_size = sizeof(CUpti_ActivityKernel9);
  ActivityDecoder decoder(Options(28));
  ActivityBuffer buffer;
  auto a = Kernel(0, kT0, kT0 + 5, "a");
  a.clusterX = 4;
  a.clusterY = 1;
  a.clusterZ = 1;
  buffer.Add(a, sizeof(CUpti_ActivityKernel9))
      .Add(Kernel(0, kT0 + 6, kT0 + 9, "b"), sizeof(CUpti_ActivityKernel9));
  Pass(decoder, {&buffer});
  ASSERT_EQ(sink_.records.size(), 2u);
  EXPECT_EQ(sink_.records[0].h.flags, 0);
  EXPECT_EQ(sink_.records[1].h.flags, 0);
  EXPECT_EQ(sink_.records[1].start_ns, kT0 + 6);
  EXPECT_EQ(sink_.signatures[0].shape.cluster[0], 4u);  // Kernel8 and later have clusters
  EXPECT_EQ(sink_.signatures[1].name, "b");
}

TEST_F(Decode, KernelIsJoinedWhenItComesInALaterPass) {
  ActivityDecoder decoder(Options());
  ActivityBuffer api;
  api.Add(External(3, 300)).Add(ApiRecord(3));
  Pass(decoder, {&api});
  EXPECT_TRUE(sink_.records.empty());
  ActivityBuffer gpu;
  gpu.Add(Kernel(3, kT0, kT0 + 1, "k"));
  Pass(decoder, {&gpu});
  ASSERT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(sink_.records[0].correlation, 300u);
}

TEST_F(Decode, RecordsOutOfOrderAcrossBuffersOfOnePass) {
  ActivityDecoder decoder(Options());
  ActivityBuffer gpu;  // completed first
  gpu.Add(Kernel(7, kT0, kT0 + 1, "k")).Add(Kernel(8, kT0 + 2, kT0 + 3, "k"));
  ActivityBuffer api;
  api.Add(External(7, 70)).Add(ApiRecord(7)).Add(External(8, 80)).Add(ApiRecord(8));
  Pass(decoder, {&gpu, &api});
  ASSERT_EQ(sink_.records.size(), 2u);
  EXPECT_EQ(sink_.records[0].correlation, 70u);
  EXPECT_EQ(sink_.records[1].correlation, 80u);
  EXPECT_EQ(decoder.stats().deferred, 0u);
}

TEST_F(Decode, KernelBeforeItsApiRecordWaitsForIt) {
  ActivityDecoder decoder(Options());
  ActivityBuffer gpu;
  gpu.Add(Kernel(9, kT0, kT0 + 1, "k"));
  Pass(decoder, {&gpu});
  EXPECT_TRUE(sink_.records.empty());
  EXPECT_EQ(decoder.waiting(), 1u);
  ActivityBuffer api;
  api.Add(External(9, 99)).Add(ApiRecord(9));
  Pass(decoder, {&api});
  ASSERT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(sink_.records[0].correlation, 99u);
  EXPECT_EQ(sink_.signatures[0].name, "k");  // the name was kept across passes
  EXPECT_EQ(decoder.stats().deferred, 1u);
  EXPECT_EQ(decoder.waiting(), 0u);
}

TEST_F(Decode, WaitingEndsWhenItsApiRecordCameWithoutFlopspyId) {
  ActivityDecoder decoder(Options());
  ActivityBuffer gpu;
  gpu.Add(Kernel(20, kT0, kT0 + 1, "k"));
  Pass(decoder, {&gpu});
  ActivityBuffer api;
  api.Add(ApiRecord(20)).Add(ApiRecord(21));  // launched by code flopspy does not hook
  Pass(decoder, {&api});
  ASSERT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(sink_.records[0].correlation, 0u);
  EXPECT_EQ(decoder.stats().unjoined, 1u);
}

TEST_F(Decode, WaitingIsBoundedInPassesAndEndsAtTheFinalPass) {
  DecoderOptions o = Options();
  o.max_defer_passes = 2;
  ActivityDecoder decoder(o);
  ActivityBuffer gpu;
  gpu.Add(Kernel(50, kT0, kT0 + 1, "k")).Add(Kernel(51, kT0, kT0 + 1, "k"));
  Pass(decoder, {&gpu});
  Pass(decoder, {});
  Pass(decoder, {});
  EXPECT_TRUE(sink_.records.empty());
  Pass(decoder, {});  // third pass without its API record: given up
  EXPECT_EQ(sink_.records.size(), 2u);

  ActivityDecoder other(Options());
  ActivityBuffer more;
  more.Add(Kernel(60, kT0, kT0 + 1, "k"));
  Pass(other, {&more});
  EXPECT_EQ(sink_.records.size(), 2u);
  Pass(other, {}, /*final=*/true);
  EXPECT_EQ(sink_.records.size(), 3u);
  EXPECT_EQ(other.waiting(), 0u);
}

TEST_F(Decode, WaitingIsBoundedInRecords) {
  DecoderOptions o = Options();
  o.max_deferred = 2;
  ActivityDecoder decoder(o);
  ActivityBuffer gpu;
  gpu.Add(Kernel(70, kT0, kT0 + 1, "k"))
      .Add(Kernel(71, kT0, kT0 + 1, "k"))
      .Add(Kernel(72, kT0, kT0 + 1, "k"));
  Pass(decoder, {&gpu});
  ASSERT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(sink_.records[0].cupti_correlation, 70u);  // the oldest made room
  EXPECT_EQ(decoder.waiting(), 2u);
}

TEST_F(Decode, FinalPassDoesNotWait) {
  ActivityDecoder decoder(Options());
  ActivityBuffer gpu;
  gpu.Add(Kernel(80, kT0, kT0 + 1, "k"));
  Pass(decoder, {&gpu}, /*final=*/true);
  ASSERT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(sink_.records[0].correlation, 0u);
}

TEST_F(Decode, CorrelationMapIsBounded) {
  DecoderOptions o = Options();
  o.correlation_slots = 4;
  ActivityDecoder decoder(o);
  ActivityBuffer api;
  for (uint32_t c = 1; c <= 6; ++c) api.Add(External(c, 1000 + c)).Add(ApiRecord(c));
  Pass(decoder, {&api});
  EXPECT_EQ(decoder.Correlation(1), 0u);  // slot reused by 5
  EXPECT_EQ(decoder.Correlation(2), 0u);
  EXPECT_EQ(decoder.Correlation(3), 1003u);
  EXPECT_EQ(decoder.Correlation(6), 1006u);
  EXPECT_EQ(decoder.Correlation(0), 0u);
}

TEST_F(Decode, OtherToolsExternalIdsAreNotFlopspys) {
  ActivityDecoder decoder(Options());
  ActivityBuffer buffer;
  buffer
      .Add(External(4, 555, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0))  // Kineto's
      .Add(External(4, 44))
      .Add(ApiRecord(4))
      .Add(External(5, 666, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1))
      .Add(ApiRecord(5))
      .Add(Kernel(4, kT0, kT0 + 1, "k"))
      .Add(Kernel(5, kT0, kT0 + 1, "k"));
  Pass(decoder, {&buffer});
  ASSERT_EQ(sink_.records.size(), 2u);
  EXPECT_EQ(sink_.records[0].correlation, 44u);
  EXPECT_EQ(sink_.records[1].correlation, 0u);
  EXPECT_EQ(decoder.stats().foreign_correlations, 2u);
}

TEST_F(Decode, UnfinishedAndOffClockRecordsAreDroppedAndCounted) {
  ActivityDecoder decoder(Options());
  ActivityBuffer buffer;
  buffer.Add(Kernel(0, kT0, 0, "unfinished"))
      .Add(Kernel(0, 0, kT0, "no start"))
      .Add(Kernel(0, kT0 + 10, kT0 + 5, "backwards"))
      .Add(Kernel(0, 1000, 2000, "another clock, too early"))
      .Add(Kernel(0, kT0 * 1000, kT0 * 1000 + 5, "TSC ticks, too late"))
      .Add(Kernel(0, kT0, kT0 + 1, "good"));
  Pass(decoder, {&buffer});
  ASSERT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(sink_.signatures[0].name, "good");
  EXPECT_EQ(decoder.stats().incomplete, 3u);
  EXPECT_EQ(decoder.stats().off_clock, 2u);
}

TEST_F(Decode, KernelWithoutANameGetsAnUnnamedSignature) {
  ActivityDecoder decoder(Options());
  ActivityBuffer buffer;
  buffer.Add(Kernel(0, kT0, kT0 + 1, nullptr));
  Pass(decoder, {&buffer});
  ASSERT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(sink_.signatures[0].name, "");
}

TEST_F(Decode, OtherKindsAreSkippedAndBadBuffersStopTheWalk) {
  ActivityDecoder decoder(Options());
  CUpti_ActivityContext3 context{};
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  ActivityBuffer buffer;
  buffer.Add(context).Add(Kernel(0, kT0, kT0 + 1, "k"));
  ActivityBuffer bad;
  CUpti_ActivityAPI unknown{};
  unknown.kind = static_cast<CUpti_ActivityKind>(4000);
  bad.Add(unknown);
  Pass(decoder, {&buffer, &bad});
  EXPECT_EQ(sink_.records.size(), 1u);
  EXPECT_EQ(decoder.stats().other_records, 1u);
  EXPECT_EQ(decoder.stats().iterator_errors, 2u);  // once per walk over the bad buffer
}

}  // namespace
}  // namespace flopspy::testing
