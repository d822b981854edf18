// The launch-overhead analyzer's streaming state (private to analyzers/src/launch_overhead*).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "flopspy/analyzers/correlator.h"
#include "flopspy/analyzers/gpu_timeline.h"
#include "flopspy/analyzers/launch_histogram.h"
#include "flopspy/analyzers/launch_overhead.h"

namespace flopspy::analyzers {

// A launch (or copy call) waiting for its GPU record.
struct PendingSubmit {
  uint64_t enter_ns;
  uint32_t cost_ns;
  uint32_t sig_slot;    // kNoSlot for copies and sets
  uint32_t stream_def;  // StreamDef id of the launch, 0 if none
  uint16_t thread_slot;
  bool eager_kernel;
};

// A GPU record waiting for its launch (CUPTI delivered it first).
struct PendingGpu {
  uint32_t stream_slot;
  uint32_t index;
};

struct GraphSubmit {
  uint64_t exit_ns;
  uint16_t thread_slot;
};

inline constexpr uint32_t kNoSlot = UINT32_MAX;

struct SignatureAgg {
  std::string mangled_name;
  std::string demangled_name;
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  uint64_t launches = 0;
  uint64_t launch_ns = 0;
  uint64_t failed = 0;
  DurationHistogram gpu;
  uint64_t without_launch = 0;
  uint64_t queued = 0;
  uint64_t queue_ns = 0;
};

struct StreamAgg {
  int32_t device = -1;
  uint32_t cupti_stream = 0;
  uint32_t stream_def = 0;
  uint64_t kernels = 0, copies = 0, sets = 0;
  std::vector<GpuInterval> intervals;
};

struct LaunchOverheadAnalyzer::State {
  // `shared` null: the state keeps and feeds an index of its own.
  State(const LaunchOverheadOptions& o, const TraceIndex* shared)
      : options(o),
        own_index(shared == nullptr ? std::make_unique<TraceIndex>() : nullptr),
        index(shared != nullptr ? *shared : *own_index),
        joins(o.max_pending),
        graph_submits(std::max<size_t>(1, o.max_pending / 16)) {}

  LaunchOverheadOptions options;
  std::unique_ptr<TraceIndex> own_index;
  const TraceIndex& index;  // definitions: names, signatures, streams

  // KernelSignatureDef id -> slot: ids are small and dense (the writer numbers them 1, 2, ...),
  // so a vector below kDenseSignatureIds, a map above.
  static constexpr uint32_t kDenseSignatureIds = 1u << 22;
  std::vector<uint32_t> signature_slot_dense;
  std::unordered_map<uint32_t, uint32_t> signature_slot_sparse;
  std::unordered_map<std::string, uint32_t> slot_by_key;  // name + grid + block -> slot
  std::vector<SignatureAgg> signatures;
  std::unordered_map<uint32_t, uint16_t> thread_slots;  // OS thread id -> slot

  // Streams of GPU work, keyed by device << 32 | CUPTI stream.
  std::unordered_map<uint64_t, uint32_t> stream_slot;
  std::vector<StreamAgg> streams;

  // Joins.
  Correlator<PendingSubmit, PendingGpu> joins;
  BoundedPendingMap<GraphSubmit> graph_submits;  // not taken on a join: a graph has many nodes

  std::vector<SyncSpan> syncs;

  // Run-wide.
  DurationHistogram launch_cost;
  DurationHistogram graph_launch_cost;
  DurationHistogram queue_delay;
  uint64_t failed_launches = 0;
  uint64_t cpu_first_ns = UINT64_MAX, cpu_last_ns = 0;
  uint64_t sync_calls = 0, sync_ns = 0;
  uint64_t gpu_kernels = 0, gpu_copies = 0, gpu_sets = 0;
  uint64_t graph_kernels = 0, device_kernels = 0;
  uint64_t captured_launches = 0;  // recorded into a CUDA graph (docs/cuda-graphs.md)
  uint64_t clock_anomalies = 0, bad_gpu_records = 0;

  uint16_t ThreadSlot(uint32_t thread_id);
  uint32_t SignatureSlot(uint32_t signature_id);
  void SetSignatureSlot(uint32_t signature_id, uint32_t slot);
  uint32_t StreamSlot(int32_t device, uint32_t cupti_stream);

  void OnSignature(const trace::KernelSignatureDef& def);
  void OnLaunch(const trace::KernelLaunchRecord& l, uint32_t thread_id);
  void OnApiCall(const trace::ApiCallRecord& a, uint8_t flags, uint32_t thread_id);
  void OnGpu(const trace::GpuActivityRecord& g, uint8_t flags);
  void OnGraphLaunch(uint64_t enter_ns, uint64_t exit_ns, uint64_t correlation, uint16_t thread);
  // Joins a submitting call to a GPU interval, whichever came first.
  void Join(const PendingSubmit& submit, StreamAgg& stream, GpuInterval& interval);

  LaunchOverheadReport Finish();
  // Per device and stream: busy time, gaps and their causes, timelines (frees the intervals).
  void FinishTimelines(LaunchOverheadReport& r);
};

// Which calls are which.
bool IsGraphLaunchApi(trace::Api api);
bool IsSynchronizingApi(trace::Api api);  // blocks the CPU by its nature, flag or not
bool IsCopyOrSetApi(trace::Api api);

}  // namespace flopspy::analyzers
