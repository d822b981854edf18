// NCCL's collectives, point-to-point calls and groups (docs/nccl.md). Each call is one library
// record with the message size nccl-tests would give it, the communicator's rank count and this
// rank, the communicator's id across ranks (a hash of the ncclUniqueId it was made from) and the
// call's number on that communicator, so that the report can set the same collective of every
// rank side by side. The communicator calls are forwarded and only noted.
#include "hooks_nccl.h"

#include <nccl.h>

#include <atomic>
#include <cstdint>
#include <iterator>

#include "caller_resolver.h"
#include "capture_window.h"
#include "enum_number.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/comm_formulas.h"
#include "library_resolver.h"
#include "library_scope.h"
#include "log.h"
#include "raw_events.h"
#include "recorder.h"
#include "timed_library_call.h"

namespace flopspy::interpose::nccl {
namespace {

namespace a = flopspy::analyzers;

enum HookId : uint16_t {
#define FLOPSPY_NCCL_HOOK_ID(name) kHook_##name,
  FLOPSPY_NCCL_HOOKS(FLOPSPY_NCCL_HOOK_ID)
#undef FLOPSPY_NCCL_HOOK_ID
      kHookCount
};

constexpr const char* kHookNames[] = {
#define FLOPSPY_NCCL_HOOK_NAME(name) #name,
    FLOPSPY_NCCL_HOOKS(FLOPSPY_NCCL_HOOK_NAME)
#undef FLOPSPY_NCCL_HOOK_NAME
};
static_assert(std::size(kHookNames) == kHookCount);

constinit CallerCache g_sites[kHookCount] = {
#define FLOPSPY_NCCL_HOOK_SITES(name) {CudaLibrary::kNccl, #name},
    FLOPSPY_NCCL_HOOKS(FLOPSPY_NCCL_HOOK_SITES)
#undef FLOPSPY_NCCL_HOOK_SITES
};
std::atomic<bool> g_missing_reported[kHookCount];

void ReportMissing(HookId id) noexcept {
  if (g_missing_reported[id].exchange(true)) return;
  try {
    ReportMissingReal(kHookNames[id]);
  } catch (...) {
  }
}

// --- Communicators -------------------------------------------------------------------------

// What flopspy keeps of a communicator. A fixed table, probed without a lock: collectives look
// their communicator up on every call, communicators are made rarely.
struct CommEntry {
  std::atomic<uint64_t> comm{0};  // the ncclComm_t; 0 free, kGone a destroyed one's slot
  std::atomic<uint64_t> id{0};    // the same on every rank (0: not seen being made)
  std::atomic<int32_t> nranks{0};
  std::atomic<int32_t> rank{-1};
  std::atomic<int64_t> calls{0};  // collectives and point-to-point calls made on it so far
};
constexpr uint64_t kGone = ~uint64_t{0};
constexpr size_t kCommSlots = 1024;
constinit CommEntry g_comms[kCommSlots];
std::atomic<bool> g_comms_full_reported{false};

size_t SlotOf(uint64_t comm) {
  return static_cast<size_t>((comm * 0x9E3779B97F4A7C15ull) >> 54) % kCommSlots;
}

CommEntry* FindComm(uint64_t comm) {
  if (comm == 0) return nullptr;
  for (size_t i = 0, s = SlotOf(comm); i < kCommSlots; ++i, s = (s + 1) % kCommSlots) {
    const uint64_t key = g_comms[s].comm.load(std::memory_order_acquire);
    if (key == comm) return &g_comms[s];
    if (key == 0) return nullptr;
  }
  return nullptr;
}

// The entry of `comm`, made when missing; nullptr when the table is full (said once).
CommEntry* EntryFor(uint64_t comm) {
  if (comm == 0) return nullptr;
  if (CommEntry* e = FindComm(comm)) return e;
  for (size_t i = 0, s = SlotOf(comm); i < kCommSlots; ++i, s = (s + 1) % kCommSlots) {
    uint64_t key = g_comms[s].comm.load(std::memory_order_acquire);
    if (key == comm) return &g_comms[s];
    if ((key == 0 || key == kGone) &&
        g_comms[s].comm.compare_exchange_strong(key, comm, std::memory_order_acq_rel)) {
      g_comms[s].id.store(0, std::memory_order_relaxed);
      g_comms[s].nranks.store(0, std::memory_order_relaxed);
      g_comms[s].rank.store(-1, std::memory_order_relaxed);
      g_comms[s].calls.store(0, std::memory_order_relaxed);
      return &g_comms[s];
    }
  }
  if (!g_comms_full_reported.exchange(true)) {
    try {
      ReportOnce("nccl-communicators", trace::WarningCode::kGeneric,
                 "more than 1024 NCCL communicators alive at once; calls on the others carry no "
                 "communicator id, rank count or call number");
    } catch (...) {
    }
  }
  return nullptr;
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

// FNV-1a over the id's bytes: equal ids, equal hashes, on every rank; never 0.
uint64_t IdOf(const ncclUniqueId& id) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : id.internal) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h | 1;
}

// The rank count and this rank, asked of the library copy the call went to.
void AskRanks(LibraryCopy* copy, ncclComm_t comm, CommEntry& e) {
  using CountFn = ncclResult_t (*)(const ncclComm_t, int*);
  if (copy == nullptr) return;
  int n = 0, r = -1;
  if (auto count = reinterpret_cast<CountFn>(copy->Beside(0, "ncclCommCount"));
      count != nullptr && count(comm, &n) == ncclSuccess) {
    e.nranks.store(n, std::memory_order_relaxed);
  }
  if (auto rank = reinterpret_cast<CountFn>(copy->Beside(1, "ncclCommUserRank"));
      rank != nullptr && rank(comm, &r) == ncclSuccess) {
    e.rank.store(r, std::memory_order_relaxed);
  }
}

void NoteComm(LibraryCopy* copy, ncclComm_t comm, uint64_t id) {
  CommEntry* e = EntryFor(reinterpret_cast<uint64_t>(comm));
  if (e == nullptr) return;
  e->id.store(id, std::memory_order_relaxed);
  AskRanks(copy, comm, *e);
}

void ForgetComm(ncclComm_t comm) {
  if (CommEntry* e = FindComm(reinterpret_cast<uint64_t>(comm))) {
    e->comm.store(kGone, std::memory_order_release);
  }
}

// --- Groups ----------------------------------------------------------------------------------

// The calls of the thread's open group (ncclGroupStart nests; the outermost end launches).
struct GroupState {
  int depth = 0;
  int64_t calls = 0;
  double bytes = 0;
  int64_t nranks = 0, rank = -1;
  uint64_t comm_id = 0;
};
// initial-exec, as every TLS of libflopspy.so: no __tls_get_addr (and no ld.so dependency).
thread_local GroupState tls_group __attribute__((tls_model("initial-exec")));
// Inside a recorded NCCL call (NCCL calling itself).
thread_local uint32_t tls_nccl_depth __attribute__((tls_model("initial-exec"))) = 0;

class NcclCallScope {
 public:
  NcclCallScope() { ++tls_nccl_depth; }
  ~NcclCallScope() { --tls_nccl_depth; }
  NcclCallScope(const NcclCallScope&) = delete;
  NcclCallScope& operator=(const NcclCallScope&) = delete;
};

// --- Recording -----------------------------------------------------------------------------

struct CallFacts {
  a::BlasRoutine routine = a::BlasRoutine::kUnknown;
  ncclComm_t comm = nullptr;
  size_t count = 0;
  int type = -1;
  int64_t root_or_peer = -1;
  int64_t op = -1;
  cudaStream_t stream = nullptr;
};

void Fill(RawLibraryCall& raw, LibraryCopy* copy, const CallFacts& f, ncclResult_t status) {
  trace::LibraryCallRecord& r = raw.record;
  r.routine = static_cast<uint16_t>(f.routine);
  r.m = static_cast<int64_t>(f.count);
  r.batch = f.root_or_peer;
  r.lda = f.op;
  r.ldb = 0;
  r.ldc = 0;
  r.n = 0;
  r.k = -1;
  if (const auto t = a::CudaTypeOfNcclType(f.type)) r.type_a = *t;
  // A refused call's communicator may be no communicator: it is neither kept nor asked.
  const bool ok = status == ncclSuccess;
  const uint64_t comm = reinterpret_cast<uint64_t>(f.comm);
  if (CommEntry* e = ok ? EntryFor(comm) : FindComm(comm)) {
    if (ok && e->nranks.load(std::memory_order_relaxed) == 0) AskRanks(copy, f.comm, *e);
    r.n = e->nranks.load(std::memory_order_relaxed);
    r.k = e->rank.load(std::memory_order_relaxed);
    r.ldb = static_cast<int64_t>(e->id.load(std::memory_order_relaxed));
    r.ldc = e->calls.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  const double bytes = a::CommMessageBytes(f.routine, r.m, a::CommElementBytes(r.type_a), r.n);
  r.stride_a = static_cast<int64_t>(bytes);
  raw.stream_handle = reinterpret_cast<uint64_t>(f.stream);
  r.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
  if (ok) {
    r.flops = a::CommReductionFlops(f.routine, r.m, r.n);
    r.bytes = bytes;
  }
  if (tls_group.depth > 0) {
    r.flags |= trace::kLibCommInGroup;
    ++tls_group.calls;
    tls_group.bytes += bytes;
    tls_group.nranks = r.n;
    tls_group.rank = r.k;
    tls_group.comm_id = static_cast<uint64_t>(r.ldb);
  }
}

// Runs the real function and records the call. Calls NCCL makes to itself, and calls outside
// the capture window, are only forwarded.
template <HookId kId, class Fn, class Facts, class... A>
__attribute__((always_inline)) inline ncclResult_t RunNcclCall(const void* caller, Facts facts,
                                                               A... args) {
  const CallTarget target = g_sites[kId].Target(caller);
  const auto real = reinterpret_cast<Fn>(target.real);
  if (__builtin_expect(real == nullptr, 0)) {
    ReportMissing(kId);
    return ncclSystemError;
  }
  if (!RecordingCalls() || tls_nccl_depth != 0) return real(args...);
  RawLibraryCall raw;
  const ncclResult_t status =
      TimedLibraryCall<NcclCallScope>(raw, [&]() noexcept { return real(args...); });
  facts(raw, target.copy, status);
  raw.Seal();
  EmitBytes(&raw, raw.record.h.size());
  return status;
}

template <HookId kId, class Fn, class... A>
ncclResult_t Collective(const void* caller, const CallFacts& f, A... args) {
  return RunNcclCall<kId, Fn>(
      caller,
      [&f](RawLibraryCall& raw, LibraryCopy* copy, ncclResult_t status) {
        Fill(raw, copy, f, status);
      },
      args...);
}

// The real function of a communicator call, which is forwarded, not recorded.
template <HookId kId, class Fn>
Fn RealOf(const void* caller, LibraryCopy** copy) {
  const CallTarget target = g_sites[kId].Target(caller);
  if (target.real == nullptr) ReportMissing(kId);
  *copy = target.copy;
  return reinterpret_cast<Fn>(target.real);
}

}  // namespace
}  // namespace flopspy::interpose::nccl

