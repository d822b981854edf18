// cublasLtMatmul calls built with the library's own descriptor functions: the fake libcublasLt
// when compiled with FLOPSPY_FAKE_CUBLASLT, else NVIDIA's (they work on the host, without a GPU;
// the matmul itself then fails and its status must come back unchanged). Each case says which
// record flopspy must write, following docs/cublas-hooks.md §4.
#include <cstdint>
#include <string>

#include "client_cublas.h"
#include "flopspy/trace/schema.h"
#ifdef FLOPSPY_FAKE_CUBLASLT
#include "fake_cublas.h"
#endif

namespace flopspy::cublas_client {
namespace {

using namespace trace;  // NOLINT(google-build-using-namespace): the LibraryCallFlags names

struct LtCase {
  const char* what;
  cublasComputeType_t compute;
  cudaDataType scale;
  cublasOperation_t ta, tb;
  cudaDataType a, b, c, d;
  uint32_t epilogue;
  bool bias, aux, scales, amax, fast;
  int32_t pointer_mode;  // cublasLtPointerMode_t
  bool beta_nz;
  int32_t batch;
  bool separate_d;  // D has its own layout (else Ddesc == Cdesc)
};

constexpr LtCase kCases[] = {
    {"fp16", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_16F, CUDA_R_16F,
     CUDA_R_16F, CUDA_R_16F, CUBLASLT_EPILOGUE_DEFAULT, false, false, false, false, false,
     CUBLASLT_POINTER_MODE_HOST, false, 1, false},
    {"bf16_relu_bias", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_T, CUDA_R_16BF,
     CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLASLT_EPILOGUE_RELU_BIAS, true, false, false, false,
     false, CUBLASLT_POINTER_MODE_HOST, true, 1, false},
    {"fp8_scaled", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_8F_E4M3,
     CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_8F_E4M3, CUBLASLT_EPILOGUE_BIAS, true, false, true, true,
     true, CUBLASLT_POINTER_MODE_HOST, false, 1, true},
    {"fp8_e5m2_bf16_out", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_8F_E5M2,
     CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_16BF, CUBLASLT_EPILOGUE_DEFAULT, false, false, true, false,
     false, CUBLASLT_POINTER_MODE_HOST, false, 1, false},
    {"gelu_aux_bias", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_T, CUDA_R_16F,
     CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLASLT_EPILOGUE_GELU_AUX_BIAS, true, true, false, false,
     false, CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST, true, 1, false},
    {"tf32_batched_strided", CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N,
     CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLASLT_EPILOGUE_DEFAULT, false, false, false,
     false, false, CUBLASLT_POINTER_MODE_DEVICE, true, 4, true},
    {"int8", CUBLAS_COMPUTE_32I, CUDA_R_32I, CUBLAS_OP_T, CUBLAS_OP_N, CUDA_R_8I, CUDA_R_8I,
     CUDA_R_32I, CUDA_R_32I, CUBLASLT_EPILOGUE_DEFAULT, false, false, false, false, false,
     CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO, false, 1, false},
    {"dgelu_bgrad_batched", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N, CUDA_R_16F,
     CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLASLT_EPILOGUE_DGELU_BGRAD, true, true, false, false,
     false, CUBLASLT_POINTER_MODE_HOST, true, 3, false},
};

const void* P(int shift) {
  return FakePointer(shift);
}

template <class T>
void SetDesc(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, T v) {
  cublasLtMatmulDescSetAttribute(d, a, &v, sizeof v);
}
template <class T>
void SetLayout(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a, T v) {
  cublasLtMatrixLayoutSetAttribute(l, a, &v, sizeof v);
}

struct Dims {
  uint64_t rows, cols;
  int64_t ld, stride;
};

class LtClient {
 public:
  explicit LtClient(Sink& sink) : sink_(sink) {
    if (cublasLtCreate(&handle_) != CUBLAS_STATUS_SUCCESS) handle_ = nullptr;  // no GPU
  }
  ~LtClient() {
    if (handle_ != nullptr) cublasLtDestroy(handle_);
  }

