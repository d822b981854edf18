// A fake libnccl.so.2 (NCCL 2.28's API, nccl.h): communicators as heap objects, every collective
// and point-to-point call checked as NCCL checks its arguments, counted, and returned without
// touching a buffer, a stream or the CUDA driver. flopspy's NCCL hooks need nothing more: they
// record the calls' arguments and read the communicator back with ncclCommCount and
// ncclCommUserRank.
#include "fake_nccl.h"

#include <nccl.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// The entry points whose calls the report counts: the index of each in the counters.
// clang-format off
#define FLOPSPY_FAKE_NCCL_ENTRY_POINTS(X)                                                       \
  X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommInitRankConfig) X(ncclCommInitAll)           \
  X(ncclCommInitRankScalable) X(ncclCommSplit) X(ncclCommDestroy) X(ncclCommAbort)              \
  X(ncclAllReduce) X(ncclBroadcast) X(ncclBcast) X(ncclReduce) X(ncclAllGather)                 \
  X(ncclReduceScatter) X(ncclAlltoAll) X(ncclGather) X(ncclScatter) X(ncclSend) X(ncclRecv)     \
  X(ncclGroupStart) X(ncclGroupEnd)
// clang-format on

enum EntryPoint : int {
#define FLOPSPY_FAKE_NCCL_ID(name) k_##name,
  FLOPSPY_FAKE_NCCL_ENTRY_POINTS(FLOPSPY_FAKE_NCCL_ID)
#undef FLOPSPY_FAKE_NCCL_ID
      kEntryPointCount
};

constexpr const char* kNames[] = {
#define FLOPSPY_FAKE_NCCL_NAME(name) #name,
    FLOPSPY_FAKE_NCCL_ENTRY_POINTS(FLOPSPY_FAKE_NCCL_NAME)
#undef FLOPSPY_FAKE_NCCL_NAME
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == kEntryPointCount);

std::atomic<uint64_t> g_calls[kEntryPointCount];
std::atomic<uint64_t> g_refused[kEntryPointCount];
std::atomic<int64_t> g_live_comms{0};
// NCCL's group state is per thread: a group started on one thread ends on that thread.
thread_local int t_group_depth = 0;

// Counts the call as accepted or refused by what it returns.
ncclResult_t Count(EntryPoint id, ncclResult_t result) {
  (result == ncclSuccess ? g_calls : g_refused)[id].fetch_add(1);
  return result;
}

// An enum argument's number, read without loading it as the enum: a caller's out-of-range value
// (datatype 42) is not a valid enumerator, and UBSan flags such a load.
template <class Enum>
int Raw(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof(v));
  return v;
}

// This copy's mark, the first member of every communicator it makes: each loaded copy has its own
// address and refuses another copy's communicators (NCCL checks a magic number the same way).
const char kThisCopy = 0;

struct FakeComm {
  const void* owner = &kThisCopy;
  int nranks = 0;
  int rank = 0;
  int device = 0;
};

FakeComm* Mine(ncclComm_t comm) {
  auto* c = reinterpret_cast<FakeComm*>(comm);
  return c != nullptr && c->owner == &kThisCopy ? c : nullptr;
}

ncclResult_t MakeComm(ncclComm_t* out, int nranks, int rank, int device) {
  auto* c = new (std::nothrow) FakeComm;
  if (c == nullptr) return ncclSystemError;
  c->nranks = nranks;
  c->rank = rank;
  c->device = device;
  g_live_comms.fetch_add(1);
  *out = reinterpret_cast<ncclComm_t>(c);
  return ncclSuccess;
}

// A config must come from NCCL_CONFIG_INITIALIZER (NCCL refuses one that does not); null is the
// default configuration.
bool ConfigOk(const ncclConfig_t* config) {
  return config == nullptr || (config->magic == 0xcafebeef && config->size >= sizeof(size_t));
}

ncclResult_t InitRank(ncclComm_t* comm, int nranks, int rank, const ncclConfig_t* config) {
  if (comm == nullptr || nranks < 1 || rank < 0 || rank >= nranks || !ConfigOk(config)) {
    return ncclInvalidArgument;
  }
  // NCCL takes the calling thread's current CUDA device; the fake needs no driver for it.
  return MakeComm(comm, nranks, rank, 0);
}

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  const long parsed = std::strtol(value, &end, 10);
  return *end == '\0' ? static_cast<int>(parsed) : fallback;
}

// What every collective and point-to-point call checks (NCCL's ArgsCheck): a communicator of
// this copy, a built-in data type and reduction, a root or peer among its ranks (-1: none).
ncclResult_t Check(ncclComm_t comm, ncclDataType_t datatype, const ncclRedOp_t* op, int root) {
  const FakeComm* c = Mine(comm);
  if (c == nullptr) return ncclInvalidArgument;
  if (Raw(datatype) < 0 || Raw(datatype) >= ncclNumTypes) return ncclInvalidArgument;
  if (op != nullptr && (Raw(*op) < 0 || Raw(*op) >= ncclNumOps)) return ncclInvalidArgument;
  if (root != -1 && (root < 0 || root >= c->nranks)) return ncclInvalidArgument;
  return ncclSuccess;
}

}  // namespace

