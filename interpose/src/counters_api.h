// The CUPTI range-profiler and driver functions counter mode calls, as a table of pointers
// resolved at run time from the libcupti and libcuda the program loaded (never linked, never a
// second copy). Tests fill the table with a mock. The host-side functions (metric configuration
// and evaluation) are found by gpu_roofline's HostProfiler through `lookup`.
#pragma once

#include <cuda.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <string>

#include "flopspy/gpu_roofline/counter_host.h"

namespace flopspy::interpose {

struct CounterApi {
  // CUPTI, device side (required).
  decltype(&::cuptiProfilerInitialize) cuptiProfilerInitialize = nullptr;
  decltype(&::cuptiDeviceGetChipName) cuptiDeviceGetChipName = nullptr;
  decltype(&::cuptiRangeProfilerEnable) cuptiRangeProfilerEnable = nullptr;
  decltype(&::cuptiRangeProfilerDisable) cuptiRangeProfilerDisable = nullptr;
  decltype(&::cuptiRangeProfilerGetCounterDataSize) cuptiRangeProfilerGetCounterDataSize = nullptr;
  decltype(&::cuptiRangeProfilerCounterDataImageInitialize)
      cuptiRangeProfilerCounterDataImageInitialize = nullptr;
  decltype(&::cuptiRangeProfilerSetConfig) cuptiRangeProfilerSetConfig = nullptr;
  decltype(&::cuptiRangeProfilerStart) cuptiRangeProfilerStart = nullptr;
  decltype(&::cuptiRangeProfilerStop) cuptiRangeProfilerStop = nullptr;
  decltype(&::cuptiRangeProfilerDecodeData) cuptiRangeProfilerDecodeData = nullptr;
  // Optional.
  decltype(&::cuptiProfilerGetCounterAvailability) cuptiProfilerGetCounterAvailability = nullptr;
  decltype(&::cuptiGetResultString) cuptiGetResultString = nullptr;

  // The driver the program loaded (required): the check that it works comes before any
  // device-side CUPTI call (docs/cuda-notes.md, "CUPTI without a driver"), and launches are matched
  // to their context.
  decltype(&::cuInit) cuInit = nullptr;
  decltype(&::cuDeviceGetCount) cuDeviceGetCount = nullptr;
  decltype(&::cuCtxGetCurrent) cuCtxGetCurrent = nullptr;
  decltype(&::cuCtxGetDevice) cuCtxGetDevice = nullptr;
  decltype(&::cuStreamSynchronize) cuStreamSynchronize = nullptr;
  decltype(&::cuStreamIsCapturing) cuStreamIsCapturing = nullptr;

  // The host-side functions, by name (gpuroof::HostProfiler).
  gpuroof::CuptiSymbolLookup lookup;

  // Comma-separated names of the required CUPTI / driver functions that are missing.
  std::string MissingCupti() const;
  std::string MissingDriver() const;
};

// Fills `api` from `cupti_handle` and `driver_handle` (dlopen handles).
void ResolveCounterApi(void* cupti_handle, void* driver_handle, CounterApi* api);

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)", using cuptiGetResultString when present.
std::string CounterErrorText(const CounterApi& api, CUptiResult result);

}  // namespace flopspy::interpose
