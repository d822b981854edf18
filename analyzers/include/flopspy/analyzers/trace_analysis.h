// One trace, analysed in one streaming pass: every kernel signature and every cuBLAS/cuBLASLt
// shape with its launches, GPU time, FLOPs and bytes (with their source), copies by direction,
// and, once the device roofs are known, each placed against the right roof.
//
// Joins are by correlation id. A launch record comes in its thread's chunk; its kernel's GPU
// record comes later, in a GPU activity chunk (or earlier: both orders are handled); a cuBLAS
// call's record follows the launches it made on the same thread, which carry the
// "inside library" flag. Memory grows with the number of distinct groups and the launches still
// waiting for their GPU record, not with the length of the trace.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/external_figures.h"
#include "flopspy/analyzers/gemm_diagnostics.h"
#include "flopspy/analyzers/kernel_catalog.h"
#include "flopspy/analyzers/launch_histogram.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_index.h"
#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/trace/library_groups.h"
#include "flopspy/trace/reader.h"
#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

// FLOPs and bytes of a group, over the launches whose GPU time is known ("timed") and over all.
struct WorkFigures {
  double flops = 0;        // main operation
  double special_ops = 0;  // catalog: special-function operations (inside flops)
  double bytes = 0;
  trace::FigureSource flops_source = trace::FigureSource::kUnknown;
  trace::FigureSource bytes_source = trace::FigureSource::kUnknown;
  uint64_t launches_with_flops = 0;  // how many of the group's launches had a FLOP figure
  uint64_t launches_with_bytes = 0;
  // GPU time of those launches (timed figures only): the basis of a rate when only some
  // launches have figures (docs/flopspy-report.md, "Kernels").
  double flops_ns = 0;
  double bytes_ns = 0;
};

struct KernelGroup {
  uint32_t signature = 0;  // KernelSignatureDef id in the trace; 0 when unknown
  std::string name;        // demangled; "" when the driver could not name it
  std::string shape_key;   // the catalog's shape parameters ("n=67108864")
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  int32_t device = -1;
  uint64_t launches = 0;          // CPU launch records
  uint64_t executions = 0;        // GPU kernel records (graph nodes have no launch record)
  uint64_t graph_executions = 0;  // of them, replays of a recorded CUDA graph node
  double gpu_ns = 0;
  // Sampled GPU timing: the GPU time of every launch, estimated as the mean of the timed
  // executions times the launches (0 when not sampled, or none was timed).
  double estimated_gpu_ns = 0;
  DurationHistogram gpu_durations;
  double launch_ns = 0;  // summed CPU launch cost
  // The first launch of each kernel function loads its module (CUDA's lazy loading, the default
  // since 12.2: milliseconds on an H200), which no later launch pays; kept apart of the mean.
  double first_launch_ns = 0;
  uint64_t first_launches = 0;
  uint64_t launch_errors = 0;
  bool inside_library = false;
  WorkFigures all;    // every launch
  WorkFigures timed;  // launches whose GPU time is known: the basis of rates
  // From the kernel catalog (first launch).
  std::string family;
  std::string functor;
  std::string op;        // KernelClass::op: "gelu" even when the catalog has no model for it
  std::string category;  // KernelCategoryName: the rollup's family ("gemm", "elementwise")
  Confidence confidence = Confidence::kNone;
  std::string reason;
  ComputePath path = ComputePath::kUnknown;
  // From hardware counters (KernelMetrics records): means per measured launch. They stand for
  // every launch of the group; where the catalog has no figure they become the group's figures
  // (source kCounters), otherwise the report shows both (docs/gpu-counters.md).
  uint32_t counter_samples = 0;        // samples (complete or not)
  uint32_t counter_flops_samples = 0;  // of them, those whose FLOPs are complete
  uint32_t counter_bytes_samples = 0;  // of them, those whose DRAM bytes are measured
  double counter_flops = 0;            // mean over counter_flops_samples
  double counter_bytes = 0;            // DRAM read + written, mean over counter_bytes_samples
  uint32_t counter_valid = 0;          // union of the samples' trace::KernelMetricsValid bits
  double counter_flops_min = 0, counter_flops_max = 0;  // over the samples
  double counter_bytes_min = 0, counter_bytes_max = 0;
  std::optional<Placement> placement;  // set by Finish when the device's roofs are known
};

