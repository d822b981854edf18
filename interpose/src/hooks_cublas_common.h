// What every cuBLAS and cuBLASLt hook shares: the hook ids, finding the real function, the
// record's defaults, reading the handle's state, and RunHook, the one body all ~300 hooks use.
//
// A hook (see FLOPSPY_CUBLAS_DEFINE_HOOK) is
//
//   RET name(PARAMS) { return RunHook<kHook_name, RET, &Decode<Family>>(caller, ARGS); }
//
// RunHook finds the real function for the hook's call site (the copy of libcublas or libcublasLt
// the caller is linked against: a process may hold several), reads the clock, calls it inside a
// LibraryCallScope, reads the clock, lets the family's decoder turn the arguments into
// LibraryCallRecord fields (docs/cublas-hooks.md says which; what it asks the library, it asks that
// same copy), emits the record and returns exactly what the real function returned. No
// allocation, no lock, no system call and no exception on that path once the call site is known.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "caller_resolver.h"
#include "capture_window.h"
#include "clock.h"
#include "current_device.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "hooks_cublas_table.h"
#include "launch_record.h"
#include "library_scope.h"
#include "raw_events.h"
#include "recorder.h"

#define FLOPSPY_EXPORT extern "C" __attribute__((visibility("default")))

namespace flopspy::interpose::cublas {

// One id per hooked entry point, in the order of FLOPSPY_CUBLAS_ENTRY_POINTS.
enum HookId : uint16_t {
#define FLOPSPY_CUBLAS_HOOK_ID(F, name, I, T1, T2, T3, ...) kHook_##name,
  FLOPSPY_CUBLAS_ENTRY_POINTS(FLOPSPY_CUBLAS_HOOK_ID)
#undef FLOPSPY_CUBLAS_HOOK_ID
      kHookCount
};

// The exported name of a hook.
const char* HookName(HookId id);

// --- The real functions ----------------------------------------------------------------------

// Where each hook's calls go, by hook id and call site (caller_resolver.h): the real function in
// the libcublas or libcublasLt copy the calling object is linked against, and that copy. One
// process may hold several (a CUDA 12 PyTorch and a CUDA 13 extension, each opened RTLD_LOCAL;
// a wheel's renamed copy), and a handle means something only to the copy that made it.
extern CallerCache g_sites[kHookCount];

// Cold path: says once that `id` has nothing to forward to.
void ReportMissing(HookId id) noexcept;

// The LibraryCopy::Beside slots of the functions the decoders ask the copy a call went to.
enum BesideSlot : int {
  kSlotGetStream,          // libcublas: cublasGetStream_v2
  kSlotGetPointerMode,     // libcublas: cublasGetPointerMode_v2
  kSlotGetMathMode,        // libcublas: cublasGetMathMode
  kSlotLtMatmulDescGet,    // libcublasLt: cublasLtMatmulDescGetAttribute
  kSlotLtMatrixLayoutGet,  // libcublasLt: cublasLtMatrixLayoutGetAttribute
};
static_assert(kSlotLtMatrixLayoutGet < LibraryCopy::kBesideSlots);

// LibraryCopy::marks() bits of a libcublas copy.
inline constexpr uint32_t kMarkLegacyStreamSet = 1;  // cublasSetKernelStream succeeded

// --- Records ---------------------------------------------------------------------------------

// A record with every field "not applicable" (types 0xFF, dimensions 0, batch 1, device -1,
// epilogue DEFAULT), the routine and the types the entry point fixes, and record.name = the
// entry's index in BlasEntryPoints() + 1. A name missing from that table gives routine 0 and
// kLibUnknownRoutine.
void InitRecord(HookId id, RawLibraryCall& raw);

// Byte encodings of the record (docs/blas-formulas.md §2).
inline uint8_t TypeByte(int value) {  // cudaDataType, cublasOperation_t, ...; 0xFF if it won't fit
  return value >= 0 && value < analyzers::kFromArgs ? static_cast<uint8_t>(value)
                                                    : analyzers::kNotApplicable;
}
inline uint8_t ComputeByte(int value) {  // cublasComputeType_t - 64
  const int v = value - analyzers::compute_type::kOffset;
  return TypeByte(v);
}
// Legacy API options: 'N'/'T'/'C', 'L'/'R', 'L'/'U', 'N'/'U' (either case).
uint8_t LegacyOp(char c);
uint8_t LegacySide(char c);
uint8_t LegacyFill(char c);
uint8_t LegacyDiag(char c);

// log2 of a pointer's alignment (its trailing zero bits); 0xFF for a null pointer or an
// operand that does not apply.
inline uint32_t AlignLog2(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  return v == 0 ? 0xFFu : static_cast<uint32_t>(__builtin_ctzll(v));
}
inline uint32_t PackAlign(const void* a, const void* b, const void* c, const void* d) {
  return AlignLog2(a) | AlignLog2(b) << 8 | AlignLog2(c) << 16 | AlignLog2(d) << 24;
}

// Whether a scalar is zero, by its static type or by a cudaDataType. -0.0 is zero, NaN is not.
template <class T>
inline bool ScalarNonZero(const T& v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return v != 0;
  } else if constexpr (std::is_same_v<T, cuComplex> || std::is_same_v<T, cuDoubleComplex>) {
    return v.x != 0 || v.y != 0;
  } else {
    static_assert(sizeof(T) == 2, "a 16-bit float (__half, __nv_bfloat16)");
    uint16_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return (bits & 0x7FFFu) != 0;
  }
}
// Reads a scalar of cudaDataType `type` at p. Returns false when the type is not one a scale
// factor can have (then nothing is known).
bool TypedScalarNonZero(const void* p, uint8_t type, bool& non_zero);

