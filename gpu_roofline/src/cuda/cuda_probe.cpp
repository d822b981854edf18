#include "flopspy/gpu_roofline/cuda_probe.h"

#include <cuda.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

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

std::string ErrorText(void* driver, CUresult rc) {
  using GetErrorString = CUresult (*)(CUresult, const char**);
  const char* text = nullptr;
  if (auto f = Symbol<GetErrorString>(driver, "cuGetErrorString"); f) f(rc, &text);
  return fmt::format("error {} ({})", static_cast<int>(rc), text ? text : "unknown");
}

std::string UuidText(const CUuuid& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  return fmt::format(
      "GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}"
      "{:02x}{:02x}",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
      b[15]);
}

void ProbeDevices(void* driver, CudaProbe& probe) {
  using Init = CUresult (*)(unsigned);
  using GetCount = CUresult (*)(int*);
  using Get = CUresult (*)(CUdevice*, int);
  using GetName = CUresult (*)(char*, int, CUdevice);
  using GetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);
  using TotalMem = CUresult (*)(size_t*, CUdevice);
  using GetUuid = CUresult (*)(CUuuid*, CUdevice);
  const auto init = Symbol<Init>(driver, "cuInit");
  const auto count = Symbol<GetCount>(driver, "cuDeviceGetCount");
  const auto get = Symbol<Get>(driver, "cuDeviceGet");
  const auto name = Symbol<GetName>(driver, "cuDeviceGetName");
  const auto attr = Symbol<GetAttribute>(driver, "cuDeviceGetAttribute");
  const auto mem = Symbol<TotalMem>(driver, "cuDeviceTotalMem_v2");
  auto uuid = Symbol<GetUuid>(driver, "cuDeviceGetUuid_v2");
  if (uuid == nullptr) uuid = Symbol<GetUuid>(driver, "cuDeviceGetUuid");
  if (!init || !count || !get || !name || !attr) {
    probe.init_error = "the driver lacks basic entry points";
    return;
  }
  if (const CUresult rc = init(0); rc != CUDA_SUCCESS) {
    probe.init_error = "cuInit failed: " + ErrorText(driver, rc);
    return;
  }
  probe.driver_initialized = true;
  int n = 0;
  if (const CUresult rc = count(&n); rc != CUDA_SUCCESS) {
    probe.init_error = "cuDeviceGetCount failed: " + ErrorText(driver, rc);
    return;
  }
  for (int i = 0; i < n; ++i) {
    CUdevice dev = 0;
    if (get(&dev, i) != CUDA_SUCCESS) continue;
    GpuProperties p;
    p.index = i;
    char buf[256] = {};
    if (name(buf, sizeof(buf) - 1, dev) == CUDA_SUCCESS) p.name = buf;
    attr(&p.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    attr(&p.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    attr(&p.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    attr(&p.clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev);
    attr(&p.memory_clock_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev);
    attr(&p.memory_bus_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev);
    attr(&p.l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
    size_t bytes = 0;
    if (mem && mem(&bytes, dev) == CUDA_SUCCESS) p.total_memory = bytes;
    CUuuid u{};
    if (uuid && uuid(&u, dev) == CUDA_SUCCESS) p.uuid = UuidText(u);
    probe.gpus.push_back(p);
  }
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
