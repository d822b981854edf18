// An extension module that uses cuBLAS and cuBLASLt, as a PyTorch build or a CUDA extension does,
// built once per fake copy (cuda12, cuda13 and the wheel-renamed wheel13): driver_dlopen opens
// two of them with RTLD_LOCAL, so one process holds two libcublas and two libcublasLt copies.
// Every call here must reach this module's own copy (the fakes refuse another copy's handles and
// descriptors) and succeed; the module prints each status, then its copy's soname and counters,
// and says what each record must hold (client_common.h). FLOPSPY_EXT_ID makes every size, stream
// and pointer distinct per module, so a record of one module's call cannot pass for the other's.
#include <string>

#include "client_common.h"
#include "fake_cublas.h"
#include "flopspy/trace/schema.h"

namespace flopspy::cublas_client {
namespace {

constexpr long long kId = FLOPSPY_EXT_ID;

// ptr_align of the record: log2 alignment of A, B, C, D (-1: none, 0xFF).
long long Align(int a, int b, int c, int d) {
  long long packed = 0;
  const int shifts[4] = {a, b, c, d};
  for (int j = 0; j < 4; ++j) {
    packed |= static_cast<long long>(shifts[j] < 0 ? 0xFF : shifts[j]) << (8 * j);
  }
  return packed;
}

template <class T>
T* Device(int shift) {
  return static_cast<T*>(const_cast<void*>(FakePointer(shift)));
}

class Module {
 public:
  explicit Module(Sink& sink) : sink_(sink) {}

  bool Run() {
    if (!Check("cublasCreate_v2", cublasCreate_v2(&handle_))) return false;
    HandleCalls();
    LegacyCalls();
    LtCall();
    Check("cublasDestroy_v2", cublasDestroy_v2(handle_));
    return true;
  }

