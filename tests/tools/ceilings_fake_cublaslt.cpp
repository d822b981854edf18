// Fake libcublasLt.so.13 for the ceilings test: descriptors are recorded, every heuristic query
// finds one algorithm, and a matmul takes 2mnk / rate seconds on the fake driver's stream, the
// rate chosen by input type and compute type (ceilings_fake_gpu.h). It also checks the layout
// flopspy promises: A transposed, B not, k x m and k x n inputs, an m x n output.
#include <cublasLt.h>

#include <cstring>

#include "ceilings_fake_gpu.h"

namespace {

namespace fg = flopspy::fakegpu;

struct Desc {
  cublasComputeType_t compute;
  cudaDataType_t scale;
  cublasOperation_t transa = CUBLAS_OP_N;
  cublasOperation_t transb = CUBLAS_OP_N;
};
struct Layout {
  cudaDataType_t type;
  uint64_t rows, cols;
  int64_t ld;
};

double Rate(cudaDataType_t input, cublasComputeType_t compute) {
  switch (input) {
    case CUDA_R_16F:
      return compute == CUBLAS_COMPUTE_16F ? fg::kGemmFp16Acc : fg::kGemmFp16;
    case CUDA_R_16BF:
      return fg::kGemmBf16;
    case CUDA_R_32F:
      return compute == CUBLAS_COMPUTE_32F_FAST_TF32 ? fg::kGemmTf32 : fg::kGemmFp32;
    case CUDA_R_64F:
      return fg::kGemmFp64;
    case CUDA_R_8I:
      return fg::kGemmInt8;
    default:
      return 0;  // FP8 and the rest: not on this (sm_80) device
  }
}

}  // namespace

extern "C" {

size_t cublasLtGetVersion() {
  return 130000;
}
cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  *handle = reinterpret_cast<cublasLtHandle_t>(new int(0));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  delete reinterpret_cast<int*>(handle);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                        cudaDataType_t scale) {
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(new Desc{compute, scale});
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete reinterpret_cast<Desc*>(desc);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t attribute,
                                              const void* buffer, size_t size) {
  auto* d = reinterpret_cast<Desc*>(desc);
  if (attribute == CUBLASLT_MATMUL_DESC_TRANSA || attribute == CUBLASLT_MATMUL_DESC_TRANSB) {
    if (size != sizeof(cublasOperation_t)) return CUBLAS_STATUS_INVALID_VALUE;
    std::memcpy(attribute == CUBLASLT_MATMUL_DESC_TRANSA ? &d->transa : &d->transb, buffer, size);
  }
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld) {
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(new Layout{type, rows, cols, ld});
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete reinterpret_cast<Layout*>(layout);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* preference) {
  *preference = reinterpret_cast<cublasLtMatmulPreference_t>(new int(0));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference) {
  delete reinterpret_cast<int*>(preference);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t,
                                                    cublasLtMatmulPreferenceAttributes_t,
                                                    const void*, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t,
                                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                              cublasLtMatmulPreference_t, int requested,
                                              cublasLtMatmulHeuristicResult_t* results,
                                              int* returned) {
  const auto* d = reinterpret_cast<const Desc*>(desc);
  const auto* la = reinterpret_cast<const Layout*>(a);
  *returned = 0;
  if (requested < 1 || Rate(la->type, d->compute) <= 0) return CUBLAS_STATUS_NOT_SUPPORTED;
  std::memset(&results[0], 0, sizeof results[0]);
  results[0].workspaceSize = size_t{4} << 20;
  results[0].state = CUBLAS_STATUS_SUCCESS;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t desc, const void* alpha,
                              const void*, cublasLtMatrixLayout_t a, const void*,
                              cublasLtMatrixLayout_t b, const void* beta, const void*,
                              cublasLtMatrixLayout_t c, void*, cublasLtMatrixLayout_t d,
                              const cublasLtMatmulAlgo_t* algo, void*, size_t,
                              cudaStream_t stream) {
  const auto* op = reinterpret_cast<const Desc*>(desc);
  const auto* la = reinterpret_cast<const Layout*>(a);
  const auto* lb = reinterpret_cast<const Layout*>(b);
  const auto* lc = reinterpret_cast<const Layout*>(c);
  const auto* ld = reinterpret_cast<const Layout*>(d);
  if (alpha == nullptr || beta == nullptr || algo == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  // TN: op(A) = A^T is m x k from A stored k x m; B is k x n; C and D are m x n.
  if (op->transa != CUBLAS_OP_T || op->transb != CUBLAS_OP_N) return CUBLAS_STATUS_NOT_SUPPORTED;
  const uint64_t m = ld->rows, n = ld->cols, k = la->rows;
  if (la->cols != m || lb->rows != k || lb->cols != n || lc->rows != m || lc->cols != n ||
      la->ld < static_cast<int64_t>(k) || ld->ld < static_cast<int64_t>(m)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const double rate = Rate(la->type, op->compute);
  if (rate <= 0) return CUBLAS_STATUS_NOT_SUPPORTED;
  flopspy_fake_gpu_advance(stream, 2.0 * static_cast<double>(m) * static_cast<double>(n) *
                                       static_cast<double>(k) / rate);
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
