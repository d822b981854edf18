// TraceAnalyzer's streaming state, private to analyzers/src: the kernel, library and copy
// tables being filled, the launches waiting for their GPU record or library call, and the
// counter samples. Split by job: trace_analysis.cpp (records, kernel groups, finishing),
// trace_correlation.cpp (GPU records through the join of correlator.h), library_attribution.cpp
// (cuBLAS calls and their kernels), counter_figures.cpp (hardware counter samples).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "flopspy/analyzers/correlator.h"
#include "flopspy/analyzers/external_figures.h"
#include "flopspy/analyzers/trace_analysis.h"
#include "flopspy/analyzers/trace_index.h"
#include "flopspy/trace/library_groups.h"

namespace flopspy::analyzers {

inline bool Known(trace::FigureSource s) {
  return s != trace::FigureSource::kUnknown;
}

// When figures of several sources add up, the weakest source labels the sum.
trace::FigureSource Weakest(trace::FigureSource a, trace::FigureSource b);

// Adds one launch's figures to a group's, each only when its source is known; `gpu_ns` is the
// launch's GPU time (timed figures; 0 for figures over all launches).
void AddFigures(WorkFigures& w, double flops, double special, trace::FigureSource flops_source,
                double bytes, trace::FigureSource bytes_source, double gpu_ns = 0);

// Index of a source in DeviceActivity::kernel_ns_by_source.
inline int SourceIndex(trace::FigureSource s) {
  return static_cast<int>(s) & 3;
}

// Adds `ns` of a kernel group's GPU time to a library group's list of its kernels' time.
void AddKernelTime(LibraryGroup& lib, uint32_t kernel_group, double ns);

// One counter sample, or a group's samples: `samples` of them, `flops_count` with FLOPs of mean
// `flops`, `bytes_count` with DRAM bytes of mean `bytes`, and the extremes of each.
struct CounterPart {
  uint32_t samples = 0, flops_count = 0, bytes_count = 0;
  double flops = 0, bytes = 0;
  uint32_t valid = 0;
  double flops_min = 0, flops_max = 0, bytes_min = 0, bytes_max = 0;
};
// Adds samples to a group's counter figures, each figure over the samples that have it.
void AddCounterSamples(KernelGroup& g, const CounterPart& p);

struct TraceAnalyzer::State {
  State(const TraceIndex* shared, size_t max_pending)
      : own_index_(shared == nullptr ? std::make_unique<TraceIndex>() : nullptr),
        index_(shared != nullptr ? *shared : *own_index_),
        join_(max_pending) {}

  // A launch waiting for its GPU record (or, launched inside a cuBLAS call, for the call's).
  struct Pending {
    uint32_t group = 0;
    int64_t library = -1;  // LibraryGroup index, once the call's record arrived
    double flops = 0, special = 0, bytes = 0;
    // A captured library call's share of its figures, added to its row at each replay.
    double lib_flops = 0, lib_epilogue = 0, lib_bytes = 0;
    trace::FigureSource flops_source = trace::FigureSource::kUnknown;
    trace::FigureSource bytes_source = trace::FigureSource::kUnknown;
    double gpu_ns = 0;                           // once its GPU record came
    uint64_t launch_ns = 0, launch_cost_ns = 0;  // the launch call (ranges, steps)
    uint32_t thread = 0;
    uint64_t correlation = 0;  // the launch's own (a cuBLAS kernel's GPU record carries another)
    int64_t activity = -1;     // its TimedActivity, once timed
    bool captured = false;     // a CUDA graph node: its figures count at each replay
  };
  // An executable CUDA graph being replayed (graph_replays.cpp).
  struct ExecGraph {
    std::vector<Pending> nodes;  // the graph's kernel nodes, in the order they were recorded
    size_t recorded = 0;         // the graph's node records read when they were taken
    bool uses_graph = false;     // counted among its graph's users (graph_users_)
    bool destroyed = false;
    std::vector<uint64_t> handles;  // their CUgraphNode handles
    std::vector<bool> claimed;      // a GPU record's node id already names the node
    std::unordered_map<uint64_t, size_t> by_gpu_node;  // CUPTI's graph node id -> node
    GraphUnit unit;
  };
  // A launch record, held until its LaunchParams records (which follow it) are in.
  struct BufferedLaunch {
    trace::KernelLaunchRecord record{};
    std::vector<uint8_t> params;
    uint32_t thread = 0;
  };
  // The hooks of the join (flopspy/analyzers/correlator.h): what a joined GPU record does.
  struct JoinHooks {
    State& s;
    void Time(Pending& pending, const trace::GpuActivityRecord& gpu) { s.ApplyGpu(pending, gpu); }
    void Alone(const trace::GpuActivityRecord& gpu, const uint32_t* library);
    bool Same(const Pending& pending, const trace::GpuActivityRecord& gpu) const {
      return s.kernels_[pending.group].signature == gpu.signature;
    }
    static bool Before(const trace::GpuActivityRecord& a, const trace::GpuActivityRecord& b) {
      return a.start_ns < b.start_ns;
    }
  };

  void Add(const trace::RecordView& record, const trace::StringLookup& strings);
  TraceAnalysis Finish(const std::map<int32_t, DeviceRoofs>& roofs,
                       const RegimeThresholds& thresholds);

