// The extension module of local_app: links libcudart and libfakecuda_local_dep.so, is opened
// with RTLD_LOCAL, and launches through the runtime like an ATen kernel launcher would.
#include <dlfcn.h>

#include <cstdio>

#include "app_util.h"
#include "kernels.h"

extern "C" int fakecuda_local_dep_value();  // libfakecuda_local_dep.so

namespace {
using namespace launchtest;
}

extern "C" __attribute__((visibility("default"))) int ext_run() {
  AtenMulArgs a(300);
  Print("cudaLaunchKernel aten_mul",
        cudaLaunchKernel(StubAddress(AtenMulStub), dim3(3), dim3(128), a.args, 0, nullptr));
  AddArgs b(8);
  Print("<<<>>> add_kernel",
        LaunchLikeNvcc13<AddKernelStub>(dim3(2), dim3(64), 0, nullptr, b.args, false));
  AddArgs c(9);
  Print("cudaLaunchKernel_ptsz add_kernel",
        cudaLaunchKernel_ptsz(StubAddress(AddKernelStub), dim3(1), dim3(32), c.args, 0, nullptr));
  TritonAddArgs d(10);
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 4, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(8), config.blockDim = dim3(64), config.attrs = &cluster;
  config.numAttrs = 1;
  Print("cudaLaunchKernelExC triton",
        cudaLaunchKernelExC(&config, StubAddress(TritonAddStub), d.args));
  Print("cudaDeviceSynchronize", cudaDeviceSynchronize());
  void* device = nullptr;
  static char host[32];
  Print("cudaMalloc", cudaMalloc(&device, sizeof(host)));
  Print("cudaMemcpy D2H 32", cudaMemcpy(host, device, sizeof(host), cudaMemcpyDeviceToHost));
  Print("cudaFree", cudaFree(device));

  // A lookup in the default scope from a library opened RTLD_LOCAL sees that library's own
  // dependencies too (glibc searches the caller's scope), whoever defines dlsym.
  const auto dep = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "fakecuda_local_dep_value"));
  std::printf("RTLD_DEFAULT finds the local dependency: %s\n", dep ? "yes" : "no");
  if (dep != nullptr) std::printf("dependency value %d\n", dep());
  std::printf("direct call value %d\n", fakecuda_local_dep_value());
  return 0;
}
