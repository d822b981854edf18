#include "mock_range_profiler.h"

#include <cupti_profiler_host.h>

#include <cstring>
#include <new>

namespace flopspy::testing {
namespace {

MockRangeProfiler* g_mock = new MockRangeProfiler;

// Storage for the names GetBaseMetrics hands out.
std::vector<std::string> g_metric_storage;
std::vector<const char*> g_metric_names;
size_t g_metrics_configured = 0;      // by the host object being configured
std::vector<std::string> g_building;  // metric names of the host object being configured
// Configuration images by id (the image's first bytes), with their metrics.
std::map<uint32_t, std::vector<std::string>> g_configs;
// Range profiler objects alive, with the configuration each applied (0: none yet).
std::map<uintptr_t, uint32_t> g_objects;
uintptr_t g_next_object = 0xAB0;

const auto kHost = reinterpret_cast<CUpti_Profiler_Host_Object*>(uintptr_t{0xCD});

// Records the call; returns the failure configured for it, or 0.
int Call(const char* name) {
  g_mock->calls.emplace_back(name);
  if (g_mock->throw_in == name) {
    g_mock->throw_in.clear();
    throw std::bad_alloc();
  }
  const auto it = g_mock->fail.find(name);
  return it == g_mock->fail.end() ? 0 : it->second;
}

CUptiResult Cupti(const char* name) {
  return static_cast<CUptiResult>(Call(name));
}

// --- Device side ---

CUptiResult ProfilerInitialize(CUpti_Profiler_Initialize_Params*) {
  return Cupti("cuptiProfilerInitialize");
}

CUptiResult GetChipName(CUpti_Device_GetChipName_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiDeviceGetChipName")) return rc;
  p->pChipName = g_mock->chip.c_str();
  return CUPTI_SUCCESS;
}

CUptiResult GetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiProfilerGetCounterAvailability")) return rc;
  if (p->pCounterAvailabilityImage == nullptr) {
    p->counterAvailabilityImageSize = 16;
  } else {
    std::memset(p->pCounterAvailabilityImage, 0x5A, p->counterAvailabilityImageSize);
  }
  return CUPTI_SUCCESS;
}

CUptiResult Enable(CUpti_RangeProfiler_Enable_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiRangeProfilerEnable")) return rc;
  const uintptr_t object = g_next_object += 0x10;
  g_objects[object] = 0;
  p->pRangeProfilerObject = reinterpret_cast<CUpti_RangeProfiler_Object*>(object);
  g_mock->enabled = static_cast<int>(g_objects.size());
  return CUPTI_SUCCESS;
}

CUptiResult Disable(CUpti_RangeProfiler_Disable_Params* p) {
  const CUptiResult rc = Cupti("cuptiRangeProfilerDisable");
  g_objects.erase(reinterpret_cast<uintptr_t>(p->pRangeProfilerObject));
  g_mock->enabled = static_cast<int>(g_objects.size());
  return rc;
}

CUptiResult GetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiRangeProfilerGetCounterDataSize")) return rc;
  p->counterDataSize = 256 + 16 * p->numMetrics * p->maxNumOfRanges;
  return CUPTI_SUCCESS;
}

CUptiResult CounterDataInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiRangeProfilerCounterDataImageInitialize")) return rc;
  std::memset(p->pCounterData, 0, p->counterDataSize);
  return CUPTI_SUCCESS;
}

CUptiResult SetConfig(CUpti_RangeProfiler_SetConfig_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiRangeProfilerSetConfig")) return rc;
  g_mock->range = p->range;
  g_mock->replay = p->replayMode;
  const auto object = g_objects.find(reinterpret_cast<uintptr_t>(p->pRangeProfilerObject));
  if (object == g_objects.end()) return CUPTI_ERROR_INVALID_PARAMETER;
  uint32_t id = 0;
  if (p->pConfig != nullptr && p->configSize >= sizeof(id)) {
    std::memcpy(&id, p->pConfig, sizeof(id));
  }
  // As seen on an H200: a later configuration on the same object is accepted and ignored.
  if (object->second == 0 || !g_mock->first_config_sticks) object->second = id;
  return CUPTI_SUCCESS;
}

CUptiResult Start(CUpti_RangeProfiler_Start_Params*) {
  if (const CUptiResult rc = Cupti("cuptiRangeProfilerStart")) return rc;
  ++g_mock->started;
  return CUPTI_SUCCESS;
}

CUptiResult Stop(CUpti_RangeProfiler_Stop_Params* p) {
  if (g_mock->started > 0) --g_mock->started;
  if (const CUptiResult rc = Cupti("cuptiRangeProfilerStop")) return rc;
  p->isAllPassSubmitted = g_mock->all_passes_submitted ? 1 : 0;
  return CUPTI_SUCCESS;
}

