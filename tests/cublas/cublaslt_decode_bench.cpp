// What decoding a cublasLtMatmul costs, against NVIDIA's libcublasLt (host-side, no GPU needed).
// Numbers: docs/cublas-hooks.md §4.
//
//   build/bin/flopspy_bench_cublaslt_decode
//   LD_PRELOAD=build/lib/libflopspy.so FLOPSPY_OUT=/tmp build/bin/flopspy_bench_cublaslt_decode
//
// BM_LtDecode times the hook's decoder (hooks_cublaslt_decode.h) alone; BM_LtGetOneAttribute one
// getter call. BM_LtMatmul calls the real cublasLtMatmul, which fails at once without a handle:
// the difference between the runs with and without the preload is the whole hook.
#include <benchmark/benchmark.h>

#include "hooks_cublaslt_decode.h"

namespace {

namespace fc = flopspy::interpose::cublas;

// A descriptor as PyTorch's addmm builds it: FP16, transposed A, bias epilogue.
struct LtCall {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  explicit LtCall(bool separate_d) {
    cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const int32_t t = CUBLAS_OP_T;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
    const uint32_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
    cublasLtMatrixLayoutCreate(&a, CUDA_R_16F, 1024, 512, 1024);
    cublasLtMatrixLayoutCreate(&b, CUDA_R_16F, 1024, 256, 1024);
    cublasLtMatrixLayoutCreate(&c, CUDA_R_16F, 512, 256, 512);
    if (separate_d) {
      cublasLtMatrixLayoutCreate(&d, CUDA_R_16F, 512, 256, 512);
    } else {
      d = c;
    }
  }
  ~LtCall() {
    if (d != c) cublasLtMatrixLayoutDestroy(d);
    cublasLtMatrixLayoutDestroy(c);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatmulDescDestroy(desc);
  }
};

void BM_LtMatmul(benchmark::State& state) {
  LtCall call(state.range(0) != 0);
  const float alpha = 1, beta = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cublasLtMatmul(nullptr, call.desc, &alpha, nullptr, call.a, nullptr,
                                            call.b, &beta, nullptr, call.c, nullptr, call.d,
                                            nullptr, nullptr, 0, nullptr));
  }
}
BENCHMARK(BM_LtMatmul)->Arg(0)->Arg(1);

void BM_LtDecode(benchmark::State& state) {
  LtCall call(state.range(0) != 0);
  fc::LtGetters get;
  get.desc = &cublasLtMatmulDescGetAttribute;
  get.layout = &cublasLtMatrixLayoutGetAttribute;
  const float alpha = 1, beta = 0;
  flopspy::interpose::RawLibraryCall raw{};
  for (auto _ : state) {
    fc::DecodeLtCall(get, raw, nullptr, call.desc, &alpha, nullptr, call.a, nullptr, call.b, &beta,
                     nullptr, call.c, nullptr, call.d, nullptr, nullptr, 0, nullptr);
    benchmark::DoNotOptimize(raw);
  }
  state.counters["m"] = static_cast<double>(raw.record.m);
}
BENCHMARK(BM_LtDecode)->Arg(0)->Arg(1);

// One getter call, the unit of the decoder's cost.
void BM_LtGetOneAttribute(benchmark::State& state) {
  LtCall call(false);
  uint64_t rows = 0;
  size_t written = 0;
  for (auto _ : state) {
    cublasLtMatrixLayoutGetAttribute(call.d, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows,
                                     &written);
    benchmark::DoNotOptimize(rows);
  }
}
BENCHMARK(BM_LtGetOneAttribute);

}  // namespace

BENCHMARK_MAIN();
