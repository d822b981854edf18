// The shared, out-of-line part of the cuBLAS and cuBLASLt hooks: the call sites' caches, record
// defaults, the handle getters and the TF32 rule.
#include "hooks_cublas_common.h"

#include <cstdlib>
#include <string_view>

#include "library_call_defaults.h"
#include "library_resolver.h"
#include "log.h"

namespace flopspy::interpose::cublas {
namespace {

constexpr CudaLibrary LibraryOfHook(std::string_view name) {
  return name.starts_with("cublasLt") ? CudaLibrary::kBlasLt : CudaLibrary::kBlas;
}

constexpr const char* kHookNames[] = {
#define FLOPSPY_CUBLAS_HOOK_NAME(F, name, I, T1, T2, T3, ...) #name,
    FLOPSPY_CUBLAS_ENTRY_POINTS(FLOPSPY_CUBLAS_HOOK_NAME)
#undef FLOPSPY_CUBLAS_HOOK_NAME
};
static_assert(std::size(kHookNames) == kHookCount);

std::atomic<bool> g_missing_reported[kHookCount];

// BlasEntryPoints() index + 1 per hook; 0 until looked up, kNoEntry if the table lacks the name.
constexpr uint16_t kNoEntry = 0xFFFF;
std::atomic<uint16_t> g_entry[kHookCount];

uint16_t EntryIndex(HookId id) {
  uint16_t e = g_entry[id].load(std::memory_order_relaxed);
  if (__builtin_expect(e != 0, 1)) return e;
  const analyzers::BlasEntryPoint* entry = analyzers::FindBlasEntryPoint(kHookNames[id]);
  e = entry == nullptr ? kNoEntry
                       : static_cast<uint16_t>(entry - analyzers::BlasEntryPoints().data() + 1);
  g_entry[id].store(e, std::memory_order_relaxed);
  return e;
}

// The handle getters, taken from the copy the call went to: another copy does not know the
// handle (it may even be another major, with another handle layout).
constexpr const char* kGetterNames[] = {"cublasGetStream_v2", "cublasGetPointerMode_v2",
                                        "cublasGetMathMode"};
static_assert(kSlotGetStream == 0 && kSlotGetPointerMode == 1 && kSlotGetMathMode == 2);
std::atomic<bool> g_getter_reported[std::size(kGetterNames)];

void ReportMissingGetter(BesideSlot slot) noexcept {
  if (g_getter_reported[slot].load(std::memory_order_relaxed) ||
      g_getter_reported[slot].exchange(true)) {
    return;
  }
  try {
    ReportOnce(std::string("missing-") + kGetterNames[slot], trace::WarningCode::kSymbolMissing,
               std::string("the libcublas a call went to does not define ") + kGetterNames[slot] +
                   "; cuBLAS records lack what it would tell (stream, pointer mode or math mode)");
  } catch (...) {
  }
}

template <class Fn>
Fn GetterOf(LibraryCopy* lib, BesideSlot slot) {
  void* f = lib != nullptr ? lib->Beside(slot, kGetterNames[slot]) : nullptr;
  if (__builtin_expect(f == nullptr, 0)) ReportMissingGetter(slot);
  return reinterpret_cast<Fn>(f);
}

// NVIDIA_TF32_OVERRIDE=0 turns TF32 off whatever the math mode says (read once, at load).
std::atomic<bool> g_tf32_forbidden{false};

__attribute__((constructor)) void ReadTf32Override() {
  const char* v = std::getenv("NVIDIA_TF32_OVERRIDE");
  g_tf32_forbidden.store(v != nullptr && v[0] == '0' && v[1] == '\0');
}

bool HandleUsable(const trace::LibraryCallRecord& r, cublasHandle_t handle) {
  return handle != nullptr && r.status != CUBLAS_STATUS_NOT_INITIALIZED;
}

}  // namespace

// Constant-initialised: a hook may run before any constructor of libflopspy.so has.
constinit CallerCache g_sites[kHookCount] = {
#define FLOPSPY_CUBLAS_HOOK_SITES(F, name, I, T1, T2, T3, ...) {LibraryOfHook(#name), #name},
    FLOPSPY_CUBLAS_ENTRY_POINTS(FLOPSPY_CUBLAS_HOOK_SITES)
#undef FLOPSPY_CUBLAS_HOOK_SITES
};

const char* HookName(HookId id) {
  return id < kHookCount ? kHookNames[id] : "";
}

void ReportMissing(HookId id) noexcept {
  if (g_missing_reported[id].exchange(true)) return;
  try {
    ReportMissingReal(kHookNames[id]);
  } catch (...) {
  }
}

void InitRecord(HookId id, RawLibraryCall& raw) {
  ResetLibraryCall(raw);
  trace::LibraryCallRecord& r = raw.record;
  const uint16_t e = EntryIndex(id);
  if (e == kNoEntry) {
    r.flags = trace::kLibUnknownRoutine;
    return;
  }
  analyzers::ApplyEntryPointDefaults(analyzers::BlasEntryPoints()[e - 1], r);
  r.name = e;
}

uint8_t LegacyOp(char c) {
  switch (c) {
    case 'N':
    case 'n':
      return analyzers::blas_op::kN;
    case 'T':
    case 't':
      return analyzers::blas_op::kT;
    case 'C':
    case 'c':
      return analyzers::blas_op::kC;
    default:
      return analyzers::kNotApplicable;
  }
}

uint8_t LegacySide(char c) {
  switch (c) {
    case 'L':
    case 'l':
      return analyzers::blas_side::kLeft;
    case 'R':
    case 'r':
      return analyzers::blas_side::kRight;
    default:
      return analyzers::kNotApplicable;
  }
}

uint8_t LegacyFill(char c) {
  switch (c) {
    case 'L':
    case 'l':
      return analyzers::blas_fill::kLower;
    case 'U':
    case 'u':
      return analyzers::blas_fill::kUpper;
    default:
      return analyzers::kNotApplicable;
  }
}

uint8_t LegacyDiag(char c) {
  switch (c) {
    case 'N':
    case 'n':
      return analyzers::blas_diag::kNonUnit;
    case 'U':
    case 'u':
      return analyzers::blas_diag::kUnit;
    default:
      return analyzers::kNotApplicable;
  }
}

bool TypedScalarNonZero(const void* p, uint8_t type, bool& non_zero) {
  namespace ct = analyzers::cuda_type;
  switch (type) {
    case ct::kR32F:
      non_zero = ScalarNonZero(*static_cast<const float*>(p));
      return true;
    case ct::kR64F:
      non_zero = ScalarNonZero(*static_cast<const double*>(p));
      return true;
    case ct::kC32F:
      non_zero = ScalarNonZero(*static_cast<const cuComplex*>(p));
      return true;
    case ct::kC64F:
      non_zero = ScalarNonZero(*static_cast<const cuDoubleComplex*>(p));
      return true;
    case ct::kR16F:
    case ct::kR16BF:
      non_zero = ScalarNonZero(*static_cast<const __half*>(p));
      return true;
    case ct::kR32I:
      non_zero = *static_cast<const int32_t*>(p) != 0;
      return true;
    default:
      return false;
  }
}

uint8_t GemmExScaleType(int compute_type, int c_type) {
  namespace ct = analyzers::cuda_type;
  const bool complex = analyzers::IsComplexType(TypeByte(c_type));
  switch (compute_type) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      return complex ? ct::kC16F : ct::kR16F;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
      return complex ? ct::kC32F : ct::kR32F;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
      return complex ? ct::kC64F : ct::kR64F;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      return ct::kR32I;
    default:
      return analyzers::kNotApplicable;
  }
}