// What tells two cuBLAS/cuBLASLt calls apart in the report: every argument that changes their
// FLOPs, bytes or roof (routine, shape, all four data types, compute and scale types,
// transposes, side/fill/diag, epilogue, and the cuBLASLt pointer attributes of kLibShapeFlags).
// Calls with equal keys share one LibraryGroup.
struct LibraryShapeKey {
  uint16_t routine = 0;
  uint32_t name = 0;  // StringDef id of the exported name (within one trace)
  int64_t m = 0, n = 0, k = 0, batch = 0;
  std::array<uint8_t, 6> types{};  // a, b, c, d, compute, scale
  std::array<uint8_t, 5> ops{};    // trans_a, trans_b, side, uplo, diag
  // cuDNN records: the spatial sizes beside m, n, k (docs/cudnn-hooks.md §2); 0 for cuBLAS.
  std::array<int64_t, 8> dnn_dims{};
  uint32_t epilogue = 0;
  uint32_t flags = 0;  // the record's flags masked by kLibShapeFlags
  auto operator<=>(const LibraryShapeKey&) const = default;
};
inline constexpr uint32_t kLibShapeFlags = trace::kLibBiasPresent | trace::kLibAuxPresent |
                                           trace::kLibScalePointers | trace::kLibAmaxPointer |
                                           trace::kLibFastAccum | trace::kLibGrouped;
LibraryShapeKey LibraryShapeKeyOf(const trace::LibraryCallRecord& call);

// Why a library group runs against its roof: the call's data and compute types, or, where those
// say plain FP32 but the kernel the call launched is named for TF32 (the math mode could not be
// read: legacy API, no getter), the kernel's name.
enum class PathBasis : uint8_t { kCallTypes, kKernelName };
std::string_view PathBasisName(PathBasis basis);

struct LibraryGroup {
  std::string routine;  // exported name, e.g. "cublasGemmEx"
  uint16_t routine_id = 0;
  trace::LibraryCallRecord shape{};  // the first call's arguments (m, n, k, types...)
  uint64_t calls = 0;
  uint64_t failed_calls = 0;  // status != 0
  double cpu_ns = 0;
  // Calls made while a stream captured a CUDA graph: they ran nothing then; each replay of their
  // kernels adds the kernel's share of the call's figures below (docs/cuda-graphs.md).
  uint64_t captured_calls = 0;
  uint64_t captured_kernels = 0;  // the kernels those calls launched into their graphs
  uint64_t graph_kernels = 0;     // executions of those kernels by graph replays
  double flops = 0;
  double epilogue_flops = 0;
  double bytes = 0;
  trace::FigureSource source = trace::FigureSource::kUnknown;
  ComputePath path = ComputePath::kUnknown;
  PathBasis path_basis = PathBasis::kCallTypes;
  uint64_t kernels = 0;      // kernel launches attributed to the calls
  uint64_t timed_calls = 0;  // calls whose kernels' GPU time is known
  double gpu_ns = 0;         // GPU time of those kernels
  double timed_flops = 0;    // FLOPs and bytes of the timed calls
  double timed_bytes = 0;
  int32_t device = -1;
  std::array<uint32_t, 3> main_grid{};  // grid of the call's longest-running kernel
  std::array<uint32_t, 3> main_block{};
  // The kernel groups that ran the calls (indices into this TraceAnalysis's `kernels`, after
  // Finish) and the GPU time each gave: advice uses it to see when two findings concern the same
  // kernel time. Meaningless in groups merged across traces.
  std::vector<std::pair<uint32_t, double>> kernel_time;
  std::optional<Placement> placement;
  std::vector<GemmFinding> findings;  // GEMM shape diagnostics
  // A grouped GEMM whose groups differ (kLibGrouped; shape.m/n/k are its first group's and
  // shape.batch its group count): the groups of the first of its calls whose LibraryGroups
  // records came whole, as listed (flopspy lists 64), and the sums of those not listed.
  // groups_known is false in a format-1 trace or when the records were damaged; groups_vary
  // when another call of the row had other groups (the row's figures sum every call's own).
  bool groups_known = false;
  bool groups_vary = false;
  std::vector<trace::LibraryGroupShape> groups;
  trace::LibraryGroupsCut groups_cut{};
};

