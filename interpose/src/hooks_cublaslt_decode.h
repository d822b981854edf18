// Decoding a cublasLtMatmul call into a LibraryCallRecord: the descriptor and the four layouts
// are opaque, so their attributes are read back through the real library's
// cublasLtMatmulDescGetAttribute / cublasLtMatrixLayoutGetAttribute, each with the attribute's
// exact storage size (a wrong size fails with CUBLAS_STATUS_INVALID_VALUE; docs/cublas-hooks.md
// §4).
//
// m = ROWS(D), n = COLS(D), k = TRANSA == N ? COLS(A) : ROWS(A), batch = BATCH_COUNT(D)
// (docs/cublas-hooks.md §4). An attribute that cannot be read leaves its field unknown (-1, 0xFF,
// epilogue 0) and sets kLibDescriptorIncomplete; BATCH_MODE, which cuBLASLt before 12.9 lacks,
// is optional. Pointers that only some epilogues or FP8 types use are read only then: 20 getter
// calls for a plain matmul whose C and D share a layout, up to 30 for FP8 with a bias and its
// own D layout; the cost is in docs/cublas-hooks.md §4. A header so that tests/cublas can time
// exactly this code.
#pragma once

#include <cstdint>

#include "hooks_cublas_common.h"

namespace flopspy::interpose::cublas {

struct LtGetters {
  using DescGet = cublasStatus_t (*)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, void*,
                                     size_t, size_t*);
  using LayoutGet = cublasStatus_t (*)(cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t,
                                       void*, size_t, size_t*);
  DescGet desc = nullptr;
  LayoutGet layout = nullptr;
};

namespace lt_detail {

// Reads one attribute of exactly sizeof(T) bytes; false (and `ok` cleared) when it cannot.
template <class T>
inline bool Desc(const LtGetters& get, cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a,
                 T& out, bool& ok) {
  size_t written = 0;
  if (get.desc != nullptr && d != nullptr &&
      get.desc(d, a, &out, sizeof(T), &written) == CUBLAS_STATUS_SUCCESS) {
    return true;
  }
  ok = false;
  return false;
}

template <class T>
inline bool Layout(const LtGetters& get, cublasLtMatrixLayout_t l,
                   cublasLtMatrixLayoutAttribute_t a, T& out, bool& ok) {
  size_t written = 0;
  if (get.layout != nullptr && l != nullptr &&
      get.layout(l, a, &out, sizeof(T), &written) == CUBLAS_STATUS_SUCCESS) {
    return true;
  }
  ok = false;
  return false;
}

// One operand's layout: what every operand contributes to the record.
struct Operand {
  uint8_t type = analyzers::kNotApplicable;
  int64_t ld = -1;
  int64_t stride = -1;
};

inline Operand ReadOperand(const LtGetters& get, cublasLtMatrixLayout_t l, bool& ok) {
  Operand o;
  uint32_t type = 0;
  if (Layout(get, l, CUBLASLT_MATRIX_LAYOUT_TYPE, type, ok))
    o.type = TypeByte(static_cast<int>(type));
  int64_t v = 0;
  if (Layout(get, l, CUBLASLT_MATRIX_LAYOUT_LD, v, ok)) o.ld = v;
  if (Layout(get, l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, v, ok)) o.stride = v;
  return o;
}

inline int64_t Dimension(const LtGetters& get, cublasLtMatrixLayout_t l,
                         cublasLtMatrixLayoutAttribute_t a, bool& ok) {
  uint64_t v = 0;
  return Layout(get, l, a, v, ok) ? static_cast<int64_t>(v) : -1;
}

// Epilogue bits (cublasLt.h): BIAS 4 and the bias-gradient forms (BGRAD 16, BGRADA 256,
// BGRADB 512) use BIAS_POINTER; the AUX bit 128 (RELU_AUX, GELU_AUX, DRELU, DGELU) uses the aux
// pointer.
inline constexpr uint32_t kLtUsesBias = 4 | 16 | 256 | 512;
inline constexpr uint32_t kLtUsesAux = 128;

// FP8, FP6 and FP4 (and the UE8M0 block scales): the types whose scale pointers mean something.
inline bool NarrowFloat(uint8_t type) {
  return type >= analyzers::cuda_type::kR8FE4M3 && type <= analyzers::cuda_type::kR4FE2M1;
}

}  // namespace lt_detail

