// libflopspy.so's NCCL hooks, from outside (docs/nccl.md): a client of the fake libnccl.so.2 runs
// each scenario with and without the preload; its output (which includes the fake's call
// counters) and exit status must not change, and the trace must hold one library-call record per
// NCCL call, with the message sizes and reduction counts computed by hand below.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/trace/reader.h"
#include "library_calls.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

using analyzers::BlasRoutine;
using trace::FigureSource;
using trace::LibraryCallRecord;
namespace cuda_type = analyzers::cuda_type;

using Outcome = TracedRun;

// Runs a client scenario (with its argument, if any), once plain and once under flopspy; the
// program must behave the same both ways (exit 0, the same output) and leave one readable trace.
Outcome Scenario(const std::string& name, const std::string& arg = "") {
  std::vector<std::string> argv = {FLOPSPY_NCCL_CLIENT, name};
  if (!arg.empty()) argv.push_back(arg);
  Outcome run = RunPlainAndTraced(argv, FLOPSPY_LIBRARY_PATH);
  EXPECT_TRUE(run.plain.exited && run.plain.exit_code == 0) << run.plain.out << run.plain.err;
  EXPECT_TRUE(run.traced.exited && run.traced.exit_code == 0) << run.traced.out << run.traced.err;
  EXPECT_EQ(run.traced.out, run.plain.out);
  EXPECT_EQ(run.trace_error, "");
  return run;
}

uint16_t Id(BlasRoutine r) {
  return static_cast<uint16_t>(r);
}
uint8_t Source(FigureSource s) {
  return static_cast<uint8_t>(s);
}

constexpr uint64_t kStream = 0x1234;   // the client's stream handle
constexpr int64_t kNone = -1;          // batch (root, peer) and lda (reduction) when not applicable
constexpr int64_t kSum = 0, kMax = 2;  // ncclRedOp_t

// What one record of the `collectives` scenario (rank 1 of 4) must hold.
struct Expected {
  const char* name;
  BlasRoutine routine;
  int64_t count;      // m
  uint8_t type;       // type_a, the cudaDataType
  int64_t root_peer;  // batch
  int64_t op;         // lda
  double size;        // stride_a and bytes: nccl-tests' S
  double flops;       // reductions only
};

// S: count x element size, times the 4 ranks for all-gather, reduce-scatter, all-to-all, gather
// and scatter. Reductions (ring): all-reduce and reduce count x 3/4, reduce-scatter recvcount x 3.
const Expected kCollectives[] = {
    {"ncclAllReduce", BlasRoutine::kNcclAllReduce, 1000, cuda_type::kR32F, kNone, kSum, 4000, 750},
    {"ncclBroadcast", BlasRoutine::kNcclBroadcast, 256, cuda_type::kR16BF, 2, kNone, 512, 0},
    {"ncclBroadcast", BlasRoutine::kNcclBroadcast, 64, cuda_type::kR8I, 0, kNone, 64, 0},  // Bcast
    {"ncclReduce", BlasRoutine::kNcclReduce, 10, cuda_type::kR64F, 3, kMax, 80, 7.5},
    {"ncclAllGather", BlasRoutine::kNcclAllGather, 100, cuda_type::kR16F, kNone, kNone, 800, 0},
    {"ncclReduceScatter", BlasRoutine::kNcclReduceScatter, 50, cuda_type::kR32F, kNone, kSum, 800,
     150},
    {"ncclAlltoAll", BlasRoutine::kNcclAllToAll, 8, cuda_type::kR32I, kNone, kNone, 128, 0},
    {"ncclGather", BlasRoutine::kNcclGather, 4, cuda_type::kR8U, 0, kNone, 16, 0},
    {"ncclScatter", BlasRoutine::kNcclScatter, 4, cuda_type::kR8U, 1, kNone, 16, 0},
    {"ncclSend", BlasRoutine::kNcclSend, 16, cuda_type::kR32F, 2, kNone, 64, 0},
    {"ncclRecv", BlasRoutine::kNcclRecv, 16, cuda_type::kR32F, 3, kNone, 64, 0},
};

