// Ranges: NVTX push/pop nesting per thread and domain, start/end across threads, unclosed and
// unmatched edges, flopspy regions beside NVTX, and the kernels launched inside each range.
#include "flopspy/analyzers/ranges.h"

#include <gtest/gtest.h>

#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::analyzers {
namespace {

using testing::TraceBuilder;
using trace::ChunkSource;
using trace::RangeEdge;

// Strings: 1 the ATen multiply kernel (the catalog counts n FLOPs), 2 a kernel it cannot model.
class RangesTest : public ::testing::Test {
 protected:
  RangesTest() {
    b_.String(1, testing::kAtenMulKernel).String(2, "mystery_kernel");
    b_.String(10, "step").String(11, "forward").String(12, "attention").String(13, "ncclAllReduce");
    b_.String(14, "NCCL").String(15, "tick").String(16, "compute stream");
    trace::FunctionDef mul = testing::KernelFunction(1, 1, 3);
    testing::SetElementwiseLayout(mul, 4, 24);
    b_.Add(mul).Add(testing::KernelFunction(2, 2));
    b_.Add(testing::KernelSignature(1, 1, 4, 1, 256)).Add(testing::KernelSignature(2, 2, 1, 1, 32));
  }

  // A kernel launched by `thread` at `launch_ns`, run for `gpu_ns` from `launch_ns + 100`.
  void Kernel(uint32_t thread, uint32_t signature, uint64_t launch_ns, uint64_t gpu_ns,
              uint32_t n = 1000) {
    ++correlation_;
    b_.Chunk(ChunkSource::kThread, thread)
        .Add(testing::KernelLaunch(signature, correlation_, launch_ns, 10, n));
    b_.Chunk(ChunkSource::kGpuActivity)
        .Add(testing::KernelExecution(signature, correlation_, launch_ns + 100, gpu_ns, 1));
  }
  void Nvtx(uint32_t thread, RangeEdge edge, uint64_t t, uint32_t name = 0, uint32_t domain = 0,
            uint64_t id = 0) {
    b_.Chunk(ChunkSource::kThread, thread).Add(testing::RangeEvent(edge, t, name, domain, id));
  }

  RangeReport Analyze() {
    trace::TraceReader reader(trace::MemorySource(b_.Bytes()));
    TraceAnalyzer analyzer;
    RangeCollector ranges;
    const StringLookup strings = [&](uint32_t id) { return reader.String(id); };
    reader.ForEachRecord([&](const trace::RecordView& r) {
      analyzer.Add(r, strings);
      ranges.Add(r, strings);
    });
    const TraceAnalysis run = analyzer.Finish({});
    return AnalyzeRanges(ranges.Finish(), run.activities);
  }

  static const RangeStats& Find(const RangeReport& report, std::string_view name,
                                std::string_view domain = "") {
    for (const RangeStats& s : report.ranges) {
      if (s.name == name && s.domain == domain) return s;
    }
    ADD_FAILURE() << "no range " << name;
    static const RangeStats none;
    return none;
  }

