#include "cupti_decode.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace flopspy::interpose {
namespace {

// The layouts flopspy reads by offset: the fields it uses sit at the same place in every
// version it may meet (CUDA 12 and 13 libraries), so one set of offsets serves them all.
using Kernel = CUpti_ActivityKernel10;
using Memcpy = CUpti_ActivityMemcpy6;
using Peer = CUpti_ActivityMemcpyPtoP4;
using Memset = CUpti_ActivityMemset4;
using Api = CUpti_ActivityAPI;
using External = CUpti_ActivityExternalCorrelation;

#define FLOPSPY_SAME_OFFSET(A, B, field) \
  static_assert(offsetof(A, field) == offsetof(B, field), #A "." #field " moved")
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, start);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, end);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, deviceId);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, contextId);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, streamId);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, gridX);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, blockX);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, dynamicSharedMemory);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, correlationId);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, name);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, graphNodeId);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel5, graphId);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel8, clusterX);
FLOPSPY_SAME_OFFSET(Kernel, CUpti_ActivityKernel9, clusterZ);
FLOPSPY_SAME_OFFSET(Memcpy, CUpti_ActivityMemcpy5, bytes);
FLOPSPY_SAME_OFFSET(Memcpy, CUpti_ActivityMemcpy5, start);
FLOPSPY_SAME_OFFSET(Memcpy, CUpti_ActivityMemcpy5, correlationId);
FLOPSPY_SAME_OFFSET(Memcpy, CUpti_ActivityMemcpy5, graphNodeId);
FLOPSPY_SAME_OFFSET(Memcpy, CUpti_ActivityMemcpy5, graphId);
FLOPSPY_SAME_OFFSET(Memset, CUpti_ActivityMemset3, bytes);
FLOPSPY_SAME_OFFSET(Memset, CUpti_ActivityMemset3, correlationId);
FLOPSPY_SAME_OFFSET(Memset, CUpti_ActivityMemset3, memoryKind);
FLOPSPY_SAME_OFFSET(Memset, CUpti_ActivityMemset3, graphId);
FLOPSPY_SAME_OFFSET(Memset, CUpti_ActivityMemset3, graphNodeId);
#undef FLOPSPY_SAME_OFFSET
static_assert(offsetof(Kernel, isDeviceLaunched) == 208 && sizeof(CUpti_ActivityKernel9) == 208,
              "Kernel10.isDeviceLaunched lies past the end of a Kernel9 record: gate it");

template <class T>
T Read(const uint8_t* record, size_t offset) {
  T value;
  std::memcpy(&value, record + offset, sizeof(T));
  return value;
}

#define FLOPSPY_FIELD(Layout, record, field) \
  Read<decltype(Layout::field)>(record, offsetof(Layout, field))

bool IsGpuKind(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return true;
    default:
      return false;
  }
}

}  // namespace

trace::CopyKind MapCopyKind(uint32_t cupti_copy_kind) {
  switch (cupti_copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return trace::CopyKind::kHostToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return trace::CopyKind::kDeviceToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return trace::CopyKind::kDeviceToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return trace::CopyKind::kHostToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return trace::CopyKind::kPeer;
    default:
      return trace::CopyKind::kUnknown;
  }
}

trace::MemoryKind MapMemoryKind(uint32_t cupti_memory_kind) {
  switch (cupti_memory_kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return trace::MemoryKind::kPageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return trace::MemoryKind::kPinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return trace::MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
      return trace::MemoryKind::kArray;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return trace::MemoryKind::kManaged;
    default:
      return trace::MemoryKind::kUnknown;
  }
}

ActivityDecoder::ActivityDecoder(const DecoderOptions& options) : options_(options) {
  size_t slots = 1;
  while (slots < options_.correlation_slots) slots <<= 1;
  map_cupti_.assign(slots, 0);
  map_flopspy_.assign(slots, 0);
  map_mask_ = slots - 1;
}

uint64_t ActivityDecoder::Correlation(uint32_t cupti_correlation) const {
  if (cupti_correlation == 0) return 0;
  const size_t i = cupti_correlation & map_mask_;
  return map_cupti_[i] == cupti_correlation ? map_flopspy_[i] : 0;
}

