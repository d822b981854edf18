// (a), (d) and error pass-through: a program linked with the (fake) libcudart that launches in
// every runtime form. Run with and without libflopspy.so preloaded; the output must match.
//   runtime_app all          every runtime launch form, syncs, copies (program (a))
//   runtime_app launch-once  one cudaLaunchKernel and one <<<>>> launch, results printed
//   runtime_app ptds         code compiled with --default-stream per-thread (program (d))
#include <cstdio>
#include <cstring>
#include <string>

#include "app_util.h"
#include "kernels.h"

namespace launchtest {
void RunPerThreadDefaultStream();  // runtime_ptds.cpp
}

namespace {

using namespace launchtest;

int RunAll() {
  static char host[4096];
  void* device = nullptr;
  Print("cudaMalloc", cudaMalloc(&device, sizeof(host)));
  cudaStream_t stream = nullptr;
  Print("cudaStreamCreate", cudaStreamCreate(&stream));
  Print("cudaMemcpy H2D 4096", cudaMemcpy(device, host, 4096, cudaMemcpyHostToDevice));

  AtenMulArgs l1(1000);
  Print("cudaLaunchKernel aten_mul",
        cudaLaunchKernel(StubAddress(AtenMulStub), dim3(4), dim3(128), l1.args, 0, nullptr));
  AddArgs l2(77);
  Print("cudaLaunchKernel_ptsz add_kernel",
        cudaLaunchKernel_ptsz(StubAddress(AddKernelStub), dim3(2, 3), dim3(64, 2), l2.args, 256,
                              nullptr));
  AtenMulArgs l3(4096);
  Print("<<<>>> aten_mul",
        LaunchLikeNvcc13<AtenMulStub>(dim3(8), dim3(256), 0, stream, l3.args, false));
  AddArgs l4(5);
  Print("<<<>>> ptsz add_kernel",
        LaunchLikeNvcc13<AddKernelStub>(dim3(1), dim3(32), 0, nullptr, l4.args, true));

  TritonAddArgs l5(333);
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 2, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(8), config.blockDim = dim3(128), config.dynamicSmemBytes = 128;
  config.stream = stream, config.attrs = &cluster, config.numAttrs = 1;
  Print("cudaLaunchKernelExC triton",
        cudaLaunchKernelExC(&config, StubAddress(TritonAddStub), l5.args));
  cudaLaunchConfig_t plain{};
  plain.gridDim = dim3(1), plain.blockDim = dim3(1), plain.stream = nullptr;
  Print("cudaLaunchKernelExC_ptsz empty",
        cudaLaunchKernelExC_ptsz(&plain, StubAddress(EmptyKernelStub), nullptr));

  GridSyncArgs l7(9);
  Print("cudaLaunchCooperativeKernel grid_sync",
        cudaLaunchCooperativeKernel(StubAddress(GridSyncStub), dim3(4), dim3(32), l7.args, 0,
                                    stream));
  GridSyncArgs l8(11);
  Print("cudaLaunchCooperativeKernel_ptsz grid_sync",
        cudaLaunchCooperativeKernel_ptsz(StubAddress(GridSyncStub), dim3(2), dim3(64), l8.args, 0,
                                         nullptr));

  // Programs check this after every launch (PyTorch does): flopspy's first look at each kernel
  // must not leave an error of its own behind.
  Print("cudaGetLastError after the launches", cudaGetLastError());

  static int graph_object = 0;
  const auto graph = reinterpret_cast<cudaGraphExec_t>(&graph_object);
  Print("cudaGraphLaunch", cudaGraphLaunch(graph, stream));
  Print("cudaGraphLaunch_ptsz", cudaGraphLaunch_ptsz(graph, nullptr));

  Print("cudaStreamSynchronize", cudaStreamSynchronize(stream));
  Print("cudaStreamSynchronize_ptsz", cudaStreamSynchronize_ptsz(nullptr));
  Print("cudaDeviceSynchronize", cudaDeviceSynchronize());

  Print("cudaMemcpy D2H 4096", cudaMemcpy(host, device, 4096, cudaMemcpyDeviceToHost));
  Print("cudaMemcpy_ptds H2D 1024", cudaMemcpy_ptds(device, host, 1024, cudaMemcpyHostToDevice));
  Print("cudaMemcpyAsync D2D 512",
        cudaMemcpyAsync(device, device, 512, cudaMemcpyDeviceToDevice, stream));
  Print("cudaMemcpyAsync_ptsz D2H 256",
        cudaMemcpyAsync_ptsz(host, device, 256, cudaMemcpyDeviceToHost, nullptr));

  const char* name = nullptr;
  Print("cudaFuncGetName", cudaFuncGetName(&name, StubAddress(AtenMulStub)));
  std::printf("name %s\n", name ? name : "(null)");
  Print("cudaStreamDestroy", cudaStreamDestroy(stream));
  Print("cudaFree", cudaFree(device));
  return 0;
}

// One runtime launch of each ABI; with FAKECUDA_LAUNCH_RESULT or FAKECUDART_LAUNCH_RESULT set
// the results show whether an error reached the program unchanged.
int RunLaunchOnce() {
  AtenMulArgs a(1000);
  const cudaError_t r1 =
      cudaLaunchKernel(StubAddress(AtenMulStub), dim3(4), dim3(128), a.args, 0, nullptr);
  Print("cudaLaunchKernel", r1);
  std::printf("cudaGetErrorString %s\n", cudaGetErrorString(r1));
  Print("cudaGetLastError", cudaGetLastError());
  AddArgs b(5);
  Print("<<<>>>", LaunchLikeNvcc13<AddKernelStub>(dim3(1), dim3(32), 0, nullptr, b.args, false));
  Print("cudaGetLastError", cudaGetLastError());
  return r1 == cudaSuccess ? 0 : 3;
}

// The program's own error is pending when a kernel is launched for the first time: it must still
// be there for the program's cudaGetLastError.
int RunWithErrorPending() {
  Print("cudaGetFuncBySymbol(nullptr)", cudaGetFuncBySymbol(nullptr, StubAddress(AtenMulStub)));
  AtenMulArgs a(1000);
  Print("cudaLaunchKernel",
        cudaLaunchKernel(StubAddress(AtenMulStub), dim3(4), dim3(128), a.args, 0, nullptr));
  Print("cudaGetLastError", cudaGetLastError());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  int status = 2;
  if (mode == "all") {
    status = RunAll();
  } else if (mode == "launch-once") {
    status = RunLaunchOnce();
  } else if (mode == "error-pending") {
    status = RunWithErrorPending();
  } else if (mode == "ptds") {
    RunPerThreadDefaultStream();
    status = 0;
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  }
  PrintFakeReports();
  return status;
}
