// The NVTX callbacks. Each one is a hook on the program's thread (docs/architecture.md, "The hot
// path"): a clock read, a name copied (or a pointer to text the receiver owns) and one record in
// the thread's ring; no lock and no allocation, except the first sight of a domain or a
// registered string. While recording is off they only keep the nesting count NVTX returns.
#define NVTX_NO_IMPL
#include "nvtx_receiver.h"

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstring>
#include <cwchar>
#include <string>

#include "capture_window.h"
#include "clock.h"
#include "config.h"
#include "nvtx_names.h"
#include "nvtx_payload.h"
#include "raw_events.h"
#include "recorder.h"

namespace flopspy::interpose {
namespace {

using trace::NamedResource;
using trace::RangeEdge;

// Nesting depth per domain slot: nvtxRangePush returns the level it opens, pop the one it closes.
thread_local int32_t tls_depth[kNvtxDepthSlots] __attribute__((tls_model("initial-exec")));
// Range ids come from the process-wide counter in blocks, so a start takes no atomic operation.
constexpr uint64_t kIdBlock = 1024;
std::atomic<uint64_t> g_next_id_block{1};
thread_local uint64_t tls_next_id __attribute__((tls_model("initial-exec"))) = 0;
thread_local uint64_t tls_id_end __attribute__((tls_model("initial-exec"))) = 0;

nvtxRangeId_t NextRangeId() {
  if (tls_next_id == tls_id_end) {
    tls_next_id = g_next_id_block.fetch_add(kIdBlock, std::memory_order_relaxed);
    tls_id_end = tls_next_id + kIdBlock;
  }
  return tls_next_id++;
}

const NvtxDomain* AsDomain(nvtxDomainHandle_t handle) {
  return reinterpret_cast<const NvtxDomain*>(handle);
}
uint32_t Slot(const NvtxDomain* domain) {
  return domain == nullptr ? 0 : domain->slot;
}

// What an event says about itself, read from the caller's arguments.
struct Event {
  const char* ascii = nullptr;
  const wchar_t* wide = nullptr;
  const char* registered = nullptr;
  uint32_t category = 0;
  uint32_t color = 0;
  const void* payloads = nullptr;  // nvtxPayloadData_t[payload_count] (the payload extension)
  size_t payload_count = 0;
};

Event FromAttributes(const nvtxEventAttributes_t* a) {
  Event e;
  if (a == nullptr) return e;
  const size_t size = a->size;
  if (size >= offsetof(nvtxEventAttributes_t, colorType)) e.category = a->category;
  if (size >= offsetof(nvtxEventAttributes_t, payloadType) && a->colorType == NVTX_COLOR_ARGB) {
    e.color = a->color;
  }
  // The payload extension: payload.ullValue points at reserved0 nvtxPayloadData_t.
  if (size >= offsetof(nvtxEventAttributes_t, messageType) &&
      a->payloadType == kNvtxPayloadTypeExt && a->reserved0 > 0) {
    e.payloads = reinterpret_cast<const void*>(static_cast<uintptr_t>(a->payload.ullValue));
    e.payload_count = static_cast<size_t>(a->reserved0);
  }
  if (size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message)) return e;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      e.ascii = a->message.ascii;
      break;
    case NVTX_MESSAGE_TYPE_UNICODE:
      e.wide = a->message.unicode;
      break;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      // Handles come from NvtxRegisteredString: the text itself.
      e.registered = reinterpret_cast<const char*>(a->message.registered);
      break;
    default:
      break;
  }
  return e;
}

uint8_t CopyName(char (&name)[kMaxRawName], const Event& e) {
  if (e.ascii != nullptr) {
    // One byte past the limit, so that a cut never splits a character.
    return CopyRawName(name, {e.ascii, strnlen(e.ascii, kMaxRawName + 1)});
  }
  if (e.wide != nullptr) return static_cast<uint8_t>(WideToUtf8(e.wide, name, kMaxRawName));
  return 0;
}

