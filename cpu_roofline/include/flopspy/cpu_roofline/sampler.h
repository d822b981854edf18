// The CPU roofline sampler that libflopspy.so's recorder runs: counter deltas every interval
// become roofline points (scope kInterval) on the sampler's own thread; flopspy_region_begin/end
// pairs become points (scope kRegion) on the caller's thread; Stop() adds the whole run (kRun).
//
// Counters are process-wide (all threads, inherited), so a region point says what the whole
// process did between its begin and end, as seen from the thread that marked it.
//
// No public function throws, aborts or blocks for long: region markers read the counters with
// one read() per perf group (slow sources such as PCM's HTTP daemon give their latest value).
//
// Every descriptor it holds (counters, the FLOPSPY_CPU_RECORD file) is held by identity and
// checked before each use: when the program closes or replaces them, the sampler stops (with one
// warning) and never reads, writes or closes what is now the program's.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "flopspy/cpu_roofline/backend_factory.h"
#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/cpu_roofline/replay_backend.h"
#include "flopspy/cpu_roofline/roofline_method.h"
#include "flopspy/cpu_roofline/sampler_config.h"
#include "flopspy/platform/owned_fd.h"
#include "flopspy/trace/schema.h"

namespace flopspy::cpuroof {

class Sampler {
 public:
  // Receives every point. `region` is the region's name for kRegion points, else empty.
  // Interval points come from the sampler thread; region points from the marking thread.
  using Callback = std::function<void(const trace::CpuSampleRecord&, std::string_view region)>;

  struct Options {
    bool start_thread = true;  // false: the caller drives SampleOnce (tests, replay)
    // Start the interval thread only when FP work or memory traffic can be counted: points with
    // the wall clock alone place nothing on a roofline (libflopspy.so sets this).
    bool thread_only_with_counters = false;
    std::function<uint64_t()> clock;  // CLOCK_MONOTONIC ns when empty
    BackendDeps deps;                 // system calls used by OpenBackend
    // Use this backend instead of opening one from the config (tests, replay).
    std::unique_ptr<CounterBackend> backend;
    Capabilities capabilities;  // with `backend`
    // Receives, once each and without the "flopspy: " prefix, the lines that something stopped
    // or was refused while running: the counters' descriptors taken by the program, the
    // FLOPSPY_CPU_RECORD file refused, failing or taken. Called from any thread, never with a
    // lock of the sampler held.
    std::function<void(const std::string&)> warn;
  };

  // Opens the backend the config asks for and starts the interval thread. Never fails: what
  // cannot be measured is in capabilities().
  static std::unique_ptr<Sampler> Start(const SamplerConfig& config, Callback callback,
                                        Options options);
  static std::unique_ptr<Sampler> Start(const SamplerConfig& config, Callback callback);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  const Capabilities& capabilities() const { return caps_; }
  // For the trace metadata: {"capabilities": {...}, "mode", "interval_ms", "min_trusted_ms",
  // "peak_gflops", "bandwidth_gbs" (the FLOPSPY_CPU_* roof overrides, null when unset)}.
  std::string MetadataJson() const;
  // True when points can carry anything beyond the wall clock.
  bool active() const { return active_.load(std::memory_order_relaxed); }
  // True when FP work (W) or memory traffic (Q) is counted.
  bool counts_roofline() const;

  void RegionBegin(std::string_view name, uint64_t now_ns);
  void RegionEnd(std::string_view name, uint64_t now_ns);
  // A host<->device copy ran in [begin_ns, end_ns]: points overlapping it get
  // kCpuOverlapsGpuCopies (DRAM counters see the DMA traffic).
  void NoteGpuCopy(uint64_t begin_ns, uint64_t end_ns);

  // One interval point from the previous one to now (the thread calls this every interval).
  void SampleOnce(uint64_t now_ns);

  // Stops the thread and emits the last interval point and the whole-run point. Idempotent;
  // now_ns == 0 reads the clock.
  void Stop(uint64_t now_ns = 0);

  // pthread_atfork child handler. The parent takes no lock before fork() (fork must not wait for
  // threads marking regions): the child starts from fresh locks and containers, whatever they
  // were at the fork, reopens the counters for itself alone and restarts the thread (a sampler
  // already stopped stays stopped). The child writes no FLOPSPY_CPU_RECORD file and closes its
  // inherited descriptors only while they are still the sampler's.
  void AfterForkInChild(uint64_t now_ns = 0);

  // Region ends without a begin, failed reads and exceptions from the callback.
  uint64_t problems() const { return problems_.load(std::memory_order_relaxed); }

 private:
  Sampler(const SamplerConfig& config, Callback callback, Options options);
  uint64_t Now() const;
  bool ReadNow(uint64_t now_ns, bool fast, Snapshot* out);
  void Emit(const trace::CpuSampleRecord& record, std::string_view region);
  trace::CpuSampleRecord Point(const Snapshot& begin, const Snapshot& end,
                               trace::CpuSampleScope scope);
  bool OverlapsCopyLocked(uint64_t begin_ns, uint64_t end_ns) const;
  void PruneCopiesLocked();
  void StartThread();
  void ThreadMain();
  // Stops for good when the backend's descriptors are no longer ours; says so once.
  void CheckLost();
  void Warn(const std::string& line);
  // FLOPSPY_CPU_RECORD: lines are queued by any thread and written by the sampler thread.
  void OpenRecording();
  void RecordLocked(const Snapshot& s, std::string_view begin, std::string_view end);
  void FlushRecording(bool close);

  SamplerConfig config_;
  Callback callback_;
  std::function<uint64_t()> clock_;
  std::function<void(const std::string&)> warn_;
  bool want_thread_;
  std::unique_ptr<CounterBackend> backend_;
  Capabilities caps_;
  MethodOptions method_;
  std::atomic<bool> active_{false};
  std::atomic<uint64_t> problems_{0};
  std::atomic<bool> lost_reported_{false};

  std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  bool stop_requested_ = false;
  bool stopped_ = false;
  Snapshot run_start_;
  Snapshot last_interval_;
  std::map<std::pair<pid_t, std::string>, std::vector<Snapshot>> open_regions_;
  std::vector<std::pair<uint64_t, uint64_t>> copies_;  // merged, sorted
  bool any_copy_ = false;
  std::unique_ptr<std::thread> thread_;
  std::vector<std::string> record_pending_;                   // guarded by mu_
  std::optional<std::pair<uint64_t, uint64_t>> record_copy_;  // copies since the last line
  std::mutex record_mu_;                                      // guards the two below
  platform::OwnedFd record_fd_;
  std::string record_name_;  // the file actually written (after %p and a fallback)
};

// Plays a recording through the whole pipeline (sampler, method, flags) with the recorded
// timestamps: readings with "begin"/"end" are region markers, "gpu_copy" notes a copy, every
// other reading is an interval tick; the last reading stops the run.
struct ReplayRun {
  Capabilities capabilities;
  size_t points = 0;
};
ReplayRun RunReplay(const ReplayData& data, const SamplerConfig& config,
                    const Sampler::Callback& callback);

}  // namespace flopspy::cpuroof
