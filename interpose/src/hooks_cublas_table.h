// The C signatures of the cuBLAS and cuBLASLt entry points flopspy hooks, one macro set per
// signature shape (Family): FLOPSPY_CUBLAS_PARAMS_<Family>, _ARGS_<Family>, _RET_<Family>. The
// list of entry points, each naming its Family, is flopspy/analyzers/cublas_entry_points.h.
//
// The hooks (interpose/src/hooks_cublas_*.cpp), the fake libraries and the test client
// (tests/fakes/cublas, tests/cublas) expand the list with these shapes. Every user includes the
// real <cublas.h> and <cublasLt.h> first, so a signature that does not match NVIDIA's declaration
// is a compile error ("conflicting declaration of C function"). A macro given to a list takes
// (F, name, I, T1, T2, T3, ...): the columns after T3 are the analyzers'.
#pragma once

#include <cublas.h>  // the legacy API; includes cublas_api.h (the _v2 and handle API)
#include <cublasLt.h>

#include <cstdint>

#include "flopspy/analyzers/cublas_entry_points.h"

// --- Handle API (cublas_api.h), level 3 ----------------------------------------------------
// Gemm: ?gemm_v2, Hgemm, ?gemm3m. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_Gemm(I, T1, T2, T3)                                           \
  cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
      const T1 *alpha, const T1 *A, I lda, const T1 *B, I ldb, const T1 *beta, T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_Gemm \
  handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc

// GemmBatched: ?gemmBatched, Cgemm3mBatched (pointer arrays). T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_GemmBatched(I, T1, T2, T3)                                    \
  cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
      const T1 *alpha, const T1 *const Aarray[], I lda, const T1 *const Barray[], I ldb,    \
      const T1 *beta, T1 *const Carray[], I ldc, I batchCount
#define FLOPSPY_CUBLAS_ARGS_GemmBatched \
  handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount

// GemmStrided: ?gemmStridedBatched, Cgemm3mStridedBatched. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_GemmStrided(I, T1, T2, T3)                                    \
  cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
      const T1 *alpha, const T1 *A, I lda, long long int strideA, const T1 *B, I ldb,       \
      long long int strideB, const T1 *beta, T1 *C, I ldc, long long int strideC, I batchCount
#define FLOPSPY_CUBLAS_ARGS_GemmStrided                                                            \
  handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, \
      batchCount

// GemmExTyped: SgemmEx, CgemmEx, Cgemm3mEx. T1 = scalar type; operand types are arguments.
#define FLOPSPY_CUBLAS_PARAMS_GemmExTyped(I, T1, T2, T3)                                    \
  cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
      const T1 *alpha, const void *A, cudaDataType Atype, I lda, const void *B,             \
      cudaDataType Btype, I ldb, const T1 *beta, void *C, cudaDataType Ctype, I ldc
#define FLOPSPY_CUBLAS_ARGS_GemmExTyped \
  handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc

// GemmEx: everything typed by arguments.
#define FLOPSPY_CUBLAS_PARAMS_GemmEx(I, T1, T2, T3)                                         \
  cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
      const void *alpha, const void *A, cudaDataType Atype, I lda, const void *B,           \
      cudaDataType Btype, I ldb, const void *beta, void *C, cudaDataType Ctype, I ldc,      \
      cublasComputeType_t computeType, cublasGemmAlgo_t algo
#define FLOPSPY_CUBLAS_ARGS_GemmEx                                                           \
  handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, \
      computeType, algo

#define FLOPSPY_CUBLAS_PARAMS_GemmBatchedEx(I, T1, T2, T3)                                  \
  cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
      const void *alpha, const void *const Aarray[], cudaDataType Atype, I lda,             \
      const void *const Barray[], cudaDataType Btype, I ldb, const void *beta,              \
      void *const Carray[], cudaDataType Ctype, I ldc, I batchCount,                        \
      cublasComputeType_t computeType, cublasGemmAlgo_t algo
#define FLOPSPY_CUBLAS_ARGS_GemmBatchedEx                                                       \
  handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray, \
      Ctype, ldc, batchCount, computeType, algo

