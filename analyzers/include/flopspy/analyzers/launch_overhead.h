// Launch-overhead analysis: does the program keep the GPU waiting on the CPU?
//
// Fed record by record while a trace is read (like TraceSummarizer), in memory bounded by the
// work in flight plus 24 bytes per GPU interval; Finish() sorts the intervals per stream and
// answers per launch (launch cost, queue delay), per device and stream (busy fraction, idle gaps
// and why), per kernel signature (GPU time, launch cost, launch-bound) and for the run (a
// verdict with the numbers behind it, and an estimate of what CUDA graphs would save).
// docs/launch-overhead.md defines every figure and threshold.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/gpu_timeline.h"
#include "flopspy/analyzers/launch_histogram.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/analyzers/trace_index.h"
#include "flopspy/analyzers/trace_summary.h"
#include "flopspy/trace/reader.h"
#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

struct LaunchOverheadOptions {
  // launch_ratio and tiny_kernel_ns, shared with the roofline's overhead-bound regime: a
  // signature is launch-bound when its mean GPU time < launch_ratio x its mean launch cost.
  RegimeThresholds regime;
  // Verdict thresholds, as fractions of the devices' windows (first GPU work to last).
  double bound_starved_fraction = 0.50;     // starved alone
  double combined_starved_fraction = 0.25;  // starved, together with...
  double combined_total_fraction = 0.50;    // ...starved + launch-bound kernels' GPU time
  double partly_starved_fraction = 0.10;
  double unknown_unattributed_fraction = 0.50;  // idle before work of unknown origin
  // The graphs estimate's assumption: submitting one kernel node of a replayed graph.
  double graph_node_cost_ns = 1000;
  // Bins of the per-stream busy timeline over the trace's GPU window (0: no timeline).
  size_t timeline_bins = 200;
  // Bound on launches waiting for their GPU record (and GPU records waiting for their launch);
  // the oldest are given up beyond it and counted as unmatched.
  size_t max_pending = size_t{1} << 20;
};

enum class OverheadVerdict : uint8_t {
  kUnknown = 0,  // no GPU times, or too much idle time before work of unknown origin
  kNotOverheadBound = 1,
  kPartlyOverheadBound = 2,
  kOverheadBound = 3,
};
std::string_view OverheadVerdictName(OverheadVerdict verdict);

struct DurationStats {
  uint64_t count = 0;
  double mean_ns = 0;
  double p50_ns = 0;
  double p95_ns = 0;
  uint64_t total_ns = 0;
  uint64_t max_ns = 0;
  static DurationStats Of(const DurationHistogram& h);
};

// One kernel signature: name, grid and block (signatures that differ only in cluster or shared
// memory are merged).
struct SignatureOverhead {
  std::string mangled_name;
  std::string demangled_name;  // from the FunctionDef when the trace has it; may be empty
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  uint64_t launches = 0;   // launch calls seen on the CPU
  uint64_t launch_ns = 0;  // their summed cost
  uint64_t failed_launches = 0;
  DurationStats gpu;                     // executions seen on the GPU, eager and graph alike
  uint64_t without_launch = 0;           // GPU executions of graph nodes or device launches
  uint64_t queued = 0;                   // launches joined to their GPU execution
  double mean_queue_delay_ns = 0;        // over `queued`
  std::optional<double> mean_launch_ns;  // nullopt without launch calls
  bool launch_bound = false;             // mean GPU < launch_ratio x mean launch cost
  OverheadReason overhead_reason = OverheadReason::kNone;  // as PlaceOnRoofline says
  // launches x (mean launch cost - mean GPU time), when positive: the GPU time an eager loop of
  // this kernel must leave idle. The order of the report's signature table.
  double launch_excess_ns = 0;
};

struct StreamOverhead {
  int32_t device = -1;
  uint32_t cupti_stream = 0;  // CUPTI's stream id
  uint32_t stream_def = 0;    // StreamDef id of a launch joined to this stream, 0 if none
  uint64_t handle = 0;        // from that StreamDef
  uint32_t stream_flags = 0;  // trace::StreamFlags
  uint64_t kernels = 0, copies = 0, sets = 0;
  uint64_t busy_ns = 0;
  double busy_fraction = 0;  // of its device's window
  // Busy fraction per bin of the report's timeline (LaunchOverheadReport::timeline_*).
  std::vector<float> timeline;
};

struct DeviceOverhead {
  int32_t device = -1;
  uint64_t first_start_ns = 0;
  uint64_t window_ns = 0;
  uint64_t busy_ns = 0;
  double busy_fraction = 0;
  uint64_t intervals = 0;
  GapBreakdown gaps;
  double graphs_saved_ns = 0;
  uint64_t graphs_gaps = 0;
};

// Which rule of docs/launch-overhead.md ("Verdict") decided.
enum class OverheadRule : uint8_t {
  kNoGpuTimes = 0,             // unknown: no GPU activity records
  kNoWindow = 1,               // unknown: GPU work of no duration
  kStarved = 2,                // bound: starved >= bound_starved_fraction
  kStarvedAndLaunchBound = 3,  // bound: starved >= combined_starved, + launch-bound >= total
  kUnattributed = 4,           // unknown: too much idle time before work of unknown origin
  kPartlyStarved = 5,          // partly: starved >= partly_starved_fraction
  kFed = 6,                    // not bound: the GPU rarely waited for launches
  kSampledGpuTimes = 7,        // unknown: GPU times only in sampled windows
};
std::string_view OverheadRuleName(OverheadRule rule);

