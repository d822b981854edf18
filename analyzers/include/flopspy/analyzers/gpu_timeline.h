// The GPU timeline of one device: when it was busy, and why it was idle. Pure functions over
// compact intervals that the launch-overhead analyzer collects while a trace streams past;
// docs/launch-overhead.md defines every word and formula used here.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace flopspy::analyzers {

inline constexpr uint16_t kUnknownThreadSlot = 0xFFFF;

enum class GpuWorkKind : uint8_t { kKernel = 1, kMemcpy = 2, kMemset = 3 };

// One stretch of GPU work (kernel, copy or set) as the timeline keeps it: 24 bytes, so ten
// million of them fit in 240 MB. The device and stream are implied by the vector it sits in.
struct GpuInterval {
  enum Flags : uint8_t {
    kKindMask = 0x03,     // GpuWorkKind
    kSubmitKnown = 0x04,  // the call that submitted it is in the trace (lead and thread valid)
    kGraphNode = 0x08,    // a node of a CUDA graph: submitted by a graph launch
    kDeviceLaunched = 0x10,
    kLeadSaturated = 0x20,  // submitted more than 2^31 ns before it started
    kEagerLaunch = 0x40,    // submitted by its own launch call; launch_cost_ns is valid
  };
  static constexpr int kDurationBits = 40;  // about 18 minutes; longer work is clamped
  static constexpr uint64_t kMaxDuration = (uint64_t{1} << kDurationBits) - 1;

  uint64_t start_ns = 0;
  uint64_t packed = 0;          // duration (40 bits) | thread slot << 40 (16) | flags << 56 (8)
  int32_t submit_lead_ns = 0;   // start - exit of the submitting call (negative: it started
                                // before the call returned); valid with kSubmitKnown
  uint32_t launch_cost_ns = 0;  // exit - enter of the launch call, with kEagerLaunch

  static GpuInterval Make(uint64_t start_ns, uint64_t end_ns, GpuWorkKind kind, uint8_t flags = 0);
  // Records the call that submitted this work: its exit time and thread; `launch_cost_ns` for
  // an eager kernel launch (0 otherwise).
  void SetSubmit(uint64_t call_exit_ns, uint16_t thread_slot, uint32_t launch_cost_ns, bool eager);

  uint64_t duration_ns() const { return packed & kMaxDuration; }
  uint64_t end_ns() const { return start_ns + duration_ns(); }
  uint16_t thread_slot() const { return static_cast<uint16_t>(packed >> kDurationBits); }
  uint8_t flags() const { return static_cast<uint8_t>(packed >> 56); }
  GpuWorkKind kind() const { return static_cast<GpuWorkKind>(flags() & kKindMask); }
  bool Has(Flags f) const { return (flags() & f) != 0; }
  // The latest time the submitting call can have handed the work over: its exit.
  uint64_t SubmitExitNs() const {
    return static_cast<uint64_t>(static_cast<int64_t>(start_ns) - submit_lead_ns);
  }

 private:
  void SetPacked(uint64_t duration, uint16_t thread, uint8_t flags);
};
static_assert(sizeof(GpuInterval) == 24);

// A call in which the CPU may have waited for the GPU: a sync, or a blocking copy.
struct SyncSpan {
  uint64_t enter_ns = 0;
  uint64_t exit_ns = 0;
  uint16_t thread_slot = kUnknownThreadSlot;
};

// Answers "was a synchronising call in progress at time t" per thread, or on any thread, in
// O(log n). Calls of one thread may nest (a runtime call around a driver call), so each list
// keeps a running maximum of exits over calls sorted by entry.
class SyncIndex {
 public:
  SyncIndex() = default;
  explicit SyncIndex(std::vector<SyncSpan> spans);

  // enter <= t <= exit for some call of `thread_slot`; of any thread for kUnknownThreadSlot.
  bool InProgress(uint16_t thread_slot, uint64_t t) const;
  size_t size() const { return by_thread_.size(); }

 private:
  struct Entry {
    uint64_t enter_ns;
    uint64_t max_exit_ns;  // over this entry and every earlier one of the same list
    uint16_t thread_slot;
  };
  static bool Covered(std::span<const Entry> list, uint64_t t);