  // trace_analysis.cpp
  void AddLaunch(BufferedLaunch launch);
  void FinishBufferedLaunch();
  void AddApiCall(const trace::ApiCallRecord& api);
  // One copy or set into the row of its kind, direction and source (API call or GPU record).
  void CountCopy(const CopyGroup& row_key, double bytes, double ns);
  uint32_t GroupFor(uint32_t signature, const std::string& shape_key);
  void ResolveUnmatched();
  void FinishSampling();
  void FinishDevices(const std::map<int32_t, DeviceRoofs>& roofs);
  void SortTables();
  // trace_correlation.cpp
  void AddGpu(const trace::GpuActivityRecord& gpu);
  void AddCopy(const trace::GpuActivityRecord& gpu);
  void ApplyGpu(Pending& pending, const trace::GpuActivityRecord& gpu);
  // Keeps a timed kernel (pending non-null) or copy for the ranges and steps analyses.
  void NoteActivity(Pending* pending, const trace::GpuActivityRecord& gpu);
  // library_attribution.cpp
  void AddLibraryCall(const trace::LibraryCallRecord& call, uint32_t thread,
                      const trace::StringLookup& strings);
  void AddLibraryGroups(const trace::RecordView& record);
  void NoteDamaged(const std::string& message);
  // graph_replays.cpp
  void AddCapturedLaunch(Pending pending, uint32_t thread, bool inside_library);
  void AddGraphNode(const trace::GraphNodeRecord& node);
  void AddGraphEvent(const trace::GraphEventRecord& event);
  void AddGraphLaunch(const trace::ApiCallRecord& launch);
  // A kernel record of a graph replay: joined to its node (true), waiting for its graph launch's
  // record (true), or not a replay of a recorded graph (false: it counts alone).
  bool JoinGraphKernel(const trace::GpuActivityRecord& gpu);
  void BindNodes(ExecGraph& exec, uint32_t graph, bool same_topology);
  // A graph's recorded nodes go (destroyed, and no live executable graph may take more of them).
  void ForgetGraphNodes(uint32_t graph);
  void ReleaseGraph(uint32_t graph);
  // Where the node of `handle` is recorded: its position in *graph's nodes; SIZE_MAX if unknown.
  size_t NodeIndexOf(uint64_t handle, uint32_t* graph) const;
  void FinishGraphs();
  // A launch waiting in the join, or a captured one (never timed).
  LibraryCorrelator<Pending, trace::GpuActivityRecord, uint32_t>::Found FindAnyLaunch(
      uint64_t correlation);
  // counter_figures.cpp
  void AddKernelMetrics(const trace::KernelMetricsRecord& metrics, uint32_t thread);
  // Groups with counter samples but no catalog or analytic figure take the counters' figures.
  void FoldCounterSamples();
  void ApplyCounterFigures();

  std::unique_ptr<TraceIndex> own_index_;
  const TraceIndex& index_;  // definitions: names, layouts, classes, signatures
  const ExternalKernelFigures* external_ = nullptr;  // UseExternalFigures; may be null
  std::unordered_set<uint32_t> launched_functions_;  // FunctionDef ids seen in a launch
  std::map<std::pair<uint32_t, std::string>, uint32_t> group_index_;
  std::vector<KernelGroup> kernels_;
  std::map<LibraryShapeKey, uint32_t> library_index_;
  std::vector<LibraryGroup> libraries_;
  trace::LibraryGroupsCollector groups_collector_;
  uint32_t last_library_ = 0;  // LibraryGroup index of the last call (its groups follow it)
  std::map<std::tuple<bool, uint8_t, uint8_t, uint8_t, bool>, uint32_t> copy_index_;
  std::vector<CopyGroup> copies_;
  std::map<int32_t, DeviceActivity> devices_;
  // Launches, GPU records and library calls joined by correlation; replays of measured launches.
  using Join = LibraryCorrelator<Pending, trace::GpuActivityRecord, uint32_t>;
  Join join_;
  std::optional<BufferedLaunch> buffered_;
  // Counter mode: the last launch of each thread (its KernelMetrics record follows it).
  std::unordered_map<uint32_t, std::pair<uint64_t, uint32_t>> last_launch_;  // correlation, group
  // The fullest KernelMetrics record of each sample, by (kernel group, sample number): a sample
  // is measured one pass group per launch, each launch's record carrying the sample so far.
  std::map<std::pair<uint32_t, uint16_t>, trace::KernelMetricsRecord> counter_samples_;
  // CUDA graphs: captured launches by correlation, each graph's nodes (their launches'
  // correlations and handles), executable graphs by id, and graph launches by correlation.
  std::unordered_map<uint64_t, Pending> captured_;
  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> graph_nodes_;
  std::unordered_set<uint32_t> captured_graphs_;
  std::map<uint32_t, ExecGraph> execs_;
  size_t exec_nodes_ = 0;                 // nodes copied into executable graphs, in all
  std::deque<uint32_t> destroyed_execs_;  // whose nodes may go when room is needed
  std::unordered_map<uint32_t, uint32_t> graph_users_;  // live executable graphs of each graph
  std::unordered_set<uint32_t> destroyed_graphs_;       // destroyed, still used
  std::unordered_map<uint64_t, std::pair<uint32_t, size_t>> node_handles_;  // graph, position
  std::unordered_map<uint32_t, uint32_t> captured_in_call_;  // per thread, since its last call
  BoundedPendingMap<uint32_t> replay_execs_{1u << 20};
  std::unordered_multimap<uint64_t, trace::GpuActivityRecord> early_replays_;
  double eager_launch_ns_ = 0;  // CPU cost of launches that ran (graph units' one-by-one cost)
  uint64_t eager_launches_ = 0;
  uint64_t last_launch_ns_ = 0;  // the sampled windows' time is counted up to it
  TraceAnalysis run_;
};

}  // namespace flopspy::analyzers
