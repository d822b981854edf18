#include "driver_api.h"

#include <dlfcn.h>

namespace flopspy::gpuroof::cuda {
namespace {

// The API version the function types above describe: CUDA 12.0 (cuGetProcAddress_v2 exists from
// that driver on, and every function used here has had its current signature since then).
constexpr int kApiVersion = 12000;

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t,
                                    CUdriverProcAddressQueryResult*);

}  // namespace

bool DriverApi::Load(std::string* error) {
  library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    *error = std::string("libcuda.so.1 cannot be loaded (") + (why ? why : "unknown") +
             "): no NVIDIA driver here";
    return false;
  }
  const auto get = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  if (get == nullptr) {
    *error = "the NVIDIA driver is older than CUDA 12.0 (no cuGetProcAddress_v2)";
    return false;
  }
  bool ok = true;
  auto resolve = [&](auto& fn, const char* name) {
    void* p = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    if (get(name, &p, kApiVersion, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS ||
        p == nullptr) {
      if (ok) *error = std::string("the NVIDIA driver lacks ") + name;
      ok = false;
      return;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  resolve(GetErrorString, "cuGetErrorString");
  resolve(DeviceGet, "cuDeviceGet");
  resolve(DeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease");
  resolve(CtxSetCurrent, "cuCtxSetCurrent");
  resolve(CtxSynchronize, "cuCtxSynchronize");
  resolve(MemGetInfo, "cuMemGetInfo");
  resolve(MemAlloc, "cuMemAlloc");
  resolve(MemFree, "cuMemFree");
  resolve(MemcpyDtoH, "cuMemcpyDtoH");
  resolve(MemcpyDtoDAsync, "cuMemcpyDtoDAsync");
  resolve(MemsetD8Async, "cuMemsetD8Async");
  resolve(ModuleLoadData, "cuModuleLoadData");
  resolve(ModuleUnload, "cuModuleUnload");
  resolve(ModuleGetFunction, "cuModuleGetFunction");
  resolve(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  resolve(LaunchKernel, "cuLaunchKernel");
  resolve(StreamCreate, "cuStreamCreate");
  resolve(StreamDestroy, "cuStreamDestroy");
  resolve(StreamSynchronize, "cuStreamSynchronize");
  resolve(EventCreate, "cuEventCreate");
  resolve(EventDestroy, "cuEventDestroy");
  resolve(EventRecord, "cuEventRecord");
  resolve(EventSynchronize, "cuEventSynchronize");
  resolve(EventElapsedTime, "cuEventElapsedTime");
  return ok;
}

void* DriverApi::Symbol(const char* name) const {
  return library != nullptr ? dlsym(library, name) : nullptr;
}

std::string DriverApi::Error(const char* what, CUresult rc) const {
  const char* text = nullptr;
  if (GetErrorString == nullptr || GetErrorString(rc, &text) != CUDA_SUCCESS) text = nullptr;
  return std::string(what) + ": " + (text ? text : "error") + " (" +
         std::to_string(static_cast<int>(rc)) + ")";
}

}  // namespace flopspy::gpuroof::cuda