#define FLOPSPY_CUBLAS_PARAMS_GemmStridedEx(I, T1, T2, T3)                                        \
  cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k,       \
      const void *alpha, const void *A, cudaDataType Atype, I lda, long long int strideA,         \
      const void *B, cudaDataType Btype, I ldb, long long int strideB, const void *beta, void *C, \
      cudaDataType Ctype, I ldc, long long int strideC, I batchCount,                             \
      cublasComputeType_t computeType, cublasGemmAlgo_t algo
#define FLOPSPY_CUBLAS_ARGS_GemmStridedEx                                                          \
  handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, \
      Ctype, ldc, strideC, batchCount, computeType, algo

// GemmGrouped: ?gemmGroupedBatched. Every *_array but A/B/Carray lives in host memory.
// T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_GemmGrouped(I, T1, T2, T3)                                        \
  cublasHandle_t handle, const cublasOperation_t transa_array[],                                \
      const cublasOperation_t transb_array[], const I m_array[], const I n_array[],             \
      const I k_array[], const T1 alpha_array[], const T1 *const Aarray[], const I lda_array[], \
      const T1 *const Barray[], const I ldb_array[], const T1 beta_array[], T1 *const Carray[], \
      const I ldc_array[], I group_count, const I group_size[]
#define FLOPSPY_CUBLAS_ARGS_GemmGrouped                                                          \
  handle, transa_array, transb_array, m_array, n_array, k_array, alpha_array, Aarray, lda_array, \
      Barray, ldb_array, beta_array, Carray, ldc_array, group_count, group_size

#define FLOPSPY_CUBLAS_PARAMS_GemmGroupedEx(I, T1, T2, T3)                                         \
  cublasHandle_t handle, const cublasOperation_t transa_array[],                                   \
      const cublasOperation_t transb_array[], const I m_array[], const I n_array[],                \
      const I k_array[], const void *alpha_array, const void *const Aarray[],                      \
      cudaDataType_t Atype, const I lda_array[], const void *const Barray[], cudaDataType_t Btype, \
      const I ldb_array[], const void *beta_array, void *const Carray[], cudaDataType_t Ctype,     \
      const I ldc_array[], I group_count, const I group_size[], cublasComputeType_t computeType
#define FLOPSPY_CUBLAS_ARGS_GemmGroupedEx                                                     \
  handle, transa_array, transb_array, m_array, n_array, k_array, alpha_array, Aarray, Atype,  \
      lda_array, Barray, Btype, ldb_array, beta_array, Carray, Ctype, ldc_array, group_count, \
      group_size, computeType

// Trsm: ?trsm_v2 (B solved in place). T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_Trsm(I, T1, T2, T3)                                               \
  cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans, \
      cublasDiagType_t diag, I m, I n, const T1 *alpha, const T1 *A, I lda, T1 *B, I ldb
#define FLOPSPY_CUBLAS_ARGS_Trsm handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb

#define FLOPSPY_CUBLAS_PARAMS_TrsmBatched(I, T1, T2, T3)                                           \
  cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,    \
      cublasDiagType_t diag, I m, I n, const T1 *alpha, const T1 *const A[], I lda, T1 *const B[], \
      I ldb, I batchCount
#define FLOPSPY_CUBLAS_ARGS_TrsmBatched \
  handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount

// Trmm: ?trmm_v2 (out of place into C). T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_Trmm(I, T1, T2, T3)                                               \
  cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans, \
      cublasDiagType_t diag, I m, I n, const T1 *alpha, const T1 *A, I lda, const T1 *B, I ldb, \
      T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_Trmm \
  handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc

// Symm: ?symm_v2, ?hemm_v2. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_Symm(I, T1, T2, T3)                                                 \
  cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, I m, I n, const T1 *alpha, \
      const T1 *A, I lda, const T1 *B, I ldb, const T1 *beta, T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_Symm handle, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc

// Syrk: ?syrk_v2, ?herk_v2. T1 = element type, T2 = scalar type (real for herk).
#define FLOPSPY_CUBLAS_PARAMS_Syrk(I, T1, T2, T3)                                  \
  cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, I n, I k, \
      const T2 *alpha, const T1 *A, I lda, const T2 *beta, T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_Syrk handle, uplo, trans, n, k, alpha, A, lda, beta, C, ldc