  TraceBuilder b_;
  uint64_t correlation_ = 0;
};

TEST_F(RangesTest, NestedPushPopSplitsInclusiveAndExclusive) {
  Nvtx(7, RangeEdge::kPush, 1000, 10);  // step 1000..5000
  Nvtx(7, RangeEdge::kPush, 2000, 11);  // forward 2000..3000
  Kernel(7, 1, 2500, 100);              // inside forward
  Nvtx(7, RangeEdge::kPop, 3000);
  Kernel(7, 2, 3500, 200);  // inside step only, FLOPs unknown
  Nvtx(7, RangeEdge::kPop, 5000);
  Kernel(7, 1, 6000, 400);  // outside every range
  const RangeReport report = Analyze();
  ASSERT_EQ(report.ranges.size(), 2u);
  EXPECT_EQ(report.ranges[0].name, "step");  // longest CPU time first
  const RangeStats& step = Find(report, "step");
  EXPECT_EQ(step.count, 1u);
  EXPECT_DOUBLE_EQ(step.cpu_ns, 4000);
  EXPECT_DOUBLE_EQ(step.cpu_self_ns, 3000);
  EXPECT_EQ(step.kernels, 2u);
  EXPECT_DOUBLE_EQ(step.gpu_ns, 300);
  EXPECT_DOUBLE_EQ(step.gpu_self_ns, 200);
  EXPECT_DOUBLE_EQ(step.flops, 1000);  // the multiply's n; the mystery kernel has none
  EXPECT_DOUBLE_EQ(step.FlopCoverage(), 100.0 / 300.0);
  EXPECT_DOUBLE_EQ(step.AchievedFlopRate(), 1000 / 100e-9);
  const RangeStats& forward = Find(report, "forward");
  EXPECT_DOUBLE_EQ(forward.cpu_ns, 1000);
  EXPECT_DOUBLE_EQ(forward.gpu_ns, 100);
  EXPECT_DOUBLE_EQ(forward.gpu_self_ns, 100);
  ASSERT_EQ(report.paths.size(), 1u);
  EXPECT_EQ(report.paths[0].path, "step > forward");
  EXPECT_EQ(report.paths[0].count, 1u);
}

TEST_F(RangesTest, ThreePathLevelsAndRepeats) {
  for (uint64_t t : {10'000u, 20'000u}) {
    Nvtx(7, RangeEdge::kPush, t, 10);
    Nvtx(7, RangeEdge::kPush, t + 100, 11);
    Nvtx(7, RangeEdge::kPush, t + 200, 12);
    Nvtx(7, RangeEdge::kPop, t + 300);
    Nvtx(7, RangeEdge::kPop, t + 400);
    Nvtx(7, RangeEdge::kPop, t + 500);
  }
  const RangeReport report = Analyze();
  EXPECT_EQ(Find(report, "attention").count, 2u);
  EXPECT_DOUBLE_EQ(Find(report, "forward").cpu_self_ns, 2 * 200);
  ASSERT_EQ(report.paths.size(), 2u);
  EXPECT_EQ(report.paths[0].path, "step > forward");
  EXPECT_EQ(report.paths[1].path, "step > forward > attention");
  EXPECT_EQ(report.paths[1].count, 2u);
}

TEST_F(RangesTest, PushPopOnlyCountsItsOwnThreadsLaunches) {
  Nvtx(7, RangeEdge::kPush, 1000, 10);
  Kernel(8, 1, 1500, 50);  // another thread's launch
  Nvtx(7, RangeEdge::kPop, 2000);
  const RangeReport report = Analyze();
  EXPECT_EQ(Find(report, "step").kernels, 0u);
}

TEST_F(RangesTest, StartEndPairsAcrossThreadsAndTakesEveryThreadsLaunches) {
  Nvtx(7, RangeEdge::kStart, 1000, 13, 14, 42);
  Kernel(8, 1, 1500, 50);
  Kernel(9, 1, 1700, 60);
  Nvtx(8, RangeEdge::kEnd, 2000, 0, 14, 42);
  Kernel(8, 1, 2500, 70);  // after the end
  const RangeReport report = Analyze();
  const RangeStats& s = Find(report, "ncclAllReduce", "NCCL");
  EXPECT_EQ(s.count, 1u);
  EXPECT_DOUBLE_EQ(s.cpu_ns, 1000);
  EXPECT_EQ(s.kernels, 2u);
  EXPECT_DOUBLE_EQ(s.gpu_ns, 110);
}

TEST_F(RangesTest, DomainsNestApartOnOneThread) {
  Nvtx(7, RangeEdge::kPush, 1000, 10);      // default domain
  Nvtx(7, RangeEdge::kPush, 1100, 13, 14);  // NCCL domain
  Nvtx(7, RangeEdge::kPop, 1200);           // closes "step", the default domain's innermost
  Nvtx(7, RangeEdge::kPop, 1300, 0, 14);
  const RangeReport report = Analyze();
  EXPECT_DOUBLE_EQ(Find(report, "step").cpu_ns, 200);
  EXPECT_DOUBLE_EQ(Find(report, "ncclAllReduce", "NCCL").cpu_ns, 200);
  EXPECT_TRUE(report.paths.empty());
}

TEST_F(RangesTest, UnclosedUnmatchedMarksAndResourceNames) {
  Nvtx(7, RangeEdge::kPop, 500);  // nothing open
  Nvtx(7, RangeEdge::kPush, 1000, 10);
  Nvtx(7, RangeEdge::kPush, 1100, 11);
  Nvtx(7, RangeEdge::kPop, 1200);            // closes forward; step stays open
  Nvtx(7, RangeEdge::kEnd, 1300, 0, 0, 99);  // unknown id
  Nvtx(7, RangeEdge::kMark, 1400, 15);
  Nvtx(7, RangeEdge::kMark, 1500, 15);
  b_.Chunk(ChunkSource::kThread, 7)
      .Add(testing::ResourceName(trace::NamedResource::kCudaStream, 0xabc, 16));
  const RangeReport report = Analyze();
  EXPECT_EQ(report.unmatched_ends, 2u);
  const RangeStats& step = Find(report, "step");
  EXPECT_EQ(step.count, 0u);
  EXPECT_EQ(step.open, 1u);
  EXPECT_EQ(Find(report, "forward").count, 1u);
  EXPECT_EQ(Find(report, "tick").marks, 2u);
  EXPECT_TRUE(report.paths.empty());  // forward's parent never closed
  ASSERT_EQ(report.resource_names.size(), 1u);
  EXPECT_EQ(report.resource_names.begin()->second, "compute stream");
}

TEST_F(RangesTest, FlopspyRegionsAreRangesOfTheirOwnSource) {
  b_.Chunk(ChunkSource::kThread, 7)
      .Add(testing::RegionEvent(trace::RegionEdge::kBegin, 1000, 10))
      .Add(testing::RegionEvent(trace::RegionEdge::kBegin, 1100, 11));
  Kernel(7, 1, 1200, 30);
  b_.Chunk(ChunkSource::kThread, 7)
      .Add(testing::RegionEvent(trace::RegionEdge::kEnd, 1300, 11))
      .Add(testing::RegionEvent(trace::RegionEdge::kEnd, 2000, 10));
  const RangeReport report = Analyze();
  const RangeStats& step = Find(report, "step");
  EXPECT_EQ(step.source, RangeSource::kRegion);
  EXPECT_DOUBLE_EQ(step.cpu_ns, 1000);
  EXPECT_DOUBLE_EQ(step.gpu_ns, 30);
  EXPECT_DOUBLE_EQ(step.gpu_self_ns, 0);
  ASSERT_EQ(report.paths.size(), 1u);
  EXPECT_EQ(report.paths[0].path, "step > forward");
}

// NVTX payloads (NCCL): a RangePayloadRecord after a push or start gives that range its message
// size; the row sums them. One after a mark or without a size adds nothing.
TEST_F(RangesTest, PayloadBytesAddUpPerRangeName) {
  const auto payload = [this](uint32_t flags, uint64_t bytes) {
    trace::RangePayloadRecord p{};
    p.h = trace::MakeHeader<trace::RangePayloadRecord>();
    p.flags = flags;
    p.bytes = bytes;
    b_.Chunk(ChunkSource::kThread, 7).Add(p);
  };
  Nvtx(7, RangeEdge::kPush, 1000, 13, 14);
  payload(trace::kPayloadBytes | trace::kPayloadComm, 4096);
  Nvtx(7, RangeEdge::kPop, 1100, 0, 14);
  Nvtx(7, RangeEdge::kStart, 1200, 13, 14, 5);
  payload(trace::kPayloadBytes, 1 << 20);
  Nvtx(7, RangeEdge::kEnd, 1300, 0, 14, 5);
  Nvtx(7, RangeEdge::kPush, 1400, 13, 14);
  payload(trace::kPayloadComm, 777);  // no size
  Nvtx(7, RangeEdge::kPop, 1500, 0, 14);
  Nvtx(7, RangeEdge::kMark, 1600, 15);
  payload(trace::kPayloadBytes, 99);  // after a mark: no range to add it to
  Nvtx(7, RangeEdge::kPush, 1700, 10);
  Nvtx(7, RangeEdge::kPop, 1800);
  const RangeReport report = Analyze();
  const RangeStats& nccl = Find(report, "ncclAllReduce", "NCCL");
  EXPECT_EQ(nccl.count, 3u);
  EXPECT_EQ(nccl.bytes, 4096u + (1u << 20));
  EXPECT_EQ(nccl.bytes_ranges, 2u);
  EXPECT_EQ(Find(report, "step").bytes_ranges, 0u);
  EXPECT_EQ(Find(report, "tick").bytes, 0u);
}

TEST(RangeGroupName, NumberedStepsGatherInOneRow) {
  EXPECT_EQ(RangeGroupName("ProfilerStep#12"), "ProfilerStep#N");
  EXPECT_EQ(RangeGroupName("training_step_3"), "training_step_N");
  EXPECT_EQ(RangeGroupName("step 4"), "step N");
  EXPECT_EQ(RangeGroupName("conv2d"), "conv2d");
  EXPECT_EQ(RangeGroupName("layer12"), "layer12");
  EXPECT_EQ(RangeGroupName("#3"), "#3");
}

}  // namespace
}  // namespace flopspy::analyzers
