// The check GPU timing and counter mode both make before any device-side CUPTI call: the loaded
// driver initialises and has a device (docs/cuda-notes.md, "CUPTI without a driver"). One place
// for the calls and for the sentence the user reads when it fails.
#pragma once

#include <cuda.h>

#include <string>

namespace flopspy::interpose {

struct DriverProbe {
  int devices = 0;      // when it works
  std::string failure;  // why not ("" when it works)
  bool ok() const { return failure.empty(); }
};

// Calls `init(0)` then `device_count`; either may be null (the driver lacks it).
DriverProbe ProbeDriver(decltype(&::cuInit) init, decltype(&::cuDeviceGetCount) device_count);

}  // namespace flopspy::interpose
