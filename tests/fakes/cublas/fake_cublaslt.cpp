// A fake libcublasLt.so.N (built as 12 and 13): cublasLtMatmul, which flopspy hooks, and the
// handle, descriptor and layout functions a client and the hook's decoder need. Attributes are
// kept as cuBLASLt keeps them (exact sizes, the documented defaults) so the hook's decoding can be
// driven through a fake too; the real library is tested in tests/cublas as well. A copy knows only
// the handles, descriptors and layouts it made (those of another copy loaded in the same process
// are refused: CUBLAS_STATUS_NOT_INITIALIZED for a handle, INVALID_VALUE for the others).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "fake_cublas.h"
#include "hooks_cublas_table.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

std::atomic<uint64_t> g_matmul_calls{0};
std::atomic<int> g_status{-1};
std::atomic<int> g_fail_desc{-1};
std::atomic<int> g_fail_layout{-1};

int Status() {
  int s = g_status.load();
  if (s < 0) {
    const char* env = std::getenv("FLOPSPY_FAKE_CUBLASLT_STATUS");
    s = env != nullptr ? std::atoi(env) : 0;
    g_status.store(s);
  }
  return s;
}

constexpr int kMaxAttribute = 40;

// One attribute store: each known attribute has a fixed size and a value (at most 8 bytes).
struct Attributes {
  uint8_t size[kMaxAttribute] = {};  // 0: not an attribute of this object
  uint8_t value[kMaxAttribute][8] = {};

