// The trace's definitions, read once: what each name lookup gives, and that analyses sharing
// one index see what they would with their own.
#include "flopspy/analyzers/trace_index.h"

#include <gtest/gtest.h>

#include "flopspy/analyzers/launch_overhead.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "trace_builder.h"

namespace flopspy::analyzers {
namespace {

using testing::TraceBuilder;

// Function 1 has a demangled name, function 2 only its mangled one; signature 3 is a graph
// kernel CUPTI named, with no function; signature 4 is function 2's without a name of its own.
std::vector<uint8_t> Definitions(TraceBuilder& b) {
  b.String(1, "_Z5scalePf").String(2, "scale(float*)").String(3, "_Z4copyPf");
  b.String(4, "_Z5graphPi");
  trace::FunctionDef scale{};
  scale.id = 1;
  scale.mangled_name = 1;
  scale.demangled_name = 2;
  b.Add(scale);
  trace::FunctionDef copy{};
  copy.id = 2;
  copy.mangled_name = copy.demangled_name = 3;  // the driver could not demangle it
  b.Add(copy);
  for (uint32_t id = 1; id <= 4; ++id) {
    trace::KernelSignatureDef sig{};
    sig.id = id;
    sig.function = id < 3 ? id : id == 4 ? 2 : 0;
    sig.name = id == 2 ? 3 : id == 3 ? 4 : 0;
    sig.grid[0] = 10 * id;
    b.Add(sig);
  }
  trace::StreamDef stream{};
  stream.id = 5;
  stream.handle = 0xabc;
  b.Add(stream);
  return b.Bytes();
}

TraceIndex Read(const std::vector<uint8_t>& bytes) {
  trace::TraceReader reader(trace::MemorySource(bytes));
  TraceIndex index;
  const trace::StringLookup strings = [&](uint32_t id) { return reader.String(id); };
  reader.ForEachRecord([&](const trace::RecordView& r) { index.Add(r, strings); });
  return index;
}

TEST(TraceIndex, NamesEachKernelOnce) {
  TraceBuilder b;
  const TraceIndex index = Read(Definitions(b));
  ASSERT_NE(index.Function(1), nullptr);
  EXPECT_EQ(index.Function(1)->name, "scale(float*)");
  EXPECT_EQ(index.Function(1)->mangled, "_Z5scalePf");
  // The same id for both names: no demangled name of its own, the mangled one is shown.
  EXPECT_EQ(index.Function(2)->demangled, "");
  EXPECT_EQ(index.Function(2)->name, "_Z4copyPf");
  // The timeline demangles the signature's own name where its function gave no other.
  EXPECT_EQ(index.KernelName(1), "scale(float*)");
  EXPECT_EQ(index.KernelName(2), "copy(float*)");
  EXPECT_EQ(index.KernelName(3), "graph(int*)");
  // Without a name of its own, the function's mangled name demangled.
  EXPECT_EQ(index.KernelName(4), "copy(float*)");
  EXPECT_EQ(index.KernelName(99), "kernel");
  // A signature without a function takes its facts from its own name.
  ASSERT_NE(index.FunctionOf(3), nullptr);
  EXPECT_EQ(index.FunctionOf(3)->name, "graph(int*)");
  EXPECT_EQ(index.FunctionOf(1), index.Function(1));
  EXPECT_EQ(index.FunctionOf(99), nullptr);
  EXPECT_EQ(index.SignatureName(2), "_Z4copyPf");
  ASSERT_NE(index.Signature(2), nullptr);
  EXPECT_EQ(index.Signature(2)->grid[0], 20u);
  ASSERT_NE(index.Stream(5), nullptr);
  EXPECT_EQ(index.Stream(5)->handle, 0xabcu);
  EXPECT_EQ(index.Stream(6), nullptr);
}

// AnalyzeTrace fills one index ahead of its analyses: they must come out as with their own.
TEST(TraceIndex, ASharedIndexGivesTheSameAnalyses) {
  TraceBuilder b;
  Definitions(b);
  b.Chunk(trace::ChunkSource::kThread, 7);
  for (uint32_t i = 0; i < 6; ++i) {
    trace::KernelLaunchRecord l{};
    l.api = static_cast<uint16_t>(trace::Api::kCudaLaunchKernel);
    l.enter_ns = 1000 + 100 * i;
    l.duration_ns = 5;
    l.correlation = i + 1;
    l.signature = 1 + i % 2;
    b.Add(l);
  }
  b.Chunk(trace::ChunkSource::kGpuActivity);
  for (uint32_t i = 0; i < 7; ++i) {
    trace::GpuActivityRecord g{};
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    g.start_ns = 2000 + 100 * i;
    g.end_ns = g.start_ns + 50;
    g.correlation = i < 6 ? i + 1 : 0;
    g.signature = i < 6 ? 1 + i % 2 : 3;
    b.Add(g);
  }
  const std::vector<uint8_t> bytes = b.Bytes();
  trace::TraceReader reader(trace::MemorySource(bytes));
  const trace::StringLookup strings = [&](uint32_t id) { return reader.String(id); };
  TraceIndex index;
  TraceAnalyzer shared_run(index), own_run;
  LaunchOverheadAnalyzer shared_overhead(index), own_overhead;
  reader.ForEachRecord([&](const trace::RecordView& r) {
    index.Add(r, strings);
    shared_run.Add(r, strings);
    own_run.Add(r, strings);
    shared_overhead.Add(r, strings);
    own_overhead.Add(r, strings);
  });
  const TraceAnalysis a = shared_run.Finish({}), b2 = own_run.Finish({});
  ASSERT_EQ(a.kernels.size(), 3u);
  ASSERT_EQ(b2.kernels.size(), a.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b2.kernels[i].name);
    EXPECT_EQ(a.kernels[i].executions, b2.kernels[i].executions);
  }
  EXPECT_EQ(a.unmatched_launches, 0u);
  const LaunchOverheadReport o1 = shared_overhead.Finish(), o2 = own_overhead.Finish();
  ASSERT_EQ(o1.signatures.size(), o2.signatures.size());
  for (size_t i = 0; i < o1.signatures.size(); ++i) {
    EXPECT_EQ(o1.signatures[i].demangled_name, o2.signatures[i].demangled_name);
    EXPECT_EQ(o1.signatures[i].mangled_name, o2.signatures[i].mangled_name);
    EXPECT_EQ(o1.signatures[i].queued, o2.signatures[i].queued);
  }
  EXPECT_EQ(o1.unmatched_launches, 0u);
}

}  // namespace
}  // namespace flopspy::analyzers
