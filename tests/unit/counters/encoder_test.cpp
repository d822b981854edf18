// The flusher turns a counter-measured launch's raw record into a KernelMetrics record that
// carries the same KernelSignatureDef id as the launch it follows.
#include "encoder.h"

#include <gtest/gtest.h>

#include <vector>

#include "flopspy/trace/reader.h"
#include "flopspy/trace/writer.h"
#include "raw_events.h"

namespace flopspy::testing {
namespace {

TEST(CounterEncoder, KernelMetricsTakeTheirLaunchSignature) {
  std::vector<uint8_t> bytes;
  trace::TraceWriter writer([&](std::span<const uint8_t> b) {
    bytes.insert(bytes.end(), b.begin(), b.end());
    return true;
  });
  trace::FileIdentity id;
  id.pid = 1;
  id.host = "test";
  writer.WriteHeader(trace::MakeFileHeader(id));
  trace::ChunkBuilder chunk;
  chunk.Reset(trace::ChunkSource::kThread, 42);
  interpose::Encoder encoder([&](trace::ChunkBuilder& c) {
    writer.WriteChunk(c);
    c.Reset(c.source(), c.thread_id());
  });

  // Two launches of one function with different grids: two signatures.
  for (uint32_t grid : {8u, 16u}) {
    interpose::RawLaunch launch{};
    launch.api = static_cast<uint16_t>(trace::Api::kCuLaunchKernel);
    launch.correlation = grid;
    launch.function = 99;  // not in the function table: no FunctionDef, the id is kept
    launch.grid[0] = grid, launch.grid[1] = launch.grid[2] = 1;
    launch.block[0] = 128, launch.block[1] = launch.block[2] = 1;
    launch.param_bytes = 0;
    launch.Seal();
    encoder.Encode(reinterpret_cast<const uint8_t*>(&launch), launch.h.size(), chunk);
  }
  interpose::RawKernelMetrics metrics{};
  metrics.record.correlation = 16;
  metrics.record.samples = 2;
  metrics.record.passes = 5;
  metrics.record.valid = trace::kMetricsFp32;
  metrics.record.flops_fp32 = 1234;
  metrics.function = 99;
  metrics.grid[0] = 16, metrics.grid[1] = metrics.grid[2] = 1;
  metrics.block[0] = 128, metrics.block[1] = metrics.block[2] = 1;
  metrics.Seal();
  encoder.Encode(reinterpret_cast<const uint8_t*>(&metrics), metrics.record.h.size(), chunk);
  writer.WriteChunk(chunk);

  std::vector<trace::KernelLaunchRecord> launches;
  std::vector<trace::KernelMetricsRecord> seen;
  int signatures = 0;
  trace::TraceReader reader(trace::MemorySource(bytes));
  const auto summary = reader.ForEachRecord([&](const trace::RecordView& r) {
    if (r.type == trace::RecordType::kKernelLaunch) {
      launches.push_back(r.As<trace::KernelLaunchRecord>());
    }
    if (r.type == trace::RecordType::kKernelMetrics) {
      seen.push_back(r.As<trace::KernelMetricsRecord>());
    }
    if (r.type == trace::RecordType::kKernelSignature) ++signatures;
  });
  ASSERT_EQ(summary.status, trace::ReadStatus::kOk) << summary.message;
  ASSERT_EQ(launches.size(), 2u);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(signatures, 2);  // the metrics record defined no new signature
  EXPECT_EQ(seen[0].signature, launches[1].signature);
  EXPECT_NE(seen[0].signature, launches[0].signature);
  EXPECT_EQ(seen[0].correlation, 16u);
  EXPECT_EQ(seen[0].samples, 2);
  EXPECT_EQ(seen[0].passes, 5);
  EXPECT_EQ(seen[0].flops_fp32, 1234);
  EXPECT_EQ(seen[0].h.size(), sizeof(trace::KernelMetricsRecord));
}

}  // namespace
}  // namespace flopspy::testing
