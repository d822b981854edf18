#include "launch_capture.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>

#include "caller_resolver.h"
#include "cpu_sampling.h"
#include "current_device.h"
#include "flopspy/gpu_roofline/device_properties_json.h"
#include "flopspy/gpu_roofline/device_reader.h"
#include "library_resolver.h"
#include "library_scope.h"
#include "recorder.h"

namespace flopspy::interpose {

thread_local bool tls_in_runtime_call __attribute__((tls_model("initial-exec"))) = false;

namespace {

thread_local uint64_t tls_correlation __attribute__((tls_model("initial-exec"))) = 0;
std::atomic<uint64_t> g_next_correlation_slot{1};
constexpr int kCorrelationSlotShift = 40;  // 2^40 launches per thread, 2^24 threads

// CUDA's special stream handles (cuda.h: CU_STREAM_LEGACY, CU_STREAM_PER_THREAD).
constexpr uint64_t kStreamLegacyHandle = 0x1;
constexpr uint64_t kStreamPerThreadHandle = 0x2;

// cuda.h: CU_LAUNCH_PARAM_END, CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE.
constexpr uintptr_t kParamEnd = 0x00;
constexpr uintptr_t kParamBufferPointer = 0x01;
constexpr uintptr_t kParamBufferSize = 0x02;
constexpr int kMaxExtraPairs = 16;
constexpr size_t kMaxParamsProbed = 256;

// The result type of every driver function is an int enum (CUresult); CUDA_SUCCESS is 0. The
// parameter queries answer "invalid value" (1 in both CUresult and cudaError_t) for an index past
// the last parameter; any other error means the kernel could not be described at all.
constexpr int kInvalidValue = 1;
using DriverNameFn = int (*)(const char**, void*);
using DriverParamInfoFn = int (*)(void*, size_t, size_t*, size_t*);
using RuntimeNameFn = int (*)(const char**, const void*);
using RuntimeFuncBySymbolFn = int (*)(void**, const void*);
using RuntimeLastErrorFn = int (*)();

RealFunction<DriverNameFn> g_func_get_name(CudaLibrary::kDriver, "cuFuncGetName");
RealFunction<DriverNameFn> g_kernel_get_name(CudaLibrary::kDriver, "cuKernelGetName");
RealFunction<DriverParamInfoFn> g_func_param_info(CudaLibrary::kDriver, "cuFuncGetParamInfo");
RealFunction<DriverParamInfoFn> g_kernel_param_info(CudaLibrary::kDriver, "cuKernelGetParamInfo");
RealFunction<RuntimeNameFn> g_runtime_get_name(CudaLibrary::kRuntime, "cudaFuncGetName");
RealFunction<RuntimeFuncBySymbolFn> g_runtime_func_by_symbol(CudaLibrary::kRuntime,
                                                             "cudaGetFuncBySymbol");
RealFunction<RuntimeLastErrorFn> g_runtime_peek_error(CudaLibrary::kRuntime, "cudaPeekAtLastError");
RealFunction<RuntimeLastErrorFn> g_runtime_get_error(CudaLibrary::kRuntime, "cudaGetLastError");

// Returns false (layout left unknown) when the first query fails with anything but "invalid
// value": no driver, a handle of another kind. Reading that as "no parameters" would drop the
// leading parameters of every launch of the kernel.
template <class InfoFn, class Handle>
bool ReadLayout(InfoFn info_fn, Handle handle, ParamLayout& layout) {
  if (info_fn == nullptr) return false;
  size_t index = 0;
  for (; index < kMaxParamsProbed; ++index) {
    size_t offset = 0, size = 0;
    const int result = info_fn(handle, index, &offset, &size);
    if (result != 0) {
      if (index == 0 && result != kInvalidValue) return false;
      break;
    }
    if (index < layout.offset.size()) {
      layout.offset[index] = static_cast<uint16_t>(std::min<size_t>(offset, 0xFFFF));
      layout.size[index] = static_cast<uint16_t>(std::min<size_t>(size, 0xFFFF));
      layout.known = static_cast<uint16_t>(index + 1);
    }
  }
  // A kernel with no parameters answers "invalid value" at index 0.
  layout.count = static_cast<uint16_t>(index);
  return true;
}

// The functions of the runtime copy that holds `runtime` (any of its functions), or of the first
// copy found when that is unknown, that name a host stub. A few copies at most: the answers are
// kept, looked up under a lock on the slow path only.
struct RuntimeNaming {
  RuntimeNameFn name = nullptr;
  RuntimeFuncBySymbolFn function = nullptr;  // cudaGetFuncBySymbol: the stub's CUfunction
  RuntimeLastErrorFn peek_error = nullptr;
  RuntimeLastErrorFn get_error = nullptr;
};

RuntimeNaming NamingFor(const void* runtime) {
  RuntimeNaming first{g_runtime_get_name.get(), g_runtime_func_by_symbol.get(),
                      g_runtime_peek_error.get(), g_runtime_get_error.get()};
  if (runtime == nullptr) return first;
  struct Known {
    const void* runtime;
    RuntimeNaming naming;
  };
  static std::mutex* mutex = new std::mutex;  // never destroyed: hooks may run during exit
  static Known known[32] = {};  // keyed by the real function: a few launch entry points per copy
  {
    std::lock_guard lock(*mutex);
    for (const Known& k : known) {
      if (k.runtime == runtime) return k.naming;
    }
  }
  // Resolved without the lock: ResolveBeside takes the dynamic linker's lock (dladdr, dlopen),
  // and a library constructor that launches a kernel while holding that lock would otherwise
  // wait for ours. Two threads may both resolve; the answers are the same.
  RuntimeNaming naming{
      reinterpret_cast<RuntimeNameFn>(ResolveBeside(runtime, "cudaFuncGetName")),
      reinterpret_cast<RuntimeFuncBySymbolFn>(ResolveBeside(runtime, "cudaGetFuncBySymbol")),
      reinterpret_cast<RuntimeLastErrorFn>(ResolveBeside(runtime, "cudaPeekAtLastError")),
      reinterpret_cast<RuntimeLastErrorFn>(ResolveBeside(runtime, "cudaGetLastError"))};
  if (naming.name == nullptr) naming.name = first.name;
  if (naming.function == nullptr) naming.function = first.function;
  if (naming.peek_error == nullptr) naming.peek_error = first.peek_error;
  if (naming.get_error == nullptr) naming.get_error = first.get_error;
  std::lock_guard lock(*mutex);
  for (Known& k : known) {
    if (k.runtime == runtime) return k.naming;
    if (k.runtime == nullptr) {
      k = {runtime, naming};
      break;
    }
  }
  return naming;
}

// A host stub. Every runtime call that fails becomes the thread's last error, which the program
// reads with cudaGetLastError after its launch (PyTorch checks every one), so the parameter
// layout comes from the driver (an index past the last parameter fails), the runtime is asked
// nothing while the program has an error pending (ours would replace it), and anything a
// runtime query left behind is cleared.
void DescribeStub(FunctionInfo& info, const RuntimeNaming& naming) {
  if (naming.peek_error == nullptr || naming.get_error == nullptr) return;
  // The program has an error pending: the kernel stays unnamed rather than risk replacing it.
  if (naming.peek_error() != 0) return;
  const char* name = nullptr;
  void* function = nullptr;
  const auto* stub = reinterpret_cast<const void*>(info.handle);
  if (naming.function != nullptr && naming.function(&function, stub) == 0 && function != nullptr) {
    if (auto f = g_func_get_name.get(); f && f(&name, function) == 0 && name) {
      info.mangled_name = name;
    }
    ReadLayout(g_func_param_info.get(), function, info.layout);
  }
  if (info.mangled_name.empty() && naming.name != nullptr && naming.name(&name, stub) == 0 &&
      name) {
    info.mangled_name = name;
  }
  naming.get_error();  // none pending before: whatever is there now is ours
}

void Describe(FunctionInfo& info, const void* runtime) {
  const char* name = nullptr;
  void* handle = reinterpret_cast<void*>(info.handle);
  switch (info.kind) {
    case FunctionKind::kDriverFunction:
      if (auto f = g_func_get_name.get(); f && f(&name, handle) == 0 && name) {
        info.mangled_name = name;
        ReadLayout(g_func_param_info.get(), handle, info.layout);
      } else if (auto k = g_kernel_get_name.get(); k && k(&name, handle) == 0 && name) {
        // cuLaunchKernel and cuLaunchKernelEx also take a CUkernel cast to CUfunction (CUDA
        // 12.0+), which cuFuncGetName need not accept.
        info.mangled_name = name;
        ReadLayout(g_kernel_param_info.get(), handle, info.layout);
      } else {
        ReadLayout(g_func_param_info.get(), handle, info.layout);
      }
      break;
    case FunctionKind::kDriverKernel:
      if (auto f = g_kernel_get_name.get(); f && f(&name, handle) == 0 && name) {
        info.mangled_name = name;
      }
      ReadLayout(g_kernel_param_info.get(), handle, info.layout);
      break;
    case FunctionKind::kRuntimeKernel:
      // A cudaKernel_t is a CUkernel: the driver answers without touching the runtime.
      if (auto f = g_kernel_get_name.get(); f && f(&name, handle) == 0 && name) {
        info.mangled_name = name;
      }
      ReadLayout(g_kernel_param_info.get(), handle, info.layout);
      break;
    case FunctionKind::kRuntimeStub:
      DescribeStub(info, NamingFor(runtime));
      break;
  }
}

std::atomic<bool> g_devices_noted{false};

void* DriverFunction(const char* name) {
  return ResolveReal(CudaLibrary::kDriver, name);
}

// The GPUs' properties go into the trace once, at the first CUDA call flopspy records: by then
// the program has initialised the driver, and the report needs them to pick each GPU's roofs.
void NoteDevices() {
  if (g_devices_noted.exchange(true, std::memory_order_acq_rel)) return;
  Recorder* recorder = Recorder::Get();
  if (recorder == nullptr) return;
  const gpuroof::DeviceReadResult read = gpuroof::ReadDevices(&DriverFunction);
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : read.devices) devices.push_back(gpuroof::DevicePropertiesToJson(d));
  nlohmann::json block = {
      {"devices", devices},
      {"cuda", {{"driver_api_version", read.driver_api_version}, {"devices_error", read.error}}}};
  recorder->AddMetadata(block.dump());
}

inline void NoteCudaInUse() {
  if (__builtin_expect(!g_devices_noted.load(std::memory_order_relaxed), 0)) NoteDevices();
}

}  // namespace

