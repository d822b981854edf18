#include "flopspy/gpu_roofline/cuda_probe.h"

#include <cuda.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "flopspy/gpu_roofline/device_reader.h"

namespace flopspy::gpuroof {
namespace {

void* OpenFirst(std::initializer_list<const char*> names, LibraryProbe& probe) {
  std::string errors;
  for (const char* name : names) {
    void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      probe.found = true;
      link_map* map = nullptr;
      probe.path = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map ? map->l_name : name;
      return handle;
    }
    const char* e = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (e ? e : name);
  }
  // Not on the loader's path: a program would not find it either, but say where it is.
  const char* home = std::getenv("CUDA_HOME");
  const std::string dir = std::string(home ? home : "/usr/local/cuda") + "/lib64/";
  for (const char* name : names) {
    if (void* handle = dlopen((dir + name).c_str(), RTLD_NOW | RTLD_LOCAL)) {
      probe.found = true;
      probe.path = dir + name;
      probe.error = "not on the library search path (LD_LIBRARY_PATH); found in " + dir;
      return handle;
    }
  }
  probe.error = errors;
  return nullptr;
}

template <class F>
F Symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

void* g_driver = nullptr;  // the handle ProbeCuda opened, for the lookup below
void* DriverSymbol(const char* name) {
  return dlsym(g_driver, name);
}

void ProbeDevices(void* driver, CudaProbe& probe) {
  g_driver = driver;
  const DeviceReadResult read = ReadDevices(&DriverSymbol);
  probe.driver_initialized = read.initialized;
  probe.init_error = read.error;
  probe.gpus = read.devices;
}

}  // namespace

CudaProbe ProbeCuda() {
  CudaProbe probe;
  probe.built_with_cuda_headers = true;
  if (const char* inj = std::getenv("CUDA_INJECTION64_PATH")) probe.injection_path = inj;
  std::ifstream params("/proc/driver/nvidia/params");
  for (std::string line; std::getline(params, line);) {
    if (line.rfind("RestrictProfilingToAdminUsers", 0) == 0) {
      probe.profiling_restricted = line.substr(line.find(':') + 1);
      probe.profiling_restricted.erase(0, probe.profiling_restricted.find_first_not_of(' '));
    }
  }

  if (void* driver = OpenFirst({"libcuda.so.1"}, probe.driver)) {
    using DriverVersion = CUresult (*)(int*);
    if (auto f = Symbol<DriverVersion>(driver, "cuDriverGetVersion")) f(&probe.driver.version);
    ProbeDevices(driver, probe);
  }
  if (void* runtime =
          OpenFirst({"libcudart.so.13", "libcudart.so.12", "libcudart.so"}, probe.runtime)) {
    using RuntimeVersion = int (*)(int*);
    if (auto f = Symbol<RuntimeVersion>(runtime, "cudaRuntimeGetVersion")) {
      f(&probe.runtime.version);
    }
  }
  if (void* cupti = OpenFirst({"libcupti.so.13", "libcupti.so.12", "libcupti.so"}, probe.cupti)) {
    using CuptiVersion = int (*)(uint32_t*);
    uint32_t version = 0;
    if (auto f = Symbol<CuptiVersion>(cupti, "cuptiGetVersion"); f && f(&version) == 0) {
      probe.cupti.version = static_cast<int>(version);
    }
  }
  return probe;
}

}  // namespace flopspy::gpuroof