template <class F>
void ActivityDecoder::Walk(std::span<const ActivityBufferView> buffers, NextRecordFn next,
                           F&& visit) {
  for (const ActivityBufferView& buffer : buffers) {
    if (buffer.data == nullptr || buffer.valid_size == 0) continue;
    CUpti_Activity* record = nullptr;
    for (;;) {
      const CUptiResult rc = next(buffer.data, buffer.valid_size, &record);
      if (rc == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
      if (rc != CUPTI_SUCCESS || record == nullptr) {
        ++stats_.iterator_errors;
        break;
      }
      const auto* bytes = reinterpret_cast<const uint8_t*>(record);
      visit(bytes, static_cast<uint32_t>(Read<CUpti_ActivityKind>(bytes, 0)));
    }
  }
}

void ActivityDecoder::ReadCorrelations(const uint8_t* record, uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const uint32_t cupti = FLOPSPY_FIELD(External, record, correlationId);
      if (cupti > watermark_) watermark_ = cupti;
      if (FLOPSPY_FIELD(External, record, externalKind) != kFlopspyCorrelationKind) {
        ++stats_.foreign_correlations;
        return;
      }
      ++stats_.external_correlations;
      if (cupti == 0) return;
      const size_t i = cupti & map_mask_;
      map_cupti_[i] = cupti;
      map_flopspy_[i] = FLOPSPY_FIELD(External, record, externalId);
      return;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API: {
      ++stats_.api_records;
      const uint32_t cupti = FLOPSPY_FIELD(Api, record, correlationId);
      if (cupti > watermark_) watermark_ = cupti;
      return;
    }
    default:
      if (!IsGpuKind(kind)) ++stats_.other_records;
      return;
  }
}