// --- Versions, ids, errors --------------------------------------------------------------------

FAKE_EXPORT ncclResult_t ncclGetVersion(int* version) {
  if (version == nullptr) return ncclInvalidArgument;
  *version = NCCL_VERSION_CODE;  // 22809 with the CUDA 13 toolkit's nccl.h
  return ncclSuccess;
}

// A fresh id per call (NCCL's holds the root's address): a counter in the first bytes.
FAKE_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (id == nullptr) return Count(k_ncclGetUniqueId, ncclInvalidArgument);
  static std::atomic<uint64_t> next{1};
  std::memset(id->internal, 0, sizeof(id->internal));
  const uint64_t n = next.fetch_add(1);
  std::memcpy(id->internal, &n, sizeof(n));
  return Count(k_ncclGetUniqueId, ncclSuccess);
}

// The texts of libnccl.so.2 (2.28).
FAKE_EXPORT const char* ncclGetErrorString(ncclResult_t result) {
  switch (Raw(result)) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:
      return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError:
      return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument:
      return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:
      return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

// --- Communicators ----------------------------------------------------------------------------

FAKE_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId comm_id,
                                          int rank) {
  (void)comm_id;
  return Count(k_ncclCommInitRank, InitRank(comm, nranks, rank, nullptr));
}

FAKE_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId comm_id,
                                                int rank, ncclConfig_t* config) {
  (void)comm_id;
  return Count(k_ncclCommInitRankConfig, InitRank(comm, nranks, rank, config));
}

// One communicator per device of the list (devices 0..ndev-1 without one), ranks in its order.
FAKE_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  if (comms == nullptr || ndev < 1) return Count(k_ncclCommInitAll, ncclInvalidArgument);
  for (int i = 0; i < ndev; ++i) {
    if (devlist != nullptr && devlist[i] < 0) return Count(k_ncclCommInitAll, ncclInvalidArgument);
  }
  for (int i = 0; i < ndev; ++i) {
    const ncclResult_t made = MakeComm(&comms[i], ndev, i, devlist != nullptr ? devlist[i] : i);
    if (made != ncclSuccess) return Count(k_ncclCommInitAll, made);
  }
  return Count(k_ncclCommInitAll, ncclSuccess);
}

FAKE_EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t* newcomm, int nranks, int myrank,
                                                  int n_id, ncclUniqueId* comm_ids,
                                                  ncclConfig_t* config) {
  if (n_id < 1 || comm_ids == nullptr) {
    return Count(k_ncclCommInitRankScalable, ncclInvalidArgument);
  }
  return Count(k_ncclCommInitRankScalable, InitRank(newcomm, nranks, myrank, config));
}

// A single process cannot see the other ranks' colors: the new communicator's size and this
// rank's place in it come from FAKE_NCCL_SPLIT_NRANKS and FAKE_NCCL_SPLIT_RANK (1 and 0).
FAKE_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
                                       ncclConfig_t* config) {
  (void)key;
  const FakeComm* parent = Mine(comm);
  if (parent == nullptr || newcomm == nullptr || color < NCCL_SPLIT_NOCOLOR || !ConfigOk(config)) {
    return Count(k_ncclCommSplit, ncclInvalidArgument);
  }
  if (color == NCCL_SPLIT_NOCOLOR) {
    *newcomm = nullptr;
    return Count(k_ncclCommSplit, ncclSuccess);
  }
  const int nranks = EnvInt("FAKE_NCCL_SPLIT_NRANKS", 1);
  const int rank = EnvInt("FAKE_NCCL_SPLIT_RANK", 0);
  if (nranks < 1 || nranks > parent->nranks || rank < 0 || rank >= nranks) {
    return Count(k_ncclCommSplit, ncclInvalidArgument);
  }
  return Count(k_ncclCommSplit, MakeComm(newcomm, nranks, rank, parent->device));
}

// NCCL accepts a null communicator to destroy or abort.
static ncclResult_t Free(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
  FakeComm* c = Mine(comm);
  if (c == nullptr) return ncclInvalidArgument;
  delete c;
  g_live_comms.fetch_sub(1);
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  return Count(k_ncclCommDestroy, Free(comm));
}

FAKE_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  return Count(k_ncclCommAbort, Free(comm));
}

// The queries: not counted (flopspy's hooks call them too).
FAKE_EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  const FakeComm* c = Mine(comm);
  if (c == nullptr || count == nullptr) return ncclInvalidArgument;
  *count = c->nranks;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  const FakeComm* c = Mine(comm);
  if (c == nullptr || rank == nullptr) return ncclInvalidArgument;
  *rank = c->rank;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  const FakeComm* c = Mine(comm);
  if (c == nullptr || device == nullptr) return ncclInvalidArgument;
  *device = c->device;
  return ncclSuccess;
}

// --- Collectives and point-to-point: checked, counted, never run ------------------------------

FAKE_EXPORT ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                       ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                       cudaStream_t stream) {
  (void)sendbuff, (void)recvbuff, (void)count, (void)stream;
  return Count(k_ncclAllReduce, Check(comm, datatype, &op, -1));
}