namespace fa = ::flopspy::analyzers;
namespace fn = ::flopspy::interpose::nccl;
using fa::BlasRoutine;
using flopspy::interpose::EnumNumber;
using fn::CallFacts;

// --- Communicators: forwarded, noted ---------------------------------------------------------

FLOPSPY_NCCL_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id,
                                                  int rank) {
  flopspy::interpose::LibraryCopy* copy = nullptr;
  const auto real = fn::RealOf<fn::kHook_ncclCommInitRank, decltype(&ncclCommInitRank)>(
      __builtin_return_address(0), &copy);
  if (real == nullptr) return ncclSystemError;
  const ncclResult_t status = real(comm, nranks, id, rank);
  if (status == ncclSuccess && comm != nullptr) fn::NoteComm(copy, *comm, fn::IdOf(id));
  return status;
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks,
                                                        ncclUniqueId id, int rank,
                                                        ncclConfig_t* config) {
  flopspy::interpose::LibraryCopy* copy = nullptr;
  const auto real = fn::RealOf<fn::kHook_ncclCommInitRankConfig, decltype(&ncclCommInitRankConfig)>(
      __builtin_return_address(0), &copy);
  if (real == nullptr) return ncclSystemError;
  const ncclResult_t status = real(comm, nranks, id, rank, config);
  if (status == ncclSuccess && comm != nullptr) fn::NoteComm(copy, *comm, fn::IdOf(id));
  return status;
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int rank,
                                                          int nids, ncclUniqueId* ids,
                                                          ncclConfig_t* config) {
  flopspy::interpose::LibraryCopy* copy = nullptr;
  const auto real =
      fn::RealOf<fn::kHook_ncclCommInitRankScalable, decltype(&ncclCommInitRankScalable)>(
          __builtin_return_address(0), &copy);
  if (real == nullptr) return ncclSystemError;
  const ncclResult_t status = real(comm, nranks, rank, nids, ids, config);
  if (status == ncclSuccess && comm != nullptr) {
    fn::NoteComm(copy, *comm, nids > 0 && ids != nullptr ? fn::IdOf(ids[0]) : 0);
  }
  return status;
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  flopspy::interpose::LibraryCopy* copy = nullptr;
  const auto real = fn::RealOf<fn::kHook_ncclCommInitAll, decltype(&ncclCommInitAll)>(
      __builtin_return_address(0), &copy);
  if (real == nullptr) return ncclSystemError;
  const ncclResult_t status = real(comms, ndev, devlist);
  if (status == ncclSuccess && comms != nullptr) {
    // Every rank lives in this process: one id for them, from the first communicator's address.
    const uint64_t id = fn::Mix(0x6e63636c616c6c, reinterpret_cast<uint64_t>(comms[0])) | 1;
    for (int i = 0; i < ndev; ++i) fn::NoteComm(copy, comms[i], id);
  }
  return status;
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                               ncclComm_t* newcomm, ncclConfig_t* config) {
  flopspy::interpose::LibraryCopy* copy = nullptr;
  const auto real = fn::RealOf<fn::kHook_ncclCommSplit, decltype(&ncclCommSplit)>(
      __builtin_return_address(0), &copy);
  if (real == nullptr) return ncclSystemError;
  const ncclResult_t status = real(comm, color, key, newcomm, config);
  if (status == ncclSuccess && newcomm != nullptr && *newcomm != nullptr) {
    // The ranks of one color share the parent's id and the color: the child's id.
    const fn::CommEntry* parent = fn::FindComm(reinterpret_cast<uint64_t>(comm));
    const uint64_t parent_id = parent ? parent->id.load(std::memory_order_relaxed) : 0;
    fn::NoteComm(copy, *newcomm,
                 parent_id != 0 ? fn::Mix(parent_id, static_cast<uint32_t>(color)) | 1 : 0);
  }
  return status;
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  flopspy::interpose::LibraryCopy* copy = nullptr;
  const auto real = fn::RealOf<fn::kHook_ncclCommDestroy, decltype(&ncclCommDestroy)>(
      __builtin_return_address(0), &copy);
  if (real == nullptr) return ncclSystemError;
  fn::ForgetComm(comm);
  return real(comm);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  flopspy::interpose::LibraryCopy* copy = nullptr;
  const auto real = fn::RealOf<fn::kHook_ncclCommAbort, decltype(&ncclCommAbort)>(
      __builtin_return_address(0), &copy);
  if (real == nullptr) return ncclSystemError;
  fn::ForgetComm(comm);
  return real(comm);
}