bool ActivityDecoder::ReadGpuRecord(const uint8_t* record, uint32_t kind, uint64_t now_ns,
                                    trace::GpuActivityRecord* out, std::string_view* name,
                                    KernelShape* shape) {
  trace::GpuActivityRecord r{};
  r.h = trace::MakeHeader<trace::GpuActivityRecord>();
  uint8_t flags = 0;
  uint8_t device_launched = 0;
  const bool has_device_launched = options_.cupti_version >= kCuptiVersion13;
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      r.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
      r.start_ns = FLOPSPY_FIELD(Kernel, record, start);
      r.end_ns = FLOPSPY_FIELD(Kernel, record, end);
      r.device = static_cast<int32_t>(FLOPSPY_FIELD(Kernel, record, deviceId));
      r.context = FLOPSPY_FIELD(Kernel, record, contextId);
      r.stream = FLOPSPY_FIELD(Kernel, record, streamId);
      r.cupti_correlation = FLOPSPY_FIELD(Kernel, record, correlationId);
      r.graph_id = FLOPSPY_FIELD(Kernel, record, graphId);
      r.graph_node_id = FLOPSPY_FIELD(Kernel, record, graphNodeId);
      shape->grid[0] = static_cast<uint32_t>(FLOPSPY_FIELD(Kernel, record, gridX));
      shape->grid[1] = static_cast<uint32_t>(FLOPSPY_FIELD(Kernel, record, gridY));
      shape->grid[2] = static_cast<uint32_t>(FLOPSPY_FIELD(Kernel, record, gridZ));
      shape->block[0] = static_cast<uint32_t>(FLOPSPY_FIELD(Kernel, record, blockX));
      shape->block[1] = static_cast<uint32_t>(FLOPSPY_FIELD(Kernel, record, blockY));
      shape->block[2] = static_cast<uint32_t>(FLOPSPY_FIELD(Kernel, record, blockZ));
      shape->dynamic_smem =
          static_cast<uint32_t>(FLOPSPY_FIELD(Kernel, record, dynamicSharedMemory));
      if (options_.cupti_version >= kCuptiVersionKernel8) {
        shape->cluster[0] = FLOPSPY_FIELD(Kernel, record, clusterX);
        shape->cluster[1] = FLOPSPY_FIELD(Kernel, record, clusterY);
        shape->cluster[2] = FLOPSPY_FIELD(Kernel, record, clusterZ);
        // CUPTI reports 1,1,1 or 0,0,0 for kernels launched without a cluster; launches record
        // 0,0,0 then, and both must name the same signature.
        if (shape->cluster[0] <= 1 && shape->cluster[1] <= 1 && shape->cluster[2] <= 1) {
          shape->cluster[0] = shape->cluster[1] = shape->cluster[2] = 0;
        }
      }
      if (has_device_launched) device_launched = FLOPSPY_FIELD(Kernel, record, isDeviceLaunched);
      const char* text = FLOPSPY_FIELD(Kernel, record, name);
      *name = text != nullptr ? std::string_view(text) : std::string_view();
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      r.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy);
      r.copy_kind = static_cast<uint8_t>(MapCopyKind(FLOPSPY_FIELD(Memcpy, record, copyKind)));
      r.src_kind = static_cast<uint8_t>(MapMemoryKind(FLOPSPY_FIELD(Memcpy, record, srcKind)));
      r.dst_kind = static_cast<uint8_t>(MapMemoryKind(FLOPSPY_FIELD(Memcpy, record, dstKind)));
      r.bytes = FLOPSPY_FIELD(Memcpy, record, bytes);
      r.start_ns = FLOPSPY_FIELD(Memcpy, record, start);
      r.end_ns = FLOPSPY_FIELD(Memcpy, record, end);
      r.device = static_cast<int32_t>(FLOPSPY_FIELD(Memcpy, record, deviceId));
      r.context = FLOPSPY_FIELD(Memcpy, record, contextId);
      r.stream = FLOPSPY_FIELD(Memcpy, record, streamId);
      r.cupti_correlation = FLOPSPY_FIELD(Memcpy, record, correlationId);
      r.graph_id = FLOPSPY_FIELD(Memcpy, record, graphId);
      r.graph_node_id = FLOPSPY_FIELD(Memcpy, record, graphNodeId);
      if (has_device_launched) device_launched = FLOPSPY_FIELD(Memcpy, record, isDeviceLaunched);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      r.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy);
      r.copy_kind = static_cast<uint8_t>(trace::CopyKind::kPeer);
      r.src_kind = static_cast<uint8_t>(MapMemoryKind(FLOPSPY_FIELD(Peer, record, srcKind)));
      r.dst_kind = static_cast<uint8_t>(MapMemoryKind(FLOPSPY_FIELD(Peer, record, dstKind)));
      r.bytes = FLOPSPY_FIELD(Peer, record, bytes);
      r.start_ns = FLOPSPY_FIELD(Peer, record, start);
      r.end_ns = FLOPSPY_FIELD(Peer, record, end);
      r.device = static_cast<int32_t>(FLOPSPY_FIELD(Peer, record, deviceId));
      r.context = FLOPSPY_FIELD(Peer, record, contextId);
      r.stream = FLOPSPY_FIELD(Peer, record, streamId);
      r.cupti_correlation = FLOPSPY_FIELD(Peer, record, correlationId);
      r.graph_id = FLOPSPY_FIELD(Peer, record, graphId);
      r.graph_node_id = FLOPSPY_FIELD(Peer, record, graphNodeId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      r.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemset);
      r.dst_kind = static_cast<uint8_t>(MapMemoryKind(FLOPSPY_FIELD(Memset, record, memoryKind)));
      r.bytes = FLOPSPY_FIELD(Memset, record, bytes);
      r.start_ns = FLOPSPY_FIELD(Memset, record, start);
      r.end_ns = FLOPSPY_FIELD(Memset, record, end);
      r.device = static_cast<int32_t>(FLOPSPY_FIELD(Memset, record, deviceId));
      r.context = FLOPSPY_FIELD(Memset, record, contextId);
      r.stream = FLOPSPY_FIELD(Memset, record, streamId);
      r.cupti_correlation = FLOPSPY_FIELD(Memset, record, correlationId);
      r.graph_id = FLOPSPY_FIELD(Memset, record, graphId);
      r.graph_node_id = FLOPSPY_FIELD(Memset, record, graphNodeId);
      if (has_device_launched) device_launched = FLOPSPY_FIELD(Memset, record, isDeviceLaunched);
      break;
    }
    default:
      return false;
  }
  // A forced flush hands over work that has not finished: no usable interval.
  if (r.start_ns == 0 || r.end_ns == 0 || r.end_ns < r.start_ns) {
    ++stats_.incomplete;
    return false;
  }
  // The timestamps come from NowNs (flopspy's clock) and are used as they are; values outside
  // this process's lifetime mean another client gave CUPTI its own clock.
  if ((options_.valid_from_ns != 0 && r.start_ns < options_.valid_from_ns) ||
      r.end_ns > now_ns + options_.clock_slack_ns) {
    ++stats_.off_clock;
    return false;
  }
  if (r.graph_id != 0) flags |= trace::kGpuFromGraph;
  if (device_launched != 0) flags |= trace::kGpuDeviceLaunched;
  r.h.flags = flags;
  *out = r;
  return true;
}

namespace {

// A kernel launched from the CPU outside any graph: the stream join's to place.
bool JoinedByStream(const trace::GpuActivityRecord& r) {
  return static_cast<trace::GpuActivityKind>(r.kind) == trace::GpuActivityKind::kKernel &&
         (r.h.flags & (trace::kGpuFromGraph | trace::kGpuDeviceLaunched)) == 0;
}

}  // namespace