CUptiResult Decode(CUpti_RangeProfiler_DecodeData_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiRangeProfilerDecodeData")) return rc;
  p->numOfRangeDropped = g_mock->ranges_dropped;
  const auto object = g_objects.find(reinterpret_cast<uintptr_t>(p->pRangeProfilerObject));
  const auto config = object == g_objects.end() ? g_configs.end() : g_configs.find(object->second);
  g_mock->decoded_metrics.clear();
  if (config != g_configs.end()) {
    g_mock->decoded_metrics.insert(config->second.begin(), config->second.end());
  }
  return CUPTI_SUCCESS;
}

CUptiResult ResultString(CUptiResult result, const char** text) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      *text = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_UNKNOWN:
      *text = "CUPTI_ERROR_UNKNOWN";
      return CUPTI_SUCCESS;
    default:
      return CUPTI_ERROR_INVALID_PARAMETER;
  }
}

// --- Driver ---

CUresult Driver(const char* name) {
  return static_cast<CUresult>(Call(name));
}

CUresult Init(unsigned int) {
  return Driver("cuInit");
}

CUresult DeviceGetCount(int* count) {
  if (const CUresult r = Driver("cuDeviceGetCount")) return r;
  *count = g_mock->device_count;
  return CUDA_SUCCESS;
}

CUresult CtxGetCurrent(CUcontext* ctx) {
  if (const CUresult r = Driver("cuCtxGetCurrent")) return r;
  *ctx = reinterpret_cast<CUcontext>(g_mock->context);
  return CUDA_SUCCESS;
}

CUresult CtxGetDevice(CUdevice* device) {
  if (const CUresult r = Driver("cuCtxGetDevice")) return r;
  *device = g_mock->device;
  return CUDA_SUCCESS;
}

CUresult StreamSynchronize(CUstream stream) {
  g_mock->synchronized_stream = reinterpret_cast<uintptr_t>(stream);
  return Driver("cuStreamSynchronize");
}

CUresult StreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  if (const CUresult r = Driver("cuStreamIsCapturing")) return r;
  *status = g_mock->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

// --- Host side (found through the lookup) ---

CUptiResult HostInitialize(CUpti_Profiler_Host_Initialize_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiProfilerHostInitialize")) return rc;
  if (p->pChipName == nullptr || std::string(p->pChipName) != g_mock->chip) {
    return CUPTI_ERROR_INVALID_CHIP_NAME;
  }
  p->pHostObject = kHost;
  g_metrics_configured = 0;  // host objects are made and configured one at a time
  g_building.clear();
  return CUPTI_SUCCESS;
}

CUptiResult HostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params*) {
  return Cupti("cuptiProfilerHostDeinitialize");
}

CUptiResult HostBaseMetrics(CUpti_Profiler_Host_GetBaseMetrics_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiProfilerHostGetBaseMetrics")) return rc;
  g_metric_storage = g_mock->chip_metrics;
  if (g_metric_storage.empty()) {
    for (const auto& c : gpuroof::CounterCandidates(gpuroof::ChipFamilyOf(g_mock->chip),
                                                    gpuroof::kAllCounterGroups)) {
      g_metric_storage.push_back(c.names.front());
    }
  }
  g_metric_names.clear();
  for (const auto& n : g_metric_storage) g_metric_names.push_back(n.c_str());
  p->ppMetricNames = g_metric_names.data();
  p->numMetrics = g_metric_names.size();
  return CUPTI_SUCCESS;
}

CUptiResult HostAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiProfilerHostConfigAddMetrics")) return rc;
  for (size_t i = 0; i < p->numMetrics; ++i) {
    g_mock->added_metrics.emplace_back(p->ppMetricNames[i]);
    g_building.emplace_back(p->ppMetricNames[i]);
  }
  g_metrics_configured += p->numMetrics;
  return CUPTI_SUCCESS;
}

CUptiResult HostConfigSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiProfilerHostGetConfigImageSize")) return rc;
  p->configImageSize = 64;
  return CUPTI_SUCCESS;
}

CUptiResult HostConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiProfilerHostGetConfigImage")) return rc;
  std::memset(p->pConfigImage, 0x11, p->configImageSize);
  const auto id = static_cast<uint32_t>(g_configs.size() + 1);
  g_configs[id] = g_building;
  if (p->configImageSize >= sizeof(id)) std::memcpy(p->pConfigImage, &id, sizeof(id));
  return CUPTI_SUCCESS;
}

CUptiResult HostPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiProfilerHostGetNumOfPasses")) return rc;
  p->numOfPasses =
      g_mock->metrics_per_pass == 0
          ? g_mock->passes
          : (g_metrics_configured + g_mock->metrics_per_pass - 1) / g_mock->metrics_per_pass;
  return CUPTI_SUCCESS;
}

CUptiResult HostEvaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiProfilerHostEvaluateToGpuValues")) return rc;
  const auto& values = !g_mock->value_sequence.empty()
                           ? g_mock->value_sequence[std::min<size_t>(
                                 g_mock->evaluations, g_mock->value_sequence.size() - 1)]
                           : g_mock->values;
  ++g_mock->evaluations;
  for (size_t i = 0; i < p->numMetrics; ++i) {
    const auto it = values.find(p->ppMetricNames[i]);
    // The hardware counted only what the applied configuration asked for.
    const bool counted = g_mock->decoded_metrics.contains(p->ppMetricNames[i]);
    p->pMetricValues[i] = it == values.end() || !counted ? 0.0 : it->second;
  }
  return CUPTI_SUCCESS;
}