inline void DecodeLtCall(const LtGetters& get, RawLibraryCall& raw,
                         FLOPSPY_CUBLAS_PARAMS_LtMatmul(int, void, void, void)) {
  using namespace lt_detail;  // NOLINT(google-build-using-namespace): local helpers
  (void)lightHandle, (void)algo, (void)workspace, (void)workspaceSizeInBytes;
  trace::LibraryCallRecord& r = raw.record;
  raw.stream_handle = reinterpret_cast<uintptr_t>(stream);
  bool ok = true;

  // The operation descriptor.
  int32_t i32 = 0;
  if (Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, i32, ok)) {
    r.compute_type = ComputeByte(i32);
  }
  if (Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, i32, ok)) {
    r.scale_type = TypeByte(i32);
  }
  int32_t transa = -1;
  if (Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_TRANSA, transa, ok)) r.trans_a = TypeByte(transa);
  if (Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_TRANSB, i32, ok)) r.trans_b = TypeByte(i32);
  uint32_t epilogue = 0;
  const bool epilogue_read = Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue, ok);
  r.epilogue = epilogue_read ? epilogue : 0;
  // alpha and beta by pointer mode: host scalars are read with the scale type.
  int32_t mode = -1;
  if (Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_POINTER_MODE, mode, ok)) {
    bool non_zero = false;
    switch (mode) {
      case CUBLASLT_POINTER_MODE_HOST:
        if (alpha != nullptr) r.flags |= trace::kLibAlphaKnown;
        [[fallthrough]];
      case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST:
        if (beta != nullptr && TypedScalarNonZero(beta, r.scale_type, non_zero)) {
          r.flags |= trace::kLibBetaKnown | (non_zero ? trace::kLibBetaNonZero : 0u);
        }
        break;
      case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO:
        r.flags |= trace::kLibBetaKnown;
        break;
      default:  // device scalars: beta unknown
        break;
    }
  }

  // The layouts. A gives k; D gives m, n and the batch count.
  const Operand a = ReadOperand(get, Adesc, ok);
  if (transa >= 0) {
    r.k = Dimension(
        get, Adesc,
        transa == CUBLAS_OP_N ? CUBLASLT_MATRIX_LAYOUT_COLS : CUBLASLT_MATRIX_LAYOUT_ROWS, ok);
  } else {
    r.k = -1;
  }
  bool optional_ok = true;  // BATCH_MODE (cuBLASLt >= 12.9) may be missing
  uint32_t batch_mode = CUBLASLT_BATCH_MODE_STRIDED;
  Layout(get, Adesc, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, batch_mode, optional_ok);
  const Operand b = ReadOperand(get, Bdesc, ok);
  const Operand c = ReadOperand(get, Cdesc, ok);
  const Operand d = Ddesc == Cdesc ? c : ReadOperand(get, Ddesc, ok);
  r.m = Dimension(get, Ddesc, CUBLASLT_MATRIX_LAYOUT_ROWS, ok);
  r.n = Dimension(get, Ddesc, CUBLASLT_MATRIX_LAYOUT_COLS, ok);
  int32_t batch = 0;
  r.batch = Layout(get, Ddesc, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, batch, ok) ? batch : -1;

  // Pointers that matter only for some epilogues and types, read only then (each read is a
  // getter call): bias for BIAS and BGRAD epilogues, aux for the AUX and backward ones, scale and
  // amax pointers and fast accumulation for FP8 and narrower inputs. An unread epilogue reads all.
  const void* p = nullptr;
  const bool all = !epilogue_read;
  if ((all || (epilogue & kLtUsesBias) != 0) &&
      Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, p, ok) && p != nullptr) {
    r.flags |= trace::kLibBiasPresent;
  }
  if ((all || (epilogue & kLtUsesAux) != 0) &&
      Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, p, ok) && p != nullptr) {
    r.flags |= trace::kLibAuxPresent;
  }
  if (NarrowFloat(a.type) || NarrowFloat(b.type)) {
    for (const auto s :
         {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
          CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER}) {
      if (Desc(get, computeDesc, s, p, ok) && p != nullptr) r.flags |= trace::kLibScalePointers;
    }
    if (Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, p, ok) && p != nullptr) {
      r.flags |= trace::kLibAmaxPointer;
    }
    int8_t fast = 0;
    if (Desc(get, computeDesc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast, ok) && fast != 0) {
      r.flags |= trace::kLibFastAccum;
    }
  }

  r.type_a = a.type;
  r.type_b = b.type;
  r.type_c = c.type;
  r.type_d = d.type;
  r.lda = a.ld;
  r.ldb = b.ld;
  r.ldc = c.ld;
  r.ldd = d.ld;
  r.stride_a = a.stride;
  r.stride_b = b.stride;
  r.stride_c = c.stride;
  r.stride_d = d.stride;
  if (batch_mode == CUBLASLT_BATCH_MODE_POINTER_ARRAY) {
    r.flags |= trace::kLibBatchedPointers;
  } else {
    r.ptr_align = PackAlign(A, B, C, D);
  }
  if (!ok) r.flags |= trace::kLibDescriptorIncomplete;
}

}  // namespace flopspy::interpose::cublas
