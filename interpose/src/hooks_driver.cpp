// Driver-level interception (design.md decision 2). Every kernel, whoever launches it, reaches
// the driver through a pointer the launcher obtained from cuGetProcAddress, from dlsym on
// libcuda, or by linking libcuda: flopspy hands out its wrappers in all three ways.
//
// Each wrapped function has a few slots, each a real driver pointer and a wrapper that calls
// exactly that pointer: the per-thread-default-stream forms (_ptsz, _ptds) and any different
// implementation the driver returns for another cudaVersion keep their own real function.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "clock.h"
#include "counters_mode.h"
#include "driver_entries.h"
#include "driver_hooks.h"
#include "launch_capture.h"
#include "library_resolver.h"
#include "log.h"
#include "real_symbols.h"
#include "recorder.h"

#define FLOPSPY_EXPORT extern "C" __attribute__((visibility("default")))

namespace flopspy::interpose {
namespace {

constexpr int kSlots = 2;

enum EntryId : int {
#define FLOPSPY_ID(id, ...) k##id,
  FLOPSPY_DRIVER_ENTRIES(FLOPSPY_ID)
#undef FLOPSPY_ID
      kEntryCount
};

enum class Kind { kLaunch, kLaunchEx, kCooperative, kApi };

struct DriverEntry {
  const char* base;
  const char* exported;
  int since;  // cudaVersion of the ABI, from the PFN_..._v<version> type name
  bool per_thread;
  trace::Api api;
  Kind kind;
  trace::CopyKind copy_kind;
  bool synchronizing;
  void* wrappers[kSlots];
  std::atomic<void*> reals[kSlots];
};

// "PFN_cuMemcpyHtoD_v3020" -> 3020; "PFN_cuLaunchKernel_v7000_ptsz" -> 7000.
constexpr int AbiVersion(std::string_view pfn) {
  const size_t at = pfn.rfind("_v");
  int version = 0;
  for (size_t i = at + 2; at != std::string_view::npos && i < pfn.size(); ++i) {
    if (pfn[i] < '0' || pfn[i] > '9') break;
    version = version * 10 + (pfn[i] - '0');
  }
  return version;
}
static_assert(AbiVersion("PFN_cuLaunchKernel_v7000_ptsz") == 7000);

DriverEntry g_entries[kEntryCount] = {
#define FLOPSPY_ENTRY(id, base, exported, pfn, per_thread, api, kind, copy, sync, params, args) \
  {base,                                                                                        \
   #exported,                                                                                   \
   AbiVersion(#pfn),                                                                            \
   per_thread,                                                                                  \
   trace::Api::api,                                                                             \
   Kind::k##kind,                                                                               \
   trace::CopyKind::copy,                                                                       \
   sync,                                                                                        \
   {},                                                                                          \
   {}},
    FLOPSPY_DRIVER_ENTRIES(FLOPSPY_ENTRY)
#undef FLOPSPY_ENTRY
};

template <int E>
struct EntryType;
#define FLOPSPY_TYPE(id, base, exported, pfn, ...) \
  template <>                                      \
  struct EntryType<k##id> {                        \
    using Fn = pfn;                                \
  };
FLOPSPY_DRIVER_ENTRIES(FLOPSPY_TYPE)
#undef FLOPSPY_TYPE

// True when `address` lies in flopspy itself (never store a wrapper as a real function).
bool IsOurs(void* address) {
  Dl_info self{}, other{};
  static const int anchor = 0;
  if (dladdr(&anchor, &self) == 0 || dladdr(address, &other) == 0) return false;
  return self.dli_fbase == other.dli_fbase;
}

// The real function of slot `s`; slot 0 falls back to the driver's exported symbol.
void* Real(int e, int s) {
  void* real = g_entries[e].reals[s].load(std::memory_order_acquire);
  if (real != nullptr || s != 0) return real;
  real = ResolveReal(CudaLibrary::kDriver, g_entries[e].exported);
  if (real == nullptr || IsOurs(real)) return nullptr;
  void* expected = nullptr;
  g_entries[e].reals[0].compare_exchange_strong(expected, real, std::memory_order_acq_rel);
  return g_entries[e].reals[0].load(std::memory_order_acquire);
}

// The wrapper for `real` in entry `e`: an existing slot with it, or a free one.
void* Claim(int e, void* real) {
  if (IsOurs(real)) return real;
  DriverEntry& entry = g_entries[e];
  for (int s = 0; s < kSlots; ++s) {
    void* current = entry.reals[s].load(std::memory_order_acquire);
    if (current == nullptr &&
        entry.reals[s].compare_exchange_strong(current, real, std::memory_order_acq_rel)) {
      return entry.wrappers[s];
    }
    if (current == real) return entry.wrappers[s];
  }
  ReportOnce(std::string("slots-") + entry.exported, trace::WarningCode::kSymbolMissing,
             std::string("the driver handed out more than ") + std::to_string(kSlots) +
                 " implementations of " + entry.base +
                 "; calls through the others are not recorded");
  return real;
}

template <class F>
F MissingReal(int e) {
  ReportMissingReal(g_entries[e].exported);
  return nullptr;
}

constexpr CUresult kNoDriver = CUDA_ERROR_NOT_FOUND;

// --- What each kind of wrapper records -----------------------------------------------------

template <int E, int S>
CUresult LaunchWrapper(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned smem, CUstream s, void** p, void** e) {
  using Fn = typename EntryType<E>::Fn;
  const auto real = reinterpret_cast<Fn>(Real(E, S));
  if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
  if (!g_recording.load(std::memory_order_relaxed) || tls_in_runtime_call) {
    return real(f, gx, gy, gz, bx, by, bz, smem, s, p, e);
  }
  const FunctionInfo* fn =
      FunctionFor(reinterpret_cast<uint64_t>(f), FunctionKind::kDriverFunction);
  const uint64_t correlation = NextCorrelation();
  LaunchShape shape;
  shape.grid[0] = gx, shape.grid[1] = gy, shape.grid[2] = gz;
  shape.block[0] = bx, shape.block[1] = by, shape.block[2] = bz;
  shape.dynamic_smem = smem;
  shape.stream = reinterpret_cast<uint64_t>(s);
  shape.per_thread_stream = g_entries[E].per_thread;
  shape.driver = reinterpret_cast<const void*>(real);
  CounterLaunch counters(fn, shape, {p, e}, correlation);  // FLOPSPY_COUNTERS (counters_mode.h)
  uint64_t enter, exit;
  CUresult result;
  {
    GpuCorrelationScope timing(correlation);
    counters.Begin();
    enter = NowNs();
    result = real(f, gx, gy, gz, bx, by, bz, smem, s, p, e);
    exit = NowNs();
    counters.End(result);
  }
  RecordLaunch(g_entries[E].api, enter, exit, result, correlation, fn, shape, {p, e});
  return result;
}

template <int E, int S>
CUresult CooperativeWrapper(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned smem, CUstream s, void** p) {
  using Fn = typename EntryType<E>::Fn;
  const auto real = reinterpret_cast<Fn>(Real(E, S));
  if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
  if (!g_recording.load(std::memory_order_relaxed) || tls_in_runtime_call) {
    return real(f, gx, gy, gz, bx, by, bz, smem, s, p);
  }
  const FunctionInfo* fn =
      FunctionFor(reinterpret_cast<uint64_t>(f), FunctionKind::kDriverFunction);
  const uint64_t correlation = NextCorrelation();
  LaunchShape shape;
  shape.grid[0] = gx, shape.grid[1] = gy, shape.grid[2] = gz;
  shape.block[0] = bx, shape.block[1] = by, shape.block[2] = bz;
  shape.dynamic_smem = smem;
  shape.stream = reinterpret_cast<uint64_t>(s);
  shape.per_thread_stream = g_entries[E].per_thread;
  shape.driver = reinterpret_cast<const void*>(real);
  CounterLaunch counters(fn, shape, {p, nullptr}, correlation);
  uint64_t enter, exit;
  CUresult result;
  {
    GpuCorrelationScope timing(correlation);
    counters.Begin();
    enter = NowNs();
    result = real(f, gx, gy, gz, bx, by, bz, smem, s, p);
    exit = NowNs();
    counters.End(result);
  }
  RecordLaunch(g_entries[E].api, enter, exit, result, correlation, fn, shape, {p, nullptr});
  return result;
}

template <int E, int S>
CUresult LaunchExWrapper(const CUlaunchConfig* c, CUfunction f, void** p, void** e) {
  using Fn = typename EntryType<E>::Fn;
  const auto real = reinterpret_cast<Fn>(Real(E, S));
  if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
  if (!g_recording.load(std::memory_order_relaxed) || tls_in_runtime_call || c == nullptr) {
    return real(c, f, p, e);
  }
  const FunctionInfo* fn =
      FunctionFor(reinterpret_cast<uint64_t>(f), FunctionKind::kDriverFunction);
  const uint64_t correlation = NextCorrelation();
  LaunchShape shape;
  shape.grid[0] = c->gridDimX, shape.grid[1] = c->gridDimY, shape.grid[2] = c->gridDimZ;
  shape.block[0] = c->blockDimX, shape.block[1] = c->blockDimY, shape.block[2] = c->blockDimZ;
  shape.dynamic_smem = c->sharedMemBytes;
  shape.stream = reinterpret_cast<uint64_t>(c->hStream);
  shape.per_thread_stream = g_entries[E].per_thread;
  shape.driver = reinterpret_cast<const void*>(real);
  for (unsigned i = 0; c->attrs != nullptr && i < c->numAttrs && i < 64; ++i) {
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      shape.cluster[0] = c->attrs[i].value.clusterDim.x;
      shape.cluster[1] = c->attrs[i].value.clusterDim.y;
      shape.cluster[2] = c->attrs[i].value.clusterDim.z;
    }
  }
  CounterLaunch counters(fn, shape, {p, e}, correlation);
  uint64_t enter, exit;
  CUresult result;
  {
    GpuCorrelationScope timing(correlation);
    counters.Begin();
    enter = NowNs();
    result = real(c, f, p, e);
    exit = NowNs();
    counters.End(result);
  }
  RecordLaunch(g_entries[E].api, enter, exit, result, correlation, fn, shape, {p, e});
  return result;
}

// Bytes moved or set by a copy or set call, from its arguments (0 when not a copy).
uint64_t Bytes2D(const CUDA_MEMCPY2D* c) {
  return c ? static_cast<uint64_t>(c->WidthInBytes) * c->Height : 0;
}
uint64_t Bytes3D(const CUDA_MEMCPY3D* c) {
  return c ? static_cast<uint64_t>(c->WidthInBytes) * c->Height * c->Depth : 0;
}
trace::MemoryKind MemoryOf(CUmemorytype type) {
  switch (type) {
    case CU_MEMORYTYPE_DEVICE:
      return trace::MemoryKind::kDevice;
    case CU_MEMORYTYPE_ARRAY:
      return trace::MemoryKind::kArray;
    default:
      return trace::MemoryKind::kUnknown;  // host memory: pinned or pageable is not known here
  }
}
trace::CopyKind KindOf(CUmemorytype src, CUmemorytype dst) {
  const bool src_host = src == CU_MEMORYTYPE_HOST, dst_host = dst == CU_MEMORYTYPE_HOST;
  if (src_host && dst_host) return trace::CopyKind::kHostToHost;
  if (src_host) return trace::CopyKind::kHostToDevice;
  if (dst_host) return trace::CopyKind::kDeviceToHost;
  if (src == CU_MEMORYTYPE_UNIFIED || dst == CU_MEMORYTYPE_UNIFIED)
    return trace::CopyKind::kDefault;
  return trace::CopyKind::kDeviceToDevice;
}

struct CallFacts {
  uint64_t bytes = 0;
  uint64_t stream = 0;
  trace::CopyKind kind = trace::CopyKind::kUnknown;
  trace::MemoryKind src = trace::MemoryKind::kUnknown;
  trace::MemoryKind dst = trace::MemoryKind::kUnknown;
  int position = 0;  // of the argument being noted

