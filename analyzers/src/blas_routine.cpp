#include "flopspy/analyzers/blas_routine.h"

#include <algorithm>
#include <array>

#include "flopspy/analyzers/blas_types.h"

namespace flopspy::analyzers {
namespace {

struct RoutineName {
  BlasRoutine routine;
  std::string_view name;
};

constexpr std::array<RoutineName, 28> kRoutineNames = {{
    {BlasRoutine::kUnknown, "unknown"},
    {BlasRoutine::kGemm, "gemm"},
    {BlasRoutine::kGemm3m, "gemm3m"},
    {BlasRoutine::kGemmBatched, "gemm_batched"},
    {BlasRoutine::kGemmStridedBatched, "gemm_strided_batched"},
    {BlasRoutine::kGemmGroupedBatched, "gemm_grouped_batched"},
    {BlasRoutine::kGemm3mBatched, "gemm3m_batched"},
    {BlasRoutine::kGemm3mStridedBatched, "gemm3m_strided_batched"},
    {BlasRoutine::kGemv, "gemv"},
    {BlasRoutine::kGemvBatched, "gemv_batched"},
    {BlasRoutine::kGemvStridedBatched, "gemv_strided_batched"},
    {BlasRoutine::kGer, "ger"},
    {BlasRoutine::kTrsm, "trsm"},
    {BlasRoutine::kTrsmBatched, "trsm_batched"},
    {BlasRoutine::kTrmm, "trmm"},
    {BlasRoutine::kSymm, "symm"},
    {BlasRoutine::kHemm, "hemm"},
    {BlasRoutine::kSyrk, "syrk"},
    {BlasRoutine::kHerk, "herk"},
    {BlasRoutine::kSyr2k, "syr2k"},
    {BlasRoutine::kHer2k, "her2k"},
    {BlasRoutine::kSyrkx, "syrkx"},
    {BlasRoutine::kHerkx, "herkx"},
    {BlasRoutine::kDot, "dot"},
    {BlasRoutine::kAxpy, "axpy"},
    {BlasRoutine::kScal, "scal"},
    {BlasRoutine::kNrm2, "nrm2"},
    {BlasRoutine::kLtMatmul, "lt_matmul"},
}};

// Short local names keep one table row per line.
constexpr uint8_t kNa = kNotApplicable;
constexpr uint8_t kArg = kFromArgs;
constexpr uint8_t kR16F = cuda_type::kR16F;
constexpr uint8_t kR16BF = cuda_type::kR16BF;
constexpr uint8_t kR32F = cuda_type::kR32F;
constexpr uint8_t kR64F = cuda_type::kR64F;
constexpr uint8_t kC32F = cuda_type::kC32F;
constexpr uint8_t kC64F = cuda_type::kC64F;
constexpr uint8_t kc16F = compute_type::k16F;
constexpr uint8_t kc32F = compute_type::k32F;
constexpr uint8_t kc64F = compute_type::k64F;

constexpr BlasEntryPoint E(std::string_view name, BlasRoutine routine, BlasApi api, uint8_t a,
                           uint8_t b, uint8_t c, uint8_t d, uint8_t compute, uint8_t scale,
                           BlasConj conj = BlasConj::kNone) {
  return BlasEntryPoint{name,    routine, api, name.ends_with("_64"), a, b, c, d,
                        compute, scale,   conj};
}

using enum BlasRoutine;
using enum BlasApi;
using enum BlasConj;

// Generated once from the export list (tests/data/blas/cublas13_exports.txt) and the family rules
// in docs/blas-formulas.md, then kept by hand. Sorted by name (checked at compile time).
// Columns: name, family, API, A, B, C, D (level 1: x, y, result, execution type), compute, scale.
// Names without _v2 where a _v2 exists are the legacy cublas.h API (different signature).
constexpr BlasEntryPoint kEntryPoints[] = {
    E("cublasAxpyEx", kAxpy, kV2, kArg, kArg, kNa, kArg, kNa, kArg),
    E("cublasAxpyEx_64", kAxpy, kV2, kArg, kArg, kNa, kArg, kNa, kArg),
    E("cublasCaxpy", kAxpy, kLegacy, kC32F, kC32F, kNa, kC32F, kc32F, kC32F),
    E("cublasCaxpy_v2", kAxpy, kV2, kC32F, kC32F, kNa, kC32F, kc32F, kC32F),
    E("cublasCaxpy_v2_64", kAxpy, kV2, kC32F, kC32F, kNa, kC32F, kc32F, kC32F),
    E("cublasCdotc", kDot, kLegacy, kC32F, kC32F, kC32F, kC32F, kc32F, kC32F, kConjugated),
    E("cublasCdotc_v2", kDot, kV2, kC32F, kC32F, kC32F, kC32F, kc32F, kC32F, kConjugated),
    E("cublasCdotc_v2_64", kDot, kV2, kC32F, kC32F, kC32F, kC32F, kc32F, kC32F, kConjugated),
    E("cublasCdotu", kDot, kLegacy, kC32F, kC32F, kC32F, kC32F, kc32F, kC32F, kUnconjugated),
    E("cublasCdotu_v2", kDot, kV2, kC32F, kC32F, kC32F, kC32F, kc32F, kC32F, kUnconjugated),
    E("cublasCdotu_v2_64", kDot, kV2, kC32F, kC32F, kC32F, kC32F, kc32F, kC32F, kUnconjugated),
    E("cublasCgemm", kGemm, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemm3m", kGemm3m, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemm3mBatched", kGemm3mBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemm3mBatched_64", kGemm3mBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemm3mEx", kGemm3m, kV2, kArg, kArg, kArg, kNa, kc32F, kC32F),
    E("cublasCgemm3mEx_64", kGemm3m, kV2, kArg, kArg, kArg, kNa, kc32F, kC32F),
    E("cublasCgemm3mStridedBatched", kGemm3mStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F,
      kC32F),
    E("cublasCgemm3mStridedBatched_64", kGemm3mStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F,
      kC32F),
    E("cublasCgemm3m_64", kGemm3m, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemmBatched", kGemmBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemmBatched_64", kGemmBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemmEx", kGemm, kV2, kArg, kArg, kArg, kNa, kc32F, kC32F),
    E("cublasCgemmEx_64", kGemm, kV2, kArg, kArg, kArg, kNa, kc32F, kC32F),
    E("cublasCgemmStridedBatched", kGemmStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F,
      kC32F),
    E("cublasCgemmStridedBatched_64", kGemmStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F,
      kC32F),
    E("cublasCgemm_v2", kGemm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemm_v2_64", kGemm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemv", kGemv, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemvBatched", kGemvBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemvBatched_64", kGemvBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemvStridedBatched", kGemvStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F,
      kC32F),
    E("cublasCgemvStridedBatched_64", kGemvStridedBatched, kV2, kC32F, kC32F, kC32F, kNa, kc32F,
      kC32F),
    E("cublasCgemv_v2", kGemv, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgemv_v2_64", kGemv, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCgerc", kGer, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kConjugated),
    E("cublasCgerc_v2", kGer, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kConjugated),
    E("cublasCgerc_v2_64", kGer, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kConjugated),
    E("cublasCgeru", kGer, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kUnconjugated),
    E("cublasCgeru_v2", kGer, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kUnconjugated),
    E("cublasCgeru_v2_64", kGer, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kUnconjugated),
    E("cublasChemm", kHemm, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kHermitian),
    E("cublasChemm_v2", kHemm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kHermitian),
    E("cublasChemm_v2_64", kHemm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kHermitian),
    E("cublasCher2k", kHer2k, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kHermitian),
    E("cublasCher2k_v2", kHer2k, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kHermitian),
    E("cublasCher2k_v2_64", kHer2k, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kHermitian),
    E("cublasCherk", kHerk, kLegacy, kC32F, kNa, kC32F, kNa, kc32F, kR32F, kHermitian),
    E("cublasCherk3mEx", kHerk, kV2, kArg, kNa, kArg, kNa, kc32F, kR32F, kHermitian),
    E("cublasCherk3mEx_64", kHerk, kV2, kArg, kNa, kArg, kNa, kc32F, kR32F, kHermitian),
    E("cublasCherkEx", kHerk, kV2, kArg, kNa, kArg, kNa, kc32F, kR32F, kHermitian),
    E("cublasCherkEx_64", kHerk, kV2, kArg, kNa, kArg, kNa, kc32F, kR32F, kHermitian),
    E("cublasCherk_v2", kHerk, kV2, kC32F, kNa, kC32F, kNa, kc32F, kR32F, kHermitian),
    E("cublasCherk_v2_64", kHerk, kV2, kC32F, kNa, kC32F, kNa, kc32F, kR32F, kHermitian),
    E("cublasCherkx", kHerkx, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kHermitian),
    E("cublasCherkx_64", kHerkx, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F, kHermitian),
    E("cublasCscal", kScal, kLegacy, kC32F, kNa, kNa, kC32F, kc32F, kC32F),
    E("cublasCscal_v2", kScal, kV2, kC32F, kNa, kNa, kC32F, kc32F, kC32F),
    E("cublasCscal_v2_64", kScal, kV2, kC32F, kNa, kNa, kC32F, kc32F, kC32F),
    E("cublasCsscal", kScal, kLegacy, kC32F, kNa, kNa, kC32F, kc32F, kR32F),
    E("cublasCsscal_v2", kScal, kV2, kC32F, kNa, kNa, kC32F, kc32F, kR32F),
    E("cublasCsscal_v2_64", kScal, kV2, kC32F, kNa, kNa, kC32F, kc32F, kR32F),
    E("cublasCsymm", kSymm, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCsymm_v2", kSymm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCsymm_v2_64", kSymm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCsyr2k", kSyr2k, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCsyr2k_v2", kSyr2k, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCsyr2k_v2_64", kSyr2k, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCsyrk", kSyrk, kLegacy, kC32F, kNa, kC32F, kNa, kc32F, kC32F),
    E("cublasCsyrk3mEx", kSyrk, kV2, kArg, kNa, kArg, kNa, kc32F, kC32F),
    E("cublasCsyrk3mEx_64", kSyrk, kV2, kArg, kNa, kArg, kNa, kc32F, kC32F),
    E("cublasCsyrkEx", kSyrk, kV2, kArg, kNa, kArg, kNa, kc32F, kC32F),
    E("cublasCsyrkEx_64", kSyrk, kV2, kArg, kNa, kArg, kNa, kc32F, kC32F),
    E("cublasCsyrk_v2", kSyrk, kV2, kC32F, kNa, kC32F, kNa, kc32F, kC32F),
    E("cublasCsyrk_v2_64", kSyrk, kV2, kC32F, kNa, kC32F, kNa, kc32F, kC32F),
    E("cublasCsyrkx", kSyrkx, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCsyrkx_64", kSyrkx, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCtrmm", kTrmm, kLegacy, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCtrmm_v2", kTrmm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCtrmm_v2_64", kTrmm, kV2, kC32F, kC32F, kC32F, kNa, kc32F, kC32F),
    E("cublasCtrsm", kTrsm, kLegacy, kC32F, kC32F, kNa, kNa, kc32F, kC32F),
    E("cublasCtrsmBatched", kTrsmBatched, kV2, kC32F, kC32F, kNa, kNa, kc32F, kC32F),
    E("cublasCtrsmBatched_64", kTrsmBatched, kV2, kC32F, kC32F, kNa, kNa, kc32F, kC32F),
    E("cublasCtrsm_v2", kTrsm, kV2, kC32F, kC32F, kNa, kNa, kc32F, kC32F),
    E("cublasCtrsm_v2_64", kTrsm, kV2, kC32F, kC32F, kNa, kNa, kc32F, kC32F),
    E("cublasDaxpy", kAxpy, kLegacy, kR64F, kR64F, kNa, kR64F, kc64F, kR64F),
    E("cublasDaxpy_v2", kAxpy, kV2, kR64F, kR64F, kNa, kR64F, kc64F, kR64F),
    E("cublasDaxpy_v2_64", kAxpy, kV2, kR64F, kR64F, kNa, kR64F, kc64F, kR64F),
    E("cublasDdot", kDot, kLegacy, kR64F, kR64F, kR64F, kR64F, kc64F, kR64F),
    E("cublasDdot_v2", kDot, kV2, kR64F, kR64F, kR64F, kR64F, kc64F, kR64F),
    E("cublasDdot_v2_64", kDot, kV2, kR64F, kR64F, kR64F, kR64F, kc64F, kR64F),
    E("cublasDgemm", kGemm, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemmBatched", kGemmBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemmBatched_64", kGemmBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemmGroupedBatched", kGemmGroupedBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F,
      kR64F),
    E("cublasDgemmGroupedBatched_64", kGemmGroupedBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F,
      kR64F),
    E("cublasDgemmStridedBatched", kGemmStridedBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F,
      kR64F),
    E("cublasDgemmStridedBatched_64", kGemmStridedBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F,
      kR64F),
    E("cublasDgemm_v2", kGemm, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemm_v2_64", kGemm, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemv", kGemv, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemvBatched", kGemvBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemvBatched_64", kGemvBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemvStridedBatched", kGemvStridedBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F,
      kR64F),
    E("cublasDgemvStridedBatched_64", kGemvStridedBatched, kV2, kR64F, kR64F, kR64F, kNa, kc64F,
      kR64F),
    E("cublasDgemv_v2", kGemv, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDgemv_v2_64", kGemv, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDger", kGer, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDger_v2", kGer, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDger_v2_64", kGer, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDnrm2", kNrm2, kLegacy, kR64F, kNa, kR64F, kR64F, kc64F, kR64F),
    E("cublasDnrm2_v2", kNrm2, kV2, kR64F, kNa, kR64F, kR64F, kc64F, kR64F),
    E("cublasDnrm2_v2_64", kNrm2, kV2, kR64F, kNa, kR64F, kR64F, kc64F, kR64F),
    E("cublasDotEx", kDot, kV2, kArg, kArg, kArg, kArg, kNa, kNa, kUnconjugated),
    E("cublasDotEx_64", kDot, kV2, kArg, kArg, kArg, kArg, kNa, kNa, kUnconjugated),
    E("cublasDotcEx", kDot, kV2, kArg, kArg, kArg, kArg, kNa, kNa, kConjugated),
    E("cublasDotcEx_64", kDot, kV2, kArg, kArg, kArg, kArg, kNa, kNa, kConjugated),
    E("cublasDscal", kScal, kLegacy, kR64F, kNa, kNa, kR64F, kc64F, kR64F),
    E("cublasDscal_v2", kScal, kV2, kR64F, kNa, kNa, kR64F, kc64F, kR64F),
    E("cublasDscal_v2_64", kScal, kV2, kR64F, kNa, kNa, kR64F, kc64F, kR64F),
    E("cublasDsymm", kSymm, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDsymm_v2", kSymm, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDsymm_v2_64", kSymm, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDsyr2k", kSyr2k, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDsyr2k_v2", kSyr2k, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDsyr2k_v2_64", kSyr2k, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDsyrk", kSyrk, kLegacy, kR64F, kNa, kR64F, kNa, kc64F, kR64F),
    E("cublasDsyrk_v2", kSyrk, kV2, kR64F, kNa, kR64F, kNa, kc64F, kR64F),
    E("cublasDsyrk_v2_64", kSyrk, kV2, kR64F, kNa, kR64F, kNa, kc64F, kR64F),
    E("cublasDsyrkx", kSyrkx, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDsyrkx_64", kSyrkx, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDtrmm", kTrmm, kLegacy, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDtrmm_v2", kTrmm, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDtrmm_v2_64", kTrmm, kV2, kR64F, kR64F, kR64F, kNa, kc64F, kR64F),
    E("cublasDtrsm", kTrsm, kLegacy, kR64F, kR64F, kNa, kNa, kc64F, kR64F),
    E("cublasDtrsmBatched", kTrsmBatched, kV2, kR64F, kR64F, kNa, kNa, kc64F, kR64F),
    E("cublasDtrsmBatched_64", kTrsmBatched, kV2, kR64F, kR64F, kNa, kNa, kc64F, kR64F),
    E("cublasDtrsm_v2", kTrsm, kV2, kR64F, kR64F, kNa, kNa, kc64F, kR64F),
    E("cublasDtrsm_v2_64", kTrsm, kV2, kR64F, kR64F, kNa, kNa, kc64F, kR64F),
    E("cublasDznrm2", kNrm2, kLegacy, kC64F, kNa, kR64F, kR64F, kc64F, kR64F),
    E("cublasDznrm2_v2", kNrm2, kV2, kC64F, kNa, kR64F, kR64F, kc64F, kR64F),
    E("cublasDznrm2_v2_64", kNrm2, kV2, kC64F, kNa, kR64F, kR64F, kc64F, kR64F),
    E("cublasGemmBatchedEx", kGemmBatched, kV2, kArg, kArg, kArg, kNa, kArg, kArg),
    E("cublasGemmBatchedEx_64", kGemmBatched, kV2, kArg, kArg, kArg, kNa, kArg, kArg),
    E("cublasGemmEx", kGemm, kV2, kArg, kArg, kArg, kNa, kArg, kArg),
    E("cublasGemmEx_64", kGemm, kV2, kArg, kArg, kArg, kNa, kArg, kArg),
    E("cublasGemmGroupedBatchedEx", kGemmGroupedBatched, kV2, kArg, kArg, kArg, kNa, kArg, kArg),
    E("cublasGemmGroupedBatchedEx_64", kGemmGroupedBatched, kV2, kArg, kArg, kArg, kNa, kArg, kArg),
    E("cublasGemmStridedBatchedEx", kGemmStridedBatched, kV2, kArg, kArg, kArg, kNa, kArg, kArg),
    E("cublasGemmStridedBatchedEx_64", kGemmStridedBatched, kV2, kArg, kArg, kArg, kNa, kArg, kArg),
    E("cublasHSHgemvBatched", kGemvBatched, kV2, kR16F, kR16F, kR16F, kNa, kc32F, kR32F),
    E("cublasHSHgemvBatched_64", kGemvBatched, kV2, kR16F, kR16F, kR16F, kNa, kc32F, kR32F),
    E("cublasHSHgemvStridedBatched", kGemvStridedBatched, kV2, kR16F, kR16F, kR16F, kNa, kc32F,
      kR32F),
    E("cublasHSHgemvStridedBatched_64", kGemvStridedBatched, kV2, kR16F, kR16F, kR16F, kNa, kc32F,
      kR32F),
    E("cublasHSSgemvBatched", kGemvBatched, kV2, kR16F, kR16F, kR32F, kNa, kc32F, kR32F),
    E("cublasHSSgemvBatched_64", kGemvBatched, kV2, kR16F, kR16F, kR32F, kNa, kc32F, kR32F),
    E("cublasHSSgemvStridedBatched", kGemvStridedBatched, kV2, kR16F, kR16F, kR32F, kNa, kc32F,
      kR32F),
    E("cublasHSSgemvStridedBatched_64", kGemvStridedBatched, kV2, kR16F, kR16F, kR32F, kNa, kc32F,
      kR32F),
    E("cublasHgemm", kGemm, kV2, kR16F, kR16F, kR16F, kNa, kc16F, kR16F),
    E("cublasHgemmBatched", kGemmBatched, kV2, kR16F, kR16F, kR16F, kNa, kc16F, kR16F),
    E("cublasHgemmBatched_64", kGemmBatched, kV2, kR16F, kR16F, kR16F, kNa, kc16F, kR16F),
    E("cublasHgemmStridedBatched", kGemmStridedBatched, kV2, kR16F, kR16F, kR16F, kNa, kc16F,
      kR16F),
    E("cublasHgemmStridedBatched_64", kGemmStridedBatched, kV2, kR16F, kR16F, kR16F, kNa, kc16F,
      kR16F),
    E("cublasHgemm_64", kGemm, kV2, kR16F, kR16F, kR16F, kNa, kc16F, kR16F),
    E("cublasLtMatmul", kLtMatmul, kLt, kArg, kArg, kArg, kArg, kArg, kArg),
    E("cublasNrm2Ex", kNrm2, kV2, kArg, kNa, kArg, kArg, kNa, kNa),
    E("cublasNrm2Ex_64", kNrm2, kV2, kArg, kNa, kArg, kArg, kNa, kNa),
    E("cublasSaxpy", kAxpy, kLegacy, kR32F, kR32F, kNa, kR32F, kc32F, kR32F),
    E("cublasSaxpy_v2", kAxpy, kV2, kR32F, kR32F, kNa, kR32F, kc32F, kR32F),
    E("cublasSaxpy_v2_64", kAxpy, kV2, kR32F, kR32F, kNa, kR32F, kc32F, kR32F),
    E("cublasScalEx", kScal, kV2, kArg, kNa, kNa, kArg, kNa, kArg),
    E("cublasScalEx_64", kScal, kV2, kArg, kNa, kNa, kArg, kNa, kArg),
    E("cublasScnrm2", kNrm2, kLegacy, kC32F, kNa, kR32F, kR32F, kc32F, kR32F),
    E("cublasScnrm2_v2", kNrm2, kV2, kC32F, kNa, kR32F, kR32F, kc32F, kR32F),
    E("cublasScnrm2_v2_64", kNrm2, kV2, kC32F, kNa, kR32F, kR32F, kc32F, kR32F),
    E("cublasSdot", kDot, kLegacy, kR32F, kR32F, kR32F, kR32F, kc32F, kR32F),
    E("cublasSdot_v2", kDot, kV2, kR32F, kR32F, kR32F, kR32F, kc32F, kR32F),
    E("cublasSdot_v2_64", kDot, kV2, kR32F, kR32F, kR32F, kR32F, kc32F, kR32F),
    E("cublasSgemm", kGemm, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemmBatched", kGemmBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemmBatched_64", kGemmBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemmEx", kGemm, kV2, kArg, kArg, kArg, kNa, kc32F, kR32F),
    E("cublasSgemmEx_64", kGemm, kV2, kArg, kArg, kArg, kNa, kc32F, kR32F),
    E("cublasSgemmGroupedBatched", kGemmGroupedBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F,
      kR32F),
    E("cublasSgemmGroupedBatched_64", kGemmGroupedBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F,
      kR32F),
    E("cublasSgemmStridedBatched", kGemmStridedBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F,
      kR32F),
    E("cublasSgemmStridedBatched_64", kGemmStridedBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F,
      kR32F),
    E("cublasSgemm_v2", kGemm, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemm_v2_64", kGemm, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemv", kGemv, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemvBatched", kGemvBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemvBatched_64", kGemvBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemvStridedBatched", kGemvStridedBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F,
      kR32F),
    E("cublasSgemvStridedBatched_64", kGemvStridedBatched, kV2, kR32F, kR32F, kR32F, kNa, kc32F,
      kR32F),
    E("cublasSgemv_v2", kGemv, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSgemv_v2_64", kGemv, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSger", kGer, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSger_v2", kGer, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSger_v2_64", kGer, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSnrm2", kNrm2, kLegacy, kR32F, kNa, kR32F, kR32F, kc32F, kR32F),
    E("cublasSnrm2_v2", kNrm2, kV2, kR32F, kNa, kR32F, kR32F, kc32F, kR32F),
    E("cublasSnrm2_v2_64", kNrm2, kV2, kR32F, kNa, kR32F, kR32F, kc32F, kR32F),
    E("cublasSscal", kScal, kLegacy, kR32F, kNa, kNa, kR32F, kc32F, kR32F),
    E("cublasSscal_v2", kScal, kV2, kR32F, kNa, kNa, kR32F, kc32F, kR32F),
    E("cublasSscal_v2_64", kScal, kV2, kR32F, kNa, kNa, kR32F, kc32F, kR32F),
    E("cublasSsymm", kSymm, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSsymm_v2", kSymm, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSsymm_v2_64", kSymm, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSsyr2k", kSyr2k, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSsyr2k_v2", kSyr2k, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSsyr2k_v2_64", kSyr2k, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSsyrk", kSyrk, kLegacy, kR32F, kNa, kR32F, kNa, kc32F, kR32F),
    E("cublasSsyrk_v2", kSyrk, kV2, kR32F, kNa, kR32F, kNa, kc32F, kR32F),
    E("cublasSsyrk_v2_64", kSyrk, kV2, kR32F, kNa, kR32F, kNa, kc32F, kR32F),
    E("cublasSsyrkx", kSyrkx, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasSsyrkx_64", kSyrkx, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasStrmm", kTrmm, kLegacy, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasStrmm_v2", kTrmm, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasStrmm_v2_64", kTrmm, kV2, kR32F, kR32F, kR32F, kNa, kc32F, kR32F),
    E("cublasStrsm", kTrsm, kLegacy, kR32F, kR32F, kNa, kNa, kc32F, kR32F),
    E("cublasStrsmBatched", kTrsmBatched, kV2, kR32F, kR32F, kNa, kNa, kc32F, kR32F),
    E("cublasStrsmBatched_64", kTrsmBatched, kV2, kR32F, kR32F, kNa, kNa, kc32F, kR32F),
    E("cublasStrsm_v2", kTrsm, kV2, kR32F, kR32F, kNa, kNa, kc32F, kR32F),
    E("cublasStrsm_v2_64", kTrsm, kV2, kR32F, kR32F, kNa, kNa, kc32F, kR32F),
    E("cublasTSSgemvBatched", kGemvBatched, kV2, kR16BF, kR16BF, kR32F, kNa, kc32F, kR32F),
    E("cublasTSSgemvBatched_64", kGemvBatched, kV2, kR16BF, kR16BF, kR32F, kNa, kc32F, kR32F),
    E("cublasTSSgemvStridedBatched", kGemvStridedBatched, kV2, kR16BF, kR16BF, kR32F, kNa, kc32F,
      kR32F),
    E("cublasTSSgemvStridedBatched_64", kGemvStridedBatched, kV2, kR16BF, kR16BF, kR32F, kNa, kc32F,
      kR32F),
    E("cublasTSTgemvBatched", kGemvBatched, kV2, kR16BF, kR16BF, kR16BF, kNa, kc32F, kR32F),
    E("cublasTSTgemvBatched_64", kGemvBatched, kV2, kR16BF, kR16BF, kR16BF, kNa, kc32F, kR32F),
    E("cublasTSTgemvStridedBatched", kGemvStridedBatched, kV2, kR16BF, kR16BF, kR16BF, kNa, kc32F,
      kR32F),
    E("cublasTSTgemvStridedBatched_64", kGemvStridedBatched, kV2, kR16BF, kR16BF, kR16BF, kNa,
      kc32F, kR32F),
    E("cublasZaxpy", kAxpy, kLegacy, kC64F, kC64F, kNa, kC64F, kc64F, kC64F),
    E("cublasZaxpy_v2", kAxpy, kV2, kC64F, kC64F, kNa, kC64F, kc64F, kC64F),
    E("cublasZaxpy_v2_64", kAxpy, kV2, kC64F, kC64F, kNa, kC64F, kc64F, kC64F),
    E("cublasZdotc", kDot, kLegacy, kC64F, kC64F, kC64F, kC64F, kc64F, kC64F, kConjugated),
    E("cublasZdotc_v2", kDot, kV2, kC64F, kC64F, kC64F, kC64F, kc64F, kC64F, kConjugated),
    E("cublasZdotc_v2_64", kDot, kV2, kC64F, kC64F, kC64F, kC64F, kc64F, kC64F, kConjugated),
    E("cublasZdotu", kDot, kLegacy, kC64F, kC64F, kC64F, kC64F, kc64F, kC64F, kUnconjugated),
    E("cublasZdotu_v2", kDot, kV2, kC64F, kC64F, kC64F, kC64F, kc64F, kC64F, kUnconjugated),
    E("cublasZdotu_v2_64", kDot, kV2, kC64F, kC64F, kC64F, kC64F, kc64F, kC64F, kUnconjugated),
    E("cublasZdscal", kScal, kLegacy, kC64F, kNa, kNa, kC64F, kc64F, kR64F),
    E("cublasZdscal_v2", kScal, kV2, kC64F, kNa, kNa, kC64F, kc64F, kR64F),
    E("cublasZdscal_v2_64", kScal, kV2, kC64F, kNa, kNa, kC64F, kc64F, kR64F),
    E("cublasZgemm", kGemm, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemm3m", kGemm3m, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemm3m_64", kGemm3m, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemmBatched", kGemmBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemmBatched_64", kGemmBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemmStridedBatched", kGemmStridedBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F,
      kC64F),
    E("cublasZgemmStridedBatched_64", kGemmStridedBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F,
      kC64F),
    E("cublasZgemm_v2", kGemm, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemm_v2_64", kGemm, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemv", kGemv, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemvBatched", kGemvBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemvBatched_64", kGemvBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemvStridedBatched", kGemvStridedBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F,
      kC64F),
    E("cublasZgemvStridedBatched_64", kGemvStridedBatched, kV2, kC64F, kC64F, kC64F, kNa, kc64F,
      kC64F),
    E("cublasZgemv_v2", kGemv, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgemv_v2_64", kGemv, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZgerc", kGer, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kConjugated),
    E("cublasZgerc_v2", kGer, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kConjugated),
    E("cublasZgerc_v2_64", kGer, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kConjugated),
    E("cublasZgeru", kGer, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kUnconjugated),
    E("cublasZgeru_v2", kGer, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kUnconjugated),
    E("cublasZgeru_v2_64", kGer, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kUnconjugated),
    E("cublasZhemm", kHemm, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kHermitian),
    E("cublasZhemm_v2", kHemm, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kHermitian),
    E("cublasZhemm_v2_64", kHemm, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kHermitian),
    E("cublasZher2k", kHer2k, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kHermitian),
    E("cublasZher2k_v2", kHer2k, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kHermitian),
    E("cublasZher2k_v2_64", kHer2k, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kHermitian),
    E("cublasZherk", kHerk, kLegacy, kC64F, kNa, kC64F, kNa, kc64F, kR64F, kHermitian),
    E("cublasZherk_v2", kHerk, kV2, kC64F, kNa, kC64F, kNa, kc64F, kR64F, kHermitian),
    E("cublasZherk_v2_64", kHerk, kV2, kC64F, kNa, kC64F, kNa, kc64F, kR64F, kHermitian),
    E("cublasZherkx", kHerkx, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kHermitian),
    E("cublasZherkx_64", kHerkx, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F, kHermitian),
    E("cublasZscal", kScal, kLegacy, kC64F, kNa, kNa, kC64F, kc64F, kC64F),
    E("cublasZscal_v2", kScal, kV2, kC64F, kNa, kNa, kC64F, kc64F, kC64F),
    E("cublasZscal_v2_64", kScal, kV2, kC64F, kNa, kNa, kC64F, kc64F, kC64F),
    E("cublasZsymm", kSymm, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZsymm_v2", kSymm, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZsymm_v2_64", kSymm, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZsyr2k", kSyr2k, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZsyr2k_v2", kSyr2k, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZsyr2k_v2_64", kSyr2k, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZsyrk", kSyrk, kLegacy, kC64F, kNa, kC64F, kNa, kc64F, kC64F),
    E("cublasZsyrk_v2", kSyrk, kV2, kC64F, kNa, kC64F, kNa, kc64F, kC64F),
    E("cublasZsyrk_v2_64", kSyrk, kV2, kC64F, kNa, kC64F, kNa, kc64F, kC64F),
    E("cublasZsyrkx", kSyrkx, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZsyrkx_64", kSyrkx, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZtrmm", kTrmm, kLegacy, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZtrmm_v2", kTrmm, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZtrmm_v2_64", kTrmm, kV2, kC64F, kC64F, kC64F, kNa, kc64F, kC64F),
    E("cublasZtrsm", kTrsm, kLegacy, kC64F, kC64F, kNa, kNa, kc64F, kC64F),
    E("cublasZtrsmBatched", kTrsmBatched, kV2, kC64F, kC64F, kNa, kNa, kc64F, kC64F),
    E("cublasZtrsmBatched_64", kTrsmBatched, kV2, kC64F, kC64F, kNa, kNa, kc64F, kC64F),
    E("cublasZtrsm_v2", kTrsm, kV2, kC64F, kC64F, kNa, kNa, kc64F, kC64F),
    E("cublasZtrsm_v2_64", kTrsm, kV2, kC64F, kC64F, kNa, kNa, kc64F, kC64F),
};

constexpr bool NamesSortedAndUnique() {
  for (size_t i = 1; i < std::size(kEntryPoints); ++i) {
    if (!(kEntryPoints[i - 1].name < kEntryPoints[i].name)) return false;
  }
  return true;
}
static_assert(NamesSortedAndUnique(), "kEntryPoints must be sorted by name, without duplicates");

}  // namespace

std::string_view BlasRoutineName(BlasRoutine routine) {
  for (const auto& r : kRoutineNames) {
    if (r.routine == routine) return r.name;
  }
  return "unknown";
}

std::optional<BlasRoutine> BlasRoutineFromName(std::string_view name) {
  for (const auto& r : kRoutineNames) {
    if (r.name == name) return r.routine;
  }
  return std::nullopt;
}

BlasRoutine BlasRoutineFromId(uint16_t id) {
  for (const auto& r : kRoutineNames) {
    if (static_cast<uint16_t>(r.routine) == id) return r.routine;
  }
  return BlasRoutine::kUnknown;
}

BlasLevel LevelOf(BlasRoutine routine) {
  switch (routine) {
    case kGemm:
    case kGemm3m:
    case kGemmBatched:
    case kGemmStridedBatched:
    case kGemmGroupedBatched:
    case kGemm3mBatched:
    case kGemm3mStridedBatched:
    case kTrsm:
    case kTrsmBatched:
    case kTrmm:
    case kSymm:
    case kHemm:
    case kSyrk:
    case kHerk:
    case kSyr2k:
    case kHer2k:
    case kSyrkx:
    case kHerkx:
    case kLtMatmul:
      return BlasLevel::kLevel3;
    case kGemv:
    case kGemvBatched:
    case kGemvStridedBatched:
    case kGer:
      return BlasLevel::kLevel2;
    case kDot:
    case kAxpy:
    case kScal:
    case kNrm2:
      return BlasLevel::kLevel1;
    case kUnknown:
      break;
  }
  return BlasLevel::kUnknown;
}

bool IsGemmLike(BlasRoutine routine) {
  switch (routine) {
    case kGemm:
    case kGemm3m:
    case kGemmBatched:
    case kGemmStridedBatched:
    case kGemmGroupedBatched:
    case kGemm3mBatched:
    case kGemm3mStridedBatched:
    case kLtMatmul:
      return true;
    default:
      return false;
  }
}

bool UsesPointerArrays(BlasRoutine routine) {
  return routine == kGemmBatched || routine == kGemm3mBatched || routine == kGemmGroupedBatched ||
         routine == kGemvBatched || routine == kTrsmBatched;
}

std::span<const BlasEntryPoint> BlasEntryPoints() {
  return kEntryPoints;
}

const BlasEntryPoint* FindBlasEntryPoint(std::string_view symbol) {
  const auto* it = std::lower_bound(
      std::begin(kEntryPoints), std::end(kEntryPoints), symbol,
      [](const BlasEntryPoint& e, std::string_view name) { return e.name < name; });
  if (it == std::end(kEntryPoints) || it->name != symbol) return nullptr;
  return it;
}

void ApplyEntryPointDefaults(const BlasEntryPoint& entry, trace::LibraryCallRecord& record) {
  record.routine = static_cast<uint16_t>(entry.routine);
  const auto set = [](uint8_t fixed, uint8_t& field) {
    if (fixed != kFromArgs) field = fixed;
  };
  set(entry.type_a, record.type_a);
  set(entry.type_b, record.type_b);
  set(entry.type_c, record.type_c);
  set(entry.type_d, record.type_d);
  set(entry.compute_type, record.compute_type);
  set(entry.scale_type, record.scale_type);
}

}  // namespace flopspy::analyzers
