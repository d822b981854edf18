// The test client as a shared library linked against the fake libcublas.so.N and
// libcublasLt.so.N: a program either links it (the libraries are then in the global scope) or
// dlopens it with RTLD_LOCAL as Python loads extension modules (then they are not, and
// dlsym(RTLD_NEXT) cannot find them). It prints what the program sees and exits with status 5.
#include <cstdio>

#include "client_cublas.h"
#include "fake_cublas.h"

extern "C" __attribute__((visibility("default"))) int flopspy_cublas_client_main() {
  flopspy::cublas_client::Sink sink;
  if (flopspy::cublas_client::RunCublasCases(sink) != 0) {
    std::fprintf(stderr, "client: no cuBLAS handle\n");
    return 3;
  }
  flopspy::cublas_client::RunLtCases(sink);
  // Each call reached the library exactly once.
  std::printf("calls %d cublas %llu cublasLt %llu\n", sink.calls(),
              static_cast<unsigned long long>(flopspy_fake_cublas_calls(nullptr)),
              static_cast<unsigned long long>(flopspy_fake_cublaslt_calls(nullptr)));
  return 5;
}
