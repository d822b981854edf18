#include "mock_cupti.h"

#include <algorithm>
#include <cstdio>

#include "clock.h"

namespace flopspy::testing {
namespace {

CUptiResult GetVersion(uint32_t* version) {
  Mock().calls.push_back("cuptiGetVersion");
  *version = Mock().version;
  return CUPTI_SUCCESS;
}

CUptiResult GetResultString(CUptiResult result, const char** str) {
  switch (result) {
    case CUPTI_ERROR_UNKNOWN:
      *str = "CUPTI_ERROR_UNKNOWN";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_NOT_SUPPORTED";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
      return CUPTI_SUCCESS;
    default:
      return CUPTI_ERROR_INVALID_PARAMETER;
  }
}

CUptiResult GetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  static const std::map<uint32_t, const char*> driver = {
      {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel"},
      {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx"},
      {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch"},
      {CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc"},
      {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2"},
      {CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, "cuMemsetD32_v2"},
      {CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize"},
      {CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2"},
  };
  static const std::map<uint32_t, const char*> runtime = {
      {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel_v7000"},
      {CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel_v13000"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync_v3020"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000, "cudaLaunchHostFunc_v10000"},
      {CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize_v3020"},
  };
  const auto& table = domain == CUPTI_CB_DOMAIN_DRIVER_API ? driver : runtime;
  const auto it = table.find(cbid);
  if (it == table.end()) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = it->second;
  return CUPTI_SUCCESS;
}

CUptiResult SubscribeCommon(CUpti_SubscriberHandle* subscriber, CUpti_SubscriberParams* params) {
  if (Mock().subscribe_result != CUPTI_SUCCESS) {
    if (Mock().subscribe_result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED &&
        params != nullptr && params->oldSubscriberName != nullptr) {
      std::snprintf(params->oldSubscriberName, params->oldSubscriberSize, "%s",
                    Mock().holder.c_str());
    }
    return Mock().subscribe_result;
  }
  ++Mock().subscribers;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(uintptr_t{0x5});
  return CUPTI_SUCCESS;
}

CUptiResult Subscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc, void*) {
  Mock().calls.push_back("cuptiSubscribe");
  return SubscribeCommon(subscriber, nullptr);
}

CUptiResult SubscribeV2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc, void*,
                        CUpti_SubscriberParams* params) {
  Mock().calls.push_back("cuptiSubscribe_v2");
  if (params != nullptr && params->subscriberName != nullptr) {
    Mock().subscriber_name = params->subscriberName;
  }
  return SubscribeCommon(subscriber, params);
}

CUptiResult Unsubscribe(CUpti_SubscriberHandle) {
  Mock().calls.push_back("cuptiUnsubscribe");
  --Mock().subscribers;
  return CUPTI_SUCCESS;
}

CUptiResult RegisterTimestamp(CUpti_TimestampCallbackFunc f) {
  Mock().calls.push_back("cuptiActivityRegisterTimestampCallback");
  Mock().timestamp = f;
  return CUPTI_SUCCESS;
}

CUptiResult RegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                              CUpti_BuffersCallbackCompleteFunc complete) {
  Mock().calls.push_back("cuptiActivityRegisterCallbacks");
  if (Mock().register_callbacks_result != CUPTI_SUCCESS) return Mock().register_callbacks_result;
  Mock().request = request;
  Mock().complete = complete;
  return CUPTI_SUCCESS;
}

CUptiResult Enable(CUpti_ActivityKind kind) {
  Mock().calls.push_back("cuptiActivityEnable(" + std::to_string(kind) + ")");
  if (Mock().failing_kinds.contains(kind)) return CUPTI_ERROR_NOT_SUPPORTED;
  Mock().enabled_kinds.insert(kind);
  if (kind == CUPTI_ACTIVITY_KIND_DRIVER)
    Mock().driver_cbids.clear(), Mock().driver_cbids_off.clear();
  if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
    Mock().runtime_cbids.clear(), Mock().runtime_cbids_off.clear();
  }
  return CUPTI_SUCCESS;
}

CUptiResult Disable(CUpti_ActivityKind kind) {
  Mock().calls.push_back("cuptiActivityDisable(" + std::to_string(kind) + ")");
  Mock().enabled_kinds.erase(kind);
  return CUPTI_SUCCESS;
}

CUptiResult EnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  (enable ? Mock().driver_cbids : Mock().driver_cbids_off).insert(cbid);
  return CUPTI_SUCCESS;
}

CUptiResult EnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  (enable ? Mock().runtime_cbids : Mock().runtime_cbids_off).insert(cbid);
  return CUPTI_SUCCESS;
}

CUptiResult GetNumDropped(CUcontext, uint32_t, size_t* dropped) {
  *dropped = Mock().dropped;
  Mock().dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult FlushAll(uint32_t flag) {
  Mock().calls.push_back("cuptiActivityFlushAll(" + std::to_string(flag) + ")");
  (flag == CUPTI_ACTIVITY_FLAG_FLUSH_FORCED ? Mock().flush_forced : Mock().flush_default)++;
  return flag == CUPTI_ACTIVITY_FLAG_FLUSH_FORCED ? Mock().forced_flush_result : CUPTI_SUCCESS;
}

CUptiResult Push(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  Mock().pushes.emplace_back(kind, id);
  return CUPTI_SUCCESS;
}

CUptiResult Pop(CUpti_ExternalCorrelationKind, uint64_t* last) {
  ++Mock().pops;
  if (last != nullptr) *last = Mock().pushes.empty() ? 0 : Mock().pushes.back().second;
  return CUPTI_SUCCESS;
}

CUresult Init(unsigned int) {
  Mock().calls.push_back("cuInit");
  return Mock().init_result;
}

CUresult DeviceGetCount(int* count) {
  Mock().calls.push_back("cuDeviceGetCount");
  *count = Mock().device_count;
  return CUDA_SUCCESS;
}

CUresult DriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

size_t RecordSize(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return Mock().kernel_record_size;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return Mock().memcpy_record_size;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof(CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      return sizeof(CUpti_ActivityContext3);
    default:
      return 0;
  }
}

}  // namespace

MockCupti& Mock() {
  // Function-local: child scenarios run from a static initializer of another file.
  static auto* mock = new MockCupti;
  return *mock;
}

void ResetMock() {
  Mock() = MockCupti{};
}

interpose::CuptiApi MockApi(bool with_names, bool with_v2) {
  interpose::CuptiApi api;
  api.cuptiGetVersion = GetVersion;
  api.cuptiActivityRegisterCallbacks = RegisterCallbacks;
  api.cuptiActivityRegisterTimestampCallback = RegisterTimestamp;
  api.cuptiActivityEnable = Enable;
  api.cuptiActivityDisable = Disable;
  api.cuptiActivityGetNextRecord = MockNextRecord;
  api.cuptiActivityGetNumDroppedRecords = GetNumDropped;
  api.cuptiActivityFlushAll = FlushAll;
  api.cuptiActivityPushExternalCorrelationId = Push;
  api.cuptiActivityPopExternalCorrelationId = Pop;
  api.cuptiSubscribe = Subscribe;
  api.cuptiUnsubscribe = Unsubscribe;
  api.cuptiSubscribe_v2 = with_v2 ? SubscribeV2 : nullptr;
  api.cuptiGetResultString = GetResultString;
  api.cuptiGetCallbackName = with_names ? GetCallbackName : nullptr;
  api.cuptiActivityEnableDriverApi = EnableDriverApi;
  api.cuptiActivityEnableRuntimeApi = EnableRuntimeApi;
  api.cuInit = Init;
  api.cuDeviceGetCount = DeviceGetCount;
  api.cuDriverGetVersion = DriverGetVersion;
  return api;
}

interpose::CuptiEnvironment MockEnvironment(Said* said, bool driver_loaded,
                                            interpose::CuptiApi api) {
  interpose::CuptiEnvironment env;
  env.recording = [] { return true; };
  env.loaded_driver = [driver_loaded]() -> void* {
    return driver_loaded ? reinterpret_cast<void*>(0x1) : nullptr;
  };
  env.locate = [](std::string_view) {
    interpose::CuptiLibrary library;
    library.handle = reinterpret_cast<void*>(0x2);
    library.path = "/mock/libcupti.so.13";
    library.origin = "mock";
    return library;
  };
  env.resolve = [api](void*, void* driver, interpose::CuptiApi* out) {
    *out = api;
    if (driver == nullptr) {
      out->cuInit = nullptr;
      out->cuDeviceGetCount = nullptr;
      out->cuDriverGetVersion = nullptr;
    }
  };
  env.report = [said](std::string_view, trace::WarningCode, std::string_view message) {
    said->reports.emplace_back(message);
  };
  env.notice = [said](std::string_view, trace::WarningCode, std::string_view message) {
    said->notices.emplace_back(message);
  };
  env.metadata = [said](std::string json) { said->metadata.push_back(std::move(json)); };
  env.attach = [said](interpose::ActivitySource* source) { said->attached = source; };
  env.now = [] { return interpose::NowNs(); };
  return env;
}

CUptiResult MockNextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  size_t at = 0;
  if (*record != nullptr) {
    const auto* current = reinterpret_cast<const uint8_t*>(*record);
    uint32_t kind;
    std::memcpy(&kind, current, sizeof(kind));
    const size_t size = RecordSize(kind);
    if (size == 0) return CUPTI_ERROR_INVALID_KIND;
    at = static_cast<size_t>(current - buffer) + size;
  }
  if (at >= valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  uint32_t kind;
  std::memcpy(&kind, buffer + at, sizeof(kind));
  if (RecordSize(kind) == 0 || at + RecordSize(kind) > valid_size) return CUPTI_ERROR_INVALID_KIND;
  *record = reinterpret_cast<CUpti_Activity*>(buffer + at);
  return CUPTI_SUCCESS;
}

CUpti_ActivityKernel10 Kernel(uint32_t correlation, uint64_t start, uint64_t end,
                              const char* name) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = 7;
  k.gridX = 128;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.dynamicSharedMemory = 0;
  k.correlationId = correlation;
  k.name = name;
  k.clusterX = k.clusterY = k.clusterZ = 0;
  return k;
}

CUpti_ActivityMemcpy6 Memcpy(uint32_t correlation, uint64_t start, uint64_t end, uint64_t bytes,
                             CUpti_ActivityMemcpyKind kind, CUpti_ActivityMemoryKind src,
                             CUpti_ActivityMemoryKind dst) {
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = static_cast<uint8_t>(kind);
  m.srcKind = static_cast<uint8_t>(src);
  m.dstKind = static_cast<uint8_t>(dst);
  m.bytes = bytes;
  m.start = start;
  m.end = end;
  m.deviceId = 0;
  m.contextId = 1;
  m.streamId = 7;
  m.correlationId = correlation;
  return m;
}

CUpti_ActivityMemset4 Memset(uint32_t correlation, uint64_t start, uint64_t end, uint64_t bytes,
                             CUpti_ActivityMemoryKind kind) {
  CUpti_ActivityMemset4 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.bytes = bytes;
  m.start = start;
  m.end = end;
  m.deviceId = 0;
  m.contextId = 1;
  m.streamId = 7;
  m.correlationId = correlation;
  m.memoryKind = static_cast<uint16_t>(kind);
  return m;
}

CUpti_ActivityExternalCorrelation External(uint32_t correlation, uint64_t flopspy_id,
                                           CUpti_ExternalCorrelationKind kind) {
  CUpti_ActivityExternalCorrelation e{};
  e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e.externalKind = kind;
  e.externalId = flopspy_id;
  e.correlationId = correlation;
  return e;
}

CUpti_ActivityAPI ApiRecord(uint32_t correlation, CUpti_ActivityKind kind, uint32_t cbid) {
  CUpti_ActivityAPI a{};
  a.kind = kind;
  a.cbid = cbid;
  a.start = 1;
  a.end = 2;
  a.correlationId = correlation;
  return a;
}

uint32_t RecordingSink::KernelSignature(std::string_view mangled_name,
                                        const interpose::KernelShape& shape) {
  for (size_t i = 0; i < signatures.size(); ++i) {
    const Signature& s = signatures[i];
    if (s.name == mangled_name && std::memcmp(&s.shape, &shape, sizeof(shape)) == 0) {
      return static_cast<uint32_t>(i + 1);
    }
  }
  signatures.push_back({std::string(mangled_name), shape});
  return static_cast<uint32_t>(signatures.size());
}

}  // namespace flopspy::testing