CUptiResult CounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* p) {
  if (const CUptiResult rc = Cupti("cuptiRangeProfilerGetCounterDataInfo")) return rc;
  p->numTotalRanges = g_mock->ranges;
  return CUPTI_SUCCESS;
}

void* Lookup(const char* name) {
  static const std::map<std::string, void*> table = {
      {"cuptiProfilerHostInitialize", reinterpret_cast<void*>(&HostInitialize)},
      {"cuptiProfilerHostDeinitialize", reinterpret_cast<void*>(&HostDeinitialize)},
      {"cuptiProfilerHostGetBaseMetrics", reinterpret_cast<void*>(&HostBaseMetrics)},
      {"cuptiProfilerHostConfigAddMetrics", reinterpret_cast<void*>(&HostAddMetrics)},
      {"cuptiProfilerHostGetConfigImageSize", reinterpret_cast<void*>(&HostConfigSize)},
      {"cuptiProfilerHostGetConfigImage", reinterpret_cast<void*>(&HostConfigImage)},
      {"cuptiProfilerHostGetNumOfPasses", reinterpret_cast<void*>(&HostPasses)},
      {"cuptiProfilerHostEvaluateToGpuValues", reinterpret_cast<void*>(&HostEvaluate)},
      {"cuptiRangeProfilerGetCounterDataInfo", reinterpret_cast<void*>(&CounterDataInfo)},
      {"cuptiGetResultString", reinterpret_cast<void*>(&ResultString)},
  };
  const auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}

}  // namespace

MockRangeProfiler& RangeMock() {
  return *g_mock;
}

void ResetRangeMock() {
  *g_mock = MockRangeProfiler{};
  g_objects.clear();
  g_configs.clear();
  g_building.clear();
}

interpose::CounterApi MockCounterApi() {
  interpose::CounterApi api;
  api.cuptiProfilerInitialize = &ProfilerInitialize;
  api.cuptiDeviceGetChipName = &GetChipName;
  api.cuptiRangeProfilerEnable = &Enable;
  api.cuptiRangeProfilerDisable = &Disable;
  api.cuptiRangeProfilerGetCounterDataSize = &GetCounterDataSize;
  api.cuptiRangeProfilerCounterDataImageInitialize = &CounterDataInitialize;
  api.cuptiRangeProfilerSetConfig = &SetConfig;
  api.cuptiRangeProfilerStart = &Start;
  api.cuptiRangeProfilerStop = &Stop;
  api.cuptiRangeProfilerDecodeData = &Decode;
  api.cuptiProfilerGetCounterAvailability = &GetCounterAvailability;
  api.cuptiGetResultString = &ResultString;
  api.cuInit = &Init;
  api.cuDeviceGetCount = &DeviceGetCount;
  api.cuCtxGetCurrent = &CtxGetCurrent;
  api.cuCtxGetDevice = &CtxGetDevice;
  api.cuStreamSynchronize = &StreamSynchronize;
  api.cuStreamIsCapturing = &StreamIsCapturing;
  api.lookup = &Lookup;
  return api;
}

std::vector<std::string> CallsOf(const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (const auto& c : g_mock->calls) {
    for (const auto& p : prefixes) {
      if (c.rfind(p, 0) == 0) {
        out.push_back(c);
        break;
      }
    }
  }
  return out;
}

interpose::CounterEnvironment MockCounterEnvironment(CounterSaid* said, bool driver_loaded,
                                                     interpose::CuptiState timing) {
  interpose::CounterEnvironment e;
  e.loaded_driver = [driver_loaded]() -> void* {
    return driver_loaded ? reinterpret_cast<void*>(uintptr_t{0xD1}) : nullptr;
  };
  e.locate = [](std::string_view) {
    interpose::CuptiLibrary library;
    library.handle = reinterpret_cast<void*>(uintptr_t{0xC1});
    library.path = "/mock/libcupti.so.13";
    library.origin = "mock";
    return library;
  };
  e.resolve = [](void*, void*, interpose::CounterApi* api) { *api = MockCounterApi(); };
  e.timing_state = [timing](std::string* reason) {
    if (timing == interpose::CuptiState::kUnavailable) *reason = "CUPTI is in use by nsys";
    return timing;
  };
  e.report = [said](std::string_view, trace::WarningCode code, std::string_view message) {
    said->reports.emplace_back(message);
    said->codes.push_back(code);
  };
  e.metadata = [said](std::string json) { said->metadata.push_back(std::move(json)); };
  e.emit = [said](const interpose::RawKernelMetrics& r) { said->records.push_back(r); };
  e.catalog = [said] { ++said->catalog_requests; };  // no flusher: the test catalogues
  return e;
}

}  // namespace flopspy::testing