uint64_t NextCorrelation() {
  if (__builtin_expect(tls_correlation == 0, 0)) {
    tls_correlation = g_next_correlation_slot.fetch_add(1, std::memory_order_relaxed)
                      << kCorrelationSlotShift;
  }
  return ++tls_correlation;
}

FunctionInfo* FunctionFor(uint64_t handle, FunctionKind kind, const void* runtime) {
  if (FunctionInfo* known = Functions().Find(handle)) return known;
  auto* info = new FunctionInfo;
  info->handle = handle;
  info->kind = kind;
  Describe(*info, runtime);
  const Recorder* recorder = Recorder::Get();
  info->wanted_param_bytes.store(
      static_cast<uint16_t>(recorder ? recorder->config().param_bytes : trace::kInlineParamBytes),
      std::memory_order_relaxed);
  return Functions().Insert(info);
}

uint32_t CopyParams(const FunctionInfo* function, const ParamSource& source, uint32_t wanted,
                    uint8_t* out, bool* truncated) {
  *truncated = false;
  if (wanted == 0) return 0;
  if (source.extra != nullptr) {
    const void* buffer = nullptr;
    size_t size = 0;
    for (int i = 0; i < 2 * kMaxExtraPairs; i += 2) {
      const auto key = reinterpret_cast<uintptr_t>(source.extra[i]);
      if (key == kParamEnd) break;
      if (key == kParamBufferPointer) buffer = source.extra[i + 1];
      if (key == kParamBufferSize && source.extra[i + 1] != nullptr) {
        std::memcpy(&size, source.extra[i + 1], sizeof(size));
      }
    }
    if (buffer == nullptr) return 0;
    const size_t n = std::min<size_t>(size, wanted);
    std::memcpy(out, buffer, n);
    *truncated = size > n;
    return static_cast<uint32_t>(n);
  }
  if (source.params == nullptr) return 0;
  if (function == nullptr || function->layout.count == 0xFFFF || function->layout.known == 0) {
    // No layout: only the first parameter's first 4 bytes, enough for ATen's element count.
    if (function != nullptr && function->layout.count == 0) return 0;  // no parameters at all
    if (source.params[0] == nullptr || wanted < 4) return 0;
    std::memcpy(out, source.params[0], 4);
    *truncated = true;
    return 4;
  }
  const ParamLayout& layout = function->layout;
  uint32_t end = 0;
  for (uint16_t i = 0; i < layout.known; ++i) {
    const uint32_t offset = layout.offset[i];
    if (offset >= wanted) {
      *truncated = true;
      break;
    }
    const uint32_t n = std::min<uint32_t>(layout.size[i], wanted - offset);
    if (n < layout.size[i]) *truncated = true;
    if (offset > end) std::memset(out + end, 0, offset - end);  // alignment padding
    if (source.params[i] != nullptr) {
      std::memcpy(out + offset, source.params[i], n);
    } else {
      std::memset(out + offset, 0, n);
    }
    end = std::max(end, offset + n);
  }
  if (layout.count > layout.known && end < wanted) *truncated = true;
  return end;
}