void ActivityDecoder::Finish(trace::GpuActivityRecord& r, std::string_view name,
                             const KernelShape& shape, uint64_t correlation, ActivitySink& sink) {
  if (StreamOrderJoin* join = sink.stream_join();
      join != nullptr && correlation == 0 && JoinedByStream(r)) {
    r.signature = sink.KernelSignature(name, shape);
    KernelIdentity kernel{.name_hash = KernelNameHash(name)};
    std::copy(shape.grid, shape.grid + 3, kernel.grid);
    std::copy(shape.block, shape.block + 3, kernel.block);
    join->AddKernel(r, kernel);
    ++stats_.stream_joined;
    return;
  }
  if (static_cast<trace::GpuActivityKind>(r.kind) == trace::GpuActivityKind::kKernel) {
    r.signature = sink.KernelSignature(name, shape);
  }
  r.correlation = correlation;
  EmitJoined(r, sink);
}

void ActivityDecoder::EmitJoined(const trace::GpuActivityRecord& r, ActivitySink& sink) {
  if (r.correlation == 0 && options_.drop_unjoined) {
    ++stats_.outside_window;
    return;
  }
  if (r.correlation != 0) {
    ++stats_.joined;
  } else {
    ++stats_.unjoined;
  }
  switch (static_cast<trace::GpuActivityKind>(r.kind)) {
    case trace::GpuActivityKind::kKernel:
      ++stats_.kernels;
      break;
    case trace::GpuActivityKind::kMemcpy:
      ++stats_.memcpys;
      break;
    case trace::GpuActivityKind::kMemset:
      ++stats_.memsets;
      break;
  }
  sink.Emit(r);
}

void ActivityDecoder::Decode(std::span<const ActivityBufferView> buffers, NextRecordFn next,
                             ActivitySink& sink, uint64_t now_ns, bool final) {
  // 1. Every correlation these buffers carry, whatever their order.
  Walk(buffers, next,
       [&](const uint8_t* record, uint32_t kind) { ReadCorrelations(record, kind); });

  // 2. Records that waited: joined now, or given up on once their API record has been seen
  //    without a flopspy id, after too many passes, or at the end.
  const size_t waiting = deferred_.size();
  for (size_t i = 0; i < waiting; ++i) {
    Pending pending = std::move(deferred_.front());
    deferred_.pop_front();
    const uint64_t id = Correlation(pending.record.cupti_correlation);
    ++pending.passes;
    if (id != 0 || final || pending.record.cupti_correlation <= watermark_ ||
        pending.passes > options_.max_defer_passes) {
      Finish(pending.record, pending.name, pending.shape, id, sink);
    } else {
      deferred_.push_back(std::move(pending));
    }
  }

  // 3. The GPU records of these buffers.
  Walk(buffers, next, [&](const uint8_t* record, uint32_t kind) {
    if (!IsGpuKind(kind)) return;
    Pending pending{};
    std::string_view name;
    if (!ReadGpuRecord(record, kind, now_ns, &pending.record, &name, &pending.shape)) {
      // A kernel left out: the stream join passes over its launch.
      if (StreamOrderJoin* join = sink.stream_join();
          join != nullptr &&
          (kind == CUPTI_ACTIVITY_KIND_KERNEL || kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
        join->NoteLostRecords(1);
      }
      return;
    }
    const uint32_t cupti = pending.record.cupti_correlation;
    const uint64_t id = Correlation(cupti);
    // Joined by stream order, a kernel waits for no API record (its launch has none).
    const bool by_stream = sink.stream_join() != nullptr && JoinedByStream(pending.record);
    if (id != 0 || final || by_stream || cupti == 0 || cupti <= watermark_ ||
        options_.max_deferred == 0) {
      Finish(pending.record, name, pending.shape, id, sink);
      return;
    }
    // Its API record has not come yet: wait for it, within bounds.
    if (deferred_.size() >= options_.max_deferred) {
      Pending oldest = std::move(deferred_.front());
      deferred_.pop_front();
      Finish(oldest.record, oldest.name, oldest.shape, Correlation(oldest.record.cupti_correlation),
             sink);
    }
    pending.name.assign(name);  // CUPTI's pointer is not kept across passes
    pending.passes = 0;
    ++stats_.deferred;
    deferred_.push_back(std::move(pending));
  });

  // 4. Kernels placed by their stream's order (those whose launch may still come wait).
  if (StreamOrderJoin* join = sink.stream_join()) {
    join->Pass(final, [&](const trace::GpuActivityRecord& r) { EmitJoined(r, sink); });
  }
}

}  // namespace flopspy::interpose
