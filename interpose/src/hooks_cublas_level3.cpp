// Hooks for the level-3 entry points of the cuBLAS handle API: the GEMM family (plain, Ex,
// batched, strided batched, grouped, 3M) and trsm, trmm, symm/hemm, syrk/herk, syr2k/her2k,
// syrkx/herkx. Each Decode<Family> turns one signature's arguments into record fields as
// docs/blas-formulas.md §2 and docs/cublas-hooks.md §2 say.
#include <algorithm>

#include "flopspy/trace/library_groups.h"
#include "hooks_cublas_common.h"

// Every decoder takes the whole signature; most use only part of it.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace flopspy::interpose::cublas {
namespace {

using trace::LibraryCallRecord;

// m, n, k, transposes and leading dimensions shared by every GEMM form.
template <class I>
void GemmShape(LibraryCallRecord& r, cublasOperation_t transa, cublasOperation_t transb, I m, I n,
               I k, I lda, I ldb, I ldc) {
  r.trans_a = TypeByte(transa);
  r.trans_b = TypeByte(transb);
  r.m = m;
  r.n = n;
  r.k = k;
  r.lda = lda;
  r.ldb = ldb;
  r.ldc = ldc;
}

void OperandTypes(LibraryCallRecord& r, int a, int b, int c) {
  r.type_a = TypeByte(a);
  r.type_b = TypeByte(b);
  r.type_c = TypeByte(c);
}

// GemmEx forms: types, compute type and the scale type it implies.
void ExTypes(LibraryCallRecord& r, int a, int b, int c, int compute) {
  OperandTypes(r, a, b, c);
  r.compute_type = ComputeByte(compute);
  r.scale_type = GemmExScaleType(compute, c);
}

// Grouped batched calls (docs/cublas-hooks.md §2.3). Every *_array but A/B/Carray is in host
// memory and is read here, every group (cuBLAS reads them all too). When every group has the same
// shape and beta the call is one batch of sum(group_size) problems and the record is exact as it
// is. Otherwise the record holds the first group's shape, batch = group_count and kLibGrouped,
// and the groups go with it: the first kMaxListedGroups one by one, the rest as the sums the
// formulas need (trace::LibraryGroupsCut), so the flusher's figures are exact either way.
template <class B>
uint8_t GroupBeta(const B* beta_array, size_t beta_bytes, uint8_t scale_type, bool host,
                  int64_t g) {
  if (!host || beta_array == nullptr) return trace::kGroupBetaUnknown;
  bool non_zero;
  if constexpr (std::is_void_v<B>) {
    const auto* p = static_cast<const uint8_t*>(beta_array) + g * beta_bytes;
    if (!TypedScalarNonZero(p, scale_type, non_zero)) return trace::kGroupBetaUnknown;
  } else {
    non_zero = ScalarNonZero(beta_array[g]);
  }
  return non_zero ? 1 : 0;
}

bool SameShape(const trace::LibraryGroupShape& a, const trace::LibraryGroupShape& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.lda == b.lda && a.ldb == b.ldb &&
         a.ldc == b.ldc && a.trans_a == b.trans_a && a.trans_b == b.trans_b && a.beta == b.beta;
}

template <class I, class B>
void GroupedShape(RawGroupedCall& raw, LibraryCopy* lib, cublasHandle_t handle,
                  const cublasOperation_t transa_array[], const cublasOperation_t transb_array[],
                  const I m_array[], const I n_array[], const I k_array[], const I lda_array[],
                  const I ldb_array[], const I ldc_array[], I group_count, const I group_size[],
                  const B* beta_array, size_t beta_bytes) {
  LibraryCallRecord& r = raw.call.record;
  r.flags |= trace::kLibBatchedPointers;
  const bool host = ReadHandle(raw.call, lib, handle, /*pointer_mode=*/true);
  if (group_count <= 0 || transa_array == nullptr || transb_array == nullptr ||
      m_array == nullptr || n_array == nullptr || k_array == nullptr || lda_array == nullptr ||
      ldb_array == nullptr || ldc_array == nullptr || group_size == nullptr) {
    r.m = r.n = r.k = -1;
    r.batch = group_count;
    r.flags |= trace::kLibGrouped;
    return;
  }
  GemmShape<I>(r, transa_array[0], transb_array[0], m_array[0], n_array[0], k_array[0],
               lda_array[0], ldb_array[0], ldc_array[0]);
  bool same = true, betas_known = true, any_beta = false, cut_valid = true;
  uint64_t problems = 0;  // wraps rather than overflow on absurd sizes (cuBLAS refuses those)
  trace::LibraryGroupShape first{};
  for (int64_t g = 0; g < group_count; ++g) {
    trace::LibraryGroupShape shape{};
    shape.m = m_array[g];
    shape.n = n_array[g];
    shape.k = k_array[g];
    shape.count = group_size[g];
    shape.lda = lda_array[g];
    shape.ldb = ldb_array[g];
    shape.ldc = ldc_array[g];
    shape.trans_a = TypeByte(transa_array[g]);
    shape.trans_b = TypeByte(transb_array[g]);
    shape.beta = GroupBeta(beta_array, beta_bytes, r.scale_type, host, g);
    if (g == 0) first = shape;
    same = same && SameShape(shape, first);
    betas_known = betas_known && shape.beta != trace::kGroupBetaUnknown;
    any_beta = any_beta || shape.beta == 1;
    problems += static_cast<uint64_t>(shape.count);
    if (g < kMaxListedGroups) {
      raw.groups[g] = shape;
    } else {
      trace::AddGroup(raw.cut, shape);
      cut_valid = cut_valid && shape.m >= 0 && shape.n >= 0 && shape.k >= 0 && shape.count >= 0;
    }
  }
  if (!cut_valid) raw.cut.problems = -1;  // blas-formulas.md: no figures for such a call
  if (same) {
    r.batch = static_cast<int64_t>(problems);
  } else {
    r.batch = group_count;
    r.flags |= trace::kLibGrouped | trace::kLibGroupsFollow;
    raw.listed = static_cast<uint32_t>(std::min<int64_t>(group_count, kMaxListedGroups));
  }
  // Call-level beta: known when every group's was read, non-zero when any is (per group in the
  // LibraryGroups records).
  if (betas_known) {
    r.flags |=
        trace::kLibAlphaKnown | trace::kLibBetaKnown | (any_beta ? trace::kLibBetaNonZero : 0u);
  }
}

size_t ScalarBytes(uint8_t type) {
  return static_cast<size_t>(analyzers::DataTypeBytes(type));
}

}  // namespace

