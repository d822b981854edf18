// Every cuBLAS and cuBLASLt entry point flopspy hooks, with its exact C signature, as X-macro
// lists. One line per exported symbol:
//
//   X(Family, name, I, T1, T2, T3)
//
// Family names the signature shape below (FLOPSPY_CUBLAS_PARAMS_<Family>, _ARGS_<Family>,
// _RET_<Family>); I is int or int64_t (the _64 forms); T1..T3 are the element and scalar types
// the family's comment names (void where unused). The hooks (interpose/src/hooks_cublas_*.cpp),
// the fake libraries and the test client (tests/fakes/cublas, tests/cublas) all expand these
// lists. Every user includes the real <cublas.h> and <cublasLt.h> first, so a signature that does
// not match NVIDIA's declaration is a compile error ("conflicting declaration of C function").
//
// The names are exactly analyzers::BlasEntryPoints() (tests/cublas checks both ways). Generated
// once from the CUDA 13.0 headers and that table, then kept by hand: to add an entry point, add
// it to BlasEntryPoints() and here, in the list of its API, sorted by name.
#pragma once

#include <cublas.h>  // the legacy API; includes cublas_api.h (the _v2 and handle API)
#include <cublasLt.h>

#include <cstdint>

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

// --- The entry points --------------------------------------------------------------------------
#define FLOPSPY_CUBLAS_V2_LEVEL3(X)                                                  \
  X(Gemm, cublasCgemm3m, int, cuComplex, void, void)                                 \
  X(GemmBatched, cublasCgemm3mBatched, int, cuComplex, void, void)                   \
  X(GemmBatched, cublasCgemm3mBatched_64, int64_t, cuComplex, void, void)            \
  X(GemmExTyped, cublasCgemm3mEx, int, cuComplex, void, void)                        \
  X(GemmExTyped, cublasCgemm3mEx_64, int64_t, cuComplex, void, void)                 \
  X(GemmStrided, cublasCgemm3mStridedBatched, int, cuComplex, void, void)            \
  X(GemmStrided, cublasCgemm3mStridedBatched_64, int64_t, cuComplex, void, void)     \
  X(Gemm, cublasCgemm3m_64, int64_t, cuComplex, void, void)                          \
  X(GemmBatched, cublasCgemmBatched, int, cuComplex, void, void)                     \
  X(GemmBatched, cublasCgemmBatched_64, int64_t, cuComplex, void, void)              \
  X(GemmExTyped, cublasCgemmEx, int, cuComplex, void, void)                          \
  X(GemmExTyped, cublasCgemmEx_64, int64_t, cuComplex, void, void)                   \
  X(GemmStrided, cublasCgemmStridedBatched, int, cuComplex, void, void)              \
  X(GemmStrided, cublasCgemmStridedBatched_64, int64_t, cuComplex, void, void)       \
  X(Gemm, cublasCgemm_v2, int, cuComplex, void, void)                                \
  X(Gemm, cublasCgemm_v2_64, int64_t, cuComplex, void, void)                         \
  X(Symm, cublasChemm_v2, int, cuComplex, void, void)                                \
  X(Symm, cublasChemm_v2_64, int64_t, cuComplex, void, void)                         \
  X(Syr2k, cublasCher2k_v2, int, cuComplex, float, void)                             \
  X(Syr2k, cublasCher2k_v2_64, int64_t, cuComplex, float, void)                      \
  X(SyrkEx, cublasCherk3mEx, int, float, void, void)                                 \
  X(SyrkEx, cublasCherk3mEx_64, int64_t, float, void, void)                          \
  X(SyrkEx, cublasCherkEx, int, float, void, void)                                   \
  X(SyrkEx, cublasCherkEx_64, int64_t, float, void, void)                            \
  X(Syrk, cublasCherk_v2, int, cuComplex, float, void)                               \
  X(Syrk, cublasCherk_v2_64, int64_t, cuComplex, float, void)                        \
  X(Syr2k, cublasCherkx, int, cuComplex, float, void)                                \
  X(Syr2k, cublasCherkx_64, int64_t, cuComplex, float, void)                         \
  X(Symm, cublasCsymm_v2, int, cuComplex, void, void)                                \
  X(Symm, cublasCsymm_v2_64, int64_t, cuComplex, void, void)                         \
  X(Syr2k, cublasCsyr2k_v2, int, cuComplex, cuComplex, void)                         \
  X(Syr2k, cublasCsyr2k_v2_64, int64_t, cuComplex, cuComplex, void)                  \
  X(SyrkEx, cublasCsyrk3mEx, int, cuComplex, void, void)                             \
  X(SyrkEx, cublasCsyrk3mEx_64, int64_t, cuComplex, void, void)                      \
  X(SyrkEx, cublasCsyrkEx, int, cuComplex, void, void)                               \
  X(SyrkEx, cublasCsyrkEx_64, int64_t, cuComplex, void, void)                        \
  X(Syrk, cublasCsyrk_v2, int, cuComplex, cuComplex, void)                           \
  X(Syrk, cublasCsyrk_v2_64, int64_t, cuComplex, cuComplex, void)                    \
  X(Syr2k, cublasCsyrkx, int, cuComplex, cuComplex, void)                            \
  X(Syr2k, cublasCsyrkx_64, int64_t, cuComplex, cuComplex, void)                     \
  X(Trmm, cublasCtrmm_v2, int, cuComplex, void, void)                                \
  X(Trmm, cublasCtrmm_v2_64, int64_t, cuComplex, void, void)                         \
  X(TrsmBatched, cublasCtrsmBatched, int, cuComplex, void, void)                     \
  X(TrsmBatched, cublasCtrsmBatched_64, int64_t, cuComplex, void, void)              \
  X(Trsm, cublasCtrsm_v2, int, cuComplex, void, void)                                \
  X(Trsm, cublasCtrsm_v2_64, int64_t, cuComplex, void, void)                         \
  X(GemmBatched, cublasDgemmBatched, int, double, void, void)                        \
  X(GemmBatched, cublasDgemmBatched_64, int64_t, double, void, void)                 \
  X(GemmGrouped, cublasDgemmGroupedBatched, int, double, void, void)                 \
  X(GemmGrouped, cublasDgemmGroupedBatched_64, int64_t, double, void, void)          \
  X(GemmStrided, cublasDgemmStridedBatched, int, double, void, void)                 \
  X(GemmStrided, cublasDgemmStridedBatched_64, int64_t, double, void, void)          \
  X(Gemm, cublasDgemm_v2, int, double, void, void)                                   \
  X(Gemm, cublasDgemm_v2_64, int64_t, double, void, void)                            \
  X(Symm, cublasDsymm_v2, int, double, void, void)                                   \
  X(Symm, cublasDsymm_v2_64, int64_t, double, void, void)                            \
  X(Syr2k, cublasDsyr2k_v2, int, double, double, void)                               \
  X(Syr2k, cublasDsyr2k_v2_64, int64_t, double, double, void)                        \
  X(Syrk, cublasDsyrk_v2, int, double, double, void)                                 \
  X(Syrk, cublasDsyrk_v2_64, int64_t, double, double, void)                          \
  X(Syr2k, cublasDsyrkx, int, double, double, void)                                  \
  X(Syr2k, cublasDsyrkx_64, int64_t, double, double, void)                           \
  X(Trmm, cublasDtrmm_v2, int, double, void, void)                                   \
  X(Trmm, cublasDtrmm_v2_64, int64_t, double, void, void)                            \
  X(TrsmBatched, cublasDtrsmBatched, int, double, void, void)                        \
  X(TrsmBatched, cublasDtrsmBatched_64, int64_t, double, void, void)                 \
  X(Trsm, cublasDtrsm_v2, int, double, void, void)                                   \
  X(Trsm, cublasDtrsm_v2_64, int64_t, double, void, void)                            \
  X(GemmBatchedEx, cublasGemmBatchedEx, int, void, void, void)                       \
  X(GemmBatchedEx, cublasGemmBatchedEx_64, int64_t, void, void, void)                \
  X(GemmEx, cublasGemmEx, int, void, void, void)                                     \
  X(GemmEx, cublasGemmEx_64, int64_t, void, void, void)                              \
  X(GemmGroupedEx, cublasGemmGroupedBatchedEx, int, void, void, void)                \
  X(GemmGroupedEx, cublasGemmGroupedBatchedEx_64, int64_t, void, void, void)         \
  X(GemmStridedEx, cublasGemmStridedBatchedEx, int, void, void, void)                \
  X(GemmStridedEx, cublasGemmStridedBatchedEx_64, int64_t, void, void, void)         \
  X(Gemm, cublasHgemm, int, __half, void, void)                                      \
  X(GemmBatched, cublasHgemmBatched, int, __half, void, void)                        \
  X(GemmBatched, cublasHgemmBatched_64, int64_t, __half, void, void)                 \
  X(GemmStrided, cublasHgemmStridedBatched, int, __half, void, void)                 \
  X(GemmStrided, cublasHgemmStridedBatched_64, int64_t, __half, void, void)          \
  X(Gemm, cublasHgemm_64, int64_t, __half, void, void)                               \
  X(GemmBatched, cublasSgemmBatched, int, float, void, void)                         \
  X(GemmBatched, cublasSgemmBatched_64, int64_t, float, void, void)                  \
  X(GemmExTyped, cublasSgemmEx, int, float, void, void)                              \
  X(GemmExTyped, cublasSgemmEx_64, int64_t, float, void, void)                       \
  X(GemmGrouped, cublasSgemmGroupedBatched, int, float, void, void)                  \
  X(GemmGrouped, cublasSgemmGroupedBatched_64, int64_t, float, void, void)           \
  X(GemmStrided, cublasSgemmStridedBatched, int, float, void, void)                  \
  X(GemmStrided, cublasSgemmStridedBatched_64, int64_t, float, void, void)           \
  X(Gemm, cublasSgemm_v2, int, float, void, void)                                    \
  X(Gemm, cublasSgemm_v2_64, int64_t, float, void, void)                             \
  X(Symm, cublasSsymm_v2, int, float, void, void)                                    \
  X(Symm, cublasSsymm_v2_64, int64_t, float, void, void)                             \
  X(Syr2k, cublasSsyr2k_v2, int, float, float, void)                                 \
  X(Syr2k, cublasSsyr2k_v2_64, int64_t, float, float, void)                          \
  X(Syrk, cublasSsyrk_v2, int, float, float, void)                                   \
  X(Syrk, cublasSsyrk_v2_64, int64_t, float, float, void)                            \
  X(Syr2k, cublasSsyrkx, int, float, float, void)                                    \
  X(Syr2k, cublasSsyrkx_64, int64_t, float, float, void)                             \
  X(Trmm, cublasStrmm_v2, int, float, void, void)                                    \
  X(Trmm, cublasStrmm_v2_64, int64_t, float, void, void)                             \
  X(TrsmBatched, cublasStrsmBatched, int, float, void, void)                         \
  X(TrsmBatched, cublasStrsmBatched_64, int64_t, float, void, void)                  \
  X(Trsm, cublasStrsm_v2, int, float, void, void)                                    \
  X(Trsm, cublasStrsm_v2_64, int64_t, float, void, void)                             \
  X(Gemm, cublasZgemm3m, int, cuDoubleComplex, void, void)                           \
  X(Gemm, cublasZgemm3m_64, int64_t, cuDoubleComplex, void, void)                    \
  X(GemmBatched, cublasZgemmBatched, int, cuDoubleComplex, void, void)               \
  X(GemmBatched, cublasZgemmBatched_64, int64_t, cuDoubleComplex, void, void)        \
  X(GemmStrided, cublasZgemmStridedBatched, int, cuDoubleComplex, void, void)        \
  X(GemmStrided, cublasZgemmStridedBatched_64, int64_t, cuDoubleComplex, void, void) \
  X(Gemm, cublasZgemm_v2, int, cuDoubleComplex, void, void)                          \
  X(Gemm, cublasZgemm_v2_64, int64_t, cuDoubleComplex, void, void)                   \
  X(Symm, cublasZhemm_v2, int, cuDoubleComplex, void, void)                          \
  X(Symm, cublasZhemm_v2_64, int64_t, cuDoubleComplex, void, void)                   \
  X(Syr2k, cublasZher2k_v2, int, cuDoubleComplex, double, void)                      \
  X(Syr2k, cublasZher2k_v2_64, int64_t, cuDoubleComplex, double, void)               \
  X(Syrk, cublasZherk_v2, int, cuDoubleComplex, double, void)                        \
  X(Syrk, cublasZherk_v2_64, int64_t, cuDoubleComplex, double, void)                 \
  X(Syr2k, cublasZherkx, int, cuDoubleComplex, double, void)                         \
  X(Syr2k, cublasZherkx_64, int64_t, cuDoubleComplex, double, void)                  \
  X(Symm, cublasZsymm_v2, int, cuDoubleComplex, void, void)                          \
  X(Symm, cublasZsymm_v2_64, int64_t, cuDoubleComplex, void, void)                   \
  X(Syr2k, cublasZsyr2k_v2, int, cuDoubleComplex, cuDoubleComplex, void)             \
  X(Syr2k, cublasZsyr2k_v2_64, int64_t, cuDoubleComplex, cuDoubleComplex, void)      \
  X(Syrk, cublasZsyrk_v2, int, cuDoubleComplex, cuDoubleComplex, void)               \
  X(Syrk, cublasZsyrk_v2_64, int64_t, cuDoubleComplex, cuDoubleComplex, void)        \
  X(Syr2k, cublasZsyrkx, int, cuDoubleComplex, cuDoubleComplex, void)                \
  X(Syr2k, cublasZsyrkx_64, int64_t, cuDoubleComplex, cuDoubleComplex, void)         \
  X(Trmm, cublasZtrmm_v2, int, cuDoubleComplex, void, void)                          \
  X(Trmm, cublasZtrmm_v2_64, int64_t, cuDoubleComplex, void, void)                   \
  X(TrsmBatched, cublasZtrsmBatched, int, cuDoubleComplex, void, void)               \
  X(TrsmBatched, cublasZtrsmBatched_64, int64_t, cuDoubleComplex, void, void)        \
  X(Trsm, cublasZtrsm_v2, int, cuDoubleComplex, void, void)                          \
  X(Trsm, cublasZtrsm_v2_64, int64_t, cuDoubleComplex, void, void)