void RecordLaunch(trace::Api api, uint64_t enter_ns, uint64_t exit_ns, int32_t result,
                  uint64_t correlation, const FunctionInfo* function, const LaunchShape& shape,
                  const ParamSource& params) {
  NoteCudaInUse();
  RawLaunch raw;
  uint8_t flags = 0;
  if (InsideLibraryCall()) flags |= trace::kLaunchInsideLibrary;
  if (shape.from_runtime) flags |= trace::kLaunchFromRuntime;
  const uint64_t duration = exit_ns - enter_ns;
  if (duration > UINT32_MAX) flags |= trace::kLaunchDurationSaturated;
  raw.h.flags = flags;
  raw.api = static_cast<uint16_t>(api);
  raw.device = CurrentDevice(shape.driver);
  raw.enter_ns = enter_ns;
  raw.duration_ns = static_cast<uint32_t>(std::min<uint64_t>(duration, UINT32_MAX));
  raw.result = result;
  raw.correlation = correlation;
  raw.function = function != nullptr ? function->id : 0;
  std::memcpy(raw.grid, shape.grid, sizeof(raw.grid));
  std::memcpy(raw.block, shape.block, sizeof(raw.block));
  std::memcpy(raw.cluster, shape.cluster, sizeof(raw.cluster));
  raw.dynamic_smem = shape.dynamic_smem;
  raw.stream = shape.stream;
  raw.stream_flags = 0;
  if (shape.stream == kStreamPerThreadHandle || (shape.per_thread_stream && shape.stream == 0)) {
    raw.stream_flags = trace::kStreamPerThreadDefault;
  } else if (shape.stream == kStreamLegacyHandle || shape.stream == 0) {
    raw.stream_flags = trace::kStreamLegacyDefault;
  }
  raw.reserved = 0;
  const uint32_t wanted = function != nullptr
                              ? function->wanted_param_bytes.load(std::memory_order_relaxed)
                              : trace::kInlineParamBytes;
  bool truncated = false;
  raw.param_bytes = static_cast<uint8_t>(
      CopyParams(function, params, std::min<uint32_t>(wanted, UINT8_MAX), raw.params, &truncated));
  if (truncated) raw.h.flags |= trace::kLaunchParamsTruncated;
  raw.Seal();
  Emit(raw);
}

