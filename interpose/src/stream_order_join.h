// GPU timing without CUPTI's API records for launches (FLOPSPY_GPU_JOIN=stream,
// docs/gpu-timing.md, "Joining by stream order"): the flusher joins each kernel record to its
// launch by the order of their stream. A stream runs its kernels in the order they were
// launched, the hook knows the launch's stream and the kernel's function and shape, and CUPTI's
// kernel record carries its stream, function and shape: the n-th kernel on a stream is the n-th
// launch on it, checked by function name, grid and block.
//
// What it handles:
// - Which CUPTI stream is which launch stream is learned, not asked: a CUPTI stream's first
//   records map it to the one launch stream of its device whose launches they follow in order
//   (several that fit: it waits for more records, then takes the one launched first; a library
//   call alone maps nothing).
// - Launches are queued in the order they were made: the flusher encodes one thread's records
//   after another's, and PyTorch's autograd thread launches on the main thread's stream.
// - Kernels a library launched without a hooked launch (a cuBLAS, cuDNN or NCCL call whose
//   internal launches flopspy does not see) join the library call, which waits in its stream's
//   order like a launch and stays queued while launches made inside it are joined.
// - A launch whose record never comes (CUPTI dropped it) is passed over when a later launch's
//   record arrives. When launch records were lost instead (a full thread buffer), the record
//   whose launch is missing goes out unjoined rather than take a later launch of its kernel and
//   shift every join after it (with both lost, the next record tells which). A record that
//   matches nothing waits a few passes for a late launch record.
// - Kernels of back-to-back library calls: a call the stream was idle for (its last kernel
//   ended before the call began) retires the calls queued before it.
// - Sampled windows: launches made between windows owe no record and are not queued.
// Graph replays and copies are joined by CUPTI's external correlation as before (their calls are
// rare); kernel records of graphs never reach this join.
//
// Pure logic, flusher thread only; tests drive it directly (stream_order_join_test.cpp) and
// through a mock CUPTI session.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::interpose {

// A stream as the hooks saw it: the handle the program passed, on a device. The per-thread
// default stream is one handle for every thread but a stream of its own in each.
struct LaunchStream {
  uint64_t handle = 0;
  int32_t device = 0;
  uint32_t per_thread_owner = 0;  // the launching thread, for per-thread default streams only
  bool operator==(const LaunchStream&) const = default;
};

// What a kernel record and its launch must agree on. A name hash of 0 (a launch of a function
// whose name was not found) matches any name.
struct KernelIdentity {
  uint64_t name_hash = 0;
  uint32_t grid[3] = {};
  uint32_t block[3] = {};
};
uint64_t KernelNameHash(std::string_view mangled_name);
bool SameKernel(const KernelIdentity& a, const KernelIdentity& b);

struct StreamOrderJoinOptions {
  size_t max_queued = size_t{1} << 16;   // launches waiting per stream; the oldest go beyond it
  size_t max_waiting = size_t{1} << 16;  // kernel records waiting, all streams
  size_t scan = 4096;                    // queue entries a record looks through for its launch
  uint32_t max_wait_passes = 3;  // passes a record may wait for its launch or the next record
  size_t records_to_map = 4;     // records compared when mapping a CUPTI stream
  // A kernel cannot start before its launch; the GPU's and the CPU's clocks may differ by this.
  uint64_t clock_slack_ns = 50'000;
};

struct StreamOrderJoinStats {
  uint64_t launches = 0;              // queued
  uint64_t library_calls = 0;         // queued
  uint64_t joined = 0;                // kernel records joined to their launch
  uint64_t joined_to_library = 0;     // ... to a library call (a launch flopspy did not see)
  uint64_t unjoined = 0;              // records that found no launch
  uint64_t launches_passed_over = 0;  // launches whose record never came
  uint64_t launches_dropped = 0;      // over max_queued, or between sampled windows
  uint64_t without_launch = 0;        // unjoined records told apart as having lost their launch
  uint64_t records_dropped = 0;       // over max_waiting: sent on unjoined
  uint64_t streams_mapped = 0;
  uint64_t ambiguous_maps = 0;  // a CUPTI stream that fitted several launch streams
};

class StreamOrderJoin {
 public:
  using Emit = std::function<void(const trace::GpuActivityRecord&)>;
  explicit StreamOrderJoin(StreamOrderJoinOptions options = {}) : options_(options) {}