TEST(NcclHooks, EachCollectiveIsOneAnalyticRecordWithItsMessageSize) {
  const Outcome run = Scenario("collectives");
  ASSERT_EQ(run.calls.size(), std::size(kCollectives));
  const int64_t comm_id = run.calls[0].record.ldb;
  EXPECT_NE(comm_id, 0);
  for (size_t i = 0; i < std::size(kCollectives); ++i) {
    const Expected& want = kCollectives[i];
    const TracedCall& c = run.calls[i];
    const LibraryCallRecord& r = c.record;
    SCOPED_TRACE(std::to_string(i) + ": " + want.name);
    EXPECT_EQ(c.name, want.name);
    EXPECT_EQ(r.routine, Id(want.routine));
    EXPECT_EQ(analyzers::CommEntryPointName(want.routine), want.name);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(c.stream_handle, kStream);
    EXPECT_EQ(r.m, want.count);
    EXPECT_EQ(r.type_a, want.type);
    EXPECT_EQ(r.n, 4);  // ncclCommCount
    EXPECT_EQ(r.k, 1);  // ncclCommUserRank
    EXPECT_EQ(r.batch, want.root_peer);
    EXPECT_EQ(r.lda, want.op);
    EXPECT_EQ(r.ldb, comm_id);
    EXPECT_EQ(r.ldc, static_cast<int64_t>(i + 1));  // the call's number on its communicator
    EXPECT_DOUBLE_EQ(static_cast<double>(r.stride_a), want.size);
    EXPECT_DOUBLE_EQ(r.bytes, want.size);
    EXPECT_DOUBLE_EQ(r.flops, want.flops);
    EXPECT_EQ(r.source, Source(FigureSource::kAnalytic));
    EXPECT_FALSE(r.flags & trace::kLibCommInGroup);
    EXPECT_LE(r.enter_ns, r.exit_ns);
  }
}

TEST(NcclHooks, GroupedCallsAreFlaggedAndTheGroupEndSumsThem) {
  const Outcome run = Scenario("group");
  ASSERT_EQ(run.calls.size(), 4u);
  const LibraryCallRecord& send = run.calls[0].record;
  const LibraryCallRecord& recv = run.calls[1].record;
  const LibraryCallRecord& end = run.calls[2].record;
  const LibraryCallRecord& after = run.calls[3].record;

  EXPECT_EQ(run.calls[0].name, "ncclSend");
  EXPECT_EQ(send.routine, Id(BlasRoutine::kNcclSend));
  EXPECT_EQ(send.batch, 0);  // peer
  EXPECT_EQ(send.stride_a, 128);
  EXPECT_DOUBLE_EQ(send.bytes, 128);
  EXPECT_EQ(send.ldc, 1);
  EXPECT_TRUE(send.flags & trace::kLibCommInGroup);
  EXPECT_EQ(run.calls[0].stream_handle, kStream);

  EXPECT_EQ(run.calls[1].name, "ncclRecv");
  EXPECT_EQ(recv.routine, Id(BlasRoutine::kNcclRecv));
  EXPECT_EQ(recv.batch, 2);
  EXPECT_EQ(recv.stride_a, 128);
  EXPECT_EQ(recv.ldc, 2);
  EXPECT_TRUE(recv.flags & trace::kLibCommInGroup);

  // ncclGroupStart makes no record; the end's stands for the group's launches.
  EXPECT_EQ(run.calls[2].name, "ncclGroupEnd");
  EXPECT_EQ(end.routine, Id(BlasRoutine::kNcclGroupEnd));
  EXPECT_EQ(end.status, 0);
  EXPECT_EQ(end.m, 2);           // calls in the group
  EXPECT_EQ(end.stride_a, 256);  // their sizes summed
  EXPECT_EQ(end.flops, 0);
  EXPECT_EQ(end.n, 4);
  EXPECT_EQ(end.k, 1);
  EXPECT_EQ(end.ldb, send.ldb);
  EXPECT_NE(end.ldb, 0);
  EXPECT_EQ(end.ldc, 0);

  EXPECT_EQ(run.calls[3].name, "ncclAllReduce");
  EXPECT_FALSE(after.flags & trace::kLibCommInGroup);
  EXPECT_EQ(after.m, 8);
  EXPECT_EQ(after.stride_a, 32);
  EXPECT_DOUBLE_EQ(after.flops, 6);  // 8 x 3/4
  EXPECT_EQ(after.ldc, 3);           // the group's end is not a call on the communicator
  EXPECT_EQ(after.ldb, send.ldb);
}

