// What a cuBLAS handle-API hook costs on the calling thread. Run it twice, without and with the
// preload (numbers: docs/cublas-hooks.md §5):
//
//   build/bin/flopspy_bench_cublas_hooks
//   LD_PRELOAD=build/lib/libflopspy.so FLOPSPY_OUT=/tmp build/bin/flopspy_bench_cublas_hooks
//
// cublasSgemm_v2 of the fake libcublas returns at once, so the difference between the two runs
// is the hook: two clock reads, the stream and pointer-mode getters (the fake's), the record and
// Emit.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>

namespace {

void BM_SgemmV2(benchmark::State& state) {
  cublasHandle_t handle = nullptr;
  cublasCreate_v2(&handle);
  cublasSetPointerMode_v2(handle, CUBLAS_POINTER_MODE_HOST);
  const float alpha = 1, beta = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_T, 512, 256, 1024,
                                            &alpha, nullptr, 512, nullptr, 256, &beta, nullptr,
                                            512));
  }
  cublasDestroy_v2(handle);
}
BENCHMARK(BM_SgemmV2);

}  // namespace

BENCHMARK_MAIN();