  // One case; `index` makes its sizes distinctive. Returns the status the program saw.
  void Run(const LtCase& x, int index, const char* label) {
    const int64_t m = 64 + 8 * index, n = 96 + 16 * index, k = 128 + 32 * index;
    const bool a_n = x.ta == CUBLAS_OP_N, b_n = x.tb == CUBLAS_OP_N;
    // Stored shapes (column major): op(A) is m x k, op(B) is k x n; C and D are m x n.
    Dims da{static_cast<uint64_t>(a_n ? m : k), static_cast<uint64_t>(a_n ? k : m), 0, 0};
    Dims db{static_cast<uint64_t>(b_n ? k : n), static_cast<uint64_t>(b_n ? n : k), 0, 0};
    Dims dc{static_cast<uint64_t>(m), static_cast<uint64_t>(n), 0, 0};
    da.ld = static_cast<int64_t>(da.rows) + 8 + index;
    db.ld = static_cast<int64_t>(db.rows) + 16;
    dc.ld = m + 24;
    Dims dd{dc.rows, dc.cols, m + 40, 0};
    if (x.batch > 1) {
      da.stride = da.ld * static_cast<int64_t>(da.cols);
      db.stride = 0;  // one B for every problem
      dc.stride = dc.ld * n;
      dd.stride = dd.ld * n + 64;
    }

    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatmulDescCreate(&desc, x.compute, x.scale);
    SetDesc<int32_t>(desc, CUBLASLT_MATMUL_DESC_TRANSA, x.ta);
    SetDesc<int32_t>(desc, CUBLASLT_MATMUL_DESC_TRANSB, x.tb);
    SetDesc<uint32_t>(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, x.epilogue);
    SetDesc<int32_t>(desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, x.pointer_mode);
    if (x.bias) SetDesc(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, P(8));
    if (x.aux) {
      SetDesc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, P(9));
      SetDesc<int64_t>(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, m);
    }
    if (x.scales) {
      SetDesc(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, P(4));
      SetDesc(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, P(4));
      if (x.d == CUDA_R_8F_E4M3) SetDesc(desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, P(4));
    }
    if (x.amax) SetDesc(desc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, P(5));
    if (x.fast) SetDesc<int8_t>(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, 1);

    cublasLtMatrixLayout_t la = Layout(x.a, da, x.batch), lb = Layout(x.b, db, x.batch);
    cublasLtMatrixLayout_t lc = Layout(x.c, dc, x.batch);
    cublasLtMatrixLayout_t ld = x.separate_d ? Layout(x.d, dd, x.batch) : lc;
    if (!x.separate_d) dd = dc;

    const TypedScalar alpha(x.scale, true), beta(x.scale, x.beta_nz);
    const uintptr_t stream = 0x20000 + 16 * static_cast<uintptr_t>(index);
    const int sa = 1 + index % 5, sb = 2 + index % 5, sc = 3 + index % 5,
              sd = x.separate_d ? 6 : sc;
    const cublasStatus_t s = cublasLtMatmul(
        handle_, desc, alpha.bytes, P(sa), la, P(sb), lb, beta.bytes, P(sc), lc,
        const_cast<void*>(P(sd)), ld, nullptr, nullptr, 0, reinterpret_cast<cudaStream_t>(stream));

    Expect e("cublasLtMatmul");
    e.Set("m", m).Set("n", n).Set("k", k).Set("batch", x.batch);
    e.Set("lda", da.ld).Set("ldb", db.ld).Set("ldc", dc.ld).Set("ldd", dd.ld);
    e.Set("stride_a", da.stride).Set("stride_b", db.stride).Set("stride_c", dc.stride);
    e.Set("stride_d", dd.stride);
    e.Set("type_a", x.a).Set("type_b", x.b).Set("type_c", x.c);
    e.Set("type_d", x.separate_d ? x.d : x.c);
    e.Set("compute_type", x.compute - 64).Set("scale_type", x.scale);
    e.Set("trans_a", x.ta).Set("trans_b", x.tb).Set("epilogue", x.epilogue);
    uint32_t flags = 0;
    if (x.bias) flags |= kLibBiasPresent;
    if (x.aux) flags |= kLibAuxPresent;
    if (x.scales) flags |= kLibScalePointers;
    if (x.amax) flags |= kLibAmaxPointer;
    if (x.fast) flags |= kLibFastAccum;
    switch (x.pointer_mode) {
      case CUBLASLT_POINTER_MODE_HOST:
        flags |= kLibAlphaKnown | kLibBetaKnown | (x.beta_nz ? kLibBetaNonZero : 0u);
        break;
      case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST:
        flags |= kLibBetaKnown | (x.beta_nz ? kLibBetaNonZero : 0u);
        break;
      case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO:
        flags |= kLibBetaKnown;
        break;
      default:
        break;
    }
    flags |= extra_flags_;
    if (epilogue_unreadable_) e.Set("epilogue", 0);
    e.Set("flags", flags);
    e.Set("ptr_align", sa | sb << 8 | sc << 16 | static_cast<long long>(sd) << 24);
    e.Set("stream", static_cast<long long>(stream)).Set("status", s);
    sink_.Write(e);
    sink_.Print("cublasLtMatmul", std::string(label) + " status=" + std::to_string(s));

