#include "launch_record.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>

#include "cpu_sampling.h"
#include "current_device.h"
#include "device_metadata.h"
#include "library_scope.h"
#include "raw_events.h"
#include "recorder.h"

namespace flopspy::interpose {

thread_local bool tls_in_runtime_call __attribute__((tls_model("initial-exec"))) = false;

namespace {

thread_local uint64_t tls_correlation __attribute__((tls_model("initial-exec"))) = 0;
std::atomic<uint64_t> g_next_correlation_slot{1};
constexpr int kCorrelationSlotShift = 40;  // 2^40 launches per thread, 2^24 threads

// cuda.h: CU_LAUNCH_PARAM_END, CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE.
constexpr uintptr_t kParamEnd = 0x00;
constexpr uintptr_t kParamBufferPointer = 0x01;
constexpr uintptr_t kParamBufferSize = 0x02;
constexpr int kMaxExtraPairs = 16;

// A parameter's bytes: the common sizes as fixed-size moves the compiler inlines, not a call.
void CopyParam(uint8_t* out, const void* from, uint32_t n) {
  switch (n) {
    case 4:
      std::memcpy(out, from, 4);
      return;
    case 8:
      std::memcpy(out, from, 8);
      return;
    case 16:
      std::memcpy(out, from, 16);
      return;
    case 1:
      std::memcpy(out, from, 1);
      return;
    case 2:
      std::memcpy(out, from, 2);
      return;
    default:
      std::memcpy(out, from, n);
  }
}

}  // namespace

uint64_t NextCorrelation() noexcept {
  if (__builtin_expect(tls_correlation == 0, 0)) {
    tls_correlation = g_next_correlation_slot.fetch_add(1, std::memory_order_relaxed)
                      << kCorrelationSlotShift;
  }
  return ++tls_correlation;
}

uint32_t CopyParams(const FunctionInfo* function, const ParamSource& source, uint32_t wanted,
                    uint8_t* out, bool* truncated) noexcept {
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
      CopyParam(out + offset, source.params[i], n);
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
                  const ParamSource& params, const trace::GraphNodeRecord* graph_node) noexcept {
  NoteCudaInUse();
  // Every call out of flopspy comes before the reservation: nothing may write to this thread's
  // ring between Reserve and Commit.
  const int16_t device = CurrentDevice(shape.driver);
  uint8_t flags = 0;
  if (InsideLibraryCall()) flags |= trace::kLaunchInsideLibrary;
  if (shape.from_runtime) flags |= trace::kLaunchFromRuntime;
  if (graph_node != nullptr) flags |= trace::kLaunchCaptured;
  const uint64_t duration = exit_ns - enter_ns;
  if (duration > UINT32_MAX) flags |= trace::kLaunchDurationSaturated;
  const uint32_t wanted = std::min<uint32_t>(
      function != nullptr ? function->wanted_param_bytes.load(std::memory_order_relaxed)
                          : trace::kInlineParamBytes,
      UINT8_MAX);
  ThreadBuffer* buffer = RecordingBuffer();
  if (buffer == nullptr) return;
  // Room for every wanted parameter byte; the record is committed at the size it turns out.
  void* at = buffer->Reserve(trace::AlignRecordSize(offsetof(RawLaunch, params) + wanted));
  if (at == nullptr) return;
  auto* raw = static_cast<RawLaunch*>(at);
  raw->h.flags = flags;
  raw->api = static_cast<uint16_t>(api);
  raw->device = device;
  raw->enter_ns = enter_ns;
  raw->duration_ns = static_cast<uint32_t>(std::min<uint64_t>(duration, UINT32_MAX));
  raw->result = result;
  raw->correlation = correlation;
  raw->function = function != nullptr ? function->id : 0;
  std::memcpy(raw->grid, shape.grid, sizeof(raw->grid));
  std::memcpy(raw->block, shape.block, sizeof(raw->block));
  std::memcpy(raw->cluster, shape.cluster, sizeof(raw->cluster));
  raw->dynamic_smem = shape.dynamic_smem;
  raw->stream = shape.stream;
  raw->stream_flags = 0;
  if (shape.stream == kStreamPerThreadHandle || (shape.per_thread_stream && shape.stream == 0)) {
    raw->stream_flags = trace::kStreamPerThreadDefault;
  } else if (shape.stream == kStreamLegacyHandle || shape.stream == 0) {
    raw->stream_flags = trace::kStreamLegacyDefault;
  }
  raw->reserved = 0;
  bool truncated = false;
  raw->param_bytes =
      static_cast<uint8_t>(CopyParams(function, params, wanted, raw->params, &truncated));
  if (truncated) raw->h.flags |= trace::kLaunchParamsTruncated;
  raw->Seal();
  buffer->Commit(raw->h.size());
  if (graph_node != nullptr) {
    trace::GraphNodeRecord node = *graph_node;
    node.h = trace::MakeHeader<trace::GraphNodeRecord>(graph_node->h.flags);
    node.correlation = correlation;
    Emit(node);
  }
}

void RecordApiCall(trace::Api api, uint64_t enter_ns, uint64_t exit_ns, int32_t result,
                   uint64_t correlation, uint64_t stream, uint64_t bytes, uint32_t detail,
                   bool synchronizing, const void* driver) noexcept {
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
