// NCCL in numbers and in traces (docs/nccl.md): nccl-tests' sizes and bus-bandwidth factors, a
// trace's collectives with their kernels, bandwidths and the share compute kernels hid, and the
// same collective across two ranks: start skew, waiting, the straggler.
#include "flopspy/analyzers/communication.h"

#include <gtest/gtest.h>

#include "comm_trace.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/comm_formulas.h"
#include "flopspy/trace/reader.h"

namespace flopspy::analyzers {
namespace {

using testing::CommRankSpec;

TEST(CommFormulas, MessageSizesFollowNcclTests) {
  EXPECT_EQ(CommMessageBytes(BlasRoutine::kNcclAllReduce, 1000, 4, 8), 4000);
  EXPECT_EQ(CommMessageBytes(BlasRoutine::kNcclBroadcast, 256, 2, 8), 512);
  // All-gather: the output (sendcount x n); reduce-scatter: the input (recvcount x n).
  EXPECT_EQ(CommMessageBytes(BlasRoutine::kNcclAllGather, 100, 2, 4), 800);
  EXPECT_EQ(CommMessageBytes(BlasRoutine::kNcclReduceScatter, 50, 4, 4), 800);
  EXPECT_EQ(CommMessageBytes(BlasRoutine::kNcclAllToAll, 8, 4, 4), 128);
  EXPECT_EQ(CommMessageBytes(BlasRoutine::kNcclSend, 16, 4, 4), 64);
  EXPECT_EQ(CommMessageBytes(BlasRoutine::kNcclAllGather, 100, 2, 0), 0);  // ranks unknown
}

TEST(CommFormulas, BusBandwidthFactorsAndReductions) {
  EXPECT_DOUBLE_EQ(*BusBandwidthFactor(BlasRoutine::kNcclAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(*BusBandwidthFactor(BlasRoutine::kNcclAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(*BusBandwidthFactor(BlasRoutine::kNcclReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*BusBandwidthFactor(BlasRoutine::kNcclAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(*BusBandwidthFactor(BlasRoutine::kNcclBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(*BusBandwidthFactor(BlasRoutine::kNcclRecv, 2), 1.0);
  EXPECT_FALSE(BusBandwidthFactor(BlasRoutine::kNcclGroupEnd, 8));
  EXPECT_FALSE(BusBandwidthFactor(BlasRoutine::kNcclAllReduce, 0));
  EXPECT_DOUBLE_EQ(CommReductionFlops(BlasRoutine::kNcclAllReduce, 1000, 4), 750);
  EXPECT_DOUBLE_EQ(CommReductionFlops(BlasRoutine::kNcclReduceScatter, 50, 4), 150);
  EXPECT_DOUBLE_EQ(CommReductionFlops(BlasRoutine::kNcclAllGather, 50, 4), 0);
  EXPECT_EQ(CudaTypeOfNcclType(7), cuda_type::kR32F);  // ncclFloat32
  EXPECT_EQ(CudaTypeOfNcclType(9), cuda_type::kR16BF);
  EXPECT_FALSE(CudaTypeOfNcclType(42));
  EXPECT_EQ(CommElementBytes(cuda_type::kR16BF), 2);
}

struct Analyzed {
  TraceAnalysis run;
  CommLog log;
  CommReport report;
};

Analyzed Analyze(const std::vector<uint8_t>& bytes) {
  trace::TraceReader reader(trace::MemorySource(bytes));
  TraceAnalyzer analyzer;
  CommCollector collector;
  const trace::StringLookup strings = [&](uint32_t id) { return reader.String(id); };
  reader.ForEachRecord([&](const trace::RecordView& r) {
    analyzer.Add(r, strings);
    collector.Add(r, strings);
  });
  Analyzed a;
  a.run = analyzer.Finish({});
  a.log = collector.Finish();
  a.report = AnalyzeCommunication(a.log, a.run);
  return a;
}

TEST(Communication, AllReduceBytesBandwidthsAndTheShareComputeHid) {
  // Five all-reduces of 4 MiB on two ranks, each kernel 0.5 ms, a compute kernel over the first
  // 0.25 ms of each: algbw 4 MiB / 0.5 ms = 8.39 GB/s, busbw the same (2(n-1)/n = 1 for n = 2).
  const Analyzed a = Analyze(testing::CommRankTrace({.rank = 1, .overlap_ns = 250'000}));
  ASSERT_EQ(a.log.calls.size(), 5u);
  const CommCall& first = a.log.calls[0];
  EXPECT_EQ(first.comm_id, testing::kCommCommunicatorId);
  EXPECT_EQ(first.seq, 1);
  EXPECT_EQ(first.kernels, 1u);
  EXPECT_DOUBLE_EQ(first.gpu_ns, 500'000);
  const CommReport& c = a.report;
  EXPECT_EQ(c.calls, 5u);
  EXPECT_DOUBLE_EQ(c.bytes, 5.0 * 4 * 1048576);
  ASSERT_EQ(c.rows.size(), 1u);
  const CommRow& row = c.rows[0];
  EXPECT_EQ(row.routine, BlasRoutine::kNcclAllReduce);
  EXPECT_EQ(row.timed_calls, 5u);
  EXPECT_DOUBLE_EQ(row.gpu_ns, 2'500'000);
  ASSERT_TRUE(row.algbw && row.busbw);
  EXPECT_NEAR(*row.algbw, 4.0 * 1048576 / 0.5e-3, 1);
  EXPECT_NEAR(*row.busbw, *row.algbw, 1e-6);
  EXPECT_DOUBLE_EQ(c.gpu_ns, 2'500'000);
  EXPECT_DOUBLE_EQ(c.overlapped_ns, 5 * 250'000.0);
  EXPECT_DOUBLE_EQ(c.exposed_share(), 0.5);
  // The collective kernel is not placed on a roofline, nor counted as model FLOPs; it takes its
  // call's reduction FLOPs, not its message size as DRAM bytes.
  bool seen = false;
  for (const KernelGroup& g : a.run.kernels) {
    if (g.category != "collective") continue;
    seen = true;
    EXPECT_FALSE(g.placement.has_value());
    EXPECT_EQ(g.all.flops_source, trace::FigureSource::kAnalytic);
    EXPECT_DOUBLE_EQ(g.all.flops, 5 * 1048576 / 2.0);
    EXPECT_EQ(g.all.bytes_source, trace::FigureSource::kUnknown);
  }
  EXPECT_TRUE(seen);
  for (const DeviceActivity& d : a.run.devices) EXPECT_EQ(d.analytic_flops, 0);
}

TEST(Communication, KernelsJoinedThroughTheLaunchInsideTheCall) {
  // The GPU record carries the launch's correlation (no external id): the launch the call made
  // is claimed by the call's record.
  const Analyzed a =
      Analyze(testing::CommRankTrace({.rank = 0, .steps = 1, .launch_correlation = true}));
  ASSERT_EQ(a.log.calls.size(), 1u);
  EXPECT_EQ(a.log.calls[0].kernels, 1u);
}

TEST(Communication, AGroupOfOneCallGivesItsKernelsToThatCall) {
  // PyTorch wraps each collective in ncclGroupStart/End: the end launches the kernel, the
  // all-reduce keeps its time and bandwidth; the group ends' row has none left.
  const Analyzed a = Analyze(testing::CommRankTrace({.rank = 1, .grouped = true}));
  ASSERT_EQ(a.log.calls.size(), 10u);
  const CommReport& c = a.report;
  ASSERT_EQ(c.rows.size(), 2u);
  const CommRow& all_reduce = c.rows[0];
  EXPECT_EQ(all_reduce.routine, BlasRoutine::kNcclAllReduce);
  EXPECT_EQ(all_reduce.in_group, 5u);
  EXPECT_EQ(all_reduce.timed_calls, 5u);
  EXPECT_DOUBLE_EQ(all_reduce.gpu_ns, 2'500'000);
  ASSERT_TRUE(all_reduce.algbw.has_value());
  EXPECT_NEAR(*all_reduce.algbw, 4.0 * 1048576 / 0.5e-3, 1);
  EXPECT_EQ(c.rows[1].routine, BlasRoutine::kNcclGroupEnd);
  EXPECT_EQ(c.rows[1].timed_calls, 0u);
  EXPECT_DOUBLE_EQ(c.bytes, 5.0 * 4 * 1048576);  // group ends not counted again
}

TEST(Communication, AdviceOnExposedCommunicationAndSmallMessages) {
  // Rank 0 waits 300 us in each all-reduce with nothing beside it: 5 x 0.8 ms = 4 ms exposed of
  // 14 ms of kernels (29%).
  const Analyzed waiting = Analyze(testing::CommRankTrace({.rank = 0, .wait_ns = 300'000}));
  ASSERT_EQ(waiting.report.advice.size(), 1u);
  EXPECT_EQ(waiting.report.advice[0].kind, CommAdvice::Kind::kExposed);
  EXPECT_DOUBLE_EQ(waiting.report.advice[0].ns, 4'000'000);
  EXPECT_NE(waiting.report.advice[0].sentence.find("4 ms of collective kernel time (29% of all"),
            std::string::npos)
      << waiting.report.advice[0].sentence;
  // Half hidden: 1.25 ms of 13.75 ms exposed, under a tenth: no advice.
  EXPECT_TRUE(
      Analyze(testing::CommRankTrace({.rank = 1, .overlap_ns = 250'000})).report.advice.empty());
  // 64 KiB all-reduces hidden under compute, all of the collective time: latency-bound.
  const Analyzed small = Analyze(testing::CommRankTrace(
      {.rank = 1, .transfer_ns = 40'000, .overlap_ns = 40'000, .count = 16384}));
  ASSERT_EQ(small.report.advice.size(), 1u);
  EXPECT_EQ(small.report.advice[0].kind, CommAdvice::Kind::kSmallMessages);
  EXPECT_NE(small.report.advice[0].sentence.find("5 collectives under 1 MiB hold 100%"),
            std::string::npos)
      << small.report.advice[0].sentence;
}

TEST(CommSkew, TheLateRankIsTheStragglerAndTheOthersWaitForIt) {
  // Rank 1 reaches each of 5 all-reduces 300 us after rank 0, whose kernel waits for it.
  const Analyzed r0 = Analyze(testing::CommRankTrace({.rank = 0, .wait_ns = 300'000}));
  const Analyzed r1 = Analyze(testing::CommRankTrace({.rank = 1, .late_ns = 300'000}));
  // Both traces map monotonic to the same wall clock: realtime = monotonic - origin + anchor.
  const int64_t anchor = 1'700'000'000'000'000'000ll;
  std::vector<RankComm> ranks = {{"rank0", "node0", anchor - 200'000'000'000ll, &r0.log},
                                 {"rank1", "node0", anchor - 211'000'000'000ll, &r1.log}};
  const CommSkewReport s = AnalyzeCommSkew(ranks);
  EXPECT_EQ(s.matched, 5u);
  EXPECT_NEAR(s.mean_skew_ns, 300'000, 1);
  EXPECT_NEAR(s.max_skew_ns, 300'000, 1);
  EXPECT_FALSE(s.several_hosts);
  ASSERT_EQ(s.ranks.size(), 2u);
  EXPECT_EQ(s.ranks[0].rank, 0);
  EXPECT_NEAR(s.ranks[0].wait_ns, 5 * 300'000.0, 1);
  EXPECT_EQ(s.ranks[0].last, 0u);
  EXPECT_EQ(s.ranks[1].last, 5u);
  EXPECT_DOUBLE_EQ(s.ranks[1].wait_ns, 0);
  ASSERT_TRUE(s.straggler.has_value());
  EXPECT_EQ(*s.straggler, 1u);
  // Even ranks: no straggler, no skew.
  const Analyzed even = Analyze(testing::CommRankTrace({.rank = 1}));
  ranks[1].log = &even.log;
  const CommSkewReport none = AnalyzeCommSkew(ranks);
  EXPECT_NEAR(none.max_skew_ns, 0, 1);
  EXPECT_FALSE(none.straggler.has_value());
  // Another host: said, still computed.
  ranks[1].host = "node1";
  EXPECT_TRUE(AnalyzeCommSkew(ranks).several_hosts);
}

}  // namespace
}  // namespace flopspy::analyzers