    if (ld != lc) cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatmulDescDestroy(desc);
  }

  // No descriptor and no layouts: nothing can be read, the call still goes through.
  void RunNullDescriptors() {
    const float one = 1;
    const cublasStatus_t s =
        cublasLtMatmul(handle_, nullptr, &one, nullptr, nullptr, nullptr, nullptr, &one, nullptr,
                       nullptr, nullptr, nullptr, nullptr, nullptr, 0, nullptr);
    Expect e("cublasLtMatmul");
    for (const char* f : {"m", "n", "k", "batch", "lda", "ldb", "ldc", "ldd", "stride_a",
                          "stride_b", "stride_c", "stride_d"}) {
      e.Set(f, -1);
    }
    e.Set("epilogue", 0).Set("flags", kLibDescriptorIncomplete).Set("ptr_align", 0xFFFFFFFF);
    e.Set("stream", 0).Set("status", s);
    sink_.Write(e);
    sink_.Print("cublasLtMatmul", "null_descriptors status=" + std::to_string(s));
  }

  // For the fake: attribute reads that fail, as with an older or different cuBLASLt.
  void set_extra_flags(uint32_t f) { extra_flags_ = f; }
  void set_epilogue_unreadable(bool u) { epilogue_unreadable_ = u; }

 private:
  static cublasLtMatrixLayout_t Layout(cudaDataType type, const Dims& d, int32_t batch) {
    cublasLtMatrixLayout_t l = nullptr;
    cublasLtMatrixLayoutCreate(&l, type, d.rows, d.cols, d.ld);
    if (batch > 1) {
      SetLayout<int32_t>(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, batch);
      SetLayout<int64_t>(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, d.stride);
    }
    return l;
  }

  Sink& sink_;
  cublasLtHandle_t handle_ = nullptr;
  uint32_t extra_flags_ = 0;
  bool epilogue_unreadable_ = false;
};

}  // namespace

void RunLtCases(Sink& sink) {
  LtClient client(sink);
  int index = 0;
  for (const LtCase& x : kCases) client.Run(x, index++, x.what);
  client.RunNullDescriptors();
#ifdef FLOPSPY_FAKE_CUBLASLT
  flopspy_fake_cublaslt_set_status(CUBLAS_STATUS_NOT_SUPPORTED);
  client.Run(kCases[1], index++, "status_passed_through");
  flopspy_fake_cublaslt_set_status(0);
  // BATCH_MODE is optional (cuBLASLt < 12.9 lacks it): no incomplete flag.
  flopspy_fake_cublaslt_fail_layout_attribute(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE);
  client.Run(kCases[5], index++, "no_batch_mode");
  flopspy_fake_cublaslt_fail_layout_attribute(-1);
  // An epilogue that cannot be read: epilogue 0, the record flagged incomplete.
  flopspy_fake_cublaslt_fail_desc_attribute(CUBLASLT_MATMUL_DESC_EPILOGUE);
  client.set_extra_flags(kLibDescriptorIncomplete);
  client.set_epilogue_unreadable(true);
  client.Run(kCases[4], index++, "epilogue_unreadable");
  flopspy_fake_cublaslt_fail_desc_attribute(-1);
#endif
}

}  // namespace flopspy::cublas_client