// The scale type (alpha, beta) of GemmEx and its batched forms, from the compute type and C's
// type (cuBLAS documentation, cublasGemmEx); 0xFF if the compute type is not one we know.
uint8_t GemmExScaleType(int compute_type, int c_type);

// --- The handle's state (handle API) -----------------------------------------------------------

// cuBLAS keeps the stream, pointer mode and math mode in the handle. flopspy asks the library
// (cublasGetStream_v2, cublasGetPointerMode_v2, cublasGetMathMode: host-side reads of the
// handle) instead of shadowing the setters: the answer is always the library's own, whichever way
// it was set, and nothing is stored per handle (docs/cublas-hooks.md §3). The getters are those of
// `lib`, the copy the call went to (nullptr: none known, nothing is read). The handle is not
// touched when it is null or the call said CUBLAS_STATUS_NOT_INITIALIZED (not a live handle).
//
// Sets raw.stream_handle (0, the legacy default stream, if it cannot be read) and, when
// `pointer_mode` is asked for, returns whether alpha and beta are host pointers (false when they
// are device pointers or the mode cannot be read).
bool ReadHandle(RawLibraryCall& raw, LibraryCopy* lib, cublasHandle_t handle, bool pointer_mode);

// Sets kLibAlphaKnown and kLibBetaKnown/kLibBetaNonZero from host scalars.
template <class TA, class TB>
inline void NoteScalars(trace::LibraryCallRecord& r, bool host, const TA* alpha, const TB* beta) {
  if (!host) return;
  if (alpha != nullptr) r.flags |= trace::kLibAlphaKnown;
  if (beta != nullptr) {
    bool non_zero;
    if constexpr (std::is_void_v<TB>) {
      if (!TypedScalarNonZero(beta, r.scale_type, non_zero)) return;
    } else {
      non_zero = ScalarNonZero(*beta);
    }
    r.flags |= trace::kLibBetaKnown | (non_zero ? trace::kLibBetaNonZero : 0u);
  }
}
// Legacy API: scalars come by value, so both are always known.
template <class TB>
inline void NoteValueScalars(trace::LibraryCallRecord& r, const TB& beta) {
  r.flags |= trace::kLibAlphaKnown | trace::kLibBetaKnown |
             (ScalarNonZero(beta) ? trace::kLibBetaNonZero : 0u);
}

// The TF32 rule of docs/blas-formulas.md §2: a level-3 routine with compute type plain 32F on
// FP32 (or complex FP32) data runs on TF32 tensor cores when the handle's math mode says so; the
// record then says 32F_FAST_TF32. The math mode is read only when the rule could apply.
void ApplyMathMode(trace::LibraryCallRecord& r, LibraryCopy* lib, cublasHandle_t handle);

// --- The legacy API's unknowns ------------------------------------------------------------------

// A legacy call (no cublasStatus_t to return): its status is unknown, and so is its stream once
// the program has changed the legacy stream of the copy the call went to (cublasSetKernelStream,
// kMarkLegacyStreamSet; docs/cublas-hooks.md §2.2); before that it is the legacy default stream
// (0). Each copy has its own legacy stream. Without a copy nothing is known.
template <class R>
inline void NoteLegacyUnknowns(RawLibraryCall& raw, LibraryCopy* lib) {
  if constexpr (!std::is_same_v<R, cublasStatus_t>) {
    raw.record.flags |= trace::kLibStatusUnknown;
    if (lib == nullptr ||
        (lib->marks().load(std::memory_order_relaxed) & kMarkLegacyStreamSet) != 0) {
      raw.record.flags |= trace::kLibStreamUnknown;
    }
  }
}

// --- The hook body ------------------------------------------------------------------------------

// What a hook returns when nothing can be called: an error for the handle API, nothing or zero
// for the legacy API.
template <class R>
inline R MissingResult() {
  if constexpr (std::is_same_v<R, cublasStatus_t>) {
    return CUBLAS_STATUS_NOT_INITIALIZED;
  } else if constexpr (!std::is_void_v<R>) {
    return R{};
  }
}