// The `errors` scenario's records but the ncclGroupEnd's, in call order.
std::vector<TracedCall> WithoutGroupEnds(const std::vector<TracedCall>& calls) {
  std::vector<TracedCall> kept;
  for (const TracedCall& c : calls) {
    if (c.record.routine != Id(BlasRoutine::kNcclGroupEnd)) kept.push_back(c);
  }
  return kept;
}

TEST(NcclHooks, RefusedCallsComeBackUnchangedAndCountNothing) {
  const Outcome run = Scenario("errors");
  EXPECT_NE(run.plain.out.find("ncclAllReduce -> 4\n"), std::string::npos) << run.plain.out;
  EXPECT_NE(run.plain.out.find("ncclGroupEnd -> 5\n"), std::string::npos) << run.plain.out;
  for (const TracedCall& c : run.calls) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.record.flops, 0);
    EXPECT_EQ(c.record.bytes, 0);
  }
  const std::vector<TracedCall> calls = WithoutGroupEnds(run.calls);
  ASSERT_EQ(calls.size(), 3u);

  const LibraryCallRecord& bad_type = calls[0].record;
  EXPECT_EQ(calls[0].name, "ncclAllReduce");
  EXPECT_EQ(bad_type.status, 4);  // ncclInvalidArgument
  EXPECT_EQ(bad_type.type_a, 0xFF);
  EXPECT_EQ(bad_type.m, 1000);
  EXPECT_EQ(bad_type.n, 4);
  EXPECT_EQ(bad_type.k, 1);
  EXPECT_NE(bad_type.ldb, 0);

  const LibraryCallRecord& bad_root = calls[1].record;
  EXPECT_EQ(calls[1].name, "ncclBroadcast");
  EXPECT_EQ(bad_root.status, 4);
  EXPECT_EQ(bad_root.batch, 9);
  EXPECT_EQ(bad_root.type_a, cuda_type::kR32F);
  EXPECT_EQ(bad_root.stride_a, 1024);  // the size asked, though nothing moved
  EXPECT_EQ(bad_root.source, Source(FigureSource::kAnalytic));

  const LibraryCallRecord& no_comm = calls[2].record;
  EXPECT_EQ(calls[2].name, "ncclAllReduce");
  EXPECT_EQ(no_comm.status, 4);
  EXPECT_EQ(no_comm.n, 0);  // nothing to read the ranks from
  EXPECT_EQ(no_comm.k, -1);
  EXPECT_EQ(no_comm.ldb, 0);
  EXPECT_EQ(no_comm.stride_a, 400);
}

// One record per NCCL call, a refused one included: the unmatched end keeps its status.
TEST(NcclHooks, AGroupEndWithoutAStartIsRecordedWithItsStatus) {
  const Outcome run = Scenario("errors");
  ASSERT_EQ(run.calls.size(), 4u) << "the unmatched ncclGroupEnd left no record";
  const LibraryCallRecord& lone_end = run.calls[2].record;
  EXPECT_EQ(run.calls[2].name, "ncclGroupEnd");
  EXPECT_EQ(lone_end.routine, Id(BlasRoutine::kNcclGroupEnd));
  EXPECT_EQ(lone_end.status, 5);  // ncclInvalidUsage
  EXPECT_EQ(lone_end.m, 0);       // no call in a group
  EXPECT_EQ(lone_end.stride_a, 0);
  EXPECT_EQ(lone_end.flops, 0);
}