bool ReadHandle(RawLibraryCall& raw, LibraryCopy* lib, cublasHandle_t handle, bool pointer_mode) {
  if (!HandleUsable(raw.record, handle)) return false;
  using GetStream = cublasStatus_t (*)(cublasHandle_t, cudaStream_t*);
  if (const auto get = GetterOf<GetStream>(lib, kSlotGetStream)) {
    cudaStream_t stream = nullptr;
    if (get(handle, &stream) == CUBLAS_STATUS_SUCCESS) {
      raw.stream_handle = reinterpret_cast<uintptr_t>(stream);
    }
  }
  if (!pointer_mode) return false;
  using GetMode = cublasStatus_t (*)(cublasHandle_t, cublasPointerMode_t*);
  const auto get = GetterOf<GetMode>(lib, kSlotGetPointerMode);
  cublasPointerMode_t mode = CUBLAS_POINTER_MODE_DEVICE;
  return get != nullptr && get(handle, &mode) == CUBLAS_STATUS_SUCCESS &&
         mode == CUBLAS_POINTER_MODE_HOST;
}

void ApplyMathMode(trace::LibraryCallRecord& r, LibraryCopy* lib, cublasHandle_t handle) {
  namespace ct = analyzers::cuda_type;
  const auto fp32 = [](uint8_t t) { return t == ct::kR32F || t == ct::kC32F; };
  if (r.compute_type != analyzers::compute_type::k32F || !fp32(r.type_a) ||
      !(fp32(r.type_b) || r.type_b == analyzers::kNotApplicable) ||
      analyzers::LevelOf(analyzers::BlasRoutineFromId(r.routine)) !=
          analyzers::BlasLevel::kLevel3 ||
      g_tf32_forbidden.load(std::memory_order_relaxed) || !HandleUsable(r, handle)) {
    return;
  }
  using GetMath = cublasStatus_t (*)(cublasHandle_t, cublasMath_t*);
  const auto get = GetterOf<GetMath>(lib, kSlotGetMathMode);
  cublasMath_t mode = CUBLAS_DEFAULT_MATH;
  if (get == nullptr || get(handle, &mode) != CUBLAS_STATUS_SUCCESS) return;
  // The low bits are the mode; CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION is a flag above.
  if ((mode & 0xF) == CUBLAS_TF32_TENSOR_OP_MATH) {
    r.compute_type = analyzers::compute_type::k32FFastTF32;
  }
}

}  // namespace flopspy::interpose::cublas
