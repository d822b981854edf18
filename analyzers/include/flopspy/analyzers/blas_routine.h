// The cuBLAS and cuBLASLt entry points flopspy hooks, grouped by operation family.
//
// BlasRoutine values are stored in traces (LibraryCallRecord::routine): they never change meaning.
// Add new families with new numbers; never renumber or reuse one.
//
// The entry-point table maps each exported symbol (libcublas.so.13 / libcublasLt.so.13, int32 and
// _64 forms, legacy and _v2 names) to its family, the data types it fixes, and its API style.
// tests/data/blas/cublas13_exports.txt holds what cuBLAS 13.1 really exports; a test checks the
// table against it. docs/blas-formulas.md says how a hook fills a record for each family.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

enum class BlasRoutine : uint16_t {
  kUnknown = 0,
  // GEMM family (level 3).
  kGemm = 1,                  // ?gemm, GemmEx, SgemmEx, CgemmEx
  kGemm3m = 2,                // Cgemm3m, Zgemm3m, Cgemm3mEx (complex by the 3M method)
  kGemmBatched = 3,           // pointer arrays: ?gemmBatched, GemmBatchedEx
  kGemmStridedBatched = 4,    // ?gemmStridedBatched, GemmStridedBatchedEx
  kGemmGroupedBatched = 5,    // ?gemmGroupedBatched, GemmGroupedBatchedEx
  kGemm3mBatched = 6,         // Cgemm3mBatched
  kGemm3mStridedBatched = 7,  // Cgemm3mStridedBatched
  // Level 2.
  kGemv = 16,
  kGemvBatched = 17,  // pointer arrays, including HSH/HSS/TST/TSS mixed forms
  kGemvStridedBatched = 18,
  kGer = 19,  // ger, geru, gerc
  // Other level 3.
  kTrsm = 32,
  kTrsmBatched = 33,  // pointer arrays
  kTrmm = 34,
  kSymm = 35,
  kHemm = 36,
  kSyrk = 37,  // also CsyrkEx, Csyrk3mEx
  kHerk = 38,  // also CherkEx, Cherk3mEx
  kSyr2k = 39,
  kHer2k = 40,
  kSyrkx = 41,  // C = op(A) op(B)^T, one triangle (cuBLAS extension)
  kHerkx = 42,  // C = op(A) op(B)^H, one triangle (cuBLAS extension)
  // Level 1.
  kDot = 64,  // dot, dotu, dotc, DotEx, DotcEx
  kAxpy = 65,
  kScal = 66,  // scal, Csscal, Zdscal, ScalEx
  kNrm2 = 67,  // nrm2, Scnrm2, Dznrm2, Nrm2Ex
  // cuBLASLt.
  kLtMatmul = 128,
  // cuDNN (docs/cudnn-hooks.md says how a record describes each; analyzers/dnn_formulas.h).
  kDnnConvForward = 192,                 // cudnnConvolutionForward
  kDnnConvBackwardData = 193,            // cudnnConvolutionBackwardData
  kDnnConvBackwardFilter = 194,          // cudnnConvolutionBackwardFilter
  kDnnConvBiasActivation = 195,          // cudnnConvolutionBiasActivationForward
  kDnnBatchNormForwardTraining = 196,    // cudnnBatchNormalizationForwardTraining
  kDnnBatchNormForwardInference = 197,   // cudnnBatchNormalizationForwardInference
  kDnnBatchNormBackward = 198,           // cudnnBatchNormalizationBackward
  kDnnBatchNormForwardTrainingEx = 199,  // cudnnBatchNormalizationForwardTrainingEx
  kDnnBatchNormBackwardEx = 200,         // cudnnBatchNormalizationBackwardEx
  kDnnGraph = 208,  // cudnnBackendExecute: one run of an execution plan's graph
  // NCCL (docs/nccl.md says how a record describes a collective; analyzers/comm_formulas.h).
  kNcclAllReduce = 224,
  kNcclBroadcast = 225,  // ncclBroadcast and ncclBcast
  kNcclReduce = 226,
  kNcclAllGather = 227,
  kNcclReduceScatter = 228,
  kNcclAllToAll = 229,  // ncclAlltoAll
  kNcclGather = 230,
  kNcclScatter = 231,
  kNcclSend = 232,
  kNcclRecv = 233,
  kNcclGroupEnd = 239,  // ncclGroupEnd: the launches of the calls since ncclGroupStart
};