// The raw record a decoder fills: RawLibraryCall, or RawGroupedCall for the grouped GEMMs (whose
// groups travel with the call). Taken from the decoder's first parameter.
template <class F>
struct DecoderRaw;
template <class Raw, class... P>
struct DecoderRaw<void (*)(Raw&, LibraryCopy*, P...)> {
  using Type = Raw;
};
inline RawLibraryCall& CallOf(RawLibraryCall& raw) {
  return raw;
}
inline RawLibraryCall& CallOf(RawGroupedCall& raw) {
  return raw.call;
}
inline void InitRaw(HookId id, RawLibraryCall& raw) {
  InitRecord(id, raw);
}
inline void InitRaw(HookId id, RawGroupedCall& raw) {
  InitRecord(id, raw.call);
  raw.listed = 0;
  raw.reserved = 0;
  raw.cut = trace::LibraryGroupsCut{};
}

// Writes the record of a call that just returned (`result`: its return value, null for void).
template <HookId kId, class R, auto kDecode, class... A>
__attribute__((always_inline)) inline void RecordCall(LibraryCopy* copy, uint64_t correlation,
                                                      uint64_t enter, const R* result, A... args) {
  const uint64_t exit = NowNs();
  typename DecoderRaw<decltype(kDecode)>::Type raw;
  InitRaw(kId, raw);
  RawLibraryCall& call = CallOf(raw);
  call.record.enter_ns = enter;
  call.record.exit_ns = exit;
  call.record.correlation = correlation;
  call.record.device = CurrentDevice();  // where the handle's work runs
  // The legacy API has no status to return (cublasGetError() would clear the program's).
  if constexpr (std::is_same_v<R, cublasStatus_t>) call.record.status = *result;
  (void)result;
  NoteLegacyUnknowns<R>(call, copy);
  kDecode(raw, copy, args...);
  raw.Seal();
  EmitBytes(&raw, call.record.h.size());  // Emit() wants a top-level header
}

// R is the hook's return type; the argument types are the hook's parameter types, so Fn is
// exactly the real function's type. `caller` is the exported hook's return address. Each
// instantiation has one user, its hook; inlined there so that the arguments are not copied again
// to make room for `caller` (a call with one more argument than the hook has cannot be a jump).
template <HookId kId, class R, auto kDecode, class... A>
__attribute__((always_inline)) inline R RunHook(const void* caller, A... args) {
  using Fn = R (*)(A...);
  const CallTarget target = g_sites[kId].Target(caller);
  const Fn real = reinterpret_cast<Fn>(target.real);
  if (__builtin_expect(real == nullptr, 0)) {
    ReportMissing(kId);
    return MissingResult<R>();
  }
  // Inside a cuDNN call the work is the cuDNN call's (library_scope.h).
  if (!RecordingCalls() || InsideDnnCall()) return real(args...);

  // CUPTI gives this id to the kernels the call launches through the runtime linked into cuBLAS,
  // which no hook of flopspy's sees begin (the report joins them to the call's launches).
  const uint64_t correlation = NextCorrelation();
  const uint64_t enter = NowNs();
  if constexpr (std::is_void_v<R>) {
    {
      LibraryCallScope scope;
      GpuCorrelationScope timing(correlation, CorrelatedCall::kLibrary);
      real(args...);
    }
    RecordCall<kId, R, kDecode>(target.copy, correlation, enter, nullptr, args...);
  } else {
    R result;
    {
      LibraryCallScope scope;
      GpuCorrelationScope timing(correlation, CorrelatedCall::kLibrary);
      result = real(args...);
    }
    RecordCall<kId, R, kDecode>(target.copy, correlation, enter, &result, args...);
    return result;
  }
}

}  // namespace flopspy::interpose::cublas

// Defines the exported hook of one list line, at global scope;
// flopspy::interpose::cublas::Decode<Family> must be declared. The return address is taken here,
// in the exported function itself: it is the caller's.
#define FLOPSPY_CUBLAS_DEFINE_HOOK(F, name, I, T1, T2, T3, ...)                                \
  FLOPSPY_EXPORT FLOPSPY_CUBLAS_RET(F, T1, T2) name(FLOPSPY_CUBLAS_PARAMS(F, I, T1, T2, T3)) { \
    namespace fc = ::flopspy::interpose::cublas;                                               \
    return fc::RunHook<fc::kHook_##name, FLOPSPY_CUBLAS_RET(F, T1, T2),                        \
                       &fc::Decode##F<I, T1, T2, T3>>(__builtin_return_address(0),             \
                                                      FLOPSPY_CUBLAS_ARGS_##F);                \
  }
