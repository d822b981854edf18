// An NCCL 2 client for flopspy's NCCL hooks, linked against the fake libnccl.so.2: `client_nccl
// SCENARIO [RANK]` prints what each NCCL call returned ("ncclAllReduce -> 0") and then the fake's
// counters, the same with and without flopspy, and exits 0 when every call returned what the
// scenario expects, else prints "client: <what failed>" and exits 1; `client_nccl list` prints
// the names. Counts and ranks are fixed (tests compute message sizes from them by hand); buffers
// and the stream are made-up numbers the fake never reads.
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fake_nccl.h"

namespace {

// Prints the result and stops the run when it is not the one expected.
void Expect(ncclResult_t got, const char* what, ncclResult_t want = ncclSuccess) {
  std::printf("%s -> %d\n", what, static_cast<int>(got));
  if (got != want) {
    std::printf("client: %s returned %d, expected %d\n", what, static_cast<int>(got),
                static_cast<int>(want));
    std::exit(1);
  }
}
// A call that must succeed, named by its function.
#define NCCL(fn, ...) Expect(fn(__VA_ARGS__), #fn)
// A call that must fail with `want`.
#define NCCL_FAILS(want, fn, ...) Expect(fn(__VA_ARGS__), #fn, want)

const void* const kSend = reinterpret_cast<const void*>(0x10000);
void* const kRecv = reinterpret_cast<void*>(0x20000);
const auto kStream = reinterpret_cast<cudaStream_t>(0x1234);

// The id every scenario but other_id joins with: bytes 0, 1, ..., 127.
ncclUniqueId CountingId() {
  ncclUniqueId id;
  for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; ++i) id.internal[i] = static_cast<char>(i);
  return id;
}

// Bytes 127, 126, ..., 0: another communicator's id.
ncclUniqueId ReversedId() {
  ncclUniqueId id;
  for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; ++i) {
    id.internal[i] = static_cast<char>(NCCL_UNIQUE_ID_BYTES - 1 - i);
  }
  return id;
}

// Rank `rank` of `nranks` joined with `id`, destroyed after what the scenario did with it.
struct Comm {
  ncclComm_t comm = nullptr;
  explicit Comm(int nranks = 4, int rank = 1, ncclUniqueId id = CountingId()) {
    NCCL(ncclCommInitRank, &comm, nranks, id, rank);
  }
  ~Comm() { NCCL(ncclCommDestroy, comm); }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
};

// Every entry point a scenario may call, in the order the report lists them.
constexpr const char* kCounted[] = {"ncclGetUniqueId",
                                    "ncclCommInitRank",
                                    "ncclCommInitRankConfig",
                                    "ncclCommInitAll",
                                    "ncclCommInitRankScalable",
                                    "ncclCommSplit",
                                    "ncclCommDestroy",
                                    "ncclCommAbort",
                                    "ncclAllReduce",
                                    "ncclBroadcast",
                                    "ncclBcast",
                                    "ncclReduce",
                                    "ncclAllGather",
                                    "ncclReduceScatter",
                                    "ncclAlltoAll",
                                    "ncclGather",
                                    "ncclScatter",
                                    "ncclSend",
                                    "ncclRecv",
                                    "ncclGroupStart",
                                    "ncclGroupEnd"};

// The fake's counters: what reached the library, so a hook that swallowed or repeated a call
// changes the output.
void Report() {
  for (const char* name : kCounted) {
    const uint64_t calls = flopspy_fake_nccl_calls(name);
    const uint64_t refused = flopspy_fake_nccl_refused(name);
    if (calls != 0 || refused != 0) {
      std::printf("fake: %s accepted %llu refused %llu\n", name,
                  static_cast<unsigned long long>(calls), static_cast<unsigned long long>(refused));
    }
  }
  std::printf("fake: live communicators %lld, group depth %d\n",
              static_cast<long long>(flopspy_fake_nccl_live_comms()),
              flopspy_fake_nccl_group_depth());
}

// Rank 1 of 4: one call of each collective and a send and a receive, outside any group.
void Collectives() {
  Comm c;
  NCCL(ncclAllReduce, kSend, kRecv, 1000, ncclFloat32, ncclSum, c.comm, kStream);
  NCCL(ncclBroadcast, kSend, kRecv, 256, ncclBfloat16, 2, c.comm, kStream);
  NCCL(ncclBcast, kRecv, 64, ncclInt8, 0, c.comm, kStream);
  NCCL(ncclReduce, kSend, kRecv, 10, ncclFloat64, ncclMax, 3, c.comm, kStream);
  NCCL(ncclAllGather, kSend, kRecv, 100, ncclFloat16, c.comm, kStream);
  NCCL(ncclReduceScatter, kSend, kRecv, 50, ncclFloat32, ncclSum, c.comm, kStream);
  NCCL(ncclAlltoAll, kSend, kRecv, 8, ncclInt32, c.comm, kStream);
  NCCL(ncclGather, kSend, kRecv, 4, ncclUint8, 0, c.comm, kStream);
  NCCL(ncclScatter, kSend, kRecv, 4, ncclUint8, 1, c.comm, kStream);
  NCCL(ncclSend, kSend, 16, ncclFloat32, 2, c.comm, kStream);
  NCCL(ncclRecv, kRecv, 16, ncclFloat32, 3, c.comm, kStream);
}