// SyrkEx: CsyrkEx, Csyrk3mEx, CherkEx, Cherk3mEx. T1 = scalar type.
#define FLOPSPY_CUBLAS_PARAMS_SyrkEx(I, T1, T2, T3)                                       \
  cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, I n, I k,        \
      const T1 *alpha, const void *A, cudaDataType Atype, I lda, const T1 *beta, void *C, \
      cudaDataType Ctype, I ldc
#define FLOPSPY_CUBLAS_ARGS_SyrkEx \
  handle, uplo, trans, n, k, alpha, A, Atype, lda, beta, C, Ctype, ldc

// Syr2k: ?syr2k_v2, ?her2k_v2, ?syrkx, ?herkx. T1 = element and alpha type, T2 = beta type
// (real for her2k and herkx).
#define FLOPSPY_CUBLAS_PARAMS_Syr2k(I, T1, T2, T3)                                 \
  cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, I n, I k, \
      const T1 *alpha, const T1 *A, I lda, const T1 *B, I ldb, const T2 *beta, T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_Syr2k handle, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc

// --- Handle API, levels 1 and 2 --------------------------------------------------------------
// Gemv: ?gemv_v2. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_Gemv(I, T1, T2, T3)                                                \
  cublasHandle_t handle, cublasOperation_t trans, I m, I n, const T1 *alpha, const T1 *A, I lda, \
      const T1 *x, I incx, const T1 *beta, T1 *y, I incy
#define FLOPSPY_CUBLAS_ARGS_Gemv handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy

// GemvBatched: ?gemvBatched and the HSH/HSS/TST/TSS forms. T1 = A and x type, T2 = y type,
// T3 = scalar type.
#define FLOPSPY_CUBLAS_PARAMS_GemvBatched(I, T1, T2, T3)                                 \
  cublasHandle_t handle, cublasOperation_t trans, I m, I n, const T3 *alpha,             \
      const T1 *const Aarray[], I lda, const T1 *const xarray[], I incx, const T3 *beta, \
      T2 *const yarray[], I incy, I batchCount
#define FLOPSPY_CUBLAS_ARGS_GemvBatched \
  handle, trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount

#define FLOPSPY_CUBLAS_PARAMS_GemvStrided(I, T1, T2, T3)                                         \
  cublasHandle_t handle, cublasOperation_t trans, I m, I n, const T3 *alpha, const T1 *A, I lda, \
      long long int strideA, const T1 *x, I incx, long long int stridex, const T3 *beta, T2 *y,  \
      I incy, long long int stridey, I batchCount
#define FLOPSPY_CUBLAS_ARGS_GemvStrided \
  handle, trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount

// Ger: ?ger_v2, ?geru_v2, ?gerc_v2. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_Ger(I, T1, T2, T3)                                              \
  cublasHandle_t handle, I m, I n, const T1 *alpha, const T1 *x, I incx, const T1 *y, I incy, \
      T1 *A, I lda
#define FLOPSPY_CUBLAS_ARGS_Ger handle, m, n, alpha, x, incx, y, incy, A, lda

// Dot: ?dot_v2, ?dotu_v2, ?dotc_v2. T1 = element and result type.
#define FLOPSPY_CUBLAS_PARAMS_Dot(I, T1, T2, T3) \
  cublasHandle_t handle, I n, const T1 *x, I incx, const T1 *y, I incy, T1 *result
#define FLOPSPY_CUBLAS_ARGS_Dot handle, n, x, incx, y, incy, result

#define FLOPSPY_CUBLAS_PARAMS_DotEx(I, T1, T2, T3)                                      \
  cublasHandle_t handle, I n, const void *x, cudaDataType xType, I incx, const void *y, \
      cudaDataType yType, I incy, void *result, cudaDataType resultType,                \
      cudaDataType executionType
#define FLOPSPY_CUBLAS_ARGS_DotEx \
  handle, n, x, xType, incx, y, yType, incy, result, resultType, executionType

// Axpy: ?axpy_v2. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_Axpy(I, T1, T2, T3) \
  cublasHandle_t handle, I n, const T1 *alpha, const T1 *x, I incx, T1 *y, I incy