// Stable lower-case names for reports and JSON: "gemm", "gemm_strided_batched", "lt_matmul", ...
std::string_view BlasRoutineName(BlasRoutine routine);
std::optional<BlasRoutine> BlasRoutineFromName(std::string_view name);
// The routine stored in a record; kUnknown for numbers this version does not know.
BlasRoutine BlasRoutineFromId(uint16_t id);

enum class BlasLevel : uint8_t { kUnknown = 0, kLevel1 = 1, kLevel2 = 2, kLevel3 = 3 };
BlasLevel LevelOf(BlasRoutine routine);
// The GEMM family and cublasLtMatmul: routines with m, n, k and the shape diagnostics.
bool IsGemmLike(BlasRoutine routine);
// The cuDNN routines: their records follow docs/cudnn-hooks.md, not the BLAS conventions.
bool IsDnnRoutine(BlasRoutine routine);
// The exported cuDNN function behind a cuDNN routine ("cudnnConvolutionForward"); empty otherwise.
std::string_view DnnEntryPointName(BlasRoutine routine);
// The NCCL routines: communication, not arithmetic; never placed on a roofline (docs/nccl.md).
bool IsCommRoutine(BlasRoutine routine);
// The exported NCCL function behind an NCCL routine ("ncclAllReduce"); empty otherwise.
std::string_view CommEntryPointName(BlasRoutine routine);

enum class BlasApi : uint8_t {
  kV2 = 1,      // cublas_api.h: handle first, scalars by pointer, cublasStatus_t result
  kLegacy = 2,  // cublas.h (name without _v2 where a _v2 exists): no handle, scalars by value,
                // char transposes, level-1 results returned by value
  kLt = 3,      // cublasLt.h
};

enum class BlasConj : uint8_t {
  kNone = 0,
  kUnconjugated = 1,  // dotu, geru: x^T y, x y^T
  kConjugated = 2,    // dotc, gerc, DotcEx: x^H y, x y^H (same FLOPs as unconjugated)
  kHermitian = 3,  // hemm, herk, her2k, herkx: A Hermitian / result Hermitian (real alpha or beta)
};

// Marks a type or compute type the call passes as an argument (GemmEx, DotEx, cublasLtMatmul).
inline constexpr uint8_t kFromArgs = 0xFE;

// One exported entry point. Types follow the record conventions of docs/blas-formulas.md:
// matrices A, B, C, D for level 2 and 3 (gemv: A, x, y; ger: A, x, y); level 1: x, y, result,
// execution type. kNotApplicable where the routine has no such operand, kFromArgs where the call
// passes it. compute_type is stored as in the record (cublasComputeType_t - 64).
struct BlasEntryPoint {
  std::string_view name;
  BlasRoutine routine;
  BlasApi api;
  bool is_64;  // int64_t sizes, leading dimensions and batch counts (the _64 form)
  uint8_t type_a, type_b, type_c, type_d;
  uint8_t compute_type;
  uint8_t scale_type;  // alpha/beta: real for Csscal, Zdscal, herk and her2k's beta
  BlasConj conj;
};

// Every entry point flopspy hooks, sorted by name.
std::span<const BlasEntryPoint> BlasEntryPoints();
// nullptr for a name flopspy does not hook.
const BlasEntryPoint* FindBlasEntryPoint(std::string_view symbol);

// Fills routine and every operand type, compute type and scale type the entry point fixes; leaves
// kFromArgs ones alone (the hook sets them from the call's arguments). Level-1 execution type
// goes to type_d. Everything else in the record is left as it was.
void ApplyEntryPointDefaults(const BlasEntryPoint& entry, trace::LibraryCallRecord& record);

}  // namespace flopspy::analyzers
