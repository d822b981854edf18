// Every record type written by the chunk writer comes back from the reader byte for byte.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::trace {
namespace {

using testing::TraceBuilder;

template <class T>
T Filled(uint8_t seed) {
  T record{};
  auto* bytes = reinterpret_cast<uint8_t*>(&record);
  for (size_t i = 0; i < sizeof(T); ++i) bytes[i] = static_cast<uint8_t>(seed + i * 7);
  record.h = MakeHeader<T>(0x5A);
  return record;
}

template <class T>
void ExpectSame(const T& expected, const RecordView& view) {
  ASSERT_EQ(view.bytes.size(), sizeof(T)) << RecordTypeName(view.type);
  const T got = view.As<T>();
  EXPECT_EQ(0, std::memcmp(&expected, &got, sizeof(T))) << RecordTypeName(view.type);
}

TEST(RoundTrip, EveryRecordTypeSurvivesWriteAndRead) {
  TraceBuilder b;
  const auto thread = Filled<ThreadDef>(1);
  const auto function = Filled<FunctionDef>(2);
  const auto signature = Filled<KernelSignatureDef>(3);
  const auto stream = Filled<StreamDef>(4);
  const auto api = Filled<ApiCallRecord>(5);
  const auto launch = Filled<KernelLaunchRecord>(6);
  const auto params = Filled<LaunchParamsRecord>(7);
  const auto gpu = Filled<GpuActivityRecord>(8);
  const auto library = Filled<LibraryCallRecord>(9);
  const auto cpu = Filled<CpuSampleRecord>(10);
  const auto region = Filled<RegionRecord>(11);
  const auto lost = Filled<LostRecordsRecord>(12);
  const auto metrics = Filled<KernelMetricsRecord>(13);
  const auto warning = Filled<WarningRecord>(14);
  const auto end = Filled<TraceEndRecord>(15);
  const auto groups = Filled<LibraryGroupsRecord>(16);
  const auto range = Filled<RangeRecord>(17);
  const auto resource_name = Filled<ResourceNameRecord>(18);
  const auto range_payload = Filled<RangePayloadRecord>(19);
  const auto py_code = Filled<PyCodeRecord>(20);
  const auto stack = Filled<StackRecord>(21);
  const auto module = Filled<ModuleRecord>(22);
  const auto stack_sample = Filled<StackSampleRecord>(23);
  const auto graph_node = Filled<GraphNodeRecord>(24);
  const auto graph_event = Filled<GraphEventRecord>(25);

  b.Chunk(ChunkSource::kProcess).String(7, "void kernel<float>(int)").Metadata(R"({"a":1})");
  b.AddRaw(&thread, sizeof thread).AddRaw(&function, sizeof function);
  b.AddRaw(&signature, sizeof signature).AddRaw(&stream, sizeof stream);
  b.Chunk(ChunkSource::kThread, 77).AddRaw(&api, sizeof api).AddRaw(&launch, sizeof launch);
  b.AddRaw(&params, sizeof params).AddRaw(&library, sizeof library).AddRaw(&groups, sizeof groups);
  b.AddRaw(&region, sizeof region).AddRaw(&range, sizeof range);
  b.AddRaw(&resource_name, sizeof resource_name).AddRaw(&range_payload, sizeof range_payload);
  b.AddRaw(&py_code, sizeof py_code).AddRaw(&stack, sizeof stack);
  b.AddRaw(&module, sizeof module).AddRaw(&stack_sample, sizeof stack_sample);
  b.AddRaw(&graph_node, sizeof graph_node).AddRaw(&graph_event, sizeof graph_event);
  b.Chunk(ChunkSource::kGpuActivity).AddRaw(&gpu, sizeof gpu).AddRaw(&metrics, sizeof metrics);
  b.Chunk(ChunkSource::kCpuSampler).AddRaw(&cpu, sizeof cpu);
  b.Chunk(ChunkSource::kProcess).AddRaw(&lost, sizeof lost).AddRaw(&warning, sizeof warning);
  b.AddRaw(&end, sizeof end);

  TraceReader reader(MemorySource(b.Bytes()));
  ASSERT_TRUE(reader.header_ok()) << reader.header_status().message;
  EXPECT_EQ(reader.header().pid, 4242u);
  EXPECT_EQ(reader.host(), "testhost");

  std::map<RecordType, int> seen;
  const ReadSummary summary = reader.ForEachRecord([&](const RecordView& v) {
    ++seen[v.type];
    switch (v.type) {
      case RecordType::kString: {
        const auto def = v.As<StringDef>();
        EXPECT_EQ(def.id, 7u);
        EXPECT_EQ(v.Text(sizeof(StringDef), def.length), "void kernel<float>(int)");
        EXPECT_EQ(v.bytes.size() % 8, 0u);
        break;
      }
      case RecordType::kMetadata: {
        const auto block = v.As<MetadataBlock>();
        EXPECT_EQ(v.Text(sizeof(MetadataBlock), block.length), R"({"a":1})");
        break;
      }
      case RecordType::kThread:
        ExpectSame(thread, v);
        break;
      case RecordType::kFunction:
        ExpectSame(function, v);
        break;
      case RecordType::kKernelSignature:
        ExpectSame(signature, v);
        break;
      case RecordType::kStream:
        ExpectSame(stream, v);
        break;
      case RecordType::kApiCall:
        ExpectSame(api, v);
        EXPECT_EQ(v.thread_id, 77u);
        EXPECT_EQ(v.source, ChunkSource::kThread);
        break;
      case RecordType::kKernelLaunch:
        ExpectSame(launch, v);
        break;
      case RecordType::kLaunchParams:
        ExpectSame(params, v);
        break;
      case RecordType::kGpuActivity:
        ExpectSame(gpu, v);
        break;
      case RecordType::kLibraryCall:
        ExpectSame(library, v);
        break;
      case RecordType::kLibraryGroups:
        ExpectSame(groups, v);
        break;
      case RecordType::kCpuSample:
        ExpectSame(cpu, v);
        break;
      case RecordType::kRegion:
        ExpectSame(region, v);
        break;
      case RecordType::kRange:
        ExpectSame(range, v);
        EXPECT_EQ(v.thread_id, 77u);
        break;
      case RecordType::kResourceName:
        ExpectSame(resource_name, v);
        break;
      case RecordType::kRangePayload:
        ExpectSame(range_payload, v);
        break;
      case RecordType::kPyCode:
        ExpectSame(py_code, v);
        break;
      case RecordType::kStack:
        ExpectSame(stack, v);
        break;
      case RecordType::kModule:
        ExpectSame(module, v);
        break;
      case RecordType::kStackSample:
        ExpectSame(stack_sample, v);
        EXPECT_EQ(v.thread_id, 77u);
        break;
      case RecordType::kGraphNode:
        ExpectSame(graph_node, v);
        break;
      case RecordType::kGraphEvent:
        ExpectSame(graph_event, v);
        break;
      case RecordType::kLostRecords:
        ExpectSame(lost, v);
        break;
      case RecordType::kKernelMetrics:
        ExpectSame(metrics, v);
        break;
      case RecordType::kWarning:
        ExpectSame(warning, v);
        break;
      case RecordType::kTraceEnd:
        ExpectSame(end, v);
        break;
      case RecordType::kPadding:
        ADD_FAILURE() << "no padding was written";
        break;
    }
  });
  EXPECT_EQ(summary.status, ReadStatus::kOk) << summary.message;
  EXPECT_TRUE(summary.ended_cleanly);
  EXPECT_EQ(summary.chunks, 5u);
  EXPECT_EQ(summary.records, 27u);
  EXPECT_EQ(summary.sequence_gaps, 0u);
  // Every type but padding appears exactly once.
  for (int t = 1; t < kRecordTypeCount; ++t) {
    const auto type = static_cast<RecordType>(t);
    if (RecordTypeName(type) == "unknown") continue;
    EXPECT_EQ(seen[type], 1) << RecordTypeName(type);
  }
  EXPECT_EQ(reader.String(7), "void kernel<float>(int)");
}

TEST(RoundTrip, LaunchRecordStaysWithinTheSixtyFourByteBudget) {
  EXPECT_LE(sizeof(KernelLaunchRecord), 64u);
}

TEST(RoundTrip, UnknownRecordTypesAreSkippedBySize) {
  // A newer writer's record type: the reader hands it over and goes on with the next one.
  struct Future {
    RecordHeader h;
    uint32_t payload[5];
  } future{};
  future.h = RecordHeader{200, 0, sizeof(Future) / 8};
  TraceBuilder b;
  RegionRecord region{};
  region.name = 3;
  b.Chunk(ChunkSource::kThread, 1).AddRaw(&future, sizeof future).Add(region);
  TraceReader reader(MemorySource(b.Bytes()));
  int regions = 0, unknown = 0;
  const auto s = reader.ForEachRecord([&](const RecordView& v) {
    if (v.type == RecordType::kRegion) ++regions;
    if (static_cast<int>(v.type) == 200) ++unknown;
  });
  EXPECT_EQ(s.status, ReadStatus::kOk);
  EXPECT_EQ(regions, 1);
  EXPECT_EQ(unknown, 1);
}

TEST(RoundTrip, ShorterRecordsFromOlderWritersReadAsZeroTail) {
  // An older writer's ApiCallRecord without the last two fields.
  ApiCallRecord full{};
  full.api = 3;
  full.correlation = 99;
  full.stream = 123;
  full.bytes = 456;
  full.h = RecordHeader{static_cast<uint8_t>(RecordType::kApiCall), 0, 5};  // 40 bytes
  TraceBuilder b;
  b.Chunk(ChunkSource::kThread, 1).AddRaw(&full, 40);
  TraceReader reader(MemorySource(b.Bytes()));
  reader.ForEachRecord([&](const RecordView& v) {
    const auto api = v.As<ApiCallRecord>();
    EXPECT_EQ(api.correlation, 99u);
    EXPECT_EQ(api.stream, 0u);
    EXPECT_EQ(api.bytes, 0u);
  });
}

TEST(RoundTrip, ChunkBuilderRefusesRecordsThatDoNotFit) {
  ChunkBuilder chunk(128);
  ApiCallRecord api{};
  api.h = MakeHeader<ApiCallRecord>();
  EXPECT_TRUE(chunk.Append(api));
  EXPECT_TRUE(chunk.Append(api));
  EXPECT_FALSE(chunk.Append(api));  // 3 * 56 > 128
  EXPECT_EQ(chunk.record_count(), 2u);
  EXPECT_FALSE(chunk.Append(&api, 12));  // not a multiple of 8
}

}  // namespace
}  // namespace flopspy::trace