#define FLOPSPY_CUBLAS_ARGS_Axpy handle, n, alpha, x, incx, y, incy

#define FLOPSPY_CUBLAS_PARAMS_AxpyEx(I, T1, T2, T3)                                     \
  cublasHandle_t handle, I n, const void *alpha, cudaDataType alphaType, const void *x, \
      cudaDataType xType, I incx, void *y, cudaDataType yType, I incy, cudaDataType executiontype
#define FLOPSPY_CUBLAS_ARGS_AxpyEx \
  handle, n, alpha, alphaType, x, xType, incx, y, yType, incy, executiontype

// Scal: ?scal_v2, Csscal_v2, Zdscal_v2. T1 = element type, T2 = scalar type.
#define FLOPSPY_CUBLAS_PARAMS_Scal(I, T1, T2, T3) \
  cublasHandle_t handle, I n, const T2 *alpha, T1 *x, I incx
#define FLOPSPY_CUBLAS_ARGS_Scal handle, n, alpha, x, incx

#define FLOPSPY_CUBLAS_PARAMS_ScalEx(I, T1, T2, T3)                               \
  cublasHandle_t handle, I n, const void *alpha, cudaDataType alphaType, void *x, \
      cudaDataType xType, I incx, cudaDataType executionType
#define FLOPSPY_CUBLAS_ARGS_ScalEx handle, n, alpha, alphaType, x, xType, incx, executionType

// Nrm2: ?nrm2_v2, Scnrm2_v2, Dznrm2_v2. T1 = element type, T2 = result type.
#define FLOPSPY_CUBLAS_PARAMS_Nrm2(I, T1, T2, T3) \
  cublasHandle_t handle, I n, const T1 *x, I incx, T2 *result
#define FLOPSPY_CUBLAS_ARGS_Nrm2 handle, n, x, incx, result

#define FLOPSPY_CUBLAS_PARAMS_Nrm2Ex(I, T1, T2, T3)                                    \
  cublasHandle_t handle, I n, const void *x, cudaDataType xType, I incx, void *result, \
      cudaDataType resultType, cudaDataType executionType
#define FLOPSPY_CUBLAS_ARGS_Nrm2Ex handle, n, x, xType, incx, result, resultType, executionType

// --- Legacy API (cublas.h): no handle, scalars by value, char options ----------------------
// LGemm: ?gemm. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_LGemm(I, T1, T2, T3)                                           \
  char transa, char transb, I m, I n, I k, T1 alpha, const T1 *A, I lda, const T1 *B, I ldb, \
      T1 beta, T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_LGemm transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc

// LGemv: ?gemv. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_LGemv(I, T1, T2, T3) \
  char trans, I m, I n, T1 alpha, const T1 *A, I lda, const T1 *x, I incx, T1 beta, T1 *y, I incy
#define FLOPSPY_CUBLAS_ARGS_LGemv trans, m, n, alpha, A, lda, x, incx, beta, y, incy

// LGer: ?ger, ?geru, ?gerc. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_LGer(I, T1, T2, T3) \
  I m, I n, T1 alpha, const T1 *x, I incx, const T1 *y, I incy, T1 *A, I lda
#define FLOPSPY_CUBLAS_ARGS_LGer m, n, alpha, x, incx, y, incy, A, lda

// LTrsm: ?trsm and ?trmm (both in place on B). T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_LTrsm(I, T1, T2, T3) \
  char side, char uplo, char transa, char diag, I m, I n, T1 alpha, const T1 *A, I lda, T1 *B, I ldb
#define FLOPSPY_CUBLAS_ARGS_LTrsm side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb

// LSymm: ?symm, ?hemm. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_LSymm(I, T1, T2, T3)                                           \
  char side, char uplo, I m, I n, T1 alpha, const T1 *A, I lda, const T1 *B, I ldb, T1 beta, \
      T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_LSymm side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc

// LSyrk: ?syrk, ?herk. T1 = element type, T2 = scalar type.
#define FLOPSPY_CUBLAS_PARAMS_LSyrk(I, T1, T2, T3) \
  char uplo, char trans, I n, I k, T2 alpha, const T1 *A, I lda, T2 beta, T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_LSyrk uplo, trans, n, k, alpha, A, lda, beta, C, ldc