  std::vector<Entry> by_thread_;  // sorted by (thread, enter)
  std::vector<Entry> all_;        // sorted by enter
};

// Why the GPU sat idle between two stretches of work (docs/architecture.md, "Words the code uses").
// The gap begins when the device ran dry; the next work item is the one that ends it.
enum class GapKind : uint8_t {
  kStarved = 0,       // the next item's submitting call had not returned when the device ran
                      // dry, and its thread was not blocked in a synchronising call: the GPU
                      // waited for the CPU to launch
  kSynchronized = 1,  // the next item was not yet submitted, and its thread (any thread when
                      // its call is unknown) was inside a synchronising call at that moment
  kOther = 2,         // the next item was already submitted (a dependency, an event wait,
                      // GPU-side latency), or its call is unknown and no thread was in a sync
};
inline constexpr size_t kGapKindCount = 3;
std::string_view GapKindName(GapKind kind);

// Classifies the gap that ends at `next.start_ns` and began at `gap_start_ns`, when the device's
// previous work ended. `unattributed` (optional) is set when the next item's call is unknown.
GapKind ClassifyGap(uint64_t gap_start_ns, const GpuInterval& next, const SyncIndex& syncs,
                    bool* unattributed = nullptr);

struct GapTotals {
  uint64_t count = 0;
  uint64_t ns = 0;
  void Add(uint64_t gap_ns) {
    ++count;
    ns += gap_ns;
  }
};

struct GapBreakdown {
  std::array<GapTotals, kGapKindCount> by_kind{};
  GapTotals unattributed;  // the part of kOther whose next work item has no known call

  const GapTotals& operator[](GapKind k) const { return by_kind[static_cast<size_t>(k)]; }
  GapTotals& operator[](GapKind k) { return by_kind[static_cast<size_t>(k)]; }
  uint64_t TotalNs() const;
  uint64_t TotalCount() const;
};

struct TimelineOptions {
  // What one kernel costs to submit when replayed from a CUDA graph (an assumption, see
  // docs/launch-overhead.md); used only for the graphs estimate.
  double graph_node_cost_ns = 1000;
};

struct DeviceTimeline {
  uint64_t first_start_ns = 0;  // the window: first work start to last work end
  uint64_t last_end_ns = 0;
  uint64_t busy_ns = 0;  // length of the union of all intervals
  uint64_t intervals = 0;
  GapBreakdown gaps;
  // Graphs estimate: idle time of starved gaps before eagerly launched kernels that would go if
  // each such launch cost graph_node_cost_ns instead of its measured cost.
  double graphs_saved_ns = 0;
  uint64_t graphs_gaps = 0;              // starved gaps that would shrink
  std::vector<uint64_t> stream_busy_ns;  // union per input stream, in input order

  uint64_t window_ns() const {
    return last_end_ns > first_start_ns ? last_end_ns - first_start_ns : 0;
  }
};

// Sorts one stream's intervals by start (then end): the order AnalyzeDeviceTimeline needs.
void SortIntervals(std::vector<GpuInterval>& intervals);

// Length of the union of sorted intervals.
uint64_t BusyNs(std::span<const GpuInterval> sorted);

// The busy fraction (0..1) of each of `bins` equal bins of `bin_ns` from `start_ns`: the
// union of the (sorted) intervals, so overlapping work counts once. Work outside the bins is
// clipped. Used to draw the timeline; an empty vector when bins or bin_ns is 0.
std::vector<float> BusyBins(std::span<const GpuInterval> sorted, uint64_t start_ns, uint64_t bin_ns,
                            size_t bins);

// Walks every stream of one device in start order (a k-way merge, no copy): the busy union,
// the idle gaps between its pieces with their kind, per-stream busy time and the graphs
// estimate. Each stream must be sorted (SortIntervals).
DeviceTimeline AnalyzeDeviceTimeline(std::span<const std::span<const GpuInterval>> streams,
                                     const SyncIndex& syncs, const TimelineOptions& options = {});

}  // namespace flopspy::analyzers