  uint32_t Detail() const {
    return static_cast<uint32_t>(kind) | static_cast<uint32_t>(src) << 8 |
           static_cast<uint32_t>(dst) << 16;
  }
};

template <class Copy>
void NoteTypes(CallFacts& f, const Copy* c) {
  if (c == nullptr) return;
  f.kind = KindOf(c->srcMemoryType, c->dstMemoryType);
  f.src = MemoryOf(c->srcMemoryType);
  f.dst = MemoryOf(c->dstMemoryType);
}

template <class T>
void Note(CallFacts& f, T value) {
  if constexpr (std::is_same_v<T, CUstream>) {
    f.stream = reinterpret_cast<uint64_t>(value);
  } else if constexpr (std::is_same_v<T, CUevent>) {
    if (f.stream == 0) f.stream = reinterpret_cast<uint64_t>(value);
  } else if constexpr (std::is_same_v<T, CUarray>) {
    // Array copies name the destination first (DtoA, HtoA, AtoA) or second (AtoD, AtoH).
    (f.position == 0 ? f.dst : f.src) = trace::MemoryKind::kArray;
  } else if constexpr (std::is_same_v<T, const CUDA_MEMCPY2D*>) {
    f.bytes = Bytes2D(value);
    NoteTypes(f, value);
  } else if constexpr (std::is_same_v<T, const CUDA_MEMCPY3D*>) {
    f.bytes = Bytes3D(value);
    NoteTypes(f, value);
  } else if constexpr (std::is_same_v<T, const CUDA_MEMCPY3D_PEER*>) {
    f.bytes = value ? static_cast<uint64_t>(value->WidthInBytes) * value->Height * value->Depth : 0;
    NoteTypes(f, value);
    if (f.kind == trace::CopyKind::kDeviceToDevice) f.kind = trace::CopyKind::kPeer;
  }
  ++f.position;
}

struct Sizes {
  size_t values[8] = {};
  int count = 0;
  size_t element = 1;  // bytes per element of a set: 1, 2 or 4 by the value's type
};

template <class T>
void NoteSize(Sizes& s, T value, bool is_set) {
  if constexpr (std::is_same_v<T, size_t>) {
    if (s.count < 8) s.values[s.count++] = value;
  } else if constexpr (std::is_same_v<T, unsigned short>) {
    if (is_set) s.element = 2;
  } else if constexpr (std::is_same_v<T, unsigned int>) {
    if (is_set) s.element = 4;
  }
}

// Batch copies: the sizes of the copies (a host array, read only when the call succeeded: then
// the driver has read it too), or the extents of the 3D operations. A 3D operation counts one
// byte per element: exact between pointers (the driver's element size), a lower bound with an
// array operand (whose element size is not looked up).
CallFacts DescribeBatch(const size_t* sizes, size_t count, CUstream s, CUresult result) {
  CallFacts f;
  f.stream = reinterpret_cast<uint64_t>(s);
  f.kind = trace::CopyKind::kDefault;  // directions come from the pointers, as cudaMemcpyDefault
  for (size_t i = 0; result == CUDA_SUCCESS && sizes != nullptr && i < count; ++i) {
    f.bytes += sizes[i];
  }
  return f;
}
CallFacts Describe3DBatch(size_t count, const CUDA_MEMCPY3D_BATCH_OP* ops, CUstream s,
                          CUresult result) {
  CallFacts f;
  f.stream = reinterpret_cast<uint64_t>(s);
  f.kind = trace::CopyKind::kDefault;
  for (size_t i = 0; result == CUDA_SUCCESS && ops != nullptr && i < count; ++i) {
    f.bytes +=
        static_cast<uint64_t>(ops[i].extent.width) * ops[i].extent.height * ops[i].extent.depth;
  }
  return f;
}
CallFacts Describe(int, CUresult result, CUdeviceptr*, CUdeviceptr*, size_t* sizes, size_t count,
                   CUmemcpyAttributes*, size_t*, size_t, size_t*, CUstream s) {
  return DescribeBatch(sizes, count, s, result);
}
CallFacts Describe(int, CUresult result, CUdeviceptr*, CUdeviceptr*, size_t* sizes, size_t count,
                   CUmemcpyAttributes*, size_t*, size_t, CUstream s) {
  return DescribeBatch(sizes, count, s, result);
}
CallFacts Describe(int, CUresult result, size_t count, CUDA_MEMCPY3D_BATCH_OP* ops, size_t*,
                   unsigned long long, CUstream s) {
  return Describe3DBatch(count, ops, s, result);
}
CallFacts Describe(int, CUresult result, size_t count, CUDA_MEMCPY3D_BATCH_OP* ops,
                   unsigned long long, CUstream s) {
  return Describe3DBatch(count, ops, s, result);
}

// Bytes, stream and direction of an API call, from its arguments. The last size_t of a copy is
// its byte count; a set has (dst, value, N) or, in 2D, (dst, pitch, value, width, height).
template <class... A>
CallFacts Describe(int e, CUresult, A... args) {
  CallFacts f;
  (Note(f, args), ...);
  const trace::Api api = g_entries[e].api;
  const bool is_set = api == trace::Api::kCuMemset || api == trace::Api::kCuMemsetAsync;
  Sizes sizes;
  (NoteSize(sizes, args, is_set), ...);
  if (is_set) {
    f.bytes = sizes.count >= 3   ? uint64_t{sizes.values[1]} * sizes.values[2] * sizes.element
              : sizes.count >= 1 ? uint64_t{sizes.values[sizes.count - 1]} * sizes.element
                                 : 0;
  } else if (f.bytes == 0 && sizes.count > 0) {
    f.bytes = sizes.values[sizes.count - 1];
  }
  if (f.kind == trace::CopyKind::kUnknown) f.kind = g_entries[e].copy_kind;
  return f;
}

template <int E, int S, class Fn>
struct ApiWrapper;

template <int E, int S, class... A>
struct ApiWrapper<E, S, CUresult (*)(A...)> {
  static CUresult Call(A... args) {
    using Fn = CUresult (*)(A...);
    const auto real = reinterpret_cast<Fn>(Real(E, S));
    if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
    if (!g_recording.load(std::memory_order_relaxed) || tls_in_runtime_call) return real(args...);
    const uint64_t correlation = NextCorrelation();
    uint64_t enter, exit;
    CUresult result;
    {
      GpuCorrelationScope timing(correlation);
      enter = NowNs();
      result = real(args...);
      exit = NowNs();
    }
    const CallFacts facts = Describe(E, result, args...);
    RecordApiCall(g_entries[E].api, enter, exit, result, correlation, facts.stream, facts.bytes,
                  facts.Detail(), g_entries[E].synchronizing, reinterpret_cast<const void*>(real));
    return result;
  }
};

template <int E, int S>
void* WrapperFor() {
  using Fn = typename EntryType<E>::Fn;
  switch (g_entries[E].kind) {
    case Kind::kLaunch:
      if constexpr (std::is_same_v<Fn, decltype(&LaunchWrapper<E, S>)>) {
        return reinterpret_cast<void*>(&LaunchWrapper<E, S>);
      }
      break;
    case Kind::kCooperative:
      if constexpr (std::is_same_v<Fn, decltype(&CooperativeWrapper<E, S>)>) {
        return reinterpret_cast<void*>(&CooperativeWrapper<E, S>);
      }
      break;
    case Kind::kLaunchEx:
      if constexpr (std::is_same_v<Fn, decltype(&LaunchExWrapper<E, S>)>) {
        return reinterpret_cast<void*>(&LaunchExWrapper<E, S>);
      }
      break;
    case Kind::kApi:
      return reinterpret_cast<void*>(&ApiWrapper<E, S, Fn>::Call);
  }
  return nullptr;
}

template <int E>
void FillWrappers() {
  g_entries[E].wrappers[0] = WrapperFor<E, 0>();
  g_entries[E].wrappers[1] = WrapperFor<E, 1>();
  static_assert(kSlots == 2);
}

template <int... E>
void FillAll(std::integer_sequence<int, E...>) {
  (FillWrappers<E>(), ...);
}

// Runs before any hook can be called (library constructor order does not matter: the table is
// filled at load time of libflopspy.so by this static initializer).
const bool g_filled = [] {
  FillAll(std::make_integer_sequence<int, kEntryCount>{});
  return true;
}();

// --- cuGetProcAddress ---------------------------------------------------------------------

using GetProcV2 = CUresult (*)(const char*, void**, int, cuuint64_t,
                               CUdriverProcAddressQueryResult*);
using GetProcV1 = CUresult (*)(const char*, void**, int, cuuint64_t);
std::atomic<void*> g_real_get_proc_v2{nullptr};
std::atomic<void*> g_real_get_proc_v1{nullptr};

CUresult GetProcAddressV2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                          CUdriverProcAddressQueryResult* status);
CUresult GetProcAddressV1(const char* symbol, void** pfn, int version, cuuint64_t flags);

