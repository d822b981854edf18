// What the runtime says about a GPU, in a form that needs no CUDA header: the caller fills it
// from cudaGetDeviceProperties / cudaDeviceGetAttribute or cuDeviceGetName / cuDeviceGetAttribute
// (gpu_roofline/src/cuda/ or interpose/), a trace's metadata, or a test.
#pragma once

#include <cstdint>
#include <string>

namespace flopspy::gpuroof {

struct DeviceProperties {
  std::string name;  // as cuDeviceGetName returns it: "NVIDIA H100 80GB HBM3", "Tesla T4"
  int cc_major = 0;  // 0 = unknown
  int cc_minor = 0;
  int sm_count = 0;               // multiProcessorCount; a MIG instance reports its own share
  int clock_khz = 0;              // peak SM clock (cudaDevAttrClockRate), kHz
  int memory_clock_khz = 0;       // peak memory clock (cudaDevAttrMemoryClockRate), kHz
  int memory_bus_width_bits = 0;  // cudaDevAttrGlobalMemoryBusWidth
  uint64_t l2_bytes = 0;          // cudaDevAttrL2CacheSize
  uint64_t total_memory_bytes = 0;
  std::string uuid;            // "GPU-8e6b...": the key of measured ceilings
  std::string driver_version;  // "580.159.03": the other half of that key
};

}  // namespace flopspy::gpuroof