TEST(NcclHooks, SplitCommunicatorIsReadBackThroughTheLibrary) {
  const Outcome parent = Scenario("collectives");
  const Outcome run = Scenario("split");
  EXPECT_NE(run.plain.out.find("child: rank 1 of 2\n"), std::string::npos) << run.plain.out;
  ASSERT_EQ(run.calls.size(), 1u);
  const LibraryCallRecord& r = run.calls[0].record;
  EXPECT_EQ(run.calls[0].name, "ncclAllReduce");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.n, 2);
  EXPECT_EQ(r.k, 1);
  EXPECT_EQ(r.stride_a, 4000);
  EXPECT_DOUBLE_EQ(r.flops, 500);  // 1000 x 1/2
  EXPECT_EQ(r.ldc, 1);             // the child's first call
  ASSERT_FALSE(parent.calls.empty());
  // Another communicator than its parent, though made from it.
  EXPECT_NE(r.ldb, parent.calls[0].record.ldb);
}

TEST(NcclHooks, CommunicatorIdIsTheSameOnEveryRankOfOneUniqueId) {
  const Outcome rank0 = Scenario("two_ranks", "0");
  const Outcome rank1 = Scenario("two_ranks", "1");
  const Outcome four = Scenario("collectives");
  const Outcome other = Scenario("other_id");
  ASSERT_EQ(rank0.calls.size(), 3u);
  ASSERT_EQ(rank1.calls.size(), 3u);
  ASSERT_FALSE(four.calls.empty());
  ASSERT_EQ(other.calls.size(), 1u);
  const int64_t id = rank0.calls[0].record.ldb;
  EXPECT_NE(id, 0);
  for (int rank = 0; rank < 2; ++rank) {
    const Outcome& run = rank == 0 ? rank0 : rank1;
    for (size_t i = 0; i < run.calls.size(); ++i) {
      const LibraryCallRecord& r = run.calls[i].record;
      SCOPED_TRACE("rank " + std::to_string(rank) + " call " + std::to_string(i));
      EXPECT_EQ(r.ldb, id);
      EXPECT_EQ(r.n, 2);
      EXPECT_EQ(r.k, rank);
      EXPECT_EQ(r.ldc, static_cast<int64_t>(i + 1));
      EXPECT_EQ(r.stride_a, 4096);
      EXPECT_DOUBLE_EQ(r.flops, 512);  // 1024 x 1/2
    }
  }
  // The id is the unique id's: another run that joined with it (4 ranks) has the same one.
  EXPECT_EQ(four.calls[0].record.ldb, id);
  EXPECT_NE(other.calls[0].record.ldb, 0);
  EXPECT_NE(other.calls[0].record.ldb, id);
}

// The functions nccl.h declares (NCCL 2.28): "ncclX(" after a space, which leaves out pncclX.
std::set<std::string> DeclaredInHeader(const std::set<std::string>& names) {
  std::ifstream in(FLOPSPY_NCCL_HEADER);
  std::stringstream text;
  text << in.rdbuf();
  std::set<std::string> declared;
  for (const std::string& name : names) {
    if (text.str().find(" " + name + "(") != std::string::npos) declared.insert(name);
  }
  return declared;
}

// The hooks every record above needs are exported, and each exported hook is an NCCL function.
TEST(NcclHooks, EveryHookIsExportedAndNamesARealEntryPoint) {
  const std::set<std::string> flopspy = ExportedSymbols(FLOPSPY_LIBRARY_PATH);
  std::set<std::string> hooks;
  for (const std::string& name : flopspy) {
    if (name.rfind("nccl", 0) == 0) hooks.insert(name);
  }
  for (const char* name :
       {"ncclAllReduce", "ncclBroadcast", "ncclBcast", "ncclReduce", "ncclAllGather",
        "ncclReduceScatter", "ncclAlltoAll", "ncclGather", "ncclScatter", "ncclSend", "ncclRecv",
        "ncclGroupStart", "ncclGroupEnd", "ncclCommInitRank"}) {
    EXPECT_TRUE(hooks.contains(name)) << name;
  }
  EXPECT_EQ(DeclaredInHeader(hooks), hooks);
}

}  // namespace
}  // namespace flopspy::testing