void Remember(std::atomic<void*>& slot, void* real) {
  if (real == nullptr || IsOurs(real)) return;
  void* expected = nullptr;
  slot.compare_exchange_strong(expected, real, std::memory_order_acq_rel);
}

// The entry that matches a cuGetProcAddress answer: first by address (the driver returned its
// exported function), else by the per-thread flag and the version (the driver returned another
// implementation): between ABIs of one function (cuCtxSynchronize, the batch copies before and
// after 13.0) the newest one not newer than the requested version. None when every ABI the table
// has is newer (a pre-3.2 copy ABI): the driver's function is handed out unwrapped.
int EntryForProc(std::string_view symbol, void* real, int version, cuuint64_t flags) {
  int by_version = -1;
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  for (int e = 0; e < kEntryCount; ++e) {
    if (symbol != g_entries[e].base) continue;
    if (Real(e, 0) == real) return e;
    if (g_entries[e].per_thread == per_thread && g_entries[e].since <= version &&
        (by_version < 0 || g_entries[e].since > g_entries[by_version].since)) {
      by_version = e;
    }
  }
  return by_version;
}

void* WrapProc(const char* symbol, void* real, int version, cuuint64_t flags) {
  const std::string_view name(symbol);
  if (name == "cuGetProcAddress") {
    // cudart asks for cuGetProcAddress itself and uses the answer for everything after: hand
    // out the wrapper of the matching ABI (12.0 introduced the five-argument form).
    if (version >= 12000) {
      Remember(g_real_get_proc_v2, real);
      return reinterpret_cast<void*>(&GetProcAddressV2);
    }
    Remember(g_real_get_proc_v1, real);
    return reinterpret_cast<void*>(&GetProcAddressV1);
  }
  const int e = EntryForProc(name, real, version, flags);
  return e < 0 ? real : Claim(e, real);
}

