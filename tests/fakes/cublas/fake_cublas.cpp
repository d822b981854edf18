// A fake libcublas.so.N (built as 12 and 13): every entry point of the handle and legacy APIs
// that flopspy hooks, plus the handle functions a client needs. Nothing is computed and only the
// handle is checked: each call is counted and returns the status the test chose, so that
// flopspy's hooks can be driven with any arguments, valid or not, without a GPU. Like the real
// library, a copy knows only the handles it made: a handle of another copy loaded in the same
// process (the other major, a wheel's own copy) gets CUBLAS_STATUS_NOT_INITIALIZED.
#include "fake_cublas.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "hooks_cublas_table.h"

// The fake's parameters exist for their types only.
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

enum FakeId : int {
#define FAKE_ID(F, name, I, T1, T2, T3, ...) kFake_##name,
  FLOPSPY_CUBLAS_V2_LEVEL3(FAKE_ID) FLOPSPY_CUBLAS_V2_LEVEL12(FAKE_ID)
      FLOPSPY_CUBLAS_LEGACY(FAKE_ID)
#undef FAKE_ID
          kFakeCount
};

constexpr const char* kFakeNames[] = {
#define FAKE_NAME(F, name, I, T1, T2, T3, ...) #name,
    FLOPSPY_CUBLAS_V2_LEVEL3(FAKE_NAME) FLOPSPY_CUBLAS_V2_LEVEL12(FAKE_NAME)
        FLOPSPY_CUBLAS_LEGACY(FAKE_NAME)
#undef FAKE_NAME
};

std::atomic<uint64_t> g_calls[kFakeCount];
std::atomic<int> g_status{-1};  // -1: not chosen yet, read the environment
std::atomic<int> g_legacy_error{0};

int Status() {
  int s = g_status.load();
  if (s < 0) {
    const char* env = std::getenv("FLOPSPY_FAKE_CUBLAS_STATUS");
    s = env != nullptr ? std::atoi(env) : 0;
    g_status.store(s);
  }
  return s;
}

// What the legacy level-1 functions return: fixed, recognisable values.
template <class R>
R LegacyValue() {
  if constexpr (std::is_same_v<R, float>) {
    return 1.5f;
  } else if constexpr (std::is_same_v<R, double>) {
    return 2.25;
  } else if constexpr (std::is_same_v<R, cuComplex>) {
    return make_cuComplex(1.5f, -0.5f);
  } else {
    static_assert(std::is_same_v<R, cuDoubleComplex>);
    return make_cuDoubleComplex(2.25, -0.75);
  }
}

template <class R>
R Fake(FakeId id) {
  g_calls[id].fetch_add(1);
  if constexpr (std::is_same_v<R, cublasStatus_t>) {
    return static_cast<cublasStatus_t>(Status());
  } else {
    g_legacy_error.store(Status());  // the legacy API reports errors through cublasGetError()
    if constexpr (!std::is_void_v<R>) return LegacyValue<R>();
  }
}

// This copy's mark on its handles: a hidden object, so each loaded copy has its own address.
const char kThisCopy = 0;

struct FakeHandle {
  const void* owner = &kThisCopy;
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
};

// The handle if this copy made it, else nullptr (null, or another copy's: every copy's handles
// start with the owner mark, so reading it is safe).
FakeHandle* AsFake(cublasHandle_t handle) {
  auto* h = reinterpret_cast<FakeHandle*>(handle);
  return h != nullptr && h->owner == &kThisCopy ? h : nullptr;
}

// A handle-API entry point: counted, and refused for a handle this copy did not make.
cublasStatus_t FakeWithHandle(FakeId id, cublasHandle_t handle) {
  const cublasStatus_t status = Fake<cublasStatus_t>(id);
  return AsFake(handle) != nullptr ? status : CUBLAS_STATUS_NOT_INITIALIZED;
}

}  // namespace

#define FAKE_DEFINE_HANDLE(F, name, I, T1, T2, T3, ...)                                     \
  FAKE_EXPORT FLOPSPY_CUBLAS_RET(F, T1, T2) name(FLOPSPY_CUBLAS_PARAMS(F, I, T1, T2, T3)) { \
    return FakeWithHandle(kFake_##name, handle);                                            \
  }
#define FAKE_DEFINE_LEGACY(F, name, I, T1, T2, T3, ...)                                     \
  FAKE_EXPORT FLOPSPY_CUBLAS_RET(F, T1, T2) name(FLOPSPY_CUBLAS_PARAMS(F, I, T1, T2, T3)) { \
    return Fake<FLOPSPY_CUBLAS_RET(F, T1, T2)>(kFake_##name);                               \
  }
FLOPSPY_CUBLAS_V2_LEVEL3(FAKE_DEFINE_HANDLE)
FLOPSPY_CUBLAS_V2_LEVEL12(FAKE_DEFINE_HANDLE)
FLOPSPY_CUBLAS_LEGACY(FAKE_DEFINE_LEGACY)
#undef FAKE_DEFINE_HANDLE
#undef FAKE_DEFINE_LEGACY

// --- Handle state, as the real library keeps it --------------------------------------------

FAKE_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = reinterpret_cast<cublasHandle_t>(new (std::nothrow) FakeHandle);
  return *handle != nullptr ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

FAKE_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  FakeHandle* h = AsFake(handle);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  FakeHandle* h = AsFake(handle);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* stream) {
  const FakeHandle* h = AsFake(handle);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (stream == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *stream = h->stream;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle,
                                                   cublasPointerMode_t mode) {
  FakeHandle* h = AsFake(handle);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->pointer_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle,
                                                   cublasPointerMode_t* mode) {
  const FakeHandle* h = AsFake(handle);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->pointer_mode;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  FakeHandle* h = AsFake(handle);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->math_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  const FakeHandle* h = AsFake(handle);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->math_mode;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasGetError(void) {
  return static_cast<cublasStatus_t>(g_legacy_error.exchange(0));
}

// The legacy API's stream: kept, never used (nothing runs).
FAKE_EXPORT cublasStatus_t cublasSetKernelStream(cudaStream_t stream) {
  static std::atomic<cudaStream_t> legacy_stream{nullptr};
  legacy_stream.store(stream);
  return CUBLAS_STATUS_SUCCESS;
}

// --- Test control ---------------------------------------------------------------------------

FAKE_EXPORT void flopspy_fake_cublas_set_status(int status) {
  g_status.store(status);
}

FAKE_EXPORT const char* flopspy_fake_cublas_soname() {
  return FLOPSPY_FAKE_SONAME;
}

FAKE_EXPORT uint64_t flopspy_fake_cublas_calls(const char* name) {
  uint64_t total = 0;
  for (int i = 0; i < kFakeCount; ++i) {
    if (name == nullptr || std::strcmp(name, kFakeNames[i]) == 0) total += g_calls[i].load();
  }
  return total;
}
