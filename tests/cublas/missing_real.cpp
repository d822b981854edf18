// Calls flopspy's hooks when no cuBLAS is loaded at all (found with dlsym(RTLD_DEFAULT), as a
// program probing for cuBLAS would): there is nothing to forward to, so the handle API must
// return CUBLAS_STATUS_NOT_INITIALIZED, the legacy API nothing or zero, and flopspy must say so
// once per entry point.
#include <cublas.h>
#include <dlfcn.h>

#include <cstdio>

int main() {
  using Sgemm = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                   int, const float*, const float*, int, const float*, int,
                                   const float*, float*, int);
  using Sdot = float (*)(int, const float*, int, const float*, int);
  using LegacyScal = void (*)(int, float, float*, int);
  auto sgemm = reinterpret_cast<Sgemm>(dlsym(RTLD_DEFAULT, "cublasSgemm_v2"));
  auto sdot = reinterpret_cast<Sdot>(dlsym(RTLD_DEFAULT, "cublasSdot"));
  auto sscal = reinterpret_cast<LegacyScal>(dlsym(RTLD_DEFAULT, "cublasSscal"));
  if (sgemm == nullptr || sdot == nullptr || sscal == nullptr) {
    std::printf("no cublas\n");
    return 0;
  }
  const float one = 1;
  for (int i = 0; i < 3; ++i) {
    const cublasStatus_t s = sgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, nullptr, 2,
                                   nullptr, 2, &one, nullptr, 2);
    std::printf("sgemm %d\n", s);
    std::printf("sdot %g\n", static_cast<double>(sdot(2, nullptr, 1, nullptr, 1)));
    sscal(2, 1.f, nullptr, 1);
  }
  return 0;
}
