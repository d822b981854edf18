// Hooks for the level-1 and level-2 entry points of the cuBLAS handle API: gemv (plain, batched,
// strided batched, mixed-precision HSH/HSS/TST/TSS), ger/geru/gerc, dot/dotu/dotc and DotEx,
// axpy, scal, nrm2 and their Ex forms. Operand placement follows docs/blas-formulas.md §2:
// gemv and ger keep A in A, x in B, y in C; level 1 keeps x in A, y in B, the result in C and
// the execution type in D. Vector increments go in the leading-dimension slot of their operand.
#include "hooks_cublas_common.h"

// Every decoder takes the whole signature; most use only part of it.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace flopspy::interpose::cublas {

using trace::LibraryCallRecord;

template <class I, class T1, class T2, class T3>
void DecodeGemv(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Gemv(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.trans_a = TypeByte(trans);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = incx;
  r.ldc = incy;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, x, y, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeGemvBatched(RawLibraryCall& raw, LibraryCopy* lib,
                       FLOPSPY_CUBLAS_PARAMS_GemvBatched(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.trans_a = TypeByte(trans);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = incx;
  r.ldc = incy;
  r.batch = batchCount;
  r.flags |= trace::kLibBatchedPointers;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
}

template <class I, class T1, class T2, class T3>
void DecodeGemvStrided(RawLibraryCall& raw, LibraryCopy* lib,
                       FLOPSPY_CUBLAS_PARAMS_GemvStrided(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.trans_a = TypeByte(trans);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = incx;
  r.ldc = incy;
  r.stride_a = strideA;
  r.stride_b = stridex;
  r.stride_c = stridey;
  r.batch = batchCount;
  NoteScalars(r, ReadHandle(raw, lib, handle, true), alpha, beta);
  r.ptr_align = PackAlign(A, x, y, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeGer(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Ger(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = incx;
  r.ldc = incy;
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(A, x, y, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeDot(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Dot(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.ldb = incy;
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(x, y, result, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeDotEx(RawLibraryCall& raw, LibraryCopy* lib,
                 FLOPSPY_CUBLAS_PARAMS_DotEx(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.ldb = incy;
  r.type_a = TypeByte(xType);
  r.type_b = TypeByte(yType);
  r.type_c = TypeByte(resultType);
  r.type_d = TypeByte(executionType);
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(x, y, result, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeAxpy(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Axpy(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.ldb = incy;
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(x, y, nullptr, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeAxpyEx(RawLibraryCall& raw, LibraryCopy* lib,
                  FLOPSPY_CUBLAS_PARAMS_AxpyEx(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.ldb = incy;
  r.scale_type = TypeByte(alphaType);
  r.type_a = TypeByte(xType);
  r.type_b = TypeByte(yType);
  r.type_d = TypeByte(executiontype);
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(x, y, nullptr, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeScal(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Scal(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(x, nullptr, nullptr, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeScalEx(RawLibraryCall& raw, LibraryCopy* lib,
                  FLOPSPY_CUBLAS_PARAMS_ScalEx(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.scale_type = TypeByte(alphaType);
  r.type_a = TypeByte(xType);
  r.type_d = TypeByte(executionType);
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(x, nullptr, nullptr, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeNrm2(RawLibraryCall& raw, LibraryCopy* lib, FLOPSPY_CUBLAS_PARAMS_Nrm2(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(x, nullptr, result, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeNrm2Ex(RawLibraryCall& raw, LibraryCopy* lib,
                  FLOPSPY_CUBLAS_PARAMS_Nrm2Ex(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.type_a = TypeByte(xType);
  r.type_c = TypeByte(resultType);
  r.type_d = TypeByte(executionType);
  ReadHandle(raw, lib, handle, false);
  r.ptr_align = PackAlign(x, nullptr, result, nullptr);
}

}  // namespace flopspy::interpose::cublas

FLOPSPY_CUBLAS_V2_LEVEL12(FLOPSPY_CUBLAS_DEFINE_HOOK)