#define FLOPSPY_CUBLAS_V2_LEVEL12(X)                                                           \
  X(AxpyEx, cublasAxpyEx, int, void, void, void)                                               \
  X(AxpyEx, cublasAxpyEx_64, int64_t, void, void, void)                                        \
  X(Axpy, cublasCaxpy_v2, int, cuComplex, void, void)                                          \
  X(Axpy, cublasCaxpy_v2_64, int64_t, cuComplex, void, void)                                   \
  X(Dot, cublasCdotc_v2, int, cuComplex, void, void)                                           \
  X(Dot, cublasCdotc_v2_64, int64_t, cuComplex, void, void)                                    \
  X(Dot, cublasCdotu_v2, int, cuComplex, void, void)                                           \
  X(Dot, cublasCdotu_v2_64, int64_t, cuComplex, void, void)                                    \
  X(GemvBatched, cublasCgemvBatched, int, cuComplex, cuComplex, cuComplex)                     \
  X(GemvBatched, cublasCgemvBatched_64, int64_t, cuComplex, cuComplex, cuComplex)              \
  X(GemvStrided, cublasCgemvStridedBatched, int, cuComplex, cuComplex, cuComplex)              \
  X(GemvStrided, cublasCgemvStridedBatched_64, int64_t, cuComplex, cuComplex, cuComplex)       \
  X(Gemv, cublasCgemv_v2, int, cuComplex, void, void)                                          \
  X(Gemv, cublasCgemv_v2_64, int64_t, cuComplex, void, void)                                   \
  X(Ger, cublasCgerc_v2, int, cuComplex, void, void)                                           \
  X(Ger, cublasCgerc_v2_64, int64_t, cuComplex, void, void)                                    \
  X(Ger, cublasCgeru_v2, int, cuComplex, void, void)                                           \
  X(Ger, cublasCgeru_v2_64, int64_t, cuComplex, void, void)                                    \
  X(Scal, cublasCscal_v2, int, cuComplex, cuComplex, void)                                     \
  X(Scal, cublasCscal_v2_64, int64_t, cuComplex, cuComplex, void)                              \
  X(Scal, cublasCsscal_v2, int, cuComplex, float, void)                                        \
  X(Scal, cublasCsscal_v2_64, int64_t, cuComplex, float, void)                                 \
  X(Axpy, cublasDaxpy_v2, int, double, void, void)                                             \
  X(Axpy, cublasDaxpy_v2_64, int64_t, double, void, void)                                      \
  X(Dot, cublasDdot_v2, int, double, void, void)                                               \
  X(Dot, cublasDdot_v2_64, int64_t, double, void, void)                                        \
  X(GemvBatched, cublasDgemvBatched, int, double, double, double)                              \
  X(GemvBatched, cublasDgemvBatched_64, int64_t, double, double, double)                       \
  X(GemvStrided, cublasDgemvStridedBatched, int, double, double, double)                       \
  X(GemvStrided, cublasDgemvStridedBatched_64, int64_t, double, double, double)                \
  X(Gemv, cublasDgemv_v2, int, double, void, void)                                             \
  X(Gemv, cublasDgemv_v2_64, int64_t, double, void, void)                                      \
  X(Ger, cublasDger_v2, int, double, void, void)                                               \
  X(Ger, cublasDger_v2_64, int64_t, double, void, void)                                        \
  X(Nrm2, cublasDnrm2_v2, int, double, double, void)                                           \
  X(Nrm2, cublasDnrm2_v2_64, int64_t, double, double, void)                                    \
  X(DotEx, cublasDotEx, int, void, void, void)                                                 \
  X(DotEx, cublasDotEx_64, int64_t, void, void, void)                                          \
  X(DotEx, cublasDotcEx, int, void, void, void)                                                \
  X(DotEx, cublasDotcEx_64, int64_t, void, void, void)                                         \
  X(Scal, cublasDscal_v2, int, double, double, void)                                           \
  X(Scal, cublasDscal_v2_64, int64_t, double, double, void)                                    \
  X(Nrm2, cublasDznrm2_v2, int, cuDoubleComplex, double, void)                                 \
  X(Nrm2, cublasDznrm2_v2_64, int64_t, cuDoubleComplex, double, void)                          \
  X(GemvBatched, cublasHSHgemvBatched, int, __half, __half, float)                             \
  X(GemvBatched, cublasHSHgemvBatched_64, int64_t, __half, __half, float)                      \
  X(GemvStrided, cublasHSHgemvStridedBatched, int, __half, __half, float)                      \
  X(GemvStrided, cublasHSHgemvStridedBatched_64, int64_t, __half, __half, float)               \
  X(GemvBatched, cublasHSSgemvBatched, int, __half, float, float)                              \
  X(GemvBatched, cublasHSSgemvBatched_64, int64_t, __half, float, float)                       \
  X(GemvStrided, cublasHSSgemvStridedBatched, int, __half, float, float)                       \
  X(GemvStrided, cublasHSSgemvStridedBatched_64, int64_t, __half, float, float)                \
  X(Nrm2Ex, cublasNrm2Ex, int, void, void, void)                                               \
  X(Nrm2Ex, cublasNrm2Ex_64, int64_t, void, void, void)                                        \
  X(Axpy, cublasSaxpy_v2, int, float, void, void)                                              \
  X(Axpy, cublasSaxpy_v2_64, int64_t, float, void, void)                                       \
  X(ScalEx, cublasScalEx, int, void, void, void)                                               \
  X(ScalEx, cublasScalEx_64, int64_t, void, void, void)                                        \
  X(Nrm2, cublasScnrm2_v2, int, cuComplex, float, void)                                        \
  X(Nrm2, cublasScnrm2_v2_64, int64_t, cuComplex, float, void)                                 \
  X(Dot, cublasSdot_v2, int, float, void, void)                                                \
  X(Dot, cublasSdot_v2_64, int64_t, float, void, void)                                         \
  X(GemvBatched, cublasSgemvBatched, int, float, float, float)                                 \
  X(GemvBatched, cublasSgemvBatched_64, int64_t, float, float, float)                          \
  X(GemvStrided, cublasSgemvStridedBatched, int, float, float, float)                          \
  X(GemvStrided, cublasSgemvStridedBatched_64, int64_t, float, float, float)                   \
  X(Gemv, cublasSgemv_v2, int, float, void, void)                                              \
  X(Gemv, cublasSgemv_v2_64, int64_t, float, void, void)                                       \
  X(Ger, cublasSger_v2, int, float, void, void)                                                \
  X(Ger, cublasSger_v2_64, int64_t, float, void, void)                                         \
  X(Nrm2, cublasSnrm2_v2, int, float, float, void)                                             \
  X(Nrm2, cublasSnrm2_v2_64, int64_t, float, float, void)                                      \
  X(Scal, cublasSscal_v2, int, float, float, void)                                             \
  X(Scal, cublasSscal_v2_64, int64_t, float, float, void)                                      \
  X(GemvBatched, cublasTSSgemvBatched, int, __nv_bfloat16, float, float)                       \
  X(GemvBatched, cublasTSSgemvBatched_64, int64_t, __nv_bfloat16, float, float)                \
  X(GemvStrided, cublasTSSgemvStridedBatched, int, __nv_bfloat16, float, float)                \
  X(GemvStrided, cublasTSSgemvStridedBatched_64, int64_t, __nv_bfloat16, float, float)         \
  X(GemvBatched, cublasTSTgemvBatched, int, __nv_bfloat16, __nv_bfloat16, float)               \
  X(GemvBatched, cublasTSTgemvBatched_64, int64_t, __nv_bfloat16, __nv_bfloat16, float)        \
  X(GemvStrided, cublasTSTgemvStridedBatched, int, __nv_bfloat16, __nv_bfloat16, float)        \
  X(GemvStrided, cublasTSTgemvStridedBatched_64, int64_t, __nv_bfloat16, __nv_bfloat16, float) \
  X(Axpy, cublasZaxpy_v2, int, cuDoubleComplex, void, void)                                    \
  X(Axpy, cublasZaxpy_v2_64, int64_t, cuDoubleComplex, void, void)                             \
  X(Dot, cublasZdotc_v2, int, cuDoubleComplex, void, void)                                     \
  X(Dot, cublasZdotc_v2_64, int64_t, cuDoubleComplex, void, void)                              \
  X(Dot, cublasZdotu_v2, int, cuDoubleComplex, void, void)                                     \
  X(Dot, cublasZdotu_v2_64, int64_t, cuDoubleComplex, void, void)                              \
  X(Scal, cublasZdscal_v2, int, cuDoubleComplex, double, void)                                 \
  X(Scal, cublasZdscal_v2_64, int64_t, cuDoubleComplex, double, void)                          \
  X(GemvBatched, cublasZgemvBatched, int, cuDoubleComplex, cuDoubleComplex, cuDoubleComplex)   \
  X(GemvBatched, cublasZgemvBatched_64, int64_t, cuDoubleComplex, cuDoubleComplex,             \
    cuDoubleComplex)                                                                           \
  X(GemvStrided, cublasZgemvStridedBatched, int, cuDoubleComplex, cuDoubleComplex,             \
    cuDoubleComplex)                                                                           \
  X(GemvStrided, cublasZgemvStridedBatched_64, int64_t, cuDoubleComplex, cuDoubleComplex,      \
    cuDoubleComplex)                                                                           \
  X(Gemv, cublasZgemv_v2, int, cuDoubleComplex, void, void)                                    \
  X(Gemv, cublasZgemv_v2_64, int64_t, cuDoubleComplex, void, void)                             \
  X(Ger, cublasZgerc_v2, int, cuDoubleComplex, void, void)                                     \
  X(Ger, cublasZgerc_v2_64, int64_t, cuDoubleComplex, void, void)                              \
  X(Ger, cublasZgeru_v2, int, cuDoubleComplex, void, void)                                     \
  X(Ger, cublasZgeru_v2_64, int64_t, cuDoubleComplex, void, void)                              \
  X(Scal, cublasZscal_v2, int, cuDoubleComplex, cuDoubleComplex, void)                         \
  X(Scal, cublasZscal_v2_64, int64_t, cuDoubleComplex, cuDoubleComplex, void)