FAKE_EXPORT ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                       ncclDataType_t datatype, int root, ncclComm_t comm,
                                       cudaStream_t stream) {
  (void)sendbuff, (void)recvbuff, (void)count, (void)stream;
  // -1 is "no root" to Check; a caller's -1 is out of range all the same.
  if (root < 0) return Count(k_ncclBroadcast, ncclInvalidArgument);
  return Count(k_ncclBroadcast, Check(comm, datatype, nullptr, root));
}

// The in-place broadcast of NCCL 1, kept by NCCL 2.
FAKE_EXPORT ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root,
                                   ncclComm_t comm, cudaStream_t stream) {
  (void)buff, (void)count, (void)stream;
  if (root < 0) return Count(k_ncclBcast, ncclInvalidArgument);
  return Count(k_ncclBcast, Check(comm, datatype, nullptr, root));
}

FAKE_EXPORT ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                                    ncclDataType_t datatype, ncclRedOp_t op, int root,
                                    ncclComm_t comm, cudaStream_t stream) {
  (void)sendbuff, (void)recvbuff, (void)count, (void)stream;
  if (root < 0) return Count(k_ncclReduce, ncclInvalidArgument);
  return Count(k_ncclReduce, Check(comm, datatype, &op, root));
}

FAKE_EXPORT ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                       ncclDataType_t datatype, ncclComm_t comm,
                                       cudaStream_t stream) {
  (void)sendbuff, (void)recvbuff, (void)sendcount, (void)stream;
  return Count(k_ncclAllGather, Check(comm, datatype, nullptr, -1));
}

FAKE_EXPORT ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                           cudaStream_t stream) {
  (void)sendbuff, (void)recvbuff, (void)recvcount, (void)stream;
  return Count(k_ncclReduceScatter, Check(comm, datatype, &op, -1));
}

FAKE_EXPORT ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count,
                                      ncclDataType_t datatype, ncclComm_t comm,
                                      cudaStream_t stream) {
  (void)sendbuff, (void)recvbuff, (void)count, (void)stream;
  return Count(k_ncclAlltoAll, Check(comm, datatype, nullptr, -1));
}

FAKE_EXPORT ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count,
                                    ncclDataType_t datatype, int root, ncclComm_t comm,
                                    cudaStream_t stream) {
  (void)sendbuff, (void)recvbuff, (void)count, (void)stream;
  if (root < 0) return Count(k_ncclGather, ncclInvalidArgument);
  return Count(k_ncclGather, Check(comm, datatype, nullptr, root));
}

FAKE_EXPORT ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count,
                                     ncclDataType_t datatype, int root, ncclComm_t comm,
                                     cudaStream_t stream) {
  (void)sendbuff, (void)recvbuff, (void)count, (void)stream;
  if (root < 0) return Count(k_ncclScatter, ncclInvalidArgument);
  return Count(k_ncclScatter, Check(comm, datatype, nullptr, root));
}

FAKE_EXPORT ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype,
                                  int peer, ncclComm_t comm, cudaStream_t stream) {
  (void)sendbuff, (void)count, (void)stream;
  if (peer < 0) return Count(k_ncclSend, ncclInvalidArgument);
  return Count(k_ncclSend, Check(comm, datatype, nullptr, peer));
}

FAKE_EXPORT ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
                                  ncclComm_t comm, cudaStream_t stream) {
  (void)recvbuff, (void)count, (void)stream;
  if (peer < 0) return Count(k_ncclRecv, ncclInvalidArgument);
  return Count(k_ncclRecv, Check(comm, datatype, nullptr, peer));
}

// --- Groups -----------------------------------------------------------------------------------

FAKE_EXPORT ncclResult_t ncclGroupStart() {
  ++t_group_depth;
  return Count(k_ncclGroupStart, ncclSuccess);
}

// An end without a start is a usage error, as in NCCL ("not in a group call").
FAKE_EXPORT ncclResult_t ncclGroupEnd() {
  if (t_group_depth == 0) return Count(k_ncclGroupEnd, ncclInvalidUsage);
  --t_group_depth;
  return Count(k_ncclGroupEnd, ncclSuccess);
}

// --- Test control -----------------------------------------------------------------------------

static uint64_t Sum(const std::atomic<uint64_t> (&counters)[kEntryPointCount], const char* name) {
  uint64_t total = 0;
  for (int i = 0; i < kEntryPointCount; ++i) {
    if (name == nullptr) {
      total += counters[i].load();
    } else if (std::strcmp(name, kNames[i]) == 0) {
      return counters[i].load();
    }
  }
  return total;  // an unknown name: 0
}

FAKE_EXPORT uint64_t flopspy_fake_nccl_calls(const char* name) {
  return Sum(g_calls, name);
}

FAKE_EXPORT uint64_t flopspy_fake_nccl_refused(const char* name) {
  return Sum(g_refused, name);
}

FAKE_EXPORT int64_t flopspy_fake_nccl_live_comms() {
  return g_live_comms.load();
}

FAKE_EXPORT int flopspy_fake_nccl_group_depth() {
  return t_group_depth;
}