  template <class T>
  void Define(int id, T v) {
    static_assert(sizeof(T) <= 8);
    size[id] = sizeof(T);
    std::memcpy(value[id], &v, sizeof(T));
  }
  cublasStatus_t Set(int id, const void* buf, size_t bytes) {
    if (id < 0 || id >= kMaxAttribute || size[id] == 0 || bytes != size[id] || buf == nullptr) {
      return CUBLAS_STATUS_INVALID_VALUE;
    }
    std::memcpy(value[id], buf, bytes);
    return CUBLAS_STATUS_SUCCESS;
  }
  cublasStatus_t Get(int id, void* buf, size_t bytes, size_t* written, int fail) const {
    if (id < 0 || id >= kMaxAttribute || size[id] == 0 || id == fail) {
      return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (buf == nullptr && bytes == 0) {  // size query
      if (written == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
      *written = size[id];
      return CUBLAS_STATUS_SUCCESS;
    }
    if (buf == nullptr || bytes != size[id]) return CUBLAS_STATUS_INVALID_VALUE;
    std::memcpy(buf, value[id], bytes);
    if (written != nullptr) *written = bytes;
    return CUBLAS_STATUS_SUCCESS;
  }
};

// This copy's mark on what it makes: a hidden object, so each loaded copy has its own address.
const char kThisCopy = 0;

// Every object this copy makes starts with the owner mark, so another copy's object can be told
// apart by reading it.
struct FakeLtHandle {
  const void* owner = &kThisCopy;
};
struct FakeDesc {
  const void* owner = &kThisCopy;
  Attributes a;
};
struct FakeLayout {
  const void* owner = &kThisCopy;
  Attributes a;
};

// The object if this copy made it, else nullptr.
template <class Fake, class Opaque>
Fake* Mine(Opaque object) {
  auto* f = reinterpret_cast<Fake*>(object);
  return f != nullptr && f->owner == &kThisCopy ? f : nullptr;
}

// A descriptor or layout argument that is another copy's (null ones are let through).
template <class Fake, class Opaque>
bool Foreign(Opaque object) {
  return object != nullptr && Mine<Fake>(object) == nullptr;
}

}  // namespace

FAKE_EXPORT cublasStatus_t cublasLtMatmul(FLOPSPY_CUBLAS_PARAMS_LtMatmul(int, void, void, void)) {
  (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)D, (void)algo, (void)workspace;
  (void)workspaceSizeInBytes, (void)stream;
  g_matmul_calls.fetch_add(1);
  if (Mine<FakeLtHandle>(lightHandle) == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Foreign<FakeDesc>(computeDesc) || Foreign<FakeLayout>(Adesc) || Foreign<FakeLayout>(Bdesc) ||
      Foreign<FakeLayout>(Cdesc) || Foreign<FakeLayout>(Ddesc)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  return static_cast<cublasStatus_t>(Status());
}

FAKE_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = reinterpret_cast<cublasLtHandle_t>(new (std::nothrow) FakeLtHandle);
  return *handle != nullptr ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

FAKE_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  FakeLtHandle* h = Mine<FakeLtHandle>(handle);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc,
                                                    cublasComputeType_t compute_type,
                                                    cudaDataType_t scale_type) {
  if (desc == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  auto* d = new (std::nothrow) FakeDesc;
  if (d == nullptr) return CUBLAS_STATUS_ALLOC_FAILED;
  // Sizes and defaults of cublasLt.h (CUDA 13.0).
  d->a.Define<int32_t>(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, compute_type);
  d->a.Define<int32_t>(CUBLASLT_MATMUL_DESC_SCALE_TYPE, scale_type);
  d->a.Define<int32_t>(CUBLASLT_MATMUL_DESC_POINTER_MODE, CUBLASLT_POINTER_MODE_HOST);
  d->a.Define<int32_t>(CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_N);
  d->a.Define<int32_t>(CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  d->a.Define<int32_t>(CUBLASLT_MATMUL_DESC_TRANSC, CUBLAS_OP_N);
  d->a.Define<int32_t>(CUBLASLT_MATMUL_DESC_FILL_MODE, CUBLAS_FILL_MODE_FULL);
  d->a.Define<uint32_t>(CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT);
  d->a.Define<const void*>(CUBLASLT_MATMUL_DESC_BIAS_POINTER, nullptr);
  d->a.Define<int64_t>(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, 0);
  d->a.Define<const void*>(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, nullptr);
  d->a.Define<int64_t>(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, 0);
  d->a.Define<int64_t>(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, 0);
  d->a.Define<const void*>(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, nullptr);
  d->a.Define<const void*>(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, nullptr);
  d->a.Define<const void*>(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, nullptr);
  d->a.Define<const void*>(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, nullptr);
  d->a.Define<const void*>(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, nullptr);
  d->a.Define<int8_t>(CUBLASLT_MATMUL_DESC_FAST_ACCUM, 0);
  d->a.Define<int32_t>(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, -1);
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(d);
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  if (Foreign<FakeDesc>(desc)) return CUBLAS_STATUS_INVALID_VALUE;
  delete Mine<FakeDesc>(desc);
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                          cublasLtMatmulDescAttributes_t attr,
                                                          const void* buf, size_t bytes) {
  if (desc == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  FakeDesc* d = Mine<FakeDesc>(desc);
  return d != nullptr ? d->a.Set(attr, buf, bytes) : CUBLAS_STATUS_INVALID_VALUE;
}

FAKE_EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t desc,
                                                          cublasLtMatmulDescAttributes_t attr,
                                                          void* buf, size_t bytes,
                                                          size_t* written) {
  if (desc == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const FakeDesc* d = Mine<FakeDesc>(desc);
  return d != nullptr ? d->a.Get(attr, buf, bytes, written, g_fail_desc.load())
                      : CUBLAS_STATUS_INVALID_VALUE;
}

FAKE_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout,
                                                      cudaDataType type, uint64_t rows,
                                                      uint64_t cols, int64_t ld) {
  if (layout == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  auto* l = new (std::nothrow) FakeLayout;
  if (l == nullptr) return CUBLAS_STATUS_ALLOC_FAILED;
  l->a.Define<uint32_t>(CUBLASLT_MATRIX_LAYOUT_TYPE, type);
  l->a.Define<int32_t>(CUBLASLT_MATRIX_LAYOUT_ORDER, CUBLASLT_ORDER_COL);
  l->a.Define<uint64_t>(CUBLASLT_MATRIX_LAYOUT_ROWS, rows);
  l->a.Define<uint64_t>(CUBLASLT_MATRIX_LAYOUT_COLS, cols);
  l->a.Define<int64_t>(CUBLASLT_MATRIX_LAYOUT_LD, ld);
  l->a.Define<int32_t>(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 1);
  l->a.Define<int64_t>(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, 0);
  l->a.Define<int64_t>(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, 0);
  l->a.Define<uint32_t>(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, 0);
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(l);
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  if (Foreign<FakeLayout>(layout)) return CUBLAS_STATUS_INVALID_VALUE;
  delete Mine<FakeLayout>(layout);
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                            cublasLtMatrixLayoutAttribute_t attr,
                                                            const void* buf, size_t bytes) {
  if (layout == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  FakeLayout* l = Mine<FakeLayout>(layout);
  return l != nullptr ? l->a.Set(attr, buf, bytes) : CUBLAS_STATUS_INVALID_VALUE;
}

FAKE_EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t layout,
                                                            cublasLtMatrixLayoutAttribute_t attr,
                                                            void* buf, size_t bytes,
                                                            size_t* written) {
  if (layout == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const FakeLayout* l = Mine<FakeLayout>(layout);
  return l != nullptr ? l->a.Get(attr, buf, bytes, written, g_fail_layout.load())
                      : CUBLAS_STATUS_INVALID_VALUE;
}

// --- Test control ---------------------------------------------------------------------------

FAKE_EXPORT void flopspy_fake_cublaslt_set_status(int status) {
  g_status.store(status);
}

FAKE_EXPORT const char* flopspy_fake_cublaslt_soname() {
  return FLOPSPY_FAKE_SONAME;
}

FAKE_EXPORT uint64_t flopspy_fake_cublaslt_calls(const char* name) {
  if (name == nullptr || std::strcmp(name, "cublasLtMatmul") == 0) return g_matmul_calls.load();
  return 0;
}

FAKE_EXPORT void flopspy_fake_cublaslt_fail_desc_attribute(int attribute) {
  g_fail_desc.store(attribute);
}

FAKE_EXPORT void flopspy_fake_cublaslt_fail_layout_attribute(int attribute) {
  g_fail_layout.store(attribute);
}
