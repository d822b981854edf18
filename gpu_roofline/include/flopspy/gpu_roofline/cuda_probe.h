// What this machine offers on the GPU side, found by loading the CUDA libraries the way a
// program would: driver, runtime, CUPTI and every GPU's properties. Used by `flopspy info`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flopspy/gpu_roofline/device_properties.h"

namespace flopspy::gpuroof {

struct LibraryProbe {
  bool found = false;
  std::string path;   // the file dlopen found
  int version = 0;    // e.g. 13000 for CUDA 13.0; CUPTI API version for CUPTI
  std::string error;  // why not found or why it failed
};

struct CudaProbe {
  bool built_with_cuda_headers = false;
  LibraryProbe driver;  // libcuda.so.1; version from cuDriverGetVersion
  bool driver_initialized = false;
  std::string init_error;              // cuInit's error when it failed
  std::vector<DeviceProperties> gpus;  // in device index order
  LibraryProbe runtime;                // libcudart.so.13 or .12
  LibraryProbe cupti;                  // libcupti.so.13 or .12
  std::string injection_path;          // CUDA_INJECTION64_PATH: another tool (nsys, ncu) may inject
  std::string profiling_restricted;    // NVreg_RestrictProfilingToAdminUsers, if readable
};

CudaProbe ProbeCuda();

}  // namespace flopspy::gpuroof
