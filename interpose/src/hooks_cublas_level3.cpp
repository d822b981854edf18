// Hooks for the level-3 entry points of the cuBLAS handle API: the GEMM family (plain, Ex,
// batched, strided batched, grouped, 3M) and trsm, trmm, symm/hemm, syrk/herk, syr2k/her2k,
// syrkx/herkx. Each Decode<Family> turns one signature's arguments into record fields as
// docs/blas-formulas.md §2 and docs/cublas-hooks.md §2 say.
#include <algorithm>

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
// memory. When every group has the same shape the call is one strided-like batch of
// sum(group_size) problems and the record is exact; otherwise it holds the first group's shape,
// batch = group_count and kLibGrouped, and the report gives a lower bound. Groups beyond
// kMaxGroupsScanned are not compared (the call is then recorded as grouped).
constexpr int64_t kMaxGroupsScanned = 4096;

template <class I, class B>
void GroupedShape(RawLibraryCall& raw, LibraryCopy* lib, cublasHandle_t handle,
                  const cublasOperation_t transa_array[], const cublasOperation_t transb_array[],
                  const I m_array[], const I n_array[], const I k_array[], const I lda_array[],
                  const I ldb_array[], const I ldc_array[], I group_count, const I group_size[],
                  const B* beta_array, size_t beta_bytes) {
  LibraryCallRecord& r = raw.record;
  r.flags |= trace::kLibBatchedPointers;
  const bool host = ReadHandle(raw, lib, handle, /*pointer_mode=*/true);
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
  bool same = group_count <= kMaxGroupsScanned;
  int64_t problems = 0;
  const int64_t scanned = std::min<int64_t>(group_count, kMaxGroupsScanned);
  for (int64_t g = 0; g < scanned && same; ++g) {
    same = transa_array[g] == transa_array[0] && transb_array[g] == transb_array[0] &&
           m_array[g] == m_array[0] && n_array[g] == n_array[0] && k_array[g] == k_array[0] &&
           lda_array[g] == lda_array[0] && ldb_array[g] == ldb_array[0] &&
           ldc_array[g] == ldc_array[0];
    problems += group_size[g];
  }
  if (same) {
    r.batch = problems;
  } else {
    r.batch = group_count;
    r.flags |= trace::kLibGrouped;
  }
  // beta per group: known when every one was read, non-zero when any is (then C is counted as
  // read for every group, the safe side of docs/blas-formulas.md §4).
  if (host && beta_array != nullptr && scanned == group_count) {
    bool any = false;
    for (int64_t g = 0; g < scanned; ++g) {
      bool non_zero;
      if constexpr (std::is_void_v<B>) {
        const auto* p = static_cast<const uint8_t*>(beta_array) + g * beta_bytes;
        if (!TypedScalarNonZero(p, r.scale_type, non_zero)) return;
      } else {
        non_zero = ScalarNonZero(beta_array[g]);
      }
      any = any || non_zero;
    }
    r.flags |= trace::kLibAlphaKnown | trace::kLibBetaKnown | (any ? trace::kLibBetaNonZero : 0u);
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
void DecodeGemmGrouped(RawLibraryCall& raw, LibraryCopy* lib,
                       FLOPSPY_CUBLAS_PARAMS_GemmGrouped(I, T1, T2, T3)) {
  GroupedShape<I, T1>(raw, lib, handle, transa_array, transb_array, m_array, n_array, k_array,
                      lda_array, ldb_array, ldc_array, group_count, group_size, beta_array,
                      sizeof(T1));
  ApplyMathMode(raw.record, lib, handle);
}

template <class I, class T1, class T2, class T3>
void DecodeGemmGroupedEx(RawLibraryCall& raw, LibraryCopy* lib,
                         FLOPSPY_CUBLAS_PARAMS_GemmGroupedEx(I, T1, T2, T3)) {
  ExTypes(raw.record, Atype, Btype, Ctype, computeType);
  GroupedShape<I, void>(raw, lib, handle, transa_array, transb_array, m_array, n_array, k_array,
                        lda_array, ldb_array, ldc_array, group_count, group_size, beta_array,
                        ScalarBytes(raw.record.scale_type));
  ApplyMathMode(raw.record, lib, handle);
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