CUresult GetProcAddressV2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                          CUdriverProcAddressQueryResult* status) {
  auto real = reinterpret_cast<GetProcV2>(g_real_get_proc_v2.load(std::memory_order_acquire));
  if (real == nullptr) {
    Remember(g_real_get_proc_v2, ResolveReal(CudaLibrary::kDriver, "cuGetProcAddress_v2"));
    real = reinterpret_cast<GetProcV2>(g_real_get_proc_v2.load(std::memory_order_acquire));
    if (real == nullptr) return MissingReal<GetProcV2>(kLaunchKernel), kNoDriver;
  }
  const CUresult result = real(symbol, pfn, version, flags, status);
  if (result == CUDA_SUCCESS && symbol != nullptr && pfn != nullptr && *pfn != nullptr) {
    *pfn = WrapProc(symbol, *pfn, version, flags);
  }
  return result;
}

CUresult GetProcAddressV1(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  auto real = reinterpret_cast<GetProcV1>(g_real_get_proc_v1.load(std::memory_order_acquire));
  if (real == nullptr) {
    Remember(g_real_get_proc_v1, ResolveReal(CudaLibrary::kDriver, "cuGetProcAddress"));
    real = reinterpret_cast<GetProcV1>(g_real_get_proc_v1.load(std::memory_order_acquire));
    if (real == nullptr) return MissingReal<GetProcV1>(kLaunchKernel), kNoDriver;
  }
  const CUresult result = real(symbol, pfn, version, flags);
  if (result == CUDA_SUCCESS && symbol != nullptr && pfn != nullptr && *pfn != nullptr) {
    *pfn = WrapProc(symbol, *pfn, version, flags);
  }
  return result;
}

