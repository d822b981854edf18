// Driver-level interception (docs/architecture.md, decision 2). Every kernel, whoever launches it,
// reaches the driver through a pointer the launcher obtained from cuGetProcAddress, from dlsym on
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

#include "capture_window.h"
#include "clock.h"
#include "driver_call_facts.h"
#include "driver_entries.h"
#include "driver_hooks.h"
#include "graph_hooks.h"
#include "instrumented_launch.h"
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

enum class Kind { kLaunch, kLaunchEx, kCooperative, kApi, kGraph };

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

constinit DriverEntry g_entries[kEntryCount] = {
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

void EnsureWrappers();

// The wrapper for `real` in entry `e`: an existing slot with it, or a free one.
void* Claim(int e, void* real) {
  if (IsOurs(real)) return real;
  EnsureWrappers();
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

// The shape every cuLaunchKernel-like call shares; the rest is the call's own.
template <int E>
LaunchShape DriverShape(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, CUstream s, const void* real) {
  LaunchShape shape;
  shape.grid[0] = gx, shape.grid[1] = gy, shape.grid[2] = gz;
  shape.block[0] = bx, shape.block[1] = by, shape.block[2] = bz;
  shape.dynamic_smem = smem;
  shape.stream = reinterpret_cast<uint64_t>(s);
  shape.per_thread_stream = g_entries[E].per_thread;
  shape.driver = real;
  return shape;
}

template <int E>
LaunchSite DriverSite(CUfunction f) {
  return {g_entries[E].api, reinterpret_cast<uint64_t>(f), FunctionKind::kDriverFunction};
}

template <int E, int S>
CUresult LaunchWrapper(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned smem, CUstream s, void** p,
                       void** e) noexcept {
  using Fn = typename EntryType<E>::Fn;
  void* const address = Real(E, S);
  const auto real = reinterpret_cast<Fn>(address);
  if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
  if (!RecordingCalls() || tls_in_runtime_call) {
    return real(f, gx, gy, gz, bx, by, bz, smem, s, p, e);
  }
  const LaunchShape shape = DriverShape<E>(gx, gy, gz, bx, by, bz, smem, s, address);
  return InstrumentedLaunch(DriverSite<E>(f), shape, {p, e}, [&]() noexcept {
    return real(f, gx, gy, gz, bx, by, bz, smem, s, p, e);
  });
}

template <int E, int S>
CUresult CooperativeWrapper(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned smem, CUstream s,
                            void** p) noexcept {
  using Fn = typename EntryType<E>::Fn;
  void* const address = Real(E, S);
  const auto real = reinterpret_cast<Fn>(address);
  if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
  if (!RecordingCalls() || tls_in_runtime_call) {
    return real(f, gx, gy, gz, bx, by, bz, smem, s, p);
  }
  const LaunchShape shape = DriverShape<E>(gx, gy, gz, bx, by, bz, smem, s, address);
  return InstrumentedLaunch(DriverSite<E>(f), shape, {p, nullptr},
                            [&]() noexcept { return real(f, gx, gy, gz, bx, by, bz, smem, s, p); });
}

template <int E, int S>
CUresult LaunchExWrapper(const CUlaunchConfig* c, CUfunction f, void** p, void** e) noexcept {
  using Fn = typename EntryType<E>::Fn;
  void* const address = Real(E, S);
  const auto real = reinterpret_cast<Fn>(address);
  if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
  if (!RecordingCalls() || tls_in_runtime_call || c == nullptr) {
    return real(c, f, p, e);
  }
  LaunchShape shape =
      DriverShape<E>(c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                     c->blockDimZ, c->sharedMemBytes, c->hStream, address);
  NoteCluster(shape, c->attrs, c->numAttrs, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
              &CUlaunchAttribute::value);
  return InstrumentedLaunch(DriverSite<E>(f), shape, {p, e},
                            [&]() noexcept { return real(c, f, p, e); });
}

template <int E, int S, class Fn>
struct ApiWrapper;

template <int E, int S, class... A>
struct ApiWrapper<E, S, CUresult (*)(A...)> {
  static CUresult Call(A... args) noexcept {
    using Fn = CUresult (*)(A...);
    const auto real = reinterpret_cast<Fn>(Real(E, S));
    if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
    if (!RecordingCalls() || tls_in_runtime_call) return real(args...);
    const uint64_t correlation = NextCorrelation();
    uint64_t enter, exit;
    CUresult result;
    {
      GpuCorrelationScope timing(correlation);
      enter = NowNs();
      result = real(args...);
      exit = NowNs();
    }
    const CallFacts facts = CallFactsOf(g_entries[E].api, g_entries[E].copy_kind, result, args...);
    RecordApiCall(g_entries[E].api, enter, exit, result, correlation, facts.stream, facts.bytes,
                  facts.Detail(), g_entries[E].synchronizing, reinterpret_cast<const void*>(real));
    return result;
  }
};

// Graph building and capture: the real call, then what it did (graph_hooks.h). Capture counts and
// graph ids are kept even when nothing is recorded.
template <class... A>
concept GraphNotable = requires(const GraphCall& call, A... args) {
  NoteGraphCall(call, args...);
};

template <int E, int S, class Fn>
struct GraphWrapper;

template <int E, int S, class... A>
struct GraphWrapper<E, S, CUresult (*)(A...)> {
  static constexpr bool kNotable = GraphNotable<A...>;
  static CUresult Call(A... args) noexcept {
    using Fn = CUresult (*)(A...);
    const auto real = reinterpret_cast<Fn>(Real(E, S));
    if (real == nullptr) return MissingReal<Fn>(E), kNoDriver;
    GraphCall call;
    call.api = g_entries[E].api;
    call.record = RecordingCalls() && !tls_in_runtime_call;
    call.driver = reinterpret_cast<const void*>(real);
    call.destroyed = ForgetBeforeDestroy(args...);
    call.enter_ns = NowNs();
    call.result = real(args...);
    call.exit_ns = NowNs();
    if constexpr (kNotable) NoteGraphCall(call, args...);
    return call.result;
  }
};

template <int E, int S>
void* WrapperFor() {
  using Fn = typename EntryType<E>::Fn;
  switch (g_entries[E].kind) {
    case Kind::kLaunch:
      if constexpr (std::is_convertible_v<decltype(&LaunchWrapper<E, S>), Fn>) {
        return reinterpret_cast<void*>(&LaunchWrapper<E, S>);
      }
      break;
    case Kind::kCooperative:
      if constexpr (std::is_convertible_v<decltype(&CooperativeWrapper<E, S>), Fn>) {
        return reinterpret_cast<void*>(&CooperativeWrapper<E, S>);
      }
      break;
    case Kind::kLaunchEx:
      if constexpr (std::is_convertible_v<decltype(&LaunchExWrapper<E, S>), Fn>) {
        return reinterpret_cast<void*>(&LaunchExWrapper<E, S>);
      }
      break;
    case Kind::kApi:
      return reinterpret_cast<void*>(&ApiWrapper<E, S, Fn>::Call);
    case Kind::kGraph:
      if constexpr (GraphWrapper<E, S, Fn>::kNotable) {
        return reinterpret_cast<void*>(&GraphWrapper<E, S, Fn>::Call);
      }
      break;
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

// Fills the table at its first use. Not a namespace-scope initializer: the libraries a program
// is linked with are initialised before libflopspy.so, and one of them may look the driver up
// in its own constructor (libcublasLt.so.13 does); a wrapper handed out then must not be null.
void EnsureWrappers() {
  static const bool filled = [] {
    FillAll(std::make_integer_sequence<int, kEntryCount>{});
    return true;
  }();
  (void)filled;
}

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
  // cuda.h makes cuGraphInstantiate cuGraphInstantiateWithFlags from CUDA 12.0 on: the driver
  // answers that name with that function.
  if (symbol == "cuGraphInstantiate" && version >= 12000) symbol = "cuGraphInstantiateWithFlags";
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
  EnsureWrappers();
  return reinterpret_cast<typename EntryType<E>::Fn>(g_entries[E].wrappers[0]);
}

#define FLOPSPY_EXPORT_ENTRY(id, base, exported, pfn, per_thread, api, kind, copy, sync, params, \
                             args)                                                               \
  FLOPSPY_EXPORT CUresult exported params {                                                      \
    return SlotZero<k##id>() args;                                                               \
  }
FLOPSPY_DRIVER_ENTRIES(FLOPSPY_EXPORT_ENTRY)
#undef FLOPSPY_EXPORT_ENTRY