 private:
  // cublasSgemm_v2 in host pointer mode with TF32 math, cublasDgemm_v2 in device pointer mode,
  // cublasSdot_v2: the stream, pointer mode and math mode are read from this copy's handle.
  void HandleCalls() {
    const uintptr_t stream = 0x100000 * static_cast<uintptr_t>(kId);
    Check("cublasSetStream_v2",
          cublasSetStream_v2(handle_, reinterpret_cast<cudaStream_t>(stream)));
    Check("cublasSetPointerMode_v2", cublasSetPointerMode_v2(handle_, CUBLAS_POINTER_MODE_HOST));
    Check("cublasSetMathMode", cublasSetMathMode(handle_, CUBLAS_TF32_TENSOR_OP_MATH));
    const float one = 1.5f;
    const int m = static_cast<int>(kId) + 1, n = static_cast<int>(kId) + 2;
    const int k = static_cast<int>(kId) + 3;
    {
      Expect e("cublasSgemm_v2");
      const cublasStatus_t s =
          cublasSgemm_v2(handle_, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &one, Device<float>(4), m,
                         Device<float>(5), n, &one, Device<float>(6), m);
      e.Set("trans_a", CUBLAS_OP_N).Set("trans_b", CUBLAS_OP_T).Set("m", m).Set("n", n);
      e.Set("k", k).Set("lda", m).Set("ldb", n).Set("ldc", m).Set("tf32", 1);
      e.Set("flags", trace::kLibAlphaKnown | trace::kLibBetaKnown | trace::kLibBetaNonZero);
      e.Set("ptr_align", Align(4, 5, 6, -1)).Set("stream", static_cast<long long>(stream));
      End("cublasSgemm_v2", e, s);
    }
    Check("cublasSetPointerMode_v2", cublasSetPointerMode_v2(handle_, CUBLAS_POINTER_MODE_DEVICE));
    Check("cublasSetMathMode", cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
    {
      Expect e("cublasDgemm_v2");
      const cublasStatus_t s = cublasDgemm_v2(
          handle_, CUBLAS_OP_T, CUBLAS_OP_N, k, m, n, Device<double>(3), Device<double>(7), n,
          Device<double>(8), n, Device<double>(3), Device<double>(9), k);
      e.Set("trans_a", CUBLAS_OP_T).Set("trans_b", CUBLAS_OP_N).Set("m", k).Set("n", m);
      e.Set("k", n).Set("lda", n).Set("ldb", n).Set("ldc", k).Set("tf32", 0).Set("flags", 0);
      e.Set("ptr_align", Align(7, 8, 9, -1)).Set("stream", static_cast<long long>(stream));
      End("cublasDgemm_v2", e, s);
    }
    {
      Expect e("cublasSdot_v2");
      const cublasStatus_t s =
          cublasSdot_v2(handle_, n, Device<float>(4), 1, Device<float>(5), 2, Device<float>(2));
      e.Set("n", n).Set("lda", 1).Set("ldb", 2).Set("ptr_align", Align(4, 5, 2, -1));
      e.Set("stream", static_cast<long long>(stream));
      End("cublasSdot_v2", e, s);
    }
  }

  // The legacy API: this copy's legacy stream is the default one until this module changes it,
  // whatever the other module did to its own copy's.
  void LegacyCalls() {
    const int n = static_cast<int>(kId) + 10;
    LegacySgemm(n, false);
    Check("cublasSetKernelStream",
          cublasSetKernelStream(reinterpret_cast<cudaStream_t>(0x5000 + kId)));
    LegacySgemm(n + 1, true);
  }

  void LegacySgemm(int n, bool stream_set) {
    Expect e("cublasSgemm");
    cublasSgemm('N', 'N', n, n, n, 1.5f, Device<float>(4), n, Device<float>(5), n, 0.f,
                Device<float>(6), n);
    uint32_t flags = trace::kLibAlphaKnown | trace::kLibBetaKnown | trace::kLibStatusUnknown;
    if (stream_set) flags |= trace::kLibStreamUnknown;
    e.Set("trans_a", CUBLAS_OP_N).Set("trans_b", CUBLAS_OP_N).Set("m", n).Set("n", n);
    e.Set("k", n).Set("lda", n).Set("ldb", n).Set("ldc", n).Set("flags", flags);
    e.Set("ptr_align", Align(4, 5, 6, -1)).Set("stream", 0).Set("stream_unknown", stream_set);
    e.Set("status", 0);
    sink_.Write(e);
    Check("cublasSgemm (cublasGetError)", cublasGetError());
  }

  // cublasLtMatmul with this copy's handle, descriptor and layouts: the decoder must read them
  // with this copy's getters.
  void LtCall() {
    cublasLtHandle_t lt = nullptr;
    if (!Check("cublasLtCreate", cublasLtCreate(&lt))) return;
    const int64_t m = 64 + kId, n = 32 + kId, k = 16 + kId;
    cublasLtMatmulDesc_t desc = nullptr;
    Check("cublasLtMatmulDescCreate",
          cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const int32_t transa = CUBLAS_OP_T;
    Check(
        "cublasLtMatmulDescSetAttribute",
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    Check("cublasLtMatrixLayoutCreate",
          cublasLtMatrixLayoutCreate(&a, CUDA_R_16F, k, m, k + 1));  // stored k x m, used as A^T
    Check("cublasLtMatrixLayoutCreate", cublasLtMatrixLayoutCreate(&b, CUDA_R_16F, k, n, k + 2));
    Check("cublasLtMatrixLayoutCreate", cublasLtMatrixLayoutCreate(&c, CUDA_R_16F, m, n, m + 3));
    const float alpha = 1.5f, beta = 0.f;
    const uintptr_t stream = 0x100000 * static_cast<uintptr_t>(kId) + 0x1000;
    Expect e("cublasLtMatmul");
    const cublasStatus_t s = cublasLtMatmul(lt, desc, &alpha, FakePointer(4), a, FakePointer(5), b,
                                            &beta, FakePointer(6), c, Device<void>(6), c, nullptr,
                                            nullptr, 0, reinterpret_cast<cudaStream_t>(stream));
    e.Set("m", m).Set("n", n).Set("k", k).Set("batch", 1);
    e.Set("lda", k + 1).Set("ldb", k + 2).Set("ldc", m + 3).Set("ldd", m + 3);
    e.Set("stride_a", 0).Set("stride_b", 0).Set("stride_c", 0).Set("stride_d", 0);
    e.Set("type_a", CUDA_R_16F).Set("type_b", CUDA_R_16F).Set("type_c", CUDA_R_16F);
    e.Set("type_d", CUDA_R_16F).Set("compute_type", CUBLAS_COMPUTE_32F - 64);
    e.Set("scale_type", CUDA_R_32F).Set("trans_a", CUBLAS_OP_T).Set("trans_b", CUBLAS_OP_N);
    e.Set("epilogue", CUBLASLT_EPILOGUE_DEFAULT);
    e.Set("flags", trace::kLibAlphaKnown | trace::kLibBetaKnown);  // host pointer mode, beta 0
    e.Set("ptr_align", Align(4, 5, 6, 6)).Set("stream", static_cast<long long>(stream));
    End("cublasLtMatmul", e, s);
    Check("cublasLtMatrixLayoutDestroy", cublasLtMatrixLayoutDestroy(c));
    Check("cublasLtMatrixLayoutDestroy", cublasLtMatrixLayoutDestroy(b));
    Check("cublasLtMatrixLayoutDestroy", cublasLtMatrixLayoutDestroy(a));
    Check("cublasLtMatmulDescDestroy", cublasLtMatmulDescDestroy(desc));
    Check("cublasLtDestroy", cublasLtDestroy(lt));
  }

  // A call flopspy does not record: its status is printed.
  bool Check(const char* name, cublasStatus_t s) {
    sink_.Print(name, "status=" + std::to_string(s));
    return s == CUBLAS_STATUS_SUCCESS;
  }
  // A recorded call: its expectation is written and its status printed.
  void End(const char* name, Expect& e, cublasStatus_t s) {
    e.Set("status", s);
    sink_.Write(e);
    sink_.Print(name, "status=" + std::to_string(s));
  }

  Sink& sink_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace
}  // namespace flopspy::cublas_client

extern "C" __attribute__((visibility("default"))) int flopspy_cublas_client_main() {
  flopspy::cublas_client::Sink sink;
  flopspy::cublas_client::Module module(sink);
  const bool ran = module.Run();
  // Which copy this module's calls reached, and how many of them: exactly this module's.
  std::printf("copy %s calls %d cublas %llu cublasLt %s %llu\n", flopspy_fake_cublas_soname(),
              sink.calls(), static_cast<unsigned long long>(flopspy_fake_cublas_calls(nullptr)),
              flopspy_fake_cublaslt_soname(),
              static_cast<unsigned long long>(flopspy_fake_cublaslt_calls(nullptr)));
  return ran ? 5 : 3;
}