// A send and a receive fused by a group, then an all-reduce on its own.
void Group() {
  Comm c;
  NCCL(ncclGroupStart);
  NCCL(ncclSend, kSend, 32, ncclFloat32, 0, c.comm, kStream);
  NCCL(ncclRecv, kRecv, 32, ncclFloat32, 2, c.comm, kStream);
  NCCL(ncclGroupEnd);
  NCCL(ncclAllReduce, kSend, kRecv, 8, ncclFloat32, ncclSum, c.comm, kStream);
}

// Calls NCCL refuses; each must come back unchanged through flopspy.
void Errors() {
  Comm c;
  const auto bad_type = static_cast<ncclDataType_t>(42);
  NCCL_FAILS(ncclInvalidArgument, ncclAllReduce, kSend, kRecv, 1000, bad_type, ncclSum, c.comm,
             kStream);
  // Root 9 of 4 ranks: the size asked is still known (256 floats).
  NCCL_FAILS(ncclInvalidArgument, ncclBroadcast, kSend, kRecv, 256, ncclFloat32, 9, c.comm,
             kStream);
  NCCL_FAILS(ncclInvalidUsage, ncclGroupEnd);
  NCCL_FAILS(ncclInvalidArgument, ncclAllReduce, kSend, kRecv, 100, ncclFloat32, ncclSum, nullptr,
             kStream);
}

// The child this rank gets from splitting 4 ranks by color; NCCL_SPLIT_NOCOLOR gives none.
void Split() {
  // What the other ranks' colors would make of it (tests/fakes/nccl): rank 1 of 2.
  setenv("FAKE_NCCL_SPLIT_NRANKS", "2", 0);
  setenv("FAKE_NCCL_SPLIT_RANK", "1", 0);
  Comm c;
  ncclComm_t none = reinterpret_cast<ncclComm_t>(0x1);  // must come back null
  NCCL(ncclCommSplit, c.comm, NCCL_SPLIT_NOCOLOR, 0, &none, nullptr);
  if (none != nullptr) {
    std::printf("client: ncclCommSplit with no color made a communicator\n");
    std::exit(1);
  }
  ncclComm_t child = nullptr;
  NCCL(ncclCommSplit, c.comm, 7, 0, &child, nullptr);
  int nranks = 0, rank = -1;
  NCCL(ncclCommCount, child, &nranks);
  NCCL(ncclCommUserRank, child, &rank);
  std::printf("child: rank %d of %d\n", rank, nranks);
  NCCL(ncclAllReduce, kSend, kRecv, 1000, ncclFloat32, ncclSum, child, kStream);
  NCCL(ncclCommDestroy, child);
}

// One rank of two joined with the counting id (tests merge the two ranks' traces).
void TwoRanks(int rank) {
  Comm c(2, rank);
  for (int i = 0; i < 3; ++i) {
    NCCL(ncclAllReduce, kSend, kRecv, 1024, ncclFloat32, ncclSum, c.comm, kStream);
  }
}

// Rank 1 of 4 of a communicator made from another id.
void OtherId() {
  Comm c(4, 1, ReversedId());
  NCCL(ncclAllReduce, kSend, kRecv, 1000, ncclFloat32, ncclSum, c.comm, kStream);
}

struct Scenario {
  const char* name;
  void (*run)();
};

constexpr Scenario kScenarios[] = {
    {"collectives", Collectives}, {"group", Group}, {"errors", Errors}, {"split", Split},
    {"other_id", OtherId},
};

}  // namespace

int main(int argc, char** argv) {
  const char* name = argc >= 2 ? argv[1] : "";
  if (std::strcmp(name, "list") == 0) {
    for (const Scenario& s : kScenarios) std::printf("%s\n", s.name);
    std::printf("two_ranks RANK\n");
    return 0;
  }
  if (std::strcmp(name, "two_ranks") == 0 && argc == 3 &&
      (std::strcmp(argv[2], "0") == 0 || std::strcmp(argv[2], "1") == 0)) {
    TwoRanks(argv[2][0] - '0');
    Report();
    return 0;
  }
  for (const Scenario& s : kScenarios) {
    if (argc == 2 && std::strcmp(name, s.name) == 0) {
      s.run();
      Report();
      return 0;
    }
  }
  std::printf("client: usage: client_nccl SCENARIO|two_ranks RANK|list (not '%s')\n", name);
  return 1;
}
