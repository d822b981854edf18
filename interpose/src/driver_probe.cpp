#include "driver_probe.h"

namespace flopspy::interpose {

DriverProbe ProbeDriver(decltype(&::cuInit) init, decltype(&::cuDeviceGetCount) device_count) {
  DriverProbe probe;
  if (init == nullptr || device_count == nullptr) {
    probe.failure = "the loaded libcuda.so.1 lacks cuInit or cuDeviceGetCount";
    return probe;
  }
  if (const CUresult result = init(0); result != CUDA_SUCCESS) {
    probe.failure = "the CUDA driver does not initialise (cuInit returned " +
                    std::to_string(static_cast<int>(result)) + ")";
    return probe;
  }
  int devices = 0;
  if (const CUresult result = device_count(&devices); result != CUDA_SUCCESS || devices <= 0) {
    probe.failure = "no CUDA device (cuDeviceGetCount returned " +
                    std::to_string(static_cast<int>(result)) + ", " + std::to_string(devices) +
                    " devices)";
    return probe;
  }
  probe.devices = devices;
  return probe;
}

}  // namespace flopspy::interpose