// The calls a row ran: those made eagerly, and each replay of a captured call (its kernels'
// executions over its kernel count).
inline double CallExecutions(const LibraryGroup& g) {
  const double replayed = g.captured_kernels > 0 ? static_cast<double>(g.graph_kernels) *
                                                       static_cast<double>(g.captured_calls) /
                                                       static_cast<double>(g.captured_kernels)
                                                 : 0;
  return static_cast<double>(g.calls) + replayed;
}

// Whether two grouped calls' groups are the same (every listed field, and the sums of the rest).
bool SameGroups(std::span<const trace::LibraryGroupShape> a, const trace::LibraryGroupsCut& a_cut,
                std::span<const trace::LibraryGroupShape> b, const trace::LibraryGroupsCut& b_cut);

struct CopyGroup {
  bool from_gpu = false;  // a GPU record (CUPTI) rather than an API call
  trace::CopyKind kind = trace::CopyKind::kUnknown;
  trace::MemoryKind src = trace::MemoryKind::kUnknown;
  trace::MemoryKind dst = trace::MemoryKind::kUnknown;
  bool is_set = false;  // memset
  uint64_t count = 0;
  double bytes = 0;
  double ns = 0;  // GPU time, or CPU time of the API call when there is no GPU record
  int32_t device = -1;
};

struct DeviceActivity {
  int32_t device = -1;
  uint64_t first_ns = UINT64_MAX;
  uint64_t last_ns = 0;
  double kernel_ns = 0;
  double copy_ns = 0;
  uint64_t kernels = 0;
  // GPU time whose FLOPs come from each source (analytic, catalog, counters, unknown).
  std::array<double, 4> kernel_ns_by_source{};
  double analytic_flops = 0;  // cuBLAS: what the model needs (MFU)
  double catalog_flops = 0;
  double counter_flops = 0;
  std::optional<Utilization> utilization;  // MFU/HFU over the device's active span
  ComputePath utilization_path = ComputePath::kUnknown;
};