// Whether this event is the capture range (only compared when one was asked for).
bool IsCaptureRange(const Event& e) {
  const std::string_view capture = CaptureRangeName();
  if (capture.empty()) return false;
  if (e.registered != nullptr) return capture == e.registered;
  if (e.ascii != nullptr) return capture == e.ascii;
  if (e.wide != nullptr) {
    char text[kMaxRawName];
    return capture == std::string_view(text, WideToUtf8(e.wide, text, sizeof(text)));
  }
  return false;
}
// Bit d: the push at depth d of this thread is the capture range (domains share the bits).
thread_local uint64_t tls_capture_pushes __attribute__((tls_model("initial-exec"))) = 0;
// The id of the start/end range that is the capture range (the first one).
std::atomic<uint64_t> g_capture_range_id{0};

// The figures of the event's payload, right after its range edge (nothing else comes between on
// this thread's ring). Payloads that say nothing flopspy reads leave no record.
void RecordPayload(ThreadBuffer* buffer, const NvtxDomain* domain, const Event& e) {
  NvtxPayloadFigures figures;
  if (!ReadNvtxPayload(domain, e.payloads, e.payload_count, figures)) return;
  auto* raw = reinterpret_cast<RawRangePayload*>(buffer->Reserve(sizeof(RawRangePayload)));
  if (raw == nullptr) return;
  raw->h =
      trace::RecordHeader{static_cast<uint8_t>(RawType::kRange), kRawRangePayloadFlag,
                          static_cast<uint16_t>(sizeof(RawRangePayload) / trace::kRecordAlign)};
  raw->flags = figures.flags;
  raw->bytes = figures.bytes;
  raw->comm = figures.comm;
  raw->op = figures.op;
  buffer->Commit(sizeof(RawRangePayload));
}

void Record(RangeEdge edge, const NvtxDomain* domain, const Event& e, uint64_t range_id) {
  if (!g_capturing.load(std::memory_order_relaxed)) return;  // outside the capture window
  ThreadBuffer* buffer = RecordingBuffer();
  if (buffer == nullptr) return;
  const uint64_t now = NowNs();
  auto* raw = reinterpret_cast<RawRange*>(buffer->Reserve(sizeof(RawRange)));
  if (raw == nullptr) return;
  raw->edge = static_cast<uint8_t>(edge);
  raw->reserved = 0;
  raw->time_ns = now;
  raw->range_id = range_id;
  raw->registered = e.registered;
  raw->domain = domain == nullptr ? nullptr : domain->name;
  raw->category = e.category;
  raw->color = e.color;
  raw->name_length = e.registered != nullptr ? 0 : CopyName(raw->name, e);
  raw->Seal();
  buffer->Commit(raw->h.size());
  if (e.payloads != nullptr) RecordPayload(buffer, domain, e);
}

void RecordName(NamedResource resource, uint64_t handle, const NvtxDomain* domain, const Event& e) {
  ThreadBuffer* buffer = RecordingBuffer();
  if (buffer == nullptr) return;
  auto* raw = reinterpret_cast<RawResourceName*>(buffer->Reserve(sizeof(RawResourceName)));
  if (raw == nullptr) return;
  raw->resource = static_cast<uint8_t>(resource);
  raw->reserved = 0;
  raw->handle = handle;
  raw->domain = domain == nullptr ? nullptr : domain->name;
  raw->name_length = CopyName(raw->name, e);
  raw->Seal();
  buffer->Commit(raw->h.size());
}

// The capture range's begin opens the window before it is recorded, its end closes it after.
int Push(const NvtxDomain* domain, const Event& e) {
  int32_t& depth = tls_depth[Slot(domain)];
  const uint64_t bit = uint64_t{1} << (static_cast<uint32_t>(depth) & 63);
  if (IsCaptureRange(e)) {
    CaptureRangeEdge(CaptureRangeName(), true);
    tls_capture_pushes |= bit;
  } else {
    tls_capture_pushes &= ~bit;
  }
  Record(RangeEdge::kPush, domain, e, 0);
  return depth++;
}

int Pop(const NvtxDomain* domain) {
  int32_t& depth = tls_depth[Slot(domain)];
  if (depth == 0) return -1;  // nothing open on this thread: NVTX's error value
  Record(RangeEdge::kPop, domain, {}, 0);
  --depth;
  if ((tls_capture_pushes >> (static_cast<uint32_t>(depth) & 63)) & 1) {
    tls_capture_pushes &= ~(uint64_t{1} << (static_cast<uint32_t>(depth) & 63));
    CaptureRangeEdge(CaptureRangeName(), false);
  }
  return depth;
}

