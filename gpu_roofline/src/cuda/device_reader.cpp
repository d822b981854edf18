#include "flopspy/gpu_roofline/device_reader.h"

#include <cuda.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace flopspy::gpuroof {
namespace {

template <class F>
F Find(DriverLookup lookup, const char* name) {
  return reinterpret_cast<F>(lookup(name));
}

// Formatted like nvidia-smi: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
std::string UuidText(const CUuuid& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  char text[48];
  std::snprintf(text, sizeof(text),
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

std::string ErrorText(const char* what, CUresult rc) {
  return std::string(what) + " failed with error " + std::to_string(static_cast<int>(rc));
}

}  // namespace

std::string KernelDriverVersion() {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.03  Thu ..."
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  std::getline(in, line);
  std::istringstream words(line);
  std::string word, previous;
  while (words >> word) {
    if (previous == "Module" && !word.empty() &&
        std::isdigit(static_cast<unsigned char>(word[0]))) {
      return word;
    }
    previous = word;
  }
  return "";
}

DeviceReadResult ReadDevices(DriverLookup lookup) {
  DeviceReadResult r;
  using Init = CUresult (*)(unsigned);
  using Version = CUresult (*)(int*);
  using GetCount = CUresult (*)(int*);
  using Get = CUresult (*)(CUdevice*, int);
  using GetName = CUresult (*)(char*, int, CUdevice);
  using GetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);
  using TotalMem = CUresult (*)(size_t*, CUdevice);
  using GetUuid = CUresult (*)(CUuuid*, CUdevice);
  const auto init = Find<Init>(lookup, "cuInit");
  const auto version = Find<Version>(lookup, "cuDriverGetVersion");
  const auto count = Find<GetCount>(lookup, "cuDeviceGetCount");
  const auto get = Find<Get>(lookup, "cuDeviceGet");
  const auto name = Find<GetName>(lookup, "cuDeviceGetName");
  const auto attr = Find<GetAttribute>(lookup, "cuDeviceGetAttribute");
  const auto mem = Find<TotalMem>(lookup, "cuDeviceTotalMem_v2");
  auto uuid = Find<GetUuid>(lookup, "cuDeviceGetUuid_v2");
  if (uuid == nullptr) uuid = Find<GetUuid>(lookup, "cuDeviceGetUuid");
  if (version) version(&r.driver_api_version);
  if (!init || !count || !get || !name || !attr) {
    r.error =
        "the driver lacks cuInit, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName or "
        "cuDeviceGetAttribute";
    return r;
  }
  if (const CUresult rc = init(0); rc != CUDA_SUCCESS) {
    r.error = ErrorText("cuInit", rc);
    return r;
  }
  r.initialized = true;
  int n = 0;
  if (const CUresult rc = count(&n); rc != CUDA_SUCCESS) {
    r.error = ErrorText("cuDeviceGetCount", rc);
    return r;
  }
  const std::string kernel_driver = KernelDriverVersion();
  for (int i = 0; i < n; ++i) {
    CUdevice dev = 0;
    if (get(&dev, i) != CUDA_SUCCESS) continue;
    DeviceProperties p;
    char buf[256] = {};
    if (name(buf, sizeof(buf) - 1, dev) == CUDA_SUCCESS) p.name = buf;
    attr(&p.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    attr(&p.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    attr(&p.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    attr(&p.clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev);
    attr(&p.memory_clock_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev);
    attr(&p.memory_bus_width_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev);
    int l2 = 0;
    attr(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
    p.l2_bytes = static_cast<uint64_t>(l2);
    size_t bytes = 0;
    if (mem && mem(&bytes, dev) == CUDA_SUCCESS) p.total_memory_bytes = bytes;
    CUuuid u{};
    if (uuid && uuid(&u, dev) == CUDA_SUCCESS) p.uuid = UuidText(u);
    p.driver_version = kernel_driver;
    r.devices.push_back(p);
  }
  return r;
}

}  // namespace flopspy::gpuroof