void RecordApiCall(trace::Api api, uint64_t enter_ns, uint64_t exit_ns, int32_t result,
                   uint64_t correlation, uint64_t stream, uint64_t bytes, uint32_t detail,
                   bool synchronizing, const void* driver) {
  NoteCudaInUse();
  trace::ApiCallRecord r;
  uint8_t flags = 0;
  if (synchronizing) flags |= trace::kApiCallSynchronizing;
  if (InsideLibraryCall()) flags |= trace::kApiCallInsideLibrary;
  r.h = trace::MakeHeader<trace::ApiCallRecord>(flags);
  r.api = static_cast<uint16_t>(api);
  r.device = CurrentDevice(driver);
  r.enter_ns = enter_ns;
  r.exit_ns = exit_ns;
  r.result = result;
  r.detail = detail;
  r.correlation = correlation;
  r.stream = stream;
  r.bytes = bytes;
  Emit(r);
  // Copies that cross PCIe move host DRAM too: CPU roofline points overlapping them are flagged.
  const auto kind = static_cast<trace::CopyKind>(detail & 0xFF);
  if (bytes > 0 && kind != trace::CopyKind::kDeviceToDevice && kind != trace::CopyKind::kPeer) {
    CpuNoteGpuCopy(enter_ns, exit_ns);
  }
}

}  // namespace flopspy::interpose