nvtxRangeId_t Start(const NvtxDomain* domain, const Event& e) {
  const nvtxRangeId_t id = NextRangeId();
  if (IsCaptureRange(e)) {
    uint64_t none = 0;
    g_capture_range_id.compare_exchange_strong(none, id, std::memory_order_acq_rel);
    CaptureRangeEdge(CaptureRangeName(), true);
  }
  Record(RangeEdge::kStart, domain, e, id);
  return id;
}

void End(const NvtxDomain* domain, nvtxRangeId_t id) {
  Record(RangeEdge::kEnd, domain, {}, id);
  if (id != 0 && id == g_capture_range_id.load(std::memory_order_acquire)) {
    CaptureRangeEdge(CaptureRangeName(), false);
  }
}

// --- the callbacks, one per NVTX entry point --------------------------------------------------

void MarkEx(const nvtxEventAttributes_t* a) {
  Record(RangeEdge::kMark, nullptr, FromAttributes(a), 0);
}
void MarkA(const char* message) {
  Record(RangeEdge::kMark, nullptr, {.ascii = message}, 0);
}
void MarkW(const wchar_t* message) {
  Record(RangeEdge::kMark, nullptr, {.wide = message}, 0);
}
nvtxRangeId_t RangeStartEx(const nvtxEventAttributes_t* a) {
  return Start(nullptr, FromAttributes(a));
}
nvtxRangeId_t RangeStartA(const char* message) {
  return Start(nullptr, {.ascii = message});
}
nvtxRangeId_t RangeStartW(const wchar_t* message) {
  return Start(nullptr, {.wide = message});
}
void RangeEnd(nvtxRangeId_t id) {
  End(nullptr, id);
}
int RangePushEx(const nvtxEventAttributes_t* a) {
  return Push(nullptr, FromAttributes(a));
}
int RangePushA(const char* message) {
  return Push(nullptr, {.ascii = message});
}
int RangePushW(const wchar_t* message) {
  return Push(nullptr, {.wide = message});
}
int RangePop() {
  return Pop(nullptr);
}
void NameCategoryA(uint32_t category, const char* name) {
  RecordName(NamedResource::kCategory, category, nullptr, {.ascii = name});
}
void NameCategoryW(uint32_t category, const wchar_t* name) {
  RecordName(NamedResource::kCategory, category, nullptr, {.wide = name});
}
void NameOsThreadA(uint32_t thread, const char* name) {
  RecordName(NamedResource::kOsThread, thread, nullptr, {.ascii = name});
}
void NameOsThreadW(uint32_t thread, const wchar_t* name) {
  RecordName(NamedResource::kOsThread, thread, nullptr, {.wide = name});
}

void DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  Record(RangeEdge::kMark, AsDomain(d), FromAttributes(a), 0);
}
nvtxRangeId_t DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return Start(AsDomain(d), FromAttributes(a));
}
void DomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  End(AsDomain(d), id);
}
int DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return Push(AsDomain(d), FromAttributes(a));
}
int DomainRangePop(nvtxDomainHandle_t d) {
  return Pop(AsDomain(d));
}
void DomainNameCategoryA(nvtxDomainHandle_t d, uint32_t category, const char* name) {
  RecordName(NamedResource::kCategory, category, AsDomain(d), {.ascii = name});
}
void DomainNameCategoryW(nvtxDomainHandle_t d, uint32_t category, const wchar_t* name) {
  RecordName(NamedResource::kCategory, category, AsDomain(d), {.wide = name});
}

// Wide text as UTF-8, converted once (registration and domain creation are cold).
std::string Utf8(const wchar_t* wide) {
  std::string text(std::wcslen(wide) * 4, '\0');
  text.resize(WideToUtf8(wide, text.data(), text.size()));
  return text;
}

