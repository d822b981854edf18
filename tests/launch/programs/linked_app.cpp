// A program linked with libcuda (as Triton links cuModuleLoadData and friends): its calls bind
// to flopspy's exports of the driver's names when preloaded, which must forward to the driver.
#include <cuda.h>

#include <cstdio>

#include "app_util.h"
#include "fake_cuda.h"

namespace launchtest {
int LaunchPerThread(CUfunction f);  // linked_ptds.cpp
}

int main() {
  using launchtest::Print;
  Print("cuInit", cuInit(0));
  CUmodule module = nullptr;
  CUfunction f = nullptr;
  Print("cuModuleLoadData", cuModuleLoadData(&module, "cubin"));
  Print("cuModuleGetFunction", cuModuleGetFunction(&f, module, fakecuda::kAddKernel));
  int n = 40;
  float* out = nullptr;
  const float* in = nullptr;
  void* params[] = {&n, &out, &in};
  Print("cuLaunchKernel", cuLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
  Print("cuLaunchKernel_ptsz (per-thread build)", launchtest::LaunchPerThread(f));
  static char host[256];
  Print("cuMemcpyHtoD", cuMemcpyHtoD(0x2000, host, sizeof(host)));
  Print("cuStreamSynchronize", cuStreamSynchronize(nullptr));
  Print("cuCtxSynchronize", cuCtxSynchronize());
  launchtest::PrintFakeReports();
  return 0;
}