// One kernel or copy the GPU ran, with its launch when it was joined to one: what the ranges and
// steps analyses (ranges.h, steps.h) attribute by launching thread and time.
struct TimedActivity {
  uint64_t launch_ns = 0;       // CPU entry of the launch call; 0 without one (graph node, copy)
  uint64_t launch_cost_ns = 0;  // CPU time of the launch call
  uint64_t start_ns = 0;        // on the GPU
  uint64_t end_ns = 0;
  double flops = 0;     // when flops_known
  double bytes = 0;     // copies: bytes moved
  uint32_t thread = 0;  // the launching thread; 0 without a launch
  uint32_t group = 0;   // kernels: index into TraceAnalysis::kernels (after Finish)
  int32_t device = -1;
  uint32_t graph_id = 0;     // graph nodes: the executable graph
  uint64_t correlation = 0;  // the launch's when one joined, else the GPU record's
  bool is_copy = false;
  bool flops_known = false;
  bool from_graph = false;
};
// One executable CUDA graph (docs/cuda-graphs.md): what it ran per replay, and what launching its
// kernels one by one would have cost the CPU.
struct GraphUnit {
  uint32_t exec = 0;         // GraphEventRecord::exec
  uint32_t graph = 0;        // the graph it was instantiated from (or last updated from)
  bool captured = false;     // its graph came from stream capture (else the graph API)
  uint32_t cupti_graph = 0;  // CUPTI's id of it, from its replays' kernel records (0: none)
  int32_t device = -1;
  uint32_t kernel_nodes = 0;  // recorded kernel nodes
  uint64_t replays = 0;       // graph launches that succeeded
  uint64_t failed_replays = 0;
  double launch_ns = 0;              // CPU time of those graph launches
  uint64_t kernel_executions = 0;    // GPU kernel records joined to a node
  uint64_t unjoined_executions = 0;  // its replays' kernel records no node matched
  double gpu_ns = 0;
  double flops = 0;  // over the executions with a FLOP figure
  uint64_t executions_with_flops = 0;
  trace::FigureSource flops_source = trace::FigureSource::kUnknown;  // the weakest
  double bytes = 0;  // over the executions with a byte figure
  uint64_t executions_with_bytes = 0;
  trace::FigureSource bytes_source = trace::FigureSource::kUnknown;
  // What one replay runs by its recorded nodes (as they last were): their FLOPs where known.
  double node_flops = 0;
  uint32_t nodes_with_flops = 0;
  trace::FigureSource node_flops_source = trace::FigureSource::kUnknown;  // the weakest
  // CPU cost of one launch made one by one: the mean of this trace's eager launches, or, without
  // any, of this graph's kernels' own launches when they were captured.
  double one_by_one_launch_ns = 0;
  bool one_by_one_from_eager = false;
  std::vector<uint32_t> kernel_groups;  // indices into TraceAnalysis::kernels (after Finish)

  double KernelsPerReplay() const {
    return replays > 0 ? static_cast<double>(kernel_executions) / static_cast<double>(replays) : 0;
  }
  // CPU time the replays saved against launching their kernels one by one; 0 when unknown.
  double LaunchNsSaved() const {
    return one_by_one_launch_ns * static_cast<double>(kernel_executions) - launch_ns;
  }
};

// Kept per trace, in GPU-record order; beyond this many, the rest are counted, not kept.
inline constexpr size_t kMaxTimedActivities = size_t{1} << 22;

// The share of a device's kernel time whose FLOPs are analytic (cuBLAS): the coverage of the
// utilisation's counted-FLOP figure (Utilization::mfu, "counted FLOPs of peak"); 0 without time.
inline double AnalyticCoverage(const DeviceActivity& d) {
  double total = 0;
  for (double ns : d.kernel_ns_by_source) total += ns;
  return total > 0 ? d.kernel_ns_by_source[1] / total : 0;
}

// Sampled GPU timing (docs/gpu-timing.md, "Sampled"): which launches were timed, and how the
// kernel rows' estimates (KernelGroup::estimated_gpu_ns) stand.
struct GpuSamplingFigures {
  bool sampled = false;
  uint64_t window_ns = 0;  // as configured
  uint64_t period_ns = 0;
  uint32_t windows = 0;
  uint64_t timed_ns = 0;                  // time inside windows, to the last launch
  uint64_t span_ns = 0;                   // from the first window's opening to the last launch
  uint64_t launches_in_windows = 0;       // eager launches that should have GPU times
  uint64_t launches_outside_windows = 0;  // eager launches made while CUPTI was not collecting
  double measured_gpu_ns = 0;             // kernel GPU time measured in the windows
  double estimated_gpu_ns = 0;            // the kernel rows' estimates summed
};