nvtxStringHandle_t DomainRegisterStringA(nvtxDomainHandle_t d, const char* text) {
  if (text == nullptr) return nullptr;
  return reinterpret_cast<nvtxStringHandle_t>(
      const_cast<char*>(NvtxRegisteredString(AsDomain(d), text)));
}
nvtxStringHandle_t DomainRegisterStringW(nvtxDomainHandle_t d, const wchar_t* text) {
  if (text == nullptr) return nullptr;
  try {
    return reinterpret_cast<nvtxStringHandle_t>(
        const_cast<char*>(NvtxRegisteredString(AsDomain(d), Utf8(text))));
  } catch (...) {  // bad_alloc: events with this handle carry no name
    return nullptr;
  }
}
nvtxDomainHandle_t DomainCreateA(const char* name) {
  if (name == nullptr) return nullptr;
  return reinterpret_cast<nvtxDomainHandle_t>(const_cast<NvtxDomain*>(NvtxDomainNamed(name)));
}
nvtxDomainHandle_t DomainCreateW(const wchar_t* name) {
  if (name == nullptr) return nullptr;
  try {
    return reinterpret_cast<nvtxDomainHandle_t>(
        const_cast<NvtxDomain*>(NvtxDomainNamed(Utf8(name))));
  } catch (...) {  // bad_alloc: the default domain
    return nullptr;
  }
}
// Domains outlive their destruction: records on their way to the flusher point at the name.
void DomainDestroy(nvtxDomainHandle_t) {}

// CUDA driver and runtime names (nvToolsExtCuda.h, nvToolsExtCudaRt.h); handles as integers.
template <NamedResource kResource, class Handle>
void NameA(Handle handle, const char* name) {
  RecordName(kResource, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle)), nullptr,
             {.ascii = name});
}
template <NamedResource kResource, class Handle>
void NameW(Handle handle, const wchar_t* name) {
  RecordName(kResource, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle)), nullptr,
             {.wide = name});
}
void NameDeviceA(int device, const char* name) {
  RecordName(NamedResource::kCudaDevice, static_cast<uint64_t>(device), nullptr, {.ascii = name});
}
void NameDeviceW(int device, const wchar_t* name) {
  RecordName(NamedResource::kCudaDevice, static_cast<uint64_t>(device), nullptr, {.wide = name});
}

struct Callback {
  unsigned id;
  NvtxFunctionPointer function;
};

template <class F>
NvtxFunctionPointer Fn(F* f) {
  return reinterpret_cast<NvtxFunctionPointer>(f);
}

// Writes each callback into the loader's table of `module`; false if the loader has none.
template <size_t N>
bool Fill(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module,
          const Callback (&slots)[N]) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) {
    return false;
  }
  for (const Callback& slot : slots) {
    if (slot.id < size && table[slot.id] != nullptr) *table[slot.id] = slot.function;
  }
  return true;
}

bool ReceiverWanted() noexcept {
  if (const Recorder* r = Recorder::Get()) return r->config().nvtx;
  // A library's constructor may call NVTX before flopspy's own constructor has run.
  static const bool wanted = [] {
    try {
      const ConfigResult parsed = ParseConfigFromEnvironment();
      return parsed.config.enabled && parsed.config.nvtx;
    } catch (...) {
      return false;
    }
  }();
  return wanted;
}

}  // namespace