bool InDriver(void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return false;
  const char* base = std::strrchr(info.dli_fname, '/');
  return std::strncmp(base ? base + 1 : info.dli_fname, "libcuda.so", 10) == 0;
}

}  // namespace

void* WrapDriverSymbol(const char* name, void* real) {
  if (!InDriver(real)) return real;
  const std::string_view symbol(name);
  if (symbol == "cuGetProcAddress_v2") {
    Remember(g_real_get_proc_v2, real);
    return reinterpret_cast<void*>(&GetProcAddressV2);
  }
  if (symbol == "cuGetProcAddress") {
    Remember(g_real_get_proc_v1, real);
    return reinterpret_cast<void*>(&GetProcAddressV1);
  }
  for (int e = 0; e < kEntryCount; ++e) {
    if (symbol == g_entries[e].exported) return Claim(e, real);
  }
  return real;
}

}  // namespace flopspy::interpose

// --- The driver's own exported names, for programs linked with libcuda --------------------

using namespace flopspy::interpose;  // NOLINT(google-build-using-namespace): hook definitions

FLOPSPY_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                                            cuuint64_t flags,
                                            CUdriverProcAddressQueryResult* status) {
  return GetProcAddressV2(symbol, pfn, version, flags, status);
}

#undef cuGetProcAddress
FLOPSPY_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version,
                                         cuuint64_t flags) {
  return GetProcAddressV1(symbol, pfn, version, flags);
}

template <int E>
typename EntryType<E>::Fn SlotZero() {
  return reinterpret_cast<typename EntryType<E>::Fn>(g_entries[E].wrappers[0]);
}

#define FLOPSPY_EXPORT_ENTRY(id, base, exported, pfn, per_thread, api, kind, copy, sync, params, \
                             args)                                                               \
  FLOPSPY_EXPORT CUresult exported params {                                                      \
    return SlotZero<k##id>() args;                                                               \
  }
FLOPSPY_DRIVER_ENTRIES(FLOPSPY_EXPORT_ENTRY)
#undef FLOPSPY_EXPORT_ENTRY
