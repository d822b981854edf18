// Device attribution: work made while the thread's current context belongs to one device or
// another. The program switches devices with cudaSetDevice and with the driver's
// cuCtxSetCurrent, and after each switch makes one of each: a runtime launch, a driver launch, a
// runtime copy, a driver set and a cuBLAS call. Each carries a marker that names the device it
// should be recorded on: launches N = 100 * step + device, copies and sets 1000 * step + device
// bytes, the GEMM m = 100 * step + device. A second thread works on another device meanwhile,
// and a third makes a driver launch with no current context at all (device unknown, -1: marker
// N = 99).
#include <cublas_v2.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <cstdio>
#include <thread>

#include "app_util.h"
#include "fake_cuda.h"
#include "kernels.h"

namespace {

using namespace launchtest;

struct Driver {
  PFN_cuLaunchKernel_v4000 launch = nullptr;
  PFN_cuMemsetD8_v3020 memset = nullptr;
  PFN_cuCtxSetCurrent_v4000 set_current = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 primary = nullptr;
  CUfunction add = nullptr;
};

bool Load(Driver& d) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return false;
  const auto gp = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(h, "cuGetProcAddress_v2"));
  if (gp == nullptr) return false;
  void* p = nullptr;
  const auto get = [&](const char* name, int version) {
    p = nullptr;
    return gp(name, &p, version, 0, nullptr) == CUDA_SUCCESS ? p : nullptr;
  };
  d.launch = reinterpret_cast<PFN_cuLaunchKernel_v4000>(get("cuLaunchKernel", 4000));
  d.memset = reinterpret_cast<PFN_cuMemsetD8_v3020>(get("cuMemsetD8", 3020));
  d.set_current = reinterpret_cast<PFN_cuCtxSetCurrent_v4000>(get("cuCtxSetCurrent", 4000));
  d.primary =
      reinterpret_cast<PFN_cuDevicePrimaryCtxRetain_v7000>(get("cuDevicePrimaryCtxRetain", 7000));
  const auto load = reinterpret_cast<PFN_cuModuleLoadData_v2000>(get("cuModuleLoadData", 2000));
  const auto function =
      reinterpret_cast<PFN_cuModuleGetFunction_v2000>(get("cuModuleGetFunction", 2000));
  if (!d.launch || !d.memset || !d.set_current || !d.primary || !load || !function) return false;
  CUmodule module = nullptr;
  return load(&module, "cubin") == CUDA_SUCCESS &&
         function(&d.add, module, fakecuda::kAddKernel) == CUDA_SUCCESS;
}

// One of each kind of work, all marked with `marker`.
void Work(const Driver& d, cublasHandle_t handle, int marker) {
  static char host[1 << 16];
  AtenMulArgs runtime_args(marker);
  Print("cudaLaunchKernel", cudaLaunchKernel(StubAddress(AtenMulStub), dim3(1), dim3(32),
                                             runtime_args.args, 0, nullptr));
  AddArgs driver_args(marker);
  Print("cuLaunchKernel",
        d.launch(d.add, 1, 1, 1, 32, 1, 1, 0, nullptr, driver_args.args, nullptr));
  Print("cudaMemcpy", cudaMemcpy(host, host, 10 * marker, cudaMemcpyHostToHost));
  Print("cuMemsetD8", d.memset(reinterpret_cast<CUdeviceptr>(host), 0, 10 * marker));
  const float one = 1, zero = 0;
  Print("cublasSgemm_v2", cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, marker, 8, 8, &one,
                                         nullptr, marker, nullptr, 8, &zero, nullptr, marker));
}

int Run() {
  Print("cudaDeviceSynchronize", cudaDeviceSynchronize());  // loads the driver, device 0
  Driver d;
  if (!Load(d)) return 10;
  cublasHandle_t handle = nullptr;
  if (cublasCreate_v2(&handle) != CUBLAS_STATUS_SUCCESS) return 11;

  Work(d, handle, 100 * 1 + 0);  // the runtime's implicit device 0
  Print("cudaSetDevice 2", cudaSetDevice(2));
  Work(d, handle, 100 * 2 + 2);
  CUcontext three = nullptr;
  Print("cuDevicePrimaryCtxRetain 3", d.primary(&three, 3));
  Print("cuCtxSetCurrent 3", d.set_current(three));
  Work(d, handle, 100 * 3 + 3);
  Print("cudaSetDevice 1", cudaSetDevice(1));
  Work(d, handle, 100 * 4 + 1);

  // Another thread on device 3 while this one stays on device 1.
  std::thread other([&] {
    Print("other cudaSetDevice 3", cudaSetDevice(3));
    Work(d, handle, 100 * 5 + 3);
  });
  other.join();
  Work(d, handle, 100 * 6 + 1);

  // Back to device 2 by the driver, then 0 by the runtime.
  CUcontext two = nullptr;
  Print("cuDevicePrimaryCtxRetain 2", d.primary(&two, 2));
  Print("cuCtxSetCurrent 2", d.set_current(two));
  Work(d, handle, 100 * 7 + 2);
  Print("cudaSetDevice 0", cudaSetDevice(0));
  Work(d, handle, 100 * 8 + 0);

  // No context on this thread: the driver launch has no device.
  std::thread bare([&] {
    AddArgs args(99);
    Print("bare cuLaunchKernel",
          d.launch(d.add, 1, 1, 1, 32, 1, 1, 0, nullptr, args.args, nullptr));
  });
  bare.join();
  Print("cublasDestroy_v2", cublasDestroy_v2(handle));
  return 0;
}

}  // namespace

int main() {
  const int status = Run();
  PrintFakeReports();
  return status;
}