int AttachNvtx(NvtxExportTableGetter get_export_table) noexcept {
  if (get_export_table == nullptr || !ReceiverWanted()) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }
  if (const auto* version =
          static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
      version != nullptr && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion != nullptr) {
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  }
  const Callback core[] = {
      {NVTX_CBID_CORE_MarkEx, Fn(MarkEx)},
      {NVTX_CBID_CORE_MarkA, Fn(MarkA)},
      {NVTX_CBID_CORE_MarkW, Fn(MarkW)},
      {NVTX_CBID_CORE_RangeStartEx, Fn(RangeStartEx)},
      {NVTX_CBID_CORE_RangeStartA, Fn(RangeStartA)},
      {NVTX_CBID_CORE_RangeStartW, Fn(RangeStartW)},
      {NVTX_CBID_CORE_RangeEnd, Fn(RangeEnd)},
      {NVTX_CBID_CORE_RangePushEx, Fn(RangePushEx)},
      {NVTX_CBID_CORE_RangePushA, Fn(RangePushA)},
      {NVTX_CBID_CORE_RangePushW, Fn(RangePushW)},
      {NVTX_CBID_CORE_RangePop, Fn(RangePop)},
      {NVTX_CBID_CORE_NameCategoryA, Fn(NameCategoryA)},
      {NVTX_CBID_CORE_NameCategoryW, Fn(NameCategoryW)},
      {NVTX_CBID_CORE_NameOsThreadA, Fn(NameOsThreadA)},
      {NVTX_CBID_CORE_NameOsThreadW, Fn(NameOsThreadW)},
  };
  const Callback core2[] = {
      {NVTX_CBID_CORE2_DomainMarkEx, Fn(DomainMarkEx)},
      {NVTX_CBID_CORE2_DomainRangeStartEx, Fn(DomainRangeStartEx)},
      {NVTX_CBID_CORE2_DomainRangeEnd, Fn(DomainRangeEnd)},
      {NVTX_CBID_CORE2_DomainRangePushEx, Fn(DomainRangePushEx)},
      {NVTX_CBID_CORE2_DomainRangePop, Fn(DomainRangePop)},
      {NVTX_CBID_CORE2_DomainNameCategoryA, Fn(DomainNameCategoryA)},
      {NVTX_CBID_CORE2_DomainNameCategoryW, Fn(DomainNameCategoryW)},
      {NVTX_CBID_CORE2_DomainRegisterStringA, Fn(DomainRegisterStringA)},
      {NVTX_CBID_CORE2_DomainRegisterStringW, Fn(DomainRegisterStringW)},
      {NVTX_CBID_CORE2_DomainCreateA, Fn(DomainCreateA)},
      {NVTX_CBID_CORE2_DomainCreateW, Fn(DomainCreateW)},
      {NVTX_CBID_CORE2_DomainDestroy, Fn(DomainDestroy)},
  };
  const Callback cuda[] = {
      {NVTX_CBID_CUDA_NameCuDeviceA, Fn(NameDeviceA)},
      {NVTX_CBID_CUDA_NameCuDeviceW, Fn(NameDeviceW)},
      {NVTX_CBID_CUDA_NameCuContextA, Fn(NameA<NamedResource::kCudaContext, void*>)},
      {NVTX_CBID_CUDA_NameCuContextW, Fn(NameW<NamedResource::kCudaContext, void*>)},
      {NVTX_CBID_CUDA_NameCuStreamA, Fn(NameA<NamedResource::kCudaStream, void*>)},
      {NVTX_CBID_CUDA_NameCuStreamW, Fn(NameW<NamedResource::kCudaStream, void*>)},
      {NVTX_CBID_CUDA_NameCuEventA, Fn(NameA<NamedResource::kCudaEvent, void*>)},
      {NVTX_CBID_CUDA_NameCuEventW, Fn(NameW<NamedResource::kCudaEvent, void*>)},
  };
  const Callback cudart[] = {
      {NVTX_CBID_CUDART_NameCudaDeviceA, Fn(NameDeviceA)},
      {NVTX_CBID_CUDART_NameCudaDeviceW, Fn(NameDeviceW)},
      {NVTX_CBID_CUDART_NameCudaStreamA, Fn(NameA<NamedResource::kCudaStream, void*>)},
      {NVTX_CBID_CUDART_NameCudaStreamW, Fn(NameW<NamedResource::kCudaStream, void*>)},
      {NVTX_CBID_CUDART_NameCudaEventA, Fn(NameA<NamedResource::kCudaEvent, void*>)},
      {NVTX_CBID_CUDART_NameCudaEventW, Fn(NameW<NamedResource::kCudaEvent, void*>)},
  };
  if (!Fill(*callbacks, NVTX_CB_MODULE_CORE, core)) return 0;
  Fill(*callbacks, NVTX_CB_MODULE_CORE2, core2);
  Fill(*callbacks, NVTX_CB_MODULE_CUDA, cuda);
  Fill(*callbacks, NVTX_CB_MODULE_CUDART, cudart);
  return 1;
}

}  // namespace flopspy::interpose