  // --- The launch side (the flusher encoding one thread's records after another's): queued in
  // the order the calls were made, whichever thread's records come first.
  void AddLaunch(const LaunchStream& stream, const KernelIdentity& kernel, uint64_t correlation,
                 uint64_t enter_ns);
  // A library call on a known stream: it may launch kernels flopspy does not see.
  void AddLibraryCall(const LaunchStream& stream, uint64_t correlation, uint64_t enter_ns,
                      uint64_t exit_ns);

  // --- The GPU side: a kernel record with no correlation of its own (not from a graph).
  void AddKernel(const trace::GpuActivityRecord& record, const KernelIdentity& kernel);

  // Joins what can be joined and emits it (correlation set, or 0 for a record given up on).
  // Records whose launch may still come wait; `final` gives every one up.
  void Pass(bool final, const Emit& emit);

  // Sampled GPU timing: launches made outside windows owe no record.
  void WindowOpened(uint64_t now_ns);
  void WindowClosed(uint64_t now_ns);

  // What was lost on the way, which says why a record's launch is not first in its queue:
  // records the hooks wrote that never reached the flusher (a full thread buffer), and kernel
  // records CUPTI dropped or the decoder left out.
  void NoteLostLaunches(uint64_t count);
  void NoteLostRecords(uint64_t count);

  const StreamOrderJoinStats& stats() const { return stats_; }
  size_t queued_launches() const;
  size_t waiting_records() const { return waiting_total_; }

 private:
  struct Entry {
    KernelIdentity kernel;
    uint64_t correlation = 0;
    uint64_t enter_ns = 0;
    uint64_t exit_ns = 0;  // library calls: launches entered until then were made inside it
    bool library = false;
  };
  struct LaunchQueue {
    LaunchStream stream;
    std::deque<Entry> entries;    // in the order the calls were made
    std::vector<Entry> incoming;  // since the last pass, merged in at its start
    uint32_t mapped_by = 0;       // CUPTI streams joined to it
  };
  struct Waiting {
    trace::GpuActivityRecord record;
    KernelIdentity kernel;
    uint64_t arrived_pass = 0;
  };
  struct GpuStream {
    int32_t device = 0;
    size_t queue = kUnmapped;
    std::deque<Waiting> waiting;  // by start time
    uint64_t last_end_ns = 0;     // of the last record sent on
  };
  struct StreamHash {
    size_t operator()(const LaunchStream& s) const;
  };
  static constexpr size_t kUnmapped = ~size_t{0};
  enum class MatchKind { kNone, kLaunch, kLibrary };
  struct Match {
    MatchKind kind = MatchKind::kNone;
    size_t index = 0;
  };

  LaunchQueue& QueueFor(const LaunchStream& stream);
  void Enqueue(const LaunchStream& stream, const Entry& entry);
  void MergeIncoming(LaunchQueue& queue);
  Match FindIn(const std::deque<Entry>& entries, size_t from, const Waiting& w) const;
  bool Expired(const Waiting& w, bool final) const;
  bool TryMap(GpuStream& gpu, bool give_up);
  void JoinStream(GpuStream& gpu, bool final, const Emit& emit);
  // Which of the library calls at the queue's head ran `w`; the ones before it are retired.
  size_t LibraryCallFor(const GpuStream& gpu, const std::deque<Entry>& entries,
                        const Waiting& w) const;
  void SendOn(GpuStream& gpu, Waiting& w, uint64_t correlation, const Emit& emit);

  StreamOrderJoinOptions options_;
  StreamOrderJoinStats stats_;
  std::vector<LaunchQueue> queues_;
  std::unordered_map<LaunchStream, size_t, StreamHash> queue_index_;
  // By (device, CUPTI context, CUPTI stream id).
  std::map<std::tuple<int32_t, uint32_t, uint32_t>, GpuStream> gpu_streams_;
  size_t waiting_total_ = 0;
  uint64_t pass_ = 0;
  uint64_t lost_launches_ = 0;  // not yet accounted for by a record without its launch
  uint64_t lost_records_ = 0;   // not yet accounted for by a launch passed over
  uint64_t window_opened_ns_ = 0;
  uint64_t window_closed_ns_ = ~uint64_t{0};  // none closed since the last opened
};

}  // namespace flopspy::interpose
