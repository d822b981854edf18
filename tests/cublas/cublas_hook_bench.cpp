// What a cuBLAS hook costs on the calling thread. Run it twice, without and with the preload
// (numbers: docs/cublas-hooks.md §5):
//
//   build/bin/flopspy_bench_cublas_hooks
//   LD_PRELOAD=build/lib/libflopspy.so FLOPSPY_OUT=/tmp build/bin/flopspy_bench_cublas_hooks
//
// The fake libcublas and libcublasLt return at once, so the difference between the two runs is
// the hook: finding the real function for the call site (caller_resolver.h), two clock reads,
// the getters of the copy the call went to (the fake's), the record and Emit.
//   BM_SgemmV2: a handle-API call (stream and pointer-mode getters, math mode for TF32);
//   BM_SgemmV2TwoSites: the same from two call sites in turn (two cache entries);
//   BM_LegacySgemm: a legacy call (no getters);
//   BM_LtMatmul: cublasLtMatmul, its descriptor read back with 20 getter calls.
#include <benchmark/benchmark.h>
#include <cublas.h>  // the legacy API, and cublas_api.h with the _v2 names (not cublas_v2.h's macros)
#include <cublasLt.h>

namespace {

struct Handle {
  cublasHandle_t h = nullptr;
  Handle() {
    cublasCreate_v2(&h);
    cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_HOST);
    cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH);
  }
  ~Handle() { cublasDestroy_v2(h); }
};

const float kAlpha = 1, kBeta = 0;

// Not inlined: each is one call site of cublasSgemm_v2.
__attribute__((noinline)) cublasStatus_t SiteA(cublasHandle_t h) {
  return cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_T, 512, 256, 1024, &kAlpha, nullptr, 512, nullptr,
                        256, &kBeta, nullptr, 512);
}
__attribute__((noinline)) cublasStatus_t SiteB(cublasHandle_t h) {
  return cublasSgemm_v2(h, CUBLAS_OP_T, CUBLAS_OP_N, 256, 512, 1024, &kAlpha, nullptr, 1024,
                        nullptr, 1024, &kBeta, nullptr, 256);
}

void BM_SgemmV2(benchmark::State& state) {
  Handle handle;
  for (auto _ : state) benchmark::DoNotOptimize(SiteA(handle.h));
}
BENCHMARK(BM_SgemmV2);

void BM_SgemmV2TwoSites(benchmark::State& state) {  // two calls per iteration
  Handle handle;
  for (auto _ : state) {
    benchmark::DoNotOptimize(SiteA(handle.h));
    benchmark::DoNotOptimize(SiteB(handle.h));
  }
}
BENCHMARK(BM_SgemmV2TwoSites);

void BM_LegacySgemm(benchmark::State& state) {
  for (auto _ : state) {
    cublasSgemm('N', 'T', 512, 256, 1024, 1.f, nullptr, 512, nullptr, 256, 0.f, nullptr, 512);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_LegacySgemm);

void BM_LtMatmul(benchmark::State& state) {
  cublasLtHandle_t lt = nullptr;
  cublasLtCreate(&lt);
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const int32_t t = CUBLAS_OP_T;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatrixLayoutCreate(&a, CUDA_R_16F, 1024, 512, 1024);
  cublasLtMatrixLayoutCreate(&b, CUDA_R_16F, 1024, 256, 1024);
  cublasLtMatrixLayoutCreate(&c, CUDA_R_16F, 512, 256, 512);
  for (auto _ : state) {
    benchmark::DoNotOptimize(cublasLtMatmul(lt, desc, &kAlpha, nullptr, a, nullptr, b, &kBeta,
                                            nullptr, c, nullptr, c, nullptr, nullptr, 0, nullptr));
  }
  cublasLtMatrixLayoutDestroy(c);
  cublasLtMatrixLayoutDestroy(b);
  cublasLtMatrixLayoutDestroy(a);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
}
BENCHMARK(BM_LtMatmul);

}  // namespace

BENCHMARK_MAIN();