struct TraceAnalysis {
  std::vector<KernelGroup> kernels;     // by GPU time, longest first (after Finish)
  std::vector<LibraryGroup> libraries;  // by GPU time, then CPU time
  std::vector<CopyGroup> copies;
  std::vector<DeviceActivity> devices;
  uint64_t launches = 0;
  uint64_t gpu_kernel_records = 0;
  uint64_t unmatched_launches = 0;  // launches whose GPU record never came (or was evicted)
  uint64_t unmatched_gpu_records = 0;
  uint64_t replayed_gpu_records = 0;  // extra GPU records of counter-measured (replayed) launches
  bool gpu_timing = false;            // any GPU activity record at all
  // Records refused as damaged (LibraryGroups records cut short, out of place or missing), one
  // message each, the first kMaxDamagedMessages of them; damaged_records counts them all.
  std::vector<std::string> damaged_messages;
  uint64_t damaged_records = 0;
  std::vector<TimedActivity> activities;  // ranges and steps read them
  uint64_t activities_dropped = 0;        // beyond kMaxTimedActivities
  std::vector<GraphUnit> graphs;   // executable graphs with a recorded node or replay, by GPU time
  uint64_t captured_launches = 0;  // launches recorded into a graph (ran nothing then)
  uint64_t graph_nodes_dropped = 0;  // graph nodes beyond the analysis's bounds: not joined
  GpuSamplingFigures sampling;
};
inline constexpr size_t kMaxDamagedMessages = 10;

// Placement of a group on a device's roofs (what TraceAnalyzer::Finish does for each group; also
// used for groups merged across traces). nullopt when the group has no GPU time.
std::optional<Placement> PlaceKernelGroup(const KernelGroup& group, const DeviceRoofs& roofs,
                                          const RegimeThresholds& thresholds = {});
std::optional<Placement> PlaceLibraryGroup(const LibraryGroup& group, const DeviceRoofs& roofs,
                                           const RegimeThresholds& thresholds = {});

// Counter figures of a group: FLOPs valid when any FP or tensor metric was measured, bytes when
// DRAM was.
bool CounterFlopsValid(const KernelGroup& group);
bool CounterBytesValid(const KernelGroup& group);
// Relative spread (max - min) / mean of the samples' FLOPs or bytes; 0 with one sample.
double CounterFlopsSpread(const KernelGroup& group);
// Mean CPU cost of a launch of the group, without the first launches of its function when the
// group has later ones (their module load is a one-time cost); 0 without launches.
double SteadyLaunchNs(const KernelGroup& group);
double CounterBytesSpread(const KernelGroup& group);

// Adds `from` into `into` (same kernel or shape seen in another trace); sources combine to the
// weakest.
void MergeFigures(WorkFigures& into, const WorkFigures& from);
void MergeKernelGroup(KernelGroup& into, const KernelGroup& from);
void MergeLibraryGroup(LibraryGroup& into, const LibraryGroup& from);

class TraceAnalyzer {
 public:
  // `max_pending`: launches kept waiting for their GPU record before the oldest are counted as
  // unmatched (bounds memory when GPU timing is off). Keeps a TraceIndex of its own, fed by Add.
  explicit TraceAnalyzer(size_t max_pending = 1u << 20);
  // Reads definitions from `shared`, which the caller fills with each record before Add
  // (AnalyzeTrace shares one index between its analyses); it must outlive the analyzer.
  explicit TraceAnalyzer(const TraceIndex& shared, size_t max_pending = 1u << 20);
  ~TraceAnalyzer();
  TraceAnalyzer(TraceAnalyzer&&) noexcept;
  TraceAnalyzer& operator=(TraceAnalyzer&&) noexcept;

  void Add(const trace::RecordView& record, const StringLookup& strings);

  // Figures for kernels the catalog cannot model (an inductor cache's), used where the catalog's
  // figure is unknown. `figures` must outlive the analyzer; nullptr: none. Call before Add.
  void UseExternalFigures(const ExternalKernelFigures* figures);

  // Places every group on its device's roofs (devices missing from `roofs` stay unplaced) and
  // sorts the tables.
  TraceAnalysis Finish(const std::map<int32_t, DeviceRoofs>& roofs,
                       const RegimeThresholds& thresholds = {});

 private:
  struct State;  // trace_analysis_state.h
  std::unique_ptr<State> state_;
};

}  // namespace flopspy::analyzers