// --- Collectives and point-to-point calls: recorded ------------------------------------------

FLOPSPY_NCCL_EXPORT ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                               ncclDataType_t datatype, ncclRedOp_t op,
                                               ncclComm_t comm, cudaStream_t stream) {
  const CallFacts f{
      BlasRoutine::kNcclAllReduce, comm, count, EnumNumber(datatype), -1, EnumNumber(op), stream};
  return fn::Collective<fn::kHook_ncclAllReduce, decltype(&ncclAllReduce)>(
      __builtin_return_address(0), f, sendbuff, recvbuff, count, datatype, op, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                               ncclDataType_t datatype, int root, ncclComm_t comm,
                                               cudaStream_t stream) {
  const CallFacts f{
      BlasRoutine::kNcclBroadcast, comm, count, EnumNumber(datatype), root, -1, stream};
  return fn::Collective<fn::kHook_ncclBroadcast, decltype(&ncclBroadcast)>(
      __builtin_return_address(0), f, sendbuff, recvbuff, count, datatype, root, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype,
                                           int root, ncclComm_t comm, cudaStream_t stream) {
  const CallFacts f{
      BlasRoutine::kNcclBroadcast, comm, count, EnumNumber(datatype), root, -1, stream};
  return fn::Collective<fn::kHook_ncclBcast, decltype(&ncclBcast)>(
      __builtin_return_address(0), f, buff, count, datatype, root, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                                            ncclDataType_t datatype, ncclRedOp_t op, int root,
                                            ncclComm_t comm, cudaStream_t stream) {
  const CallFacts f{BlasRoutine::kNcclReduce, comm,  count, EnumNumber(datatype), root,
                    EnumNumber(op),           stream};
  return fn::Collective<fn::kHook_ncclReduce, decltype(&ncclReduce)>(
      __builtin_return_address(0), f, sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff,
                                               size_t sendcount, ncclDataType_t datatype,
                                               ncclComm_t comm, cudaStream_t stream) {
  const CallFacts f{
      BlasRoutine::kNcclAllGather, comm, sendcount, EnumNumber(datatype), -1, -1, stream};
  return fn::Collective<fn::kHook_ncclAllGather, decltype(&ncclAllGather)>(
      __builtin_return_address(0), f, sendbuff, recvbuff, sendcount, datatype, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff,
                                                   size_t recvcount, ncclDataType_t datatype,
                                                   ncclRedOp_t op, ncclComm_t comm,
                                                   cudaStream_t stream) {
  const CallFacts f{BlasRoutine::kNcclReduceScatter,
                    comm,
                    recvcount,
                    EnumNumber(datatype),
                    -1,
                    EnumNumber(op),
                    stream};
  return fn::Collective<fn::kHook_ncclReduceScatter, decltype(&ncclReduceScatter)>(
      __builtin_return_address(0), f, sendbuff, recvbuff, recvcount, datatype, op, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count,
                                              ncclDataType_t datatype, ncclComm_t comm,
                                              cudaStream_t stream) {
  const CallFacts f{BlasRoutine::kNcclAllToAll, comm, count, EnumNumber(datatype), -1, -1, stream};
  return fn::Collective<fn::kHook_ncclAlltoAll, decltype(&ncclAlltoAll)>(
      __builtin_return_address(0), f, sendbuff, recvbuff, count, datatype, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count,
                                            ncclDataType_t datatype, int root, ncclComm_t comm,
                                            cudaStream_t stream) {
  const CallFacts f{BlasRoutine::kNcclGather, comm, count, EnumNumber(datatype), root, -1, stream};
  return fn::Collective<fn::kHook_ncclGather, decltype(&ncclGather)>(
      __builtin_return_address(0), f, sendbuff, recvbuff, count, datatype, root, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count,
                                             ncclDataType_t datatype, int root, ncclComm_t comm,
                                             cudaStream_t stream) {
  const CallFacts f{BlasRoutine::kNcclScatter, comm, count, EnumNumber(datatype), root, -1, stream};
  return fn::Collective<fn::kHook_ncclScatter, decltype(&ncclScatter)>(
      __builtin_return_address(0), f, sendbuff, recvbuff, count, datatype, root, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclSend(const void* sendbuff, size_t count,
                                          ncclDataType_t datatype, int peer, ncclComm_t comm,
                                          cudaStream_t stream) {
  const CallFacts f{BlasRoutine::kNcclSend, comm, count, EnumNumber(datatype), peer, -1, stream};
  return fn::Collective<fn::kHook_ncclSend, decltype(&ncclSend)>(
      __builtin_return_address(0), f, sendbuff, count, datatype, peer, comm, stream);
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype,
                                          int peer, ncclComm_t comm, cudaStream_t stream) {
  const CallFacts f{BlasRoutine::kNcclRecv, comm, count, EnumNumber(datatype), peer, -1, stream};
  return fn::Collective<fn::kHook_ncclRecv, decltype(&ncclRecv)>(
      __builtin_return_address(0), f, recvbuff, count, datatype, peer, comm, stream);
}

// --- Groups ------------------------------------------------------------------------------------

FLOPSPY_NCCL_EXPORT ncclResult_t ncclGroupStart() {
  flopspy::interpose::LibraryCopy* copy = nullptr;
  const auto real = fn::RealOf<fn::kHook_ncclGroupStart, decltype(&ncclGroupStart)>(
      __builtin_return_address(0), &copy);
  if (real == nullptr) return ncclSystemError;
  const ncclResult_t status = real();
  if (status == ncclSuccess && fn::tls_nccl_depth == 0 && ++fn::tls_group.depth == 1) {
    fn::tls_group = fn::GroupState{};
    fn::tls_group.depth = 1;
  }
  return status;
}

FLOPSPY_NCCL_EXPORT ncclResult_t ncclGroupEnd() {
  // The outermost end launches the group's work: its record owns the group's kernels. An end
  // with no group open is recorded too (NCCL refuses it; the record keeps the status).
  if (fn::tls_group.depth > 1 || fn::tls_nccl_depth != 0) {
    flopspy::interpose::LibraryCopy* copy = nullptr;
    const auto real = fn::RealOf<fn::kHook_ncclGroupEnd, decltype(&ncclGroupEnd)>(
        __builtin_return_address(0), &copy);
    if (real == nullptr) return ncclSystemError;
    const ncclResult_t status = real();
    if (fn::tls_nccl_depth == 0) --fn::tls_group.depth;
    return status;
  }
  const fn::GroupState group = fn::tls_group;
  fn::tls_group = fn::GroupState{};
  return fn::RunNcclCall<fn::kHook_ncclGroupEnd, decltype(&ncclGroupEnd)>(
      __builtin_return_address(0), [&group](flopspy::interpose::RawLibraryCall& raw,
                                            flopspy::interpose::LibraryCopy*, ncclResult_t) {
        flopspy::trace::LibraryCallRecord& r = raw.record;
        r.routine = static_cast<uint16_t>(BlasRoutine::kNcclGroupEnd);
        r.m = group.calls;
        r.n = group.nranks;
        r.k = group.rank;
        r.ldb = static_cast<int64_t>(group.comm_id);
        r.ldc = 0;
        r.batch = -1;
        r.lda = -1;
        r.stride_a = static_cast<int64_t>(group.bytes);
        r.flops = 0;
        r.bytes = 0;
        r.source = static_cast<uint8_t>(flopspy::trace::FigureSource::kAnalytic);
        r.flags |= flopspy::trace::kLibStreamUnknown;  // the group's calls name their streams
      });
}
