// The CUPTI and driver functions the GPU-timing session calls, as a table of pointers resolved at
// run time with dlsym on the libcupti and libcuda the program loaded (docs/architecture.md,
// decision 3: no CUDA library at link time). Tests fill the table with their own functions.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <cstdint>
#include <string>

namespace flopspy::interpose {

// Members carry the names of the C functions they point to, so that a call site reads like the
// CUPTI documentation and the resolver can use the name as the symbol.
struct CuptiApi {
  // Required: without any of these the session does not start.
  decltype(&::cuptiGetVersion) cuptiGetVersion = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) cuptiActivityRegisterCallbacks = nullptr;
  decltype(&::cuptiActivityRegisterTimestampCallback) cuptiActivityRegisterTimestampCallback =
      nullptr;
  decltype(&::cuptiActivityEnable) cuptiActivityEnable = nullptr;
  decltype(&::cuptiActivityDisable) cuptiActivityDisable = nullptr;
  decltype(&::cuptiActivityGetNextRecord) cuptiActivityGetNextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) cuptiActivityGetNumDroppedRecords = nullptr;
  decltype(&::cuptiActivityFlushAll) cuptiActivityFlushAll = nullptr;
  decltype(&::cuptiActivityPushExternalCorrelationId) cuptiActivityPushExternalCorrelationId =
      nullptr;
  decltype(&::cuptiActivityPopExternalCorrelationId) cuptiActivityPopExternalCorrelationId =
      nullptr;
  decltype(&::cuptiSubscribe) cuptiSubscribe = nullptr;
  decltype(&::cuptiUnsubscribe) cuptiUnsubscribe = nullptr;

  // Optional: used when present.
  decltype(&::cuptiSubscribe_v2) cuptiSubscribe_v2 = nullptr;  // names the other subscriber
  decltype(&::cuptiGetResultString) cuptiGetResultString = nullptr;
  decltype(&::cuptiGetCallbackName) cuptiGetCallbackName = nullptr;  // selects API records
  decltype(&::cuptiActivityEnableDriverApi) cuptiActivityEnableDriverApi = nullptr;
  decltype(&::cuptiActivityEnableRuntimeApi) cuptiActivityEnableRuntimeApi = nullptr;

  // The driver the program loaded, to check that it works before any device-side CUPTI call
  // (docs/cuda-notes.md, "CUPTI without a driver": without one, some CUPTI calls crash).
  decltype(&::cuInit) cuInit = nullptr;
  decltype(&::cuDeviceGetCount) cuDeviceGetCount = nullptr;
  decltype(&::cuDriverGetVersion) cuDriverGetVersion = nullptr;

  // Comma-separated names of the required CUPTI functions that are missing; empty if none.
  std::string MissingRequired() const;
};

// Fills the CUPTI part of `api` from `cupti_handle` (a dlopen handle) and the driver part from
// `driver_handle` (may be null: the driver entries stay null).
void ResolveCuptiApi(void* cupti_handle, void* driver_handle, CuptiApi* api);

// "CUPTI_ERROR_UNKNOWN (999)", using the loaded libcupti's cuptiGetResultString when it has one
// (null: the number alone, named "CUPTI error"). Shared with counter mode's API table.
std::string CuptiResultText(decltype(&::cuptiGetResultString) get_result_string,
                            CUptiResult result);
inline std::string CuptiErrorText(const CuptiApi& api, CUptiResult result) {
  return CuptiResultText(api.cuptiGetResultString, result);
}

}  // namespace flopspy::interpose