// LSyr2k: ?syr2k, ?her2k. T1 = element and alpha type, T2 = beta type.
#define FLOPSPY_CUBLAS_PARAMS_LSyr2k(I, T1, T2, T3)                                           \
  char uplo, char trans, I n, I k, T1 alpha, const T1 *A, I lda, const T1 *B, I ldb, T2 beta, \
      T1 *C, I ldc
#define FLOPSPY_CUBLAS_ARGS_LSyr2k uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc

// LDot: ?dot, ?dotu, ?dotc; returns the result. T1 = element and result type.
#define FLOPSPY_CUBLAS_PARAMS_LDot(I, T1, T2, T3) I n, const T1 *x, I incx, const T1 *y, I incy
#define FLOPSPY_CUBLAS_ARGS_LDot n, x, incx, y, incy

// LAxpy: ?axpy. T1 = element and scalar type.
#define FLOPSPY_CUBLAS_PARAMS_LAxpy(I, T1, T2, T3) I n, T1 alpha, const T1 *x, I incx, T1 *y, I incy
#define FLOPSPY_CUBLAS_ARGS_LAxpy n, alpha, x, incx, y, incy

// LScal: ?scal, Csscal, Zdscal. T1 = element type, T2 = scalar type.
#define FLOPSPY_CUBLAS_PARAMS_LScal(I, T1, T2, T3) I n, T2 alpha, T1 *x, I incx
#define FLOPSPY_CUBLAS_ARGS_LScal n, alpha, x, incx

// LNrm2: ?nrm2, Scnrm2, Dznrm2; returns the norm. T1 = element type, T2 = result type.
#define FLOPSPY_CUBLAS_PARAMS_LNrm2(I, T1, T2, T3) I n, const T1 *x, I incx
#define FLOPSPY_CUBLAS_ARGS_LNrm2 n, x, incx

// --- cuBLASLt ------------------------------------------------------------------------------
#define FLOPSPY_CUBLAS_PARAMS_LtMatmul(I, T1, T2, T3)                                           \
  cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha,            \
      const void *A, cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc, \
      const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,                   \
      cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,          \
      size_t workspaceSizeInBytes, cudaStream_t stream
#define FLOPSPY_CUBLAS_ARGS_LtMatmul                                                              \
  lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace, \
      workspaceSizeInBytes, stream

// --- Return types ----------------------------------------------------------------------------
// The handle API and cuBLASLt return a cublasStatus_t; the legacy API returns nothing (errors
// go to cublasGetError()) or the level-1 result.
#define FLOPSPY_CUBLAS_RET_LGemm(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LGemv(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LGer(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LTrsm(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LSymm(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LSyrk(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LSyr2k(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LDot(T1, T2) T1
#define FLOPSPY_CUBLAS_RET_LAxpy(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LScal(T1, T2) void
#define FLOPSPY_CUBLAS_RET_LNrm2(T1, T2) T2
#define FLOPSPY_CUBLAS_RET_Gemm(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemmBatched(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemmStrided(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemmExTyped(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemmEx(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemmBatchedEx(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemmStridedEx(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemmGrouped(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemmGroupedEx(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Trsm(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_TrsmBatched(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Trmm(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Symm(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Syrk(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_SyrkEx(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Syr2k(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Gemv(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemvBatched(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_GemvStrided(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Ger(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Dot(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_DotEx(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Axpy(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_AxpyEx(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Scal(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_ScalEx(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Nrm2(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_Nrm2Ex(T1, T2) cublasStatus_t
#define FLOPSPY_CUBLAS_RET_LtMatmul(T1, T2) cublasStatus_t

// The signature of one list line, for code that defines a function per line:
//   RET name(PARAMS)
#define FLOPSPY_CUBLAS_RET(F, T1, T2) FLOPSPY_CUBLAS_RET_##F(T1, T2)
#define FLOPSPY_CUBLAS_PARAMS(F, I, T1, T2, T3) FLOPSPY_CUBLAS_PARAMS_##F(I, T1, T2, T3)

// The entry points: flopspy/analyzers/cublas_entry_points.h, included above.
