// (f): eight threads launch at once, each many times, through the runtime (cudaLaunchKernel,
// the <<<>>> form with __cudaLaunchKernel_ptsz) and through a driver pointer from
// cuGetProcAddress. Every launch must be recorded exactly once. Each thread's launches carry
// N = thread index + 1, so the trace shows whose launch each record is.
//   threads_app [iterations]
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "app_util.h"
#include "fake_cuda.h"
#include "kernels.h"

namespace {

using namespace launchtest;

constexpr int kThreads = 8;

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 1000;
  Print("cudaDeviceSynchronize", cudaDeviceSynchronize());  // the runtime loads the driver
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return 10;
  const auto gp = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(h, "cuGetProcAddress_v2"));
  if (gp == nullptr) return 11;
  void* p = nullptr;
  gp("cuLaunchKernel", &p, 4000, 0, nullptr);
  const auto launch = reinterpret_cast<PFN_cuLaunchKernel_v4000>(p);
  gp("cuModuleLoadData", &p, 2000, 0, nullptr);
  CUmodule module = nullptr;
  reinterpret_cast<PFN_cuModuleLoadData_v2000>(p)(&module, "cubin");
  gp("cuModuleGetFunction", &p, 2000, 0, nullptr);
  CUfunction aten = nullptr;
  reinterpret_cast<PFN_cuModuleGetFunction_v2000>(p)(&aten, module, fakecuda::kAtenMul);
  if (launch == nullptr || aten == nullptr) return 12;

  std::vector<cudaStream_t> streams(kThreads);
  for (auto& s : streams) cudaStreamCreate(&s);

  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      for (int i = 0; i < iterations; ++i) {
        AtenMulArgs a(t + 1);
        if (cudaLaunchKernel(StubAddress(AtenMulStub), dim3(t + 1), dim3(128), a.args, 0,
                             streams[t]) != cudaSuccess) {
          failures.fetch_add(1);
        }
        AddArgs b(t + 1);
        if (LaunchLikeNvcc13<AddKernelStub>(dim3(1), dim3(64), 0, nullptr, b.args, true) !=
            cudaSuccess) {
          failures.fetch_add(1);
        }
        AtenMulArgs c(t + 1);
        if (launch(aten, t + 1, 1, 1, 256, 1, 1, 0, nullptr, c.args, nullptr) != CUDA_SUCCESS) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::printf("threads %d iterations %d failures %d\n", kThreads, iterations, failures.load());
  PrintFakeReports();
  return failures.load() == 0 ? 0 : 1;
}
