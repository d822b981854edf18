// Hooks for the legacy cuBLAS API of cublas.h: the names without _v2 where a _v2 twin exists
// (cublasSgemm, cublasSdot, ...). No handle, scalars by value (so beta is always known), char
// options, and no status: errors go to cublasGetError(), which flopspy must not call because it
// clears the program's error. Their records say so (kLibStatusUnknown, status 0). The stream is
// the legacy default stream until the program calls cublasSetKernelStream, hooked here only to
// learn that it did; after that the records of that libcublas copy say the stream is unknown
// (kLibStreamUnknown).
#include "hooks_cublas_common.h"
#include "library_resolver.h"

// Every decoder takes the whole signature; most use only part of it.
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace flopspy::interpose::cublas {

using trace::LibraryCallRecord;

template <class I, class T1, class T2, class T3>
void DecodeLGemm(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LGemm(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.trans_a = LegacyOp(transa);
  r.trans_b = LegacyOp(transb);
  r.m = m;
  r.n = n;
  r.k = k;
  r.lda = lda;
  r.ldb = ldb;
  r.ldc = ldc;
  NoteValueScalars(r, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLGemv(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LGemv(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.trans_a = LegacyOp(trans);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = incx;
  r.ldc = incy;
  NoteValueScalars(r, beta);
  r.ptr_align = PackAlign(A, x, y, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLGer(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LGer(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = incx;
  r.ldc = incy;
  r.flags |= trace::kLibAlphaKnown;
  r.ptr_align = PackAlign(A, x, y, nullptr);
}

// ?trsm and ?trmm: the legacy trmm works in place, so its output C is B.
template <class I, class T1, class T2, class T3>
void DecodeLTrsm(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LTrsm(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.side = LegacySide(side);
  r.uplo = LegacyFill(uplo);
  r.trans_a = LegacyOp(transa);
  r.diag = LegacyDiag(diag);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = ldb;
  r.flags |= trace::kLibAlphaKnown;
  const bool trmm = r.routine == static_cast<uint16_t>(analyzers::BlasRoutine::kTrmm);
  if (trmm) r.ldc = ldb;
  r.ptr_align = PackAlign(A, B, trmm ? B : nullptr, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLSymm(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LSymm(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.side = LegacySide(side);
  r.uplo = LegacyFill(uplo);
  r.m = m;
  r.n = n;
  r.lda = lda;
  r.ldb = ldb;
  r.ldc = ldc;
  NoteValueScalars(r, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLSyrk(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LSyrk(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.uplo = LegacyFill(uplo);
  r.trans_a = LegacyOp(trans);
  r.n = n;
  r.k = k;
  r.lda = lda;
  r.ldc = ldc;
  NoteValueScalars(r, beta);
  r.ptr_align = PackAlign(A, nullptr, C, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLSyr2k(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LSyr2k(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.uplo = LegacyFill(uplo);
  r.trans_a = LegacyOp(trans);
  r.n = n;
  r.k = k;
  r.lda = lda;
  r.ldb = ldb;
  r.ldc = ldc;
  NoteValueScalars(r, beta);
  r.ptr_align = PackAlign(A, B, C, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLDot(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LDot(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.ldb = incy;
  r.ptr_align = PackAlign(x, y, nullptr, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLAxpy(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LAxpy(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.ldb = incy;
  r.flags |= trace::kLibAlphaKnown;
  r.ptr_align = PackAlign(x, y, nullptr, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLScal(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LScal(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.flags |= trace::kLibAlphaKnown;
  r.ptr_align = PackAlign(x, nullptr, nullptr, nullptr);
}

template <class I, class T1, class T2, class T3>
void DecodeLNrm2(RawLibraryCall& raw, LibraryCopy*, FLOPSPY_CUBLAS_PARAMS_LNrm2(I, T1, T2, T3)) {
  LibraryCallRecord& r = raw.record;
  r.n = n;
  r.lda = incx;
  r.ptr_align = PackAlign(x, nullptr, nullptr, nullptr);
}

}  // namespace flopspy::interpose::cublas

FLOPSPY_CUBLAS_LEGACY(FLOPSPY_CUBLAS_DEFINE_HOOK)

namespace flopspy::interpose::cublas {
namespace {
using SetKernelStreamFn = cublasStatus_t (*)(cudaStream_t);
constinit CallerCache g_set_kernel_stream(CudaLibrary::kBlas, "cublasSetKernelStream");
}  // namespace
}  // namespace flopspy::interpose::cublas

// Each libcublas copy has its own legacy stream: the mark goes on the copy the call reached.
FLOPSPY_EXPORT cublasStatus_t cublasSetKernelStream(cudaStream_t stream) {
  namespace fc = ::flopspy::interpose::cublas;
  const ::flopspy::interpose::CallTarget target =
      fc::g_set_kernel_stream.Target(__builtin_return_address(0));
  const auto real = reinterpret_cast<fc::SetKernelStreamFn>(target.real);
  if (real == nullptr) {
    ::flopspy::interpose::ReportMissingReal(fc::g_set_kernel_stream.name());
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  const cublasStatus_t status = real(stream);
  if (status == CUBLAS_STATUS_SUCCESS && target.copy != nullptr) {
    target.copy->marks().fetch_or(fc::kMarkLegacyStreamSet, std::memory_order_relaxed);
  }
  return status;
}
