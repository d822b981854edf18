// cublasLtMatmul with NVIDIA's libcublasLt.so: descriptors and layouts are built by the real
// host-side functions; without a GPU the matmul fails and that status must reach the program.
#include <cstdio>

#include "client_cublas.h"

int main() {
  flopspy::cublas_client::Sink sink;
  flopspy::cublas_client::RunLtCases(sink);
  std::printf("calls %d\n", sink.calls());
  return 6;
}