// The run verdict and the numbers behind it: all devices pooled.
struct OverheadJudgement {
  OverheadVerdict verdict = OverheadVerdict::kUnknown;
  OverheadRule rule = OverheadRule::kNoGpuTimes;
  uint64_t window_ns = 0;
  uint64_t busy_ns = 0;
  uint64_t starved_ns = 0;
  uint64_t synchronized_ns = 0;
  uint64_t other_ns = 0;
  uint64_t unattributed_ns = 0;
  uint64_t launch_bound_gpu_ns = 0;  // GPU time of launch-bound signatures
  // GPU times only in sampled windows (FLOPSPY_GPU_TIMING=sampled): idle time between windows
  // is unknown, not idle, so no verdict is made (rule kSampledGpuTimes).
  bool sampled = false;
  double busy_fraction = 0;
  double starved_fraction = 0;
  double synchronized_fraction = 0;
  double other_fraction = 0;
  double unattributed_fraction = 0;
  double launch_bound_fraction = 0;  // launch_bound_gpu_ns / window_ns
};

// Sets the fractions and the verdict of `judgement` from its times (docs/launch-overhead.md,
// "Verdict"): what a trace's analysis does with its pooled devices, and what the many-trace
// views do with the traces' judgements summed.
void DecideOverheadVerdict(OverheadJudgement& judgement, bool gpu_times,
                           const LaunchOverheadOptions& options = {});

// An estimate, never a measurement: starved idle time before eagerly launched kernels that
// would go if each launch cost graph_node_cost_ns instead of its measured cost.
struct GraphsEstimate {
  bool available = false;
  double node_cost_ns = 0;
  double mean_launch_ns = 0;  // measured, over the eager kernel launches
  uint64_t eager_launches = 0;
  uint64_t gaps_shrunk = 0;
  double saved_ns = 0;
  double saved_fraction = 0;  // of the pooled window
};

struct LaunchOverheadReport {
  // CPU side.
  uint64_t kernel_launches = 0;  // eager launch calls (not graph launches)
  uint64_t failed_launches = 0;  // returned an error: no GPU work follows
  uint64_t graph_launches = 0;
  DurationStats launch_cost;                   // eager kernel launches
  DurationStats graph_launch_cost;             // graph launch calls
  DurationStats queue_delay;                   // eager kernels joined to their GPU execution
  std::optional<double> launches_per_second;   // kernel launches over their CPU span
  uint64_t cpu_first_ns = 0, cpu_last_ns = 0;  // first eager launch entry, last one's exit
  uint64_t sync_calls = 0;
  uint64_t sync_ns = 0;  // CPU time inside synchronising calls

  // GPU side.
  bool gpu_times = false;    // any GPU activity record: without them no verdict can be made
  bool gpu_sampled = false;  // FLOPSPY_GPU_TIMING=sampled: GPU records only in windows
  uint64_t gpu_kernels = 0, gpu_copies = 0, gpu_sets = 0;
  uint64_t graph_kernels = 0, device_kernels = 0;
  uint64_t captured_launches = 0;   // recorded into a CUDA graph: left out (they ran nothing)
  uint64_t unmatched_launches = 0;  // launches whose GPU record never came
  uint64_t unmatched_gpu = 0;       // eager kernels/copies whose launch never came
  uint64_t clock_anomalies = 0;     // GPU start before its launch call began
  uint64_t bad_gpu_records = 0;     // end before start: ignored

  std::vector<SignatureOverhead> signatures;  // by launch_excess_ns, then GPU time, descending
  std::vector<DeviceOverhead> devices;        // by device
  std::vector<StreamOverhead> streams;        // by device, then busy time descending
  // The window every stream's timeline is binned over: first GPU work of any device to the
  // end of the last, in bins of timeline_bin_ns (0 when there was no GPU work).
  uint64_t timeline_start_ns = 0, timeline_bin_ns = 0;
  size_t timeline_bins = 0;
  OverheadJudgement judgement;
  GraphsEstimate graphs;
  std::vector<std::string> notes;  // caveats the report prints as they are

  bool empty() const { return kernel_launches == 0 && graph_launches == 0 && !gpu_times; }
};

class LaunchOverheadAnalyzer {
 public:
  // Keeps a TraceIndex of its own, fed by Add.
  explicit LaunchOverheadAnalyzer(LaunchOverheadOptions options = {});
  // Reads definitions from `shared`, which the caller fills with each record before Add
  // (AnalyzeTrace shares one index between its analyses); it must outlive the analyzer.
  LaunchOverheadAnalyzer(const TraceIndex& shared, LaunchOverheadOptions options = {});
  ~LaunchOverheadAnalyzer();
  LaunchOverheadAnalyzer(LaunchOverheadAnalyzer&&) noexcept;
  LaunchOverheadAnalyzer& operator=(LaunchOverheadAnalyzer&&) noexcept;

  void Add(const trace::RecordView& record, const StringLookup& strings);
  // Computes the report and releases the intervals. The analyzer is empty afterwards.
  LaunchOverheadReport Finish();

  // Bytes held now by the per-interval and pending structures (for tests and benchmarks).
  size_t MemoryBytes() const;

 private:
  struct State;
  const TraceIndex* shared_index_ = nullptr;
  std::unique_ptr<State> state_;
};

}  // namespace flopspy::analyzers
