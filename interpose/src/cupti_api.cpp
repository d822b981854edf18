#include "cupti_api.h"

#include "real_symbols.h"

namespace flopspy::interpose {

void ResolveCuptiApi(void* cupti_handle, void* driver_handle, CuptiApi* api) {
  *api = CuptiApi{};
  if (cupti_handle != nullptr) {
    FLOPSPY_RESOLVE(cupti_handle, cuptiGetVersion);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityRegisterCallbacks);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityRegisterTimestampCallback);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityEnable);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityDisable);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityGetNextRecord);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityGetNumDroppedRecords);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityFlushAll);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityPushExternalCorrelationId);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityPopExternalCorrelationId);
    FLOPSPY_RESOLVE(cupti_handle, cuptiSubscribe);
    FLOPSPY_RESOLVE(cupti_handle, cuptiUnsubscribe);
    FLOPSPY_RESOLVE(cupti_handle, cuptiSubscribe_v2);
    FLOPSPY_RESOLVE(cupti_handle, cuptiGetResultString);
    FLOPSPY_RESOLVE(cupti_handle, cuptiGetCallbackName);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityEnableDriverApi);
    FLOPSPY_RESOLVE(cupti_handle, cuptiActivityEnableRuntimeApi);
  }
  if (driver_handle != nullptr) {
    FLOPSPY_RESOLVE(driver_handle, cuInit);
    FLOPSPY_RESOLVE(driver_handle, cuDeviceGetCount);
    FLOPSPY_RESOLVE(driver_handle, cuDriverGetVersion);
  }
}

std::string CuptiApi::MissingRequired() const {
  std::string missing;
  const auto check = [&](const void* f, const char* name) {
    if (f != nullptr) return;
    if (!missing.empty()) missing += ", ";
    missing += name;
  };
  check(reinterpret_cast<const void*>(cuptiGetVersion), "cuptiGetVersion");
  check(reinterpret_cast<const void*>(cuptiActivityRegisterCallbacks),
        "cuptiActivityRegisterCallbacks");
  check(reinterpret_cast<const void*>(cuptiActivityRegisterTimestampCallback),
        "cuptiActivityRegisterTimestampCallback");
  check(reinterpret_cast<const void*>(cuptiActivityEnable), "cuptiActivityEnable");
  check(reinterpret_cast<const void*>(cuptiActivityDisable), "cuptiActivityDisable");
  check(reinterpret_cast<const void*>(cuptiActivityGetNextRecord), "cuptiActivityGetNextRecord");
  check(reinterpret_cast<const void*>(cuptiActivityGetNumDroppedRecords),
        "cuptiActivityGetNumDroppedRecords");
  check(reinterpret_cast<const void*>(cuptiActivityFlushAll), "cuptiActivityFlushAll");
  check(reinterpret_cast<const void*>(cuptiActivityPushExternalCorrelationId),
        "cuptiActivityPushExternalCorrelationId");
  check(reinterpret_cast<const void*>(cuptiActivityPopExternalCorrelationId),
        "cuptiActivityPopExternalCorrelationId");
  check(reinterpret_cast<const void*>(cuptiSubscribe), "cuptiSubscribe");
  check(reinterpret_cast<const void*>(cuptiUnsubscribe), "cuptiUnsubscribe");
  return missing;
}

std::string CuptiResultText(decltype(&::cuptiGetResultString) get_result_string,
                            CUptiResult result) {
  const char* name = nullptr;
  if (get_result_string != nullptr && get_result_string(result, &name) != CUPTI_SUCCESS) {
    name = nullptr;
  }
  std::string text = name != nullptr ? name : "CUPTI error";
  return text + " (" + std::to_string(static_cast<int>(result)) + ")";
}

}  // namespace flopspy::interpose
