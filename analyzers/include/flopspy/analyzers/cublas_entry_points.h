// Every cuBLAS and cuBLASLt entry point flopspy hooks: the one list, as X-macros with one row per
// exported symbol:
//
//   X(Family, name, I, T1, T2, T3, routine, api, A, B, C, D, compute, scale[, conj])
//
// The first six columns are the hook's C signature (interpose/src/hooks_cublas_table.h: Family
// names the signature shape, I is int or int64_t for the _64 forms, T1..T3 the element and scalar
// types, void where unused). They are tokens only: this header includes no CUDA header, and the
// analyzers drop them. The rest is the analyzers' BlasEntryPoint row (blas_routine.cpp names the
// values): the BLAS routine, the API, the operand types A..D (level 1: x, y, result, execution
// type), compute type, scale type and, for dot and ger, conjugation. docs/blas-formulas.md gives
// the family rules.
//
// Built from it: the hooks, the fake libraries and the test client (expanding the signature), the
// analyzers' BlasEntryPoints() (sorted at compile time), and the cuBLAS part of libflopspy.so's
// version script (interpose/CMakeLists.txt reads the names from this file). To hook a new entry
// point, add its row to the list of its API, sorted by name.
#pragma once

#define FLOPSPY_CUBLAS_V2_LEVEL3(X)                                                                \
  X(Gemm, cublasCgemm3m, int, cuComplex, void, void, kGemm3m, kV2, kC32F, kC32F, kC32F, kNa,       \
    kc32F, kC32F)                                                                                  \
  X(GemmBatched, cublasCgemm3mBatched, int, cuComplex, void, void, kGemm3mBatched, kV2, kC32F,     \
    kC32F, kC32F, kNa, kc32F, kC32F)                                                               \
  X(GemmBatched, cublasCgemm3mBatched_64, int64_t, cuComplex, void, void, kGemm3mBatched, kV2,     \
    kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                                                        \
  X(GemmExTyped, cublasCgemm3mEx, int, cuComplex, void, void, kGemm3m, kV2, kArg, kArg, kArg, kNa, \
    kc32F, kC32F)                                                                                  \
  X(GemmExTyped, cublasCgemm3mEx_64, int64_t, cuComplex, void, void, kGemm3m, kV2, kArg, kArg,     \
    kArg, kNa, kc32F, kC32F)                                                                       \
  X(GemmStrided, cublasCgemm3mStridedBatched, int, cuComplex, void, void, kGemm3mStridedBatched,   \
    kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                                                   \
  X(GemmStrided, cublasCgemm3mStridedBatched_64, int64_t, cuComplex, void, void,                   \
    kGemm3mStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                            \
  X(Gemm, cublasCgemm3m_64, int64_t, cuComplex, void, void, kGemm3m, kV2, kC32F, kC32F, kC32F,     \
    kNa, kc32F, kC32F)                                                                             \
  X(GemmBatched, cublasCgemmBatched, int, cuComplex, void, void, kGemmBatched, kV2, kC32F, kC32F,  \
    kC32F, kNa, kc32F, kC32F)                                                                      \
  X(GemmBatched, cublasCgemmBatched_64, int64_t, cuComplex, void, void, kGemmBatched, kV2, kC32F,  \
    kC32F, kC32F, kNa, kc32F, kC32F)                                                               \
  X(GemmExTyped, cublasCgemmEx, int, cuComplex, void, void, kGemm, kV2, kArg, kArg, kArg, kNa,     \
    kc32F, kC32F)                                                                                  \
  X(GemmExTyped, cublasCgemmEx_64, int64_t, cuComplex, void, void, kGemm, kV2, kArg, kArg, kArg,   \
    kNa, kc32F, kC32F)                                                                             \
  X(GemmStrided, cublasCgemmStridedBatched, int, cuComplex, void, void, kGemmStridedBatched, kV2,  \
    kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                                                        \
  X(GemmStrided, cublasCgemmStridedBatched_64, int64_t, cuComplex, void, void,                     \
    kGemmStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                              \
  X(Gemm, cublasCgemm_v2, int, cuComplex, void, void, kGemm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, \
    kC32F)                                                                                         \
  X(Gemm, cublasCgemm_v2_64, int64_t, cuComplex, void, void, kGemm, kV2, kC32F, kC32F, kC32F, kNa, \
    kc32F, kC32F)                                                                                  \
  X(Symm, cublasChemm_v2, int, cuComplex, void, void, kHemm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, \
    kC32F, kHermitian)                                                                             \
  X(Symm, cublasChemm_v2_64, int64_t, cuComplex, void, void, kHemm, kV2, kC32F, kC32F, kC32F, kNa, \
    kc32F, kC32F, kHermitian)                                                                      \
  X(Syr2k, cublasCher2k_v2, int, cuComplex, float, void, kHer2k, kV2, kC32F, kC32F, kC32F, kNa,    \
    kc32F, kC32F, kHermitian)                                                                      \
  X(Syr2k, cublasCher2k_v2_64, int64_t, cuComplex, float, void, kHer2k, kV2, kC32F, kC32F, kC32F,  \
    kNa, kc32F, kC32F, kHermitian)                                                                 \
  X(SyrkEx, cublasCherk3mEx, int, float, void, void, kHerk, kV2, kArg, kNa, kArg, kNa, kc32F,      \
    kR32F, kHermitian)                                                                             \
  X(SyrkEx, cublasCherk3mEx_64, int64_t, float, void, void, kHerk, kV2, kArg, kNa, kArg, kNa,      \
    kc32F, kR32F, kHermitian)                                                                      \
  X(SyrkEx, cublasCherkEx, int, float, void, void, kHerk, kV2, kArg, kNa, kArg, kNa, kc32F, kR32F, \
    kHermitian)                                                                                    \
  X(SyrkEx, cublasCherkEx_64, int64_t, float, void, void, kHerk, kV2, kArg, kNa, kArg, kNa, kc32F, \
    kR32F, kHermitian)                                                                             \
  X(Syrk, cublasCherk_v2, int, cuComplex, float, void, kHerk, kV2, kC32F, kNa, kC32F, kNa, kc32F,  \
    kR32F, kHermitian)                                                                             \
  X(Syrk, cublasCherk_v2_64, int64_t, cuComplex, float, void, kHerk, kV2, kC32F, kNa, kC32F, kNa,  \
    kc32F, kR32F, kHermitian)                                                                      \
  X(Syr2k, cublasCherkx, int, cuComplex, float, void, kHerkx, kV2, kC32F, kC32F, kC32F, kNa,       \
    kc32F, kC32F, kHermitian)                                                                      \
  X(Syr2k, cublasCherkx_64, int64_t, cuComplex, float, void, kHerkx, kV2, kC32F, kC32F, kC32F,     \
    kNa, kc32F, kC32F, kHermitian)                                                                 \
  X(Symm, cublasCsymm_v2, int, cuComplex, void, void, kSymm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, \
    kC32F)                                                                                         \
  X(Symm, cublasCsymm_v2_64, int64_t, cuComplex, void, void, kSymm, kV2, kC32F, kC32F, kC32F, kNa, \
    kc32F, kC32F)                                                                                  \
  X(Syr2k, cublasCsyr2k_v2, int, cuComplex, cuComplex, void, kSyr2k, kV2, kC32F, kC32F, kC32F,     \
    kNa, kc32F, kC32F)                                                                             \
  X(Syr2k, cublasCsyr2k_v2_64, int64_t, cuComplex, cuComplex, void, kSyr2k, kV2, kC32F, kC32F,     \
    kC32F, kNa, kc32F, kC32F)                                                                      \
  X(SyrkEx, cublasCsyrk3mEx, int, cuComplex, void, void, kSyrk, kV2, kArg, kNa, kArg, kNa, kc32F,  \
    kC32F)                                                                                         \
  X(SyrkEx, cublasCsyrk3mEx_64, int64_t, cuComplex, void, void, kSyrk, kV2, kArg, kNa, kArg, kNa,  \
    kc32F, kC32F)                                                                                  \
  X(SyrkEx, cublasCsyrkEx, int, cuComplex, void, void, kSyrk, kV2, kArg, kNa, kArg, kNa, kc32F,    \
    kC32F)                                                                                         \
  X(SyrkEx, cublasCsyrkEx_64, int64_t, cuComplex, void, void, kSyrk, kV2, kArg, kNa, kArg, kNa,    \
    kc32F, kC32F)                                                                                  \
  X(Syrk, cublasCsyrk_v2, int, cuComplex, cuComplex, void, kSyrk, kV2, kC32F, kNa, kC32F, kNa,     \
    kc32F, kC32F)                                                                                  \
  X(Syrk, cublasCsyrk_v2_64, int64_t, cuComplex, cuComplex, void, kSyrk, kV2, kC32F, kNa, kC32F,   \
    kNa, kc32F, kC32F)                                                                             \
  X(Syr2k, cublasCsyrkx, int, cuComplex, cuComplex, void, kSyrkx, kV2, kC32F, kC32F, kC32F, kNa,   \
    kc32F, kC32F)                                                                                  \
  X(Syr2k, cublasCsyrkx_64, int64_t, cuComplex, cuComplex, void, kSyrkx, kV2, kC32F, kC32F, kC32F, \
    kNa, kc32F, kC32F)                                                                             \
  X(Trmm, cublasCtrmm_v2, int, cuComplex, void, void, kTrmm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, \
    kC32F)                                                                                         \
  X(Trmm, cublasCtrmm_v2_64, int64_t, cuComplex, void, void, kTrmm, kV2, kC32F, kC32F, kC32F, kNa, \
    kc32F, kC32F)                                                                                  \
  X(TrsmBatched, cublasCtrsmBatched, int, cuComplex, void, void, kTrsmBatched, kV2, kC32F, kC32F,  \
    kNa, kNa, kc32F, kC32F)                                                                        \
  X(TrsmBatched, cublasCtrsmBatched_64, int64_t, cuComplex, void, void, kTrsmBatched, kV2, kC32F,  \
    kC32F, kNa, kNa, kc32F, kC32F)                                                                 \
  X(Trsm, cublasCtrsm_v2, int, cuComplex, void, void, kTrsm, kV2, kC32F, kC32F, kNa, kNa, kc32F,   \
    kC32F)                                                                                         \
  X(Trsm, cublasCtrsm_v2_64, int64_t, cuComplex, void, void, kTrsm, kV2, kC32F, kC32F, kNa, kNa,   \
    kc32F, kC32F)                                                                                  \
  X(GemmBatched, cublasDgemmBatched, int, double, void, void, kGemmBatched, kV2, kR64F, kR64F,     \
    kR64F, kNa, kc64F, kR64F)                                                                      \
  X(GemmBatched, cublasDgemmBatched_64, int64_t, double, void, void, kGemmBatched, kV2, kR64F,     \
    kR64F, kR64F, kNa, kc64F, kR64F)                                                               \
  X(GemmGrouped, cublasDgemmGroupedBatched, int, double, void, void, kGemmGroupedBatched, kV2,     \
    kR64F, kR64F, kR64F, kNa, kc64F, kR64F)                                                        \
  X(GemmGrouped, cublasDgemmGroupedBatched_64, int64_t, double, void, void, kGemmGroupedBatched,   \
    kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F)                                                   \
  X(GemmStrided, cublasDgemmStridedBatched, int, double, void, void, kGemmStridedBatched, kV2,     \
    kR64F, kR64F, kR64F, kNa, kc64F, kR64F)                                                        \
  X(GemmStrided, cublasDgemmStridedBatched_64, int64_t, double, void, void, kGemmStridedBatched,   \
    kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F)                                                   \
  X(Gemm, cublasDgemm_v2, int, double, void, void, kGemm, kV2, kR64F, kR64F, kR64F, kNa, kc64F,    \
    kR64F)                                                                                         \
  X(Gemm, cublasDgemm_v2_64, int64_t, double, void, void, kGemm, kV2, kR64F, kR64F, kR64F, kNa,    \
    kc64F, kR64F)                                                                                  \
  X(Symm, cublasDsymm_v2, int, double, void, void, kSymm, kV2, kR64F, kR64F, kR64F, kNa, kc64F,    \
    kR64F)                                                                                         \
  X(Symm, cublasDsymm_v2_64, int64_t, double, void, void, kSymm, kV2, kR64F, kR64F, kR64F, kNa,    \
    kc64F, kR64F)                                                                                  \
  X(Syr2k, cublasDsyr2k_v2, int, double, double, void, kSyr2k, kV2, kR64F, kR64F, kR64F, kNa,      \
    kc64F, kR64F)                                                                                  \
  X(Syr2k, cublasDsyr2k_v2_64, int64_t, double, double, void, kSyr2k, kV2, kR64F, kR64F, kR64F,    \
    kNa, kc64F, kR64F)                                                                             \
  X(Syrk, cublasDsyrk_v2, int, double, double, void, kSyrk, kV2, kR64F, kNa, kR64F, kNa, kc64F,    \
    kR64F)                                                                                         \
  X(Syrk, cublasDsyrk_v2_64, int64_t, double, double, void, kSyrk, kV2, kR64F, kNa, kR64F, kNa,    \
    kc64F, kR64F)                                                                                  \
  X(Syr2k, cublasDsyrkx, int, double, double, void, kSyrkx, kV2, kR64F, kR64F, kR64F, kNa, kc64F,  \
    kR64F)                                                                                         \
  X(Syr2k, cublasDsyrkx_64, int64_t, double, double, void, kSyrkx, kV2, kR64F, kR64F, kR64F, kNa,  \
    kc64F, kR64F)                                                                                  \
  X(Trmm, cublasDtrmm_v2, int, double, void, void, kTrmm, kV2, kR64F, kR64F, kR64F, kNa, kc64F,    \
    kR64F)                                                                                         \
  X(Trmm, cublasDtrmm_v2_64, int64_t, double, void, void, kTrmm, kV2, kR64F, kR64F, kR64F, kNa,    \
    kc64F, kR64F)                                                                                  \
  X(TrsmBatched, cublasDtrsmBatched, int, double, void, void, kTrsmBatched, kV2, kR64F, kR64F,     \
    kNa, kNa, kc64F, kR64F)                                                                        \
  X(TrsmBatched, cublasDtrsmBatched_64, int64_t, double, void, void, kTrsmBatched, kV2, kR64F,     \
    kR64F, kNa, kNa, kc64F, kR64F)                                                                 \
  X(Trsm, cublasDtrsm_v2, int, double, void, void, kTrsm, kV2, kR64F, kR64F, kNa, kNa, kc64F,      \
    kR64F)                                                                                         \
  X(Trsm, cublasDtrsm_v2_64, int64_t, double, void, void, kTrsm, kV2, kR64F, kR64F, kNa, kNa,      \
    kc64F, kR64F)                                                                                  \
  X(GemmBatchedEx, cublasGemmBatchedEx, int, void, void, void, kGemmBatched, kV2, kArg, kArg,      \
    kArg, kNa, kArg, kArg)                                                                         \
  X(GemmBatchedEx, cublasGemmBatchedEx_64, int64_t, void, void, void, kGemmBatched, kV2, kArg,     \
    kArg, kArg, kNa, kArg, kArg)                                                                   \
  X(GemmEx, cublasGemmEx, int, void, void, void, kGemm, kV2, kArg, kArg, kArg, kNa, kArg, kArg)    \
  X(GemmEx, cublasGemmEx_64, int64_t, void, void, void, kGemm, kV2, kArg, kArg, kArg, kNa, kArg,   \
    kArg)                                                                                          \
  X(GemmGroupedEx, cublasGemmGroupedBatchedEx, int, void, void, void, kGemmGroupedBatched, kV2,    \
    kArg, kArg, kArg, kNa, kArg, kArg)                                                             \
  X(GemmGroupedEx, cublasGemmGroupedBatchedEx_64, int64_t, void, void, void, kGemmGroupedBatched,  \
    kV2, kArg, kArg, kArg, kNa, kArg, kArg)                                                        \
  X(GemmStridedEx, cublasGemmStridedBatchedEx, int, void, void, void, kGemmStridedBatched, kV2,    \
    kArg, kArg, kArg, kNa, kArg, kArg)                                                             \
  X(GemmStridedEx, cublasGemmStridedBatchedEx_64, int64_t, void, void, void, kGemmStridedBatched,  \
    kV2, kArg, kArg, kArg, kNa, kArg, kArg)                                                        \
  X(Gemm, cublasHgemm, int, __half, void, void, kGemm, kV2, kR16F, kR16F, kR16F, kNa, kc16F,       \
    kR16F)                                                                                         \
  X(GemmBatched, cublasHgemmBatched, int, __half, void, void, kGemmBatched, kV2, kR16F, kR16F,     \
    kR16F, kNa, kc16F, kR16F)                                                                      \
  X(GemmBatched, cublasHgemmBatched_64, int64_t, __half, void, void, kGemmBatched, kV2, kR16F,     \
    kR16F, kR16F, kNa, kc16F, kR16F)                                                               \
  X(GemmStrided, cublasHgemmStridedBatched, int, __half, void, void, kGemmStridedBatched, kV2,     \
    kR16F, kR16F, kR16F, kNa, kc16F, kR16F)                                                        \
  X(GemmStrided, cublasHgemmStridedBatched_64, int64_t, __half, void, void, kGemmStridedBatched,   \
    kV2, kR16F, kR16F, kR16F, kNa, kc16F, kR16F)                                                   \
  X(Gemm, cublasHgemm_64, int64_t, __half, void, void, kGemm, kV2, kR16F, kR16F, kR16F, kNa,       \
    kc16F, kR16F)                                                                                  \
  X(GemmBatched, cublasSgemmBatched, int, float, void, void, kGemmBatched, kV2, kR32F, kR32F,      \
    kR32F, kNa, kc32F, kR32F)                                                                      \
  X(GemmBatched, cublasSgemmBatched_64, int64_t, float, void, void, kGemmBatched, kV2, kR32F,      \
    kR32F, kR32F, kNa, kc32F, kR32F)                                                               \
  X(GemmExTyped, cublasSgemmEx, int, float, void, void, kGemm, kV2, kArg, kArg, kArg, kNa, kc32F,  \
    kR32F)                                                                                         \
  X(GemmExTyped, cublasSgemmEx_64, int64_t, float, void, void, kGemm, kV2, kArg, kArg, kArg, kNa,  \
    kc32F, kR32F)                                                                                  \
  X(GemmGrouped, cublasSgemmGroupedBatched, int, float, void, void, kGemmGroupedBatched, kV2,      \
    kR32F, kR32F, kR32F, kNa, kc32F, kR32F)                                                        \
  X(GemmGrouped, cublasSgemmGroupedBatched_64, int64_t, float, void, void, kGemmGroupedBatched,    \
    kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F)                                                   \
  X(GemmStrided, cublasSgemmStridedBatched, int, float, void, void, kGemmStridedBatched, kV2,      \
    kR32F, kR32F, kR32F, kNa, kc32F, kR32F)                                                        \
  X(GemmStrided, cublasSgemmStridedBatched_64, int64_t, float, void, void, kGemmStridedBatched,    \
    kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F)                                                   \
  X(Gemm, cublasSgemm_v2, int, float, void, void, kGemm, kV2, kR32F, kR32F, kR32F, kNa, kc32F,     \
    kR32F)                                                                                         \
  X(Gemm, cublasSgemm_v2_64, int64_t, float, void, void, kGemm, kV2, kR32F, kR32F, kR32F, kNa,     \
    kc32F, kR32F)                                                                                  \
  X(Symm, cublasSsymm_v2, int, float, void, void, kSymm, kV2, kR32F, kR32F, kR32F, kNa, kc32F,     \
    kR32F)                                                                                         \
  X(Symm, cublasSsymm_v2_64, int64_t, float, void, void, kSymm, kV2, kR32F, kR32F, kR32F, kNa,     \
    kc32F, kR32F)                                                                                  \
  X(Syr2k, cublasSsyr2k_v2, int, float, float, void, kSyr2k, kV2, kR32F, kR32F, kR32F, kNa, kc32F, \
    kR32F)                                                                                         \
  X(Syr2k, cublasSsyr2k_v2_64, int64_t, float, float, void, kSyr2k, kV2, kR32F, kR32F, kR32F, kNa, \
    kc32F, kR32F)                                                                                  \
  X(Syrk, cublasSsyrk_v2, int, float, float, void, kSyrk, kV2, kR32F, kNa, kR32F, kNa, kc32F,      \
    kR32F)                                                                                         \
  X(Syrk, cublasSsyrk_v2_64, int64_t, float, float, void, kSyrk, kV2, kR32F, kNa, kR32F, kNa,      \
    kc32F, kR32F)                                                                                  \
  X(Syr2k, cublasSsyrkx, int, float, float, void, kSyrkx, kV2, kR32F, kR32F, kR32F, kNa, kc32F,    \
    kR32F)                                                                                         \
  X(Syr2k, cublasSsyrkx_64, int64_t, float, float, void, kSyrkx, kV2, kR32F, kR32F, kR32F, kNa,    \
    kc32F, kR32F)                                                                                  \
  X(Trmm, cublasStrmm_v2, int, float, void, void, kTrmm, kV2, kR32F, kR32F, kR32F, kNa, kc32F,     \
    kR32F)                                                                                         \
  X(Trmm, cublasStrmm_v2_64, int64_t, float, void, void, kTrmm, kV2, kR32F, kR32F, kR32F, kNa,     \
    kc32F, kR32F)                                                                                  \
  X(TrsmBatched, cublasStrsmBatched, int, float, void, void, kTrsmBatched, kV2, kR32F, kR32F, kNa, \
    kNa, kc32F, kR32F)                                                                             \
  X(TrsmBatched, cublasStrsmBatched_64, int64_t, float, void, void, kTrsmBatched, kV2, kR32F,      \
    kR32F, kNa, kNa, kc32F, kR32F)                                                                 \
  X(Trsm, cublasStrsm_v2, int, float, void, void, kTrsm, kV2, kR32F, kR32F, kNa, kNa, kc32F,       \
    kR32F)                                                                                         \
  X(Trsm, cublasStrsm_v2_64, int64_t, float, void, void, kTrsm, kV2, kR32F, kR32F, kNa, kNa,       \
    kc32F, kR32F)                                                                                  \
  X(Gemm, cublasZgemm3m, int, cuDoubleComplex, void, void, kGemm3m, kV2, kC64F, kC64F, kC64F, kNa, \
    kc64F, kC64F)                                                                                  \
  X(Gemm, cublasZgemm3m_64, int64_t, cuDoubleComplex, void, void, kGemm3m, kV2, kC64F, kC64F,      \
    kC64F, kNa, kc64F, kC64F)                                                                      \
  X(GemmBatched, cublasZgemmBatched, int, cuDoubleComplex, void, void, kGemmBatched, kV2, kC64F,   \
    kC64F, kC64F, kNa, kc64F, kC64F)                                                               \
  X(GemmBatched, cublasZgemmBatched_64, int64_t, cuDoubleComplex, void, void, kGemmBatched, kV2,   \
    kC64F, kC64F, kC64F, kNa, kc64F, kC64F)                                                        \
  X(GemmStrided, cublasZgemmStridedBatched, int, cuDoubleComplex, void, void, kGemmStridedBatched, \
    kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F)                                                   \
  X(GemmStrided, cublasZgemmStridedBatched_64, int64_t, cuDoubleComplex, void, void,               \
    kGemmStridedBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F)                              \
  X(Gemm, cublasZgemm_v2, int, cuDoubleComplex, void, void, kGemm, kV2, kC64F, kC64F, kC64F, kNa,  \
    kc64F, kC64F)                                                                                  \
  X(Gemm, cublasZgemm_v2_64, int64_t, cuDoubleComplex, void, void, kGemm, kV2, kC64F, kC64F,       \
    kC64F, kNa, kc64F, kC64F)                                                                      \
  X(Symm, cublasZhemm_v2, int, cuDoubleComplex, void, void, kHemm, kV2, kC64F, kC64F, kC64F, kNa,  \
    kc64F, kC64F, kHermitian)                                                                      \
  X(Symm, cublasZhemm_v2_64, int64_t, cuDoubleComplex, void, void, kHemm, kV2, kC64F, kC64F,       \
    kC64F, kNa, kc64F, kC64F, kHermitian)                                                          \
  X(Syr2k, cublasZher2k_v2, int, cuDoubleComplex, double, void, kHer2k, kV2, kC64F, kC64F, kC64F,  \
    kNa, kc64F, kC64F, kHermitian)                                                                 \
  X(Syr2k, cublasZher2k_v2_64, int64_t, cuDoubleComplex, double, void, kHer2k, kV2, kC64F, kC64F,  \
    kC64F, kNa, kc64F, kC64F, kHermitian)                                                          \
  X(Syrk, cublasZherk_v2, int, cuDoubleComplex, double, void, kHerk, kV2, kC64F, kNa, kC64F, kNa,  \
    kc64F, kR64F, kHermitian)                                                                      \
  X(Syrk, cublasZherk_v2_64, int64_t, cuDoubleComplex, double, void, kHerk, kV2, kC64F, kNa,       \
    kC64F, kNa, kc64F, kR64F, kHermitian)                                                          \
  X(Syr2k, cublasZherkx, int, cuDoubleComplex, double, void, kHerkx, kV2, kC64F, kC64F, kC64F,     \
    kNa, kc64F, kC64F, kHermitian)                                                                 \
  X(Syr2k, cublasZherkx_64, int64_t, cuDoubleComplex, double, void, kHerkx, kV2, kC64F, kC64F,     \
    kC64F, kNa, kc64F, kC64F, kHermitian)                                                          \
  X(Symm, cublasZsymm_v2, int, cuDoubleComplex, void, void, kSymm, kV2, kC64F, kC64F, kC64F, kNa,  \
    kc64F, kC64F)                                                                                  \
  X(Symm, cublasZsymm_v2_64, int64_t, cuDoubleComplex, void, void, kSymm, kV2, kC64F, kC64F,       \
    kC64F, kNa, kc64F, kC64F)                                                                      \
  X(Syr2k, cublasZsyr2k_v2, int, cuDoubleComplex, cuDoubleComplex, void, kSyr2k, kV2, kC64F,       \
    kC64F, kC64F, kNa, kc64F, kC64F)                                                               \
  X(Syr2k, cublasZsyr2k_v2_64, int64_t, cuDoubleComplex, cuDoubleComplex, void, kSyr2k, kV2,       \
    kC64F, kC64F, kC64F, kNa, kc64F, kC64F)                                                        \
  X(Syrk, cublasZsyrk_v2, int, cuDoubleComplex, cuDoubleComplex, void, kSyrk, kV2, kC64F, kNa,     \
    kC64F, kNa, kc64F, kC64F)                                                                      \
  X(Syrk, cublasZsyrk_v2_64, int64_t, cuDoubleComplex, cuDoubleComplex, void, kSyrk, kV2, kC64F,   \
    kNa, kC64F, kNa, kc64F, kC64F)                                                                 \
  X(Syr2k, cublasZsyrkx, int, cuDoubleComplex, cuDoubleComplex, void, kSyrkx, kV2, kC64F, kC64F,   \
    kC64F, kNa, kc64F, kC64F)                                                                      \
  X(Syr2k, cublasZsyrkx_64, int64_t, cuDoubleComplex, cuDoubleComplex, void, kSyrkx, kV2, kC64F,   \
    kC64F, kC64F, kNa, kc64F, kC64F)                                                               \
  X(Trmm, cublasZtrmm_v2, int, cuDoubleComplex, void, void, kTrmm, kV2, kC64F, kC64F, kC64F, kNa,  \
    kc64F, kC64F)                                                                                  \
  X(Trmm, cublasZtrmm_v2_64, int64_t, cuDoubleComplex, void, void, kTrmm, kV2, kC64F, kC64F,       \
    kC64F, kNa, kc64F, kC64F)                                                                      \
  X(TrsmBatched, cublasZtrsmBatched, int, cuDoubleComplex, void, void, kTrsmBatched, kV2, kC64F,   \
    kC64F, kNa, kNa, kc64F, kC64F)                                                                 \
  X(TrsmBatched, cublasZtrsmBatched_64, int64_t, cuDoubleComplex, void, void, kTrsmBatched, kV2,   \
    kC64F, kC64F, kNa, kNa, kc64F, kC64F)                                                          \
  X(Trsm, cublasZtrsm_v2, int, cuDoubleComplex, void, void, kTrsm, kV2, kC64F, kC64F, kNa, kNa,    \
    kc64F, kC64F)                                                                                  \
  X(Trsm, cublasZtrsm_v2_64, int64_t, cuDoubleComplex, void, void, kTrsm, kV2, kC64F, kC64F, kNa,  \
    kNa, kc64F, kC64F)

#define FLOPSPY_CUBLAS_V2_LEVEL12(X)                                                               \
  X(AxpyEx, cublasAxpyEx, int, void, void, void, kAxpy, kV2, kArg, kArg, kNa, kArg, kNa, kArg)     \
  X(AxpyEx, cublasAxpyEx_64, int64_t, void, void, void, kAxpy, kV2, kArg, kArg, kNa, kArg, kNa,    \
    kArg)                                                                                          \
  X(Axpy, cublasCaxpy_v2, int, cuComplex, void, void, kAxpy, kV2, kC32F, kC32F, kNa, kC32F, kc32F, \
    kC32F)                                                                                         \
  X(Axpy, cublasCaxpy_v2_64, int64_t, cuComplex, void, void, kAxpy, kV2, kC32F, kC32F, kNa, kC32F, \
    kc32F, kC32F)                                                                                  \
  X(Dot, cublasCdotc_v2, int, cuComplex, void, void, kDot, kV2, kC32F, kC32F, kC32F, kC32F, kc32F, \
    kC32F, kConjugated)                                                                            \
  X(Dot, cublasCdotc_v2_64, int64_t, cuComplex, void, void, kDot, kV2, kC32F, kC32F, kC32F, kC32F, \
    kc32F, kC32F, kConjugated)                                                                     \
  X(Dot, cublasCdotu_v2, int, cuComplex, void, void, kDot, kV2, kC32F, kC32F, kC32F, kC32F, kc32F, \
    kC32F, kUnconjugated)                                                                          \
  X(Dot, cublasCdotu_v2_64, int64_t, cuComplex, void, void, kDot, kV2, kC32F, kC32F, kC32F, kC32F, \
    kc32F, kC32F, kUnconjugated)                                                                   \
  X(GemvBatched, cublasCgemvBatched, int, cuComplex, cuComplex, cuComplex, kGemvBatched, kV2,      \
    kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                                                        \
  X(GemvBatched, cublasCgemvBatched_64, int64_t, cuComplex, cuComplex, cuComplex, kGemvBatched,    \
    kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                                                   \
  X(GemvStrided, cublasCgemvStridedBatched, int, cuComplex, cuComplex, cuComplex,                  \
    kGemvStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                              \
  X(GemvStrided, cublasCgemvStridedBatched_64, int64_t, cuComplex, cuComplex, cuComplex,           \
    kGemvStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F)                              \
  X(Gemv, cublasCgemv_v2, int, cuComplex, void, void, kGemv, kV2, kC32F, kC32F, kC32F, kNa, kc32F, \
    kC32F)                                                                                         \
  X(Gemv, cublasCgemv_v2_64, int64_t, cuComplex, void, void, kGemv, kV2, kC32F, kC32F, kC32F, kNa, \
    kc32F, kC32F)                                                                                  \
  X(Ger, cublasCgerc_v2, int, cuComplex, void, void, kGer, kV2, kC32F, kC32F, kC32F, kNa, kc32F,   \
    kC32F, kConjugated)                                                                            \
  X(Ger, cublasCgerc_v2_64, int64_t, cuComplex, void, void, kGer, kV2, kC32F, kC32F, kC32F, kNa,   \
    kc32F, kC32F, kConjugated)                                                                     \
  X(Ger, cublasCgeru_v2, int, cuComplex, void, void, kGer, kV2, kC32F, kC32F, kC32F, kNa, kc32F,   \
    kC32F, kUnconjugated)                                                                          \
  X(Ger, cublasCgeru_v2_64, int64_t, cuComplex, void, void, kGer, kV2, kC32F, kC32F, kC32F, kNa,   \
    kc32F, kC32F, kUnconjugated)                                                                   \
  X(Scal, cublasCscal_v2, int, cuComplex, cuComplex, void, kScal, kV2, kC32F, kNa, kNa, kC32F,     \
    kc32F, kC32F)                                                                                  \
  X(Scal, cublasCscal_v2_64, int64_t, cuComplex, cuComplex, void, kScal, kV2, kC32F, kNa, kNa,     \
    kC32F, kc32F, kC32F)                                                                           \
  X(Scal, cublasCsscal_v2, int, cuComplex, float, void, kScal, kV2, kC32F, kNa, kNa, kC32F, kc32F, \
    kR32F)                                                                                         \
  X(Scal, cublasCsscal_v2_64, int64_t, cuComplex, float, void, kScal, kV2, kC32F, kNa, kNa, kC32F, \
    kc32F, kR32F)                                                                                  \
  X(Axpy, cublasDaxpy_v2, int, double, void, void, kAxpy, kV2, kR64F, kR64F, kNa, kR64F, kc64F,    \
    kR64F)                                                                                         \
  X(Axpy, cublasDaxpy_v2_64, int64_t, double, void, void, kAxpy, kV2, kR64F, kR64F, kNa, kR64F,    \
    kc64F, kR64F)                                                                                  \
  X(Dot, cublasDdot_v2, int, double, void, void, kDot, kV2, kR64F, kR64F, kR64F, kR64F, kc64F,     \
    kR64F)                                                                                         \
  X(Dot, cublasDdot_v2_64, int64_t, double, void, void, kDot, kV2, kR64F, kR64F, kR64F, kR64F,     \
    kc64F, kR64F)                                                                                  \
  X(GemvBatched, cublasDgemvBatched, int, double, double, double, kGemvBatched, kV2, kR64F, kR64F, \
    kR64F, kNa, kc64F, kR64F)                                                                      \
  X(GemvBatched, cublasDgemvBatched_64, int64_t, double, double, double, kGemvBatched, kV2, kR64F, \
    kR64F, kR64F, kNa, kc64F, kR64F)                                                               \
  X(GemvStrided, cublasDgemvStridedBatched, int, double, double, double, kGemvStridedBatched, kV2, \
    kR64F, kR64F, kR64F, kNa, kc64F, kR64F)                                                        \
  X(GemvStrided, cublasDgemvStridedBatched_64, int64_t, double, double, double,                    \
    kGemvStridedBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F)                              \
  X(Gemv, cublasDgemv_v2, int, double, void, void, kGemv, kV2, kR64F, kR64F, kR64F, kNa, kc64F,    \
    kR64F)                                                                                         \
  X(Gemv, cublasDgemv_v2_64, int64_t, double, void, void, kGemv, kV2, kR64F, kR64F, kR64F, kNa,    \
    kc64F, kR64F)                                                                                  \
  X(Ger, cublasDger_v2, int, double, void, void, kGer, kV2, kR64F, kR64F, kR64F, kNa, kc64F,       \
    kR64F)                                                                                         \
  X(Ger, cublasDger_v2_64, int64_t, double, void, void, kGer, kV2, kR64F, kR64F, kR64F, kNa,       \
    kc64F, kR64F)                                                                                  \
  X(Nrm2, cublasDnrm2_v2, int, double, double, void, kNrm2, kV2, kR64F, kNa, kR64F, kR64F, kc64F,  \
    kR64F)                                                                                         \
  X(Nrm2, cublasDnrm2_v2_64, int64_t, double, double, void, kNrm2, kV2, kR64F, kNa, kR64F, kR64F,  \
    kc64F, kR64F)                                                                                  \
  X(DotEx, cublasDotEx, int, void, void, void, kDot, kV2, kArg, kArg, kArg, kArg, kNa, kNa,        \
    kUnconjugated)                                                                                 \
  X(DotEx, cublasDotEx_64, int64_t, void, void, void, kDot, kV2, kArg, kArg, kArg, kArg, kNa, kNa, \
    kUnconjugated)                                                                                 \
  X(DotEx, cublasDotcEx, int, void, void, void, kDot, kV2, kArg, kArg, kArg, kArg, kNa, kNa,       \
    kConjugated)                                                                                   \
  X(DotEx, cublasDotcEx_64, int64_t, void, void, void, kDot, kV2, kArg, kArg, kArg, kArg, kNa,     \
    kNa, kConjugated)                                                                              \
  X(Scal, cublasDscal_v2, int, double, double, void, kScal, kV2, kR64F, kNa, kNa, kR64F, kc64F,    \
    kR64F)                                                                                         \
  X(Scal, cublasDscal_v2_64, int64_t, double, double, void, kScal, kV2, kR64F, kNa, kNa, kR64F,    \
    kc64F, kR64F)                                                                                  \
  X(Nrm2, cublasDznrm2_v2, int, cuDoubleComplex, double, void, kNrm2, kV2, kC64F, kNa, kR64F,      \
    kR64F, kc64F, kR64F)                                                                           \
  X(Nrm2, cublasDznrm2_v2_64, int64_t, cuDoubleComplex, double, void, kNrm2, kV2, kC64F, kNa,      \
    kR64F, kR64F, kc64F, kR64F)                                                                    \
  X(GemvBatched, cublasHSHgemvBatched, int, __half, __half, float, kGemvBatched, kV2, kR16F,       \
    kR16F, kR16F, kNa, kc32F, kR32F)                                                               \
  X(GemvBatched, cublasHSHgemvBatched_64, int64_t, __half, __half, float, kGemvBatched, kV2,       \
    kR16F, kR16F, kR16F, kNa, kc32F, kR32F)                                                        \
  X(GemvStrided, cublasHSHgemvStridedBatched, int, __half, __half, float, kGemvStridedBatched,     \
    kV2, kR16F, kR16F, kR16F, kNa, kc32F, kR32F)                                                   \
  X(GemvStrided, cublasHSHgemvStridedBatched_64, int64_t, __half, __half, float,                   \
    kGemvStridedBatched, kV2, kR16F, kR16F, kR16F, kNa, kc32F, kR32F)                              \
  X(GemvBatched, cublasHSSgemvBatched, int, __half, float, float, kGemvBatched, kV2, kR16F, kR16F, \
    kR32F, kNa, kc32F, kR32F)                                                                      \
  X(GemvBatched, cublasHSSgemvBatched_64, int64_t, __half, float, float, kGemvBatched, kV2, kR16F, \
    kR16F, kR32F, kNa, kc32F, kR32F)                                                               \
  X(GemvStrided, cublasHSSgemvStridedBatched, int, __half, float, float, kGemvStridedBatched, kV2, \
    kR16F, kR16F, kR32F, kNa, kc32F, kR32F)                                                        \
  X(GemvStrided, cublasHSSgemvStridedBatched_64, int64_t, __half, float, float,                    \
    kGemvStridedBatched, kV2, kR16F, kR16F, kR32F, kNa, kc32F, kR32F)                              \
  X(Nrm2Ex, cublasNrm2Ex, int, void, void, void, kNrm2, kV2, kArg, kNa, kArg, kArg, kNa, kNa)      \
  X(Nrm2Ex, cublasNrm2Ex_64, int64_t, void, void, void, kNrm2, kV2, kArg, kNa, kArg, kArg, kNa,    \
    kNa)                                                                                           \
  X(Axpy, cublasSaxpy_v2, int, float, void, void, kAxpy, kV2, kR32F, kR32F, kNa, kR32F, kc32F,     \
    kR32F)                                                                                         \
  X(Axpy, cublasSaxpy_v2_64, int64_t, float, void, void, kAxpy, kV2, kR32F, kR32F, kNa, kR32F,     \
    kc32F, kR32F)                                                                                  \
  X(ScalEx, cublasScalEx, int, void, void, void, kScal, kV2, kArg, kNa, kNa, kArg, kNa, kArg)      \
  X(ScalEx, cublasScalEx_64, int64_t, void, void, void, kScal, kV2, kArg, kNa, kNa, kArg, kNa,     \
    kArg)                                                                                          \
  X(Nrm2, cublasScnrm2_v2, int, cuComplex, float, void, kNrm2, kV2, kC32F, kNa, kR32F, kR32F,      \
    kc32F, kR32F)                                                                                  \
  X(Nrm2, cublasScnrm2_v2_64, int64_t, cuComplex, float, void, kNrm2, kV2, kC32F, kNa, kR32F,      \
    kR32F, kc32F, kR32F)                                                                           \
  X(Dot, cublasSdot_v2, int, float, void, void, kDot, kV2, kR32F, kR32F, kR32F, kR32F, kc32F,      \
    kR32F)                                                                                         \
  X(Dot, cublasSdot_v2_64, int64_t, float, void, void, kDot, kV2, kR32F, kR32F, kR32F, kR32F,      \
    kc32F, kR32F)                                                                                  \
  X(GemvBatched, cublasSgemvBatched, int, float, float, float, kGemvBatched, kV2, kR32F, kR32F,    \
    kR32F, kNa, kc32F, kR32F)                                                                      \
  X(GemvBatched, cublasSgemvBatched_64, int64_t, float, float, float, kGemvBatched, kV2, kR32F,    \
    kR32F, kR32F, kNa, kc32F, kR32F)                                                               \
  X(GemvStrided, cublasSgemvStridedBatched, int, float, float, float, kGemvStridedBatched, kV2,    \
    kR32F, kR32F, kR32F, kNa, kc32F, kR32F)                                                        \
  X(GemvStrided, cublasSgemvStridedBatched_64, int64_t, float, float, float, kGemvStridedBatched,  \
    kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F)                                                   \
  X(Gemv, cublasSgemv_v2, int, float, void, void, kGemv, kV2, kR32F, kR32F, kR32F, kNa, kc32F,     \
    kR32F)                                                                                         \
  X(Gemv, cublasSgemv_v2_64, int64_t, float, void, void, kGemv, kV2, kR32F, kR32F, kR32F, kNa,     \
    kc32F, kR32F)                                                                                  \
  X(Ger, cublasSger_v2, int, float, void, void, kGer, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F) \
  X(Ger, cublasSger_v2_64, int64_t, float, void, void, kGer, kV2, kR32F, kR32F, kR32F, kNa, kc32F, \
    kR32F)                                                                                         \
  X(Nrm2, cublasSnrm2_v2, int, float, float, void, kNrm2, kV2, kR32F, kNa, kR32F, kR32F, kc32F,    \
    kR32F)                                                                                         \
  X(Nrm2, cublasSnrm2_v2_64, int64_t, float, float, void, kNrm2, kV2, kR32F, kNa, kR32F, kR32F,    \
    kc32F, kR32F)                                                                                  \
  X(Scal, cublasSscal_v2, int, float, float, void, kScal, kV2, kR32F, kNa, kNa, kR32F, kc32F,      \
    kR32F)                                                                                         \
  X(Scal, cublasSscal_v2_64, int64_t, float, float, void, kScal, kV2, kR32F, kNa, kNa, kR32F,      \
    kc32F, kR32F)                                                                                  \
  X(GemvBatched, cublasTSSgemvBatched, int, __nv_bfloat16, float, float, kGemvBatched, kV2,        \
    kR16BF, kR16BF, kR32F, kNa, kc32F, kR32F)                                                      \
  X(GemvBatched, cublasTSSgemvBatched_64, int64_t, __nv_bfloat16, float, float, kGemvBatched, kV2, \
    kR16BF, kR16BF, kR32F, kNa, kc32F, kR32F)                                                      \
  X(GemvStrided, cublasTSSgemvStridedBatched, int, __nv_bfloat16, float, float,                    \
    kGemvStridedBatched, kV2, kR16BF, kR16BF, kR32F, kNa, kc32F, kR32F)                            \
  X(GemvStrided, cublasTSSgemvStridedBatched_64, int64_t, __nv_bfloat16, float, float,             \
    kGemvStridedBatched, kV2, kR16BF, kR16BF, kR32F, kNa, kc32F, kR32F)                            \
  X(GemvBatched, cublasTSTgemvBatched, int, __nv_bfloat16, __nv_bfloat16, float, kGemvBatched,     \
    kV2, kR16BF, kR16BF, kR16BF, kNa, kc32F, kR32F)                                                \
  X(GemvBatched, cublasTSTgemvBatched_64, int64_t, __nv_bfloat16, __nv_bfloat16, float,            \
    kGemvBatched, kV2, kR16BF, kR16BF, kR16BF, kNa, kc32F, kR32F)                                  \
  X(GemvStrided, cublasTSTgemvStridedBatched, int, __nv_bfloat16, __nv_bfloat16, float,            \
    kGemvStridedBatched, kV2, kR16BF, kR16BF, kR16BF, kNa, kc32F, kR32F)                           \
  X(GemvStrided, cublasTSTgemvStridedBatched_64, int64_t, __nv_bfloat16, __nv_bfloat16, float,     \
    kGemvStridedBatched, kV2, kR16BF, kR16BF, kR16BF, kNa, kc32F, kR32F)                           \
  X(Axpy, cublasZaxpy_v2, int, cuDoubleComplex, void, void, kAxpy, kV2, kC64F, kC64F, kNa, kC64F,  \
    kc64F, kC64F)                                                                                  \
  X(Axpy, cublasZaxpy_v2_64, int64_t, cuDoubleComplex, void, void, kAxpy, kV2, kC64F, kC64F, kNa,  \
    kC64F, kc64F, kC64F)                                                                           \
  X(Dot, cublasZdotc_v2, int, cuDoubleComplex, void, void, kDot, kV2, kC64F, kC64F, kC64F, kC64F,  \
    kc64F, kC64F, kConjugated)                                                                     \
  X(Dot, cublasZdotc_v2_64, int64_t, cuDoubleComplex, void, void, kDot, kV2, kC64F, kC64F, kC64F,  \
    kC64F, kc64F, kC64F, kConjugated)                                                              \
  X(Dot, cublasZdotu_v2, int, cuDoubleComplex, void, void, kDot, kV2, kC64F, kC64F, kC64F, kC64F,  \
    kc64F, kC64F, kUnconjugated)                                                                   \
  X(Dot, cublasZdotu_v2_64, int64_t, cuDoubleComplex, void, void, kDot, kV2, kC64F, kC64F, kC64F,  \
    kC64F, kc64F, kC64F, kUnconjugated)                                                            \
  X(Scal, cublasZdscal_v2, int, cuDoubleComplex, double, void, kScal, kV2, kC64F, kNa, kNa, kC64F, \
    kc64F, kR64F)                                                                                  \
  X(Scal, cublasZdscal_v2_64, int64_t, cuDoubleComplex, double, void, kScal, kV2, kC64F, kNa, kNa, \
    kC64F, kc64F, kR64F)                                                                           \
  X(GemvBatched, cublasZgemvBatched, int, cuDoubleComplex, cuDoubleComplex, cuDoubleComplex,       \
    kGemvBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F)                                     \
  X(GemvBatched, cublasZgemvBatched_64, int64_t, cuDoubleComplex, cuDoubleComplex,                 \
    cuDoubleComplex, kGemvBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F)                    \
  X(GemvStrided, cublasZgemvStridedBatched, int, cuDoubleComplex, cuDoubleComplex,                 \
    cuDoubleComplex, kGemvStridedBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F)             \
  X(GemvStrided, cublasZgemvStridedBatched_64, int64_t, cuDoubleComplex, cuDoubleComplex,          \
    cuDoubleComplex, kGemvStridedBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F)             \
  X(Gemv, cublasZgemv_v2, int, cuDoubleComplex, void, void, kGemv, kV2, kC64F, kC64F, kC64F, kNa,  \
    kc64F, kC64F)                                                                                  \
  X(Gemv, cublasZgemv_v2_64, int64_t, cuDoubleComplex, void, void, kGemv, kV2, kC64F, kC64F,       \
    kC64F, kNa, kc64F, kC64F)                                                                      \
  X(Ger, cublasZgerc_v2, int, cuDoubleComplex, void, void, kGer, kV2, kC64F, kC64F, kC64F, kNa,    \
    kc64F, kC64F, kConjugated)                                                                     \
  X(Ger, cublasZgerc_v2_64, int64_t, cuDoubleComplex, void, void, kGer, kV2, kC64F, kC64F, kC64F,  \
    kNa, kc64F, kC64F, kConjugated)                                                                \
  X(Ger, cublasZgeru_v2, int, cuDoubleComplex, void, void, kGer, kV2, kC64F, kC64F, kC64F, kNa,    \
    kc64F, kC64F, kUnconjugated)                                                                   \
  X(Ger, cublasZgeru_v2_64, int64_t, cuDoubleComplex, void, void, kGer, kV2, kC64F, kC64F, kC64F,  \
    kNa, kc64F, kC64F, kUnconjugated)                                                              \
  X(Scal, cublasZscal_v2, int, cuDoubleComplex, cuDoubleComplex, void, kScal, kV2, kC64F, kNa,     \
    kNa, kC64F, kc64F, kC64F)                                                                      \
  X(Scal, cublasZscal_v2_64, int64_t, cuDoubleComplex, cuDoubleComplex, void, kScal, kV2, kC64F,   \
    kNa, kNa, kC64F, kc64F, kC64F)

#define FLOPSPY_CUBLAS_LEGACY(X)                                                                   \
  X(LAxpy, cublasCaxpy, int, cuComplex, void, void, kAxpy, kLegacy, kC32F, kC32F, kNa, kC32F,      \
    kc32F, kC32F)                                                                                  \
  X(LDot, cublasCdotc, int, cuComplex, void, void, kDot, kLegacy, kC32F, kC32F, kC32F, kC32F,      \
    kc32F, kC32F, kConjugated)                                                                     \
  X(LDot, cublasCdotu, int, cuComplex, void, void, kDot, kLegacy, kC32F, kC32F, kC32F, kC32F,      \
    kc32F, kC32F, kUnconjugated)                                                                   \
  X(LGemm, cublasCgemm, int, cuComplex, void, void, kGemm, kLegacy, kC32F, kC32F, kC32F, kNa,      \
    kc32F, kC32F)                                                                                  \
  X(LGemv, cublasCgemv, int, cuComplex, void, void, kGemv, kLegacy, kC32F, kC32F, kC32F, kNa,      \
    kc32F, kC32F)                                                                                  \
  X(LGer, cublasCgerc, int, cuComplex, void, void, kGer, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, \
    kC32F, kConjugated)                                                                            \
  X(LGer, cublasCgeru, int, cuComplex, void, void, kGer, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, \
    kC32F, kUnconjugated)                                                                          \
  X(LSymm, cublasChemm, int, cuComplex, void, void, kHemm, kLegacy, kC32F, kC32F, kC32F, kNa,      \
    kc32F, kC32F, kHermitian)                                                                      \
  X(LSyr2k, cublasCher2k, int, cuComplex, float, void, kHer2k, kLegacy, kC32F, kC32F, kC32F, kNa,  \
    kc32F, kC32F, kHermitian)                                                                      \
  X(LSyrk, cublasCherk, int, cuComplex, float, void, kHerk, kLegacy, kC32F, kNa, kC32F, kNa,       \
    kc32F, kR32F, kHermitian)                                                                      \
  X(LScal, cublasCscal, int, cuComplex, cuComplex, void, kScal, kLegacy, kC32F, kNa, kNa, kC32F,   \
    kc32F, kC32F)                                                                                  \
  X(LScal, cublasCsscal, int, cuComplex, float, void, kScal, kLegacy, kC32F, kNa, kNa, kC32F,      \
    kc32F, kR32F)                                                                                  \
  X(LSymm, cublasCsymm, int, cuComplex, void, void, kSymm, kLegacy, kC32F, kC32F, kC32F, kNa,      \
    kc32F, kC32F)                                                                                  \
  X(LSyr2k, cublasCsyr2k, int, cuComplex, cuComplex, void, kSyr2k, kLegacy, kC32F, kC32F, kC32F,   \
    kNa, kc32F, kC32F)                                                                             \
  X(LSyrk, cublasCsyrk, int, cuComplex, cuComplex, void, kSyrk, kLegacy, kC32F, kNa, kC32F, kNa,   \
    kc32F, kC32F)                                                                                  \
  X(LTrsm, cublasCtrmm, int, cuComplex, void, void, kTrmm, kLegacy, kC32F, kC32F, kC32F, kNa,      \
    kc32F, kC32F)                                                                                  \
  X(LTrsm, cublasCtrsm, int, cuComplex, void, void, kTrsm, kLegacy, kC32F, kC32F, kNa, kNa, kc32F, \
    kC32F)                                                                                         \
  X(LAxpy, cublasDaxpy, int, double, void, void, kAxpy, kLegacy, kR64F, kR64F, kNa, kR64F, kc64F,  \
    kR64F)                                                                                         \
  X(LDot, cublasDdot, int, double, void, void, kDot, kLegacy, kR64F, kR64F, kR64F, kR64F, kc64F,   \
    kR64F)                                                                                         \
  X(LGemm, cublasDgemm, int, double, void, void, kGemm, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F,  \
    kR64F)                                                                                         \
  X(LGemv, cublasDgemv, int, double, void, void, kGemv, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F,  \
    kR64F)                                                                                         \
  X(LGer, cublasDger, int, double, void, void, kGer, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F,     \
    kR64F)                                                                                         \
  X(LNrm2, cublasDnrm2, int, double, double, void, kNrm2, kLegacy, kR64F, kNa, kR64F, kR64F,       \
    kc64F, kR64F)                                                                                  \
  X(LScal, cublasDscal, int, double, double, void, kScal, kLegacy, kR64F, kNa, kNa, kR64F, kc64F,  \
    kR64F)                                                                                         \
  X(LSymm, cublasDsymm, int, double, void, void, kSymm, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F,  \
    kR64F)                                                                                         \
  X(LSyr2k, cublasDsyr2k, int, double, double, void, kSyr2k, kLegacy, kR64F, kR64F, kR64F, kNa,    \
    kc64F, kR64F)                                                                                  \
  X(LSyrk, cublasDsyrk, int, double, double, void, kSyrk, kLegacy, kR64F, kNa, kR64F, kNa, kc64F,  \
    kR64F)                                                                                         \
  X(LTrsm, cublasDtrmm, int, double, void, void, kTrmm, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F,  \
    kR64F)                                                                                         \
  X(LTrsm, cublasDtrsm, int, double, void, void, kTrsm, kLegacy, kR64F, kR64F, kNa, kNa, kc64F,    \
    kR64F)                                                                                         \
  X(LNrm2, cublasDznrm2, int, cuDoubleComplex, double, void, kNrm2, kLegacy, kC64F, kNa, kR64F,    \
    kR64F, kc64F, kR64F)                                                                           \
  X(LAxpy, cublasSaxpy, int, float, void, void, kAxpy, kLegacy, kR32F, kR32F, kNa, kR32F, kc32F,   \
    kR32F)                                                                                         \
  X(LNrm2, cublasScnrm2, int, cuComplex, float, void, kNrm2, kLegacy, kC32F, kNa, kR32F, kR32F,    \
    kc32F, kR32F)                                                                                  \
  X(LDot, cublasSdot, int, float, void, void, kDot, kLegacy, kR32F, kR32F, kR32F, kR32F, kc32F,    \
    kR32F)                                                                                         \
  X(LGemm, cublasSgemm, int, float, void, void, kGemm, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F,   \
    kR32F)                                                                                         \
  X(LGemv, cublasSgemv, int, float, void, void, kGemv, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F,   \
    kR32F)                                                                                         \
  X(LGer, cublasSger, int, float, void, void, kGer, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F,      \
    kR32F)                                                                                         \
  X(LNrm2, cublasSnrm2, int, float, float, void, kNrm2, kLegacy, kR32F, kNa, kR32F, kR32F, kc32F,  \
    kR32F)                                                                                         \
  X(LScal, cublasSscal, int, float, float, void, kScal, kLegacy, kR32F, kNa, kNa, kR32F, kc32F,    \
    kR32F)                                                                                         \
  X(LSymm, cublasSsymm, int, float, void, void, kSymm, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F,   \
    kR32F)                                                                                         \
  X(LSyr2k, cublasSsyr2k, int, float, float, void, kSyr2k, kLegacy, kR32F, kR32F, kR32F, kNa,      \
    kc32F, kR32F)                                                                                  \
  X(LSyrk, cublasSsyrk, int, float, float, void, kSyrk, kLegacy, kR32F, kNa, kR32F, kNa, kc32F,    \
    kR32F)                                                                                         \
  X(LTrsm, cublasStrmm, int, float, void, void, kTrmm, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F,   \
    kR32F)                                                                                         \
  X(LTrsm, cublasStrsm, int, float, void, void, kTrsm, kLegacy, kR32F, kR32F, kNa, kNa, kc32F,     \
    kR32F)                                                                                         \
  X(LAxpy, cublasZaxpy, int, cuDoubleComplex, void, void, kAxpy, kLegacy, kC64F, kC64F, kNa,       \
    kC64F, kc64F, kC64F)                                                                           \
  X(LDot, cublasZdotc, int, cuDoubleComplex, void, void, kDot, kLegacy, kC64F, kC64F, kC64F,       \
    kC64F, kc64F, kC64F, kConjugated)                                                              \
  X(LDot, cublasZdotu, int, cuDoubleComplex, void, void, kDot, kLegacy, kC64F, kC64F, kC64F,       \
    kC64F, kc64F, kC64F, kUnconjugated)                                                            \
  X(LScal, cublasZdscal, int, cuDoubleComplex, double, void, kScal, kLegacy, kC64F, kNa, kNa,      \
    kC64F, kc64F, kR64F)                                                                           \
  X(LGemm, cublasZgemm, int, cuDoubleComplex, void, void, kGemm, kLegacy, kC64F, kC64F, kC64F,     \
    kNa, kc64F, kC64F)                                                                             \
  X(LGemv, cublasZgemv, int, cuDoubleComplex, void, void, kGemv, kLegacy, kC64F, kC64F, kC64F,     \
    kNa, kc64F, kC64F)                                                                             \
  X(LGer, cublasZgerc, int, cuDoubleComplex, void, void, kGer, kLegacy, kC64F, kC64F, kC64F, kNa,  \
    kc64F, kC64F, kConjugated)                                                                     \
  X(LGer, cublasZgeru, int, cuDoubleComplex, void, void, kGer, kLegacy, kC64F, kC64F, kC64F, kNa,  \
    kc64F, kC64F, kUnconjugated)                                                                   \
  X(LSymm, cublasZhemm, int, cuDoubleComplex, void, void, kHemm, kLegacy, kC64F, kC64F, kC64F,     \
    kNa, kc64F, kC64F, kHermitian)                                                                 \
  X(LSyr2k, cublasZher2k, int, cuDoubleComplex, double, void, kHer2k, kLegacy, kC64F, kC64F,       \
    kC64F, kNa, kc64F, kC64F, kHermitian)                                                          \
  X(LSyrk, cublasZherk, int, cuDoubleComplex, double, void, kHerk, kLegacy, kC64F, kNa, kC64F,     \
    kNa, kc64F, kR64F, kHermitian)                                                                 \
  X(LScal, cublasZscal, int, cuDoubleComplex, cuDoubleComplex, void, kScal, kLegacy, kC64F, kNa,   \
    kNa, kC64F, kc64F, kC64F)                                                                      \
  X(LSymm, cublasZsymm, int, cuDoubleComplex, void, void, kSymm, kLegacy, kC64F, kC64F, kC64F,     \
    kNa, kc64F, kC64F)                                                                             \
  X(LSyr2k, cublasZsyr2k, int, cuDoubleComplex, cuDoubleComplex, void, kSyr2k, kLegacy, kC64F,     \
    kC64F, kC64F, kNa, kc64F, kC64F)                                                               \
  X(LSyrk, cublasZsyrk, int, cuDoubleComplex, cuDoubleComplex, void, kSyrk, kLegacy, kC64F, kNa,   \
    kC64F, kNa, kc64F, kC64F)                                                                      \
  X(LTrsm, cublasZtrmm, int, cuDoubleComplex, void, void, kTrmm, kLegacy, kC64F, kC64F, kC64F,     \
    kNa, kc64F, kC64F)                                                                             \
  X(LTrsm, cublasZtrsm, int, cuDoubleComplex, void, void, kTrsm, kLegacy, kC64F, kC64F, kNa, kNa,  \
    kc64F, kC64F)

#define FLOPSPY_CUBLAS_LT(X)                                                                       \
  X(LtMatmul, cublasLtMatmul, int, void, void, void, kLtMatmul, kLt, kArg, kArg, kArg, kArg, kArg, \
    kArg)
// All of them: 299 in cuBLAS 13.1, the size of analyzers::BlasEntryPoints().
#define FLOPSPY_CUBLAS_ENTRY_POINTS(X) \
  FLOPSPY_CUBLAS_V2_LEVEL3(X)          \
  FLOPSPY_CUBLAS_V2_LEVEL12(X)         \
  FLOPSPY_CUBLAS_LEGACY(X)             \
  FLOPSPY_CUBLAS_LT(X)
