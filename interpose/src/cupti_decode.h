// Decoding CUPTI activity buffers into GpuActivityRecords, on the flusher thread. Pure: it needs
// only the record iterator (cuptiActivityGetNextRecord, or a test's), the CUPTI version and a
// sink, so tests feed it buffers built from the header structs.
//
// Records are read field by field at the offsets of the CUDA 13.0 headers. Kernel5/8/9/10,
// Memcpy5/6, MemcpyPtoP4 and Memset3/4 share those offsets (docs/cuda-notes.md, "CUPTI record
// layouts"); fields that a layout lacks are read only when cuptiGetVersion says the library writes
// them.
//
// Joining GPU work to flopspy's launches: the hooks push their correlation id (kind CUSTOM2)
// around each launch; CUPTI writes an ExternalCorrelation record (CUPTI id -> flopspy id) before
// the API record of the call, and the kernel record, with the same CUPTI id, later and possibly
// in another buffer. A bounded map keeps CUPTI id -> flopspy id; a GPU record whose API record
// has not been seen yet waits a few passes (bounded) for it.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/trace/schema.h"
#include "stream_order_join.h"

namespace flopspy::interpose {

// What makes a kernel signature, besides the function.
struct KernelShape {
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t cluster[3] = {0, 0, 0};
  uint32_t dynamic_smem = 0;
};

// Where decoded records go (the encoder, or a test).
class ActivitySink {
 public:
  virtual ~ActivitySink() = default;
  // The KernelSignatureDef id for a kernel known by its mangled name (may be empty).
  virtual uint32_t KernelSignature(std::string_view mangled_name, const KernelShape& shape) = 0;
  virtual void Emit(const trace::GpuActivityRecord& record) = 0;
  // FLOPSPY_GPU_JOIN=stream: kernel records without a correlation of their own go to this join
  // (stream_order_join.h) instead of waiting for API records; null when not asked.
  virtual StreamOrderJoin* stream_join() { return nullptr; }
};

struct ActivityBufferView {
  uint8_t* data;
  size_t valid_size;
};

using NextRecordFn = decltype(&::cuptiActivityGetNextRecord);

// CUPTI versions (cuptiGetVersion) from which a field exists.
inline constexpr uint32_t kCuptiVersionKernel8 = 18;  // CUDA 11.8: cluster dimensions
inline constexpr uint32_t kCuptiVersion13 = 130000;   // CUDA 13.0: isDeviceLaunched
inline constexpr CUpti_ExternalCorrelationKind kFlopspyCorrelationKind =
    CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;  // Kineto uses CUSTOM0 and CUSTOM1

struct DecoderOptions {
  uint32_t cupti_version = CUPTI_API_VERSION;
  size_t correlation_slots = size_t{1} << 16;  // rounded up to a power of two
  size_t max_deferred = size_t{1} << 14;       // GPU records waiting for their API record
  uint32_t max_defer_passes = 4;               // passes a record may wait
  // Timestamps before this (0: no check) or later than the pass's `now` plus the slack are not
  // on flopspy's clock: another CUPTI client replaced the timestamp source.
  uint64_t valid_from_ns = 0;
  uint64_t clock_slack_ns = 1'000'000'000;
  // A capture window (capture_window.h): a GPU record without a recorded launch ran a launch
  // made outside the window, and is left out.
  bool drop_unjoined = false;
};

struct DecoderStats {
  uint64_t kernels = 0;  // GPU records emitted, by kind
  uint64_t memcpys = 0;
  uint64_t memsets = 0;
  uint64_t joined = 0;                 // emitted with a flopspy correlation id
  uint64_t unjoined = 0;               // emitted without one
  uint64_t outside_window = 0;         // not emitted: no launch inside the capture window
  uint64_t deferred = 0;               // waited at least one pass for their correlation
  uint64_t stream_joined = 0;          // kernel records handed to the stream join
  uint64_t external_correlations = 0;  // CUSTOM2 records read
  uint64_t foreign_correlations = 0;   // external records of other kinds (Kineto's)
  uint64_t api_records = 0;
  uint64_t other_records = 0;    // kinds flopspy does not decode
  uint64_t incomplete = 0;       // dropped: no start or end time
  uint64_t off_clock = 0;        // dropped: timestamps not on flopspy's clock
  uint64_t iterator_errors = 0;  // buffers whose walk ended in an error
};

// CUPTI's copy and memory kinds in the trace's terms.
trace::CopyKind MapCopyKind(uint32_t cupti_copy_kind);
trace::MemoryKind MapMemoryKind(uint32_t cupti_memory_kind);

class ActivityDecoder {
 public:
  explicit ActivityDecoder(const DecoderOptions& options);

  // One flusher pass over the buffers completed since the previous pass, oldest first. With
  // `final`, records still waiting for a correlation are emitted as they are.
  void Decode(std::span<const ActivityBufferView> buffers, NextRecordFn next, ActivitySink& sink,
              uint64_t now_ns, bool final);

  const DecoderStats& stats() const { return stats_; }
  size_t waiting() const { return deferred_.size(); }
  // The flopspy id recorded for a CUPTI correlation id, 0 if none (tests).
  uint64_t Correlation(uint32_t cupti_correlation) const;

 private:
  struct Pending {
    trace::GpuActivityRecord record;
    std::string name;  // kernels: mangled name (CUPTI's pointer is not kept)
    KernelShape shape;
    uint32_t passes;
  };

  void ReadCorrelations(const uint8_t* record, uint32_t kind);
  // Builds the record; false when it must be dropped (counted).
  bool ReadGpuRecord(const uint8_t* record, uint32_t kind, uint64_t now_ns,
                     trace::GpuActivityRecord* out, std::string_view* name, KernelShape* shape);
  void Finish(trace::GpuActivityRecord& record, std::string_view name, const KernelShape& shape,
              uint64_t correlation, ActivitySink& sink);
  // What the stream join sends on, as Finish does with a correlation already decided.
  void EmitJoined(const trace::GpuActivityRecord& record, ActivitySink& sink);
  template <class F>
  void Walk(std::span<const ActivityBufferView> buffers, NextRecordFn next, F&& visit);

  DecoderOptions options_;
  std::vector<uint32_t> map_cupti_;  // ring of CUPTI correlation id -> flopspy id
  std::vector<uint64_t> map_flopspy_;
  size_t map_mask_;
  uint32_t watermark_ = 0;  // highest CUPTI correlation id seen in an API or external record
  std::deque<Pending> deferred_;
  DecoderStats stats_;
};

}  // namespace flopspy::interpose