template <class I, class T1, class T2, class T3>
void DecodeGemm(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Gemm(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  GemmShape<I>(r, transa, transb, m, n, k, lda, ldb, ldc);
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmBatched(RawLibraryCall& raw, LibraryCopy* lib,
                       FLOPSPY_CUBLAS_PARAMS_GemmBatched(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  GemmShape<I>(r, transa, transb, m, n, k, lda, ldb, ldc);
  r.batch = batchCount;
  r.flags |= trace::kLibBatchedPointers;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmStrided(RawLibraryCall& raw, LibraryCopy* lib,
                       FLOPSPY_CUBLAS_PARAMS_GemmStrided(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  GemmShape<I>(r, transa, transb, m, n, k, lda, ldb, ldc);
  r.batch = batchCount;
  r.stride_a = strideA;
  r.stride_b = strideB;
  r.stride_c = strideC;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmExTyped(RawLibraryCall& raw, LibraryCopy* lib,
                       FLOPSPY_CUBLAS_PARAMS_GemmExTyped(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  GemmShape<I>(r, transa, transb, m, n, k, lda, ldb, ldc);
  OperandTypes(r, Atype, Btype, Ctype);
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmEx(RawLibraryCall& raw, LibraryCopy* lib,
                  FLOPSPY_CUBLAS_PARAMS_GemmEx(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  GemmShape<I>(r, transa, transb, m, n, k, lda, ldb, ldc);
  ExTypes(r, Atype, Btype, Ctype, computeType);
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmBatchedEx(RawLibraryCall& raw, LibraryCopy* lib,
                         FLOPSPY_CUBLAS_PARAMS_GemmBatchedEx(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  GemmShape<I>(r, transa, transb, m, n, k, lda, ldb, ldc);
  ExTypes(r, Atype, Btype, Ctype, computeType);
  r.batch = batchCount;
  r.flags |= trace::kLibBatchedPointers;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmStridedEx(RawLibraryCall& raw, LibraryCopy* lib,
                         FLOPSPY_CUBLAS_PARAMS_GemmStridedEx(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  GemmShape<I>(r, transa, transb, m, n, k, lda, ldb, ldc);
  ExTypes(r, Atype, Btype, Ctype, computeType);
  r.batch = batchCount;
  r.stride_a = strideA;
  r.stride_b = strideB;
  r.stride_c = strideC;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmGrouped(RawGroupedCall& raw, LibraryCopy* lib,
                       FLOPSPY_CUBLAS_PARAMS_GemmGrouped(I, T1, T2, T3)) {
  GroupedShape<I, T1>(raw, lib, handle, transa_array, transb_array, m_array, n_array, k_array,
                      lda_array, ldb_array, ldc_array, group_count, group_size, beta_array,
                      sizeof(T1));
  ApplyMathMode(raw.call.record, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmGroupedEx(RawGroupedCall& raw, LibraryCopy* lib,
                         FLOPSPY_CUBLAS_PARAMS_GemmGroupedEx(I, T1, T2, T3)) {
  ExTypes(raw.call.record, Atype, Btype, Ctype, computeType);
  GroupedShape<I, void>(raw, lib, handle, transa_array, transb_array, m_array, n_array, k_array,
                        lda_array, ldb_array, ldc_array, group_count, group_size, beta_array,
                        ScalarBytes(raw.call.record.scale_type));
  ApplyMathMode(raw.call.record, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeTrsm(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Trsm(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.side = TypeByte(side);
  r.uplo = TypeByte(uplo);
  r.trans_a = TypeByte(trans);
  r.diag = TypeByte(diag);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = ldb;
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(A, B, nullptr, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeTrsmBatched(RawLibraryCall& raw, LibraryCopy* lib,
                       FLOPSPY_CUBLAS_PARAMS_TrsmBatched(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.side = TypeByte(side);
  r.uplo = TypeByte(uplo);
  r.trans_a = TypeByte(trans);
  r.diag = TypeByte(diag);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = ldb;
  r.batch = batchCount;
  r.flags |= trace::kLibBatchedPointers;
  ReadHandle(raw, lib, handle, false);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeTrmm(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Trmm(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.side = TypeByte(side);
  r.uplo = TypeByte(uplo);
  r.trans_a = TypeByte(trans);
  r.diag = TypeByte(diag);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = ldb;
  r.ldc = ldc;
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(A, B, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeSymm(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Symm(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.side = TypeByte(side);
  r.uplo = TypeByte(uplo);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = ldb;
  r.ldc = ldc;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

// Rank-k updates: n and k; m is not used (docs/blas-formulas.md §2).
template <class I, class T1, class T2, class T3>
void DecodeSyrk(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Syrk(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.uplo = TypeByte(uplo);
  r.trans_a = TypeByte(trans);
  r.n = n;
  r.k = k;
  r.lda = lda;
  r.ldc = ldc;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, nullptr, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeSyrkEx(RawLibraryCall& raw, LibraryCopy* lib,
                  FLOPSPY_CUBLAS_PARAMS_SyrkEx(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.uplo = TypeByte(uplo);
  r.trans_a = TypeByte(trans);
  r.n = n;
  r.k = k;
  r.lda = lda;
  r.ldc = ldc;
  r.type_a = TypeByte(Atype);
  r.type_c = TypeByte(Ctype);
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, nullptr, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeSyr2k(RawLibraryCall& raw, LibraryCopy* lib,
                 FLOPSPY_CUBLAS_PARAMS_Syr2k(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.uplo = TypeByte(uplo);
  r.trans_a = TypeByte(trans);
  r.n = n;
  r.k = k;
  r.lda = lda;
  r.ldb = ldb;
  r.ldc = ldc;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
  ApplyMathMode(r, lib, handle);
}

}  // namespace flopspy::interpose::cublas

FLOPSPY_CUBLAS_V2_LEVEL3(FLOPSPY_CUBLAS_DEFINE_HOOK)