#define FLOPSPY_CUBLAS_LEGACY(X)                                       \
  X(LAxpy, cublasCaxpy, int, cuComplex, void, void)                    \
  X(LDot, cublasCdotc, int, cuComplex, void, void)                     \
  X(LDot, cublasCdotu, int, cuComplex, void, void)                     \
  X(LGemm, cublasCgemm, int, cuComplex, void, void)                    \
  X(LGemv, cublasCgemv, int, cuComplex, void, void)                    \
  X(LGer, cublasCgerc, int, cuComplex, void, void)                     \
  X(LGer, cublasCgeru, int, cuComplex, void, void)                     \
  X(LSymm, cublasChemm, int, cuComplex, void, void)                    \
  X(LSyr2k, cublasCher2k, int, cuComplex, float, void)                 \
  X(LSyrk, cublasCherk, int, cuComplex, float, void)                   \
  X(LScal, cublasCscal, int, cuComplex, cuComplex, void)               \
  X(LScal, cublasCsscal, int, cuComplex, float, void)                  \
  X(LSymm, cublasCsymm, int, cuComplex, void, void)                    \
  X(LSyr2k, cublasCsyr2k, int, cuComplex, cuComplex, void)             \
  X(LSyrk, cublasCsyrk, int, cuComplex, cuComplex, void)               \
  X(LTrsm, cublasCtrmm, int, cuComplex, void, void)                    \
  X(LTrsm, cublasCtrsm, int, cuComplex, void, void)                    \
  X(LAxpy, cublasDaxpy, int, double, void, void)                       \
  X(LDot, cublasDdot, int, double, void, void)                         \
  X(LGemm, cublasDgemm, int, double, void, void)                       \
  X(LGemv, cublasDgemv, int, double, void, void)                       \
  X(LGer, cublasDger, int, double, void, void)                         \
  X(LNrm2, cublasDnrm2, int, double, double, void)                     \
  X(LScal, cublasDscal, int, double, double, void)                     \
  X(LSymm, cublasDsymm, int, double, void, void)                       \
  X(LSyr2k, cublasDsyr2k, int, double, double, void)                   \
  X(LSyrk, cublasDsyrk, int, double, double, void)                     \
  X(LTrsm, cublasDtrmm, int, double, void, void)                       \
  X(LTrsm, cublasDtrsm, int, double, void, void)                       \
  X(LNrm2, cublasDznrm2, int, cuDoubleComplex, double, void)           \
  X(LAxpy, cublasSaxpy, int, float, void, void)                        \
  X(LNrm2, cublasScnrm2, int, cuComplex, float, void)                  \
  X(LDot, cublasSdot, int, float, void, void)                          \
  X(LGemm, cublasSgemm, int, float, void, void)                        \
  X(LGemv, cublasSgemv, int, float, void, void)                        \
  X(LGer, cublasSger, int, float, void, void)                          \
  X(LNrm2, cublasSnrm2, int, float, float, void)                       \
  X(LScal, cublasSscal, int, float, float, void)                       \
  X(LSymm, cublasSsymm, int, float, void, void)                        \
  X(LSyr2k, cublasSsyr2k, int, float, float, void)                     \
  X(LSyrk, cublasSsyrk, int, float, float, void)                       \
  X(LTrsm, cublasStrmm, int, float, void, void)                        \
  X(LTrsm, cublasStrsm, int, float, void, void)                        \
  X(LAxpy, cublasZaxpy, int, cuDoubleComplex, void, void)              \
  X(LDot, cublasZdotc, int, cuDoubleComplex, void, void)               \
  X(LDot, cublasZdotu, int, cuDoubleComplex, void, void)               \
  X(LScal, cublasZdscal, int, cuDoubleComplex, double, void)           \
  X(LGemm, cublasZgemm, int, cuDoubleComplex, void, void)              \
  X(LGemv, cublasZgemv, int, cuDoubleComplex, void, void)              \
  X(LGer, cublasZgerc, int, cuDoubleComplex, void, void)               \
  X(LGer, cublasZgeru, int, cuDoubleComplex, void, void)               \
  X(LSymm, cublasZhemm, int, cuDoubleComplex, void, void)              \
  X(LSyr2k, cublasZher2k, int, cuDoubleComplex, double, void)          \
  X(LSyrk, cublasZherk, int, cuDoubleComplex, double, void)            \
  X(LScal, cublasZscal, int, cuDoubleComplex, cuDoubleComplex, void)   \
  X(LSymm, cublasZsymm, int, cuDoubleComplex, void, void)              \
  X(LSyr2k, cublasZsyr2k, int, cuDoubleComplex, cuDoubleComplex, void) \
  X(LSyrk, cublasZsyrk, int, cuDoubleComplex, cuDoubleComplex, void)   \
  X(LTrsm, cublasZtrmm, int, cuDoubleComplex, void, void)              \
  X(LTrsm, cublasZtrsm, int, cuDoubleComplex, void, void)

#define FLOPSPY_CUBLAS_LT(X) X(LtMatmul, cublasLtMatmul, int, void, void, void)
// All of them: 299 in cuBLAS 13.1, the size of analyzers::BlasEntryPoints().
#define FLOPSPY_CUBLAS_ENTRY_POINTS(X) \
  FLOPSPY_CUBLAS_V2_LEVEL3(X)          \
  FLOPSPY_CUBLAS_V2_LEVEL12(X)         \
  FLOPSPY_CUBLAS_LEGACY(X)             \
  FLOPSPY_CUBLAS_LT(X)
