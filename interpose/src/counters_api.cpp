#include "counters_api.h"

#include "cupti_api.h"
#include "real_symbols.h"

namespace flopspy::interpose {

void ResolveCounterApi(void* cupti_handle, void* driver_handle, CounterApi* api) {
  *api = CounterApi{};
  if (cupti_handle != nullptr) {
    FLOPSPY_RESOLVE(cupti_handle, cuptiProfilerInitialize);
    FLOPSPY_RESOLVE(cupti_handle, cuptiDeviceGetChipName);
    FLOPSPY_RESOLVE(cupti_handle, cuptiRangeProfilerEnable);
    FLOPSPY_RESOLVE(cupti_handle, cuptiRangeProfilerDisable);
    FLOPSPY_RESOLVE(cupti_handle, cuptiRangeProfilerGetCounterDataSize);
    FLOPSPY_RESOLVE(cupti_handle, cuptiRangeProfilerCounterDataImageInitialize);
    FLOPSPY_RESOLVE(cupti_handle, cuptiRangeProfilerSetConfig);
    FLOPSPY_RESOLVE(cupti_handle, cuptiRangeProfilerStart);
    FLOPSPY_RESOLVE(cupti_handle, cuptiRangeProfilerStop);
    FLOPSPY_RESOLVE(cupti_handle, cuptiRangeProfilerDecodeData);
    FLOPSPY_RESOLVE(cupti_handle, cuptiProfilerGetCounterAvailability);
    FLOPSPY_RESOLVE(cupti_handle, cuptiGetResultString);
    api->lookup = [cupti_handle](const char* name) { return RealDlsym(cupti_handle, name); };
  }
  if (driver_handle != nullptr) {
    FLOPSPY_RESOLVE(driver_handle, cuInit);
    FLOPSPY_RESOLVE(driver_handle, cuDeviceGetCount);
    FLOPSPY_RESOLVE(driver_handle, cuCtxGetCurrent);
    FLOPSPY_RESOLVE(driver_handle, cuCtxGetDevice);
    FLOPSPY_RESOLVE(driver_handle, cuStreamSynchronize);
    FLOPSPY_RESOLVE(driver_handle, cuStreamIsCapturing);
  }
}

namespace {

class MissingList {
 public:
  void Check(const void* f, const char* name) {
    if (f != nullptr) return;
    if (!text_.empty()) text_ += ", ";
    text_ += name;
  }
  std::string text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace

#define FLOPSPY_CHECK(name) missing.Check(reinterpret_cast<const void*>(name), #name)

std::string CounterApi::MissingCupti() const {
  MissingList missing;
  FLOPSPY_CHECK(cuptiProfilerInitialize);
  FLOPSPY_CHECK(cuptiDeviceGetChipName);
  FLOPSPY_CHECK(cuptiRangeProfilerEnable);
  FLOPSPY_CHECK(cuptiRangeProfilerDisable);
  FLOPSPY_CHECK(cuptiRangeProfilerGetCounterDataSize);
  FLOPSPY_CHECK(cuptiRangeProfilerCounterDataImageInitialize);
  FLOPSPY_CHECK(cuptiRangeProfilerSetConfig);
  FLOPSPY_CHECK(cuptiRangeProfilerStart);
  FLOPSPY_CHECK(cuptiRangeProfilerStop);
  FLOPSPY_CHECK(cuptiRangeProfilerDecodeData);
  if (!lookup) missing.Check(nullptr, "cuptiProfilerHost*");
  return missing.text();
}

std::string CounterApi::MissingDriver() const {
  MissingList missing;
  FLOPSPY_CHECK(cuInit);
  FLOPSPY_CHECK(cuDeviceGetCount);
  FLOPSPY_CHECK(cuCtxGetCurrent);
  FLOPSPY_CHECK(cuCtxGetDevice);
  FLOPSPY_CHECK(cuStreamSynchronize);
  FLOPSPY_CHECK(cuStreamIsCapturing);
  return missing.text();
}

#undef FLOPSPY_CHECK

std::string CounterErrorText(const CounterApi& api, CUptiResult result) {
  return CuptiResultText(api.cuptiGetResultString, result);
}

}  // namespace flopspy::interpose
