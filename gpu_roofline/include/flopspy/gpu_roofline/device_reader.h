// Reading every GPU's properties through the CUDA driver API, with functions found by a caller's
// lookup: `flopspy info` dlopens the driver itself, libflopspy.so uses the driver the program
// loaded. Needs CUDA headers (built only when they are available).
#pragma once

#include <string>
#include <vector>

#include "flopspy/gpu_roofline/device_properties.h"

namespace flopspy::gpuroof {

// Returns the address of a driver function by name, or nullptr.
using DriverLookup = void* (*)(const char* name);

struct DeviceReadResult {
  bool initialized = false;
  std::string error;           // why no devices could be read (cuInit failed, no entry points...)
  int driver_api_version = 0;  // cuDriverGetVersion, e.g. 13000
  std::vector<DeviceProperties> devices;
};

// Calls cuInit(0) (harmless when the program already did), then reads each device.
DeviceReadResult ReadDevices(DriverLookup lookup);

// The kernel module's version ("580.159.03") from /proc/driver/nvidia/version, or "".
std::string KernelDriverVersion();

}  // namespace flopspy::gpuroof
