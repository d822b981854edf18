// Counter-measured mode, FLOPSPY_COUNTERS=1 (docs/gpu-counters.md). InstrumentedLaunch
// (instrumented_launch.h) wraps the real launch in a CounterLaunch: Begin just before it, End
// just after, and ~CounterLaunch writes the KernelMetrics record after the launch record.
//
// With counter mode off (the default) Begin is one relaxed atomic load. With it on, the first
// FLOPSPY_COUNTERS_SAMPLES samples of each signature are measured by the CUPTI range profiler
// (kernel replay of every metric, or one one-pass group per launch: FLOPSPY_COUNTERS_REPLAY);
// later identical launches run untouched: a launch whose signature has all its samples takes no
// lock, and one whose parameters were seen before does not even rebuild its signature. The
// kernel's class comes from the flusher (catalog_param_bytes.h); a kernel it has not catalogued
// yet asks it once and otherwise runs untouched. Anything that goes wrong turns counter
// mode off with one line on stderr and a trace warning; the program's launch and its result are
// never touched.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "counters_api.h"
#include "counters_profiler.h"
#include "cupti_locate.h"
#include "cupti_session.h"
#include "flopspy/analyzers/kernel_catalog.h"
#include "flopspy/gpu_roofline/counter_sampling.h"
#include "function_table.h"
#include "key_set.h"
#include "launch_record.h"
#include "raw_events.h"

namespace flopspy::interpose {

struct CounterOptions {
  uint32_t samples = 3;                                               // FLOPSPY_COUNTERS_SAMPLES
  uint32_t groups = gpuroof::kAllCounterGroups;                       // FLOPSPY_COUNTERS_METRICS
  gpuroof::PassGrouping grouping = gpuroof::PassGrouping::kReplayed;  // FLOPSPY_COUNTERS_REPLAY
  bool timing_off = false;                                            // FLOPSPY_GPU_TIMING=off
  std::string cupti_path;                                             // FLOPSPY_CUPTI_PATH
  int max_driver_waits = 8;  // launches that find no libcuda.so.1 loaded before giving up
};

// Everything counter mode needs from the process; tests substitute their own.
struct CounterEnvironment {
  std::function<void*()> loaded_driver;                  // libcuda.so.1 handle if loaded
  std::function<CuptiLibrary(std::string_view)> locate;  // argument: FLOPSPY_CUPTI_PATH
  std::function<void(void* cupti, void* driver, CounterApi*)> resolve;
  // The GPU-timing session's state, and why when unavailable.
  std::function<CuptiState(std::string* reason)> timing_state;
  std::function<void(std::string_view key, trace::WarningCode code, std::string_view message)>
      report;
  std::function<void(std::string json)> metadata;
  std::function<void(const RawKernelMetrics&)> emit;  // into the launching thread's buffer
  // Asks the flusher to catalogue the kernels it has not yet and waits for that step (at most
  // once per kernel, bounded, never for the flusher's writes); empty: nothing to ask.
  std::function<void()> catalog;

  static CounterEnvironment Production();
};

class CounterMode {
 public:
  // What a hook knows about a launch.
  struct Launch {
    const FunctionInfo* function = nullptr;
    const LaunchShape* shape = nullptr;
    ParamSource params;
    uint64_t correlation = 0;
  };
  // One launch's passage through counter mode.
  struct Ticket {
    bool measuring = false;        // profiling was started around the launch
    bool has_record = false;       // a KernelMetrics record waits for Emit
    uint64_t setup_start_ns = 0;   // Begin: when the measurement's set-up started
    uint64_t launch_start_ns = 0;  // when the real launch was called
    gpuroof::CounterSignature signature;
    const analyzers::KernelClass* kernel_class = nullptr;  // the flusher's, for the signature
    gpuroof::SampleSlot slot;  // which sample and pass group this launch measures
    RawKernelMetrics record{};
  };

  CounterMode(CounterOptions options, CounterEnvironment environment);
  ~CounterMode();

  // Before the real launch: claims a sample and starts profiling when this launch is measured.
  void Begin(const Launch& launch, Ticket* ticket);
  // Right after the real launch returned `result`.
  void End(Ticket* ticket, int result);
  // After the launch record: writes the KernelMetrics record, if any.
  void Emit(Ticket* ticket);

  // What measuring cost the program, in the launching threads' wall time.
  struct Cost {
    uint64_t samples = 0;           // launches measured
    uint64_t abandoned = 0;         // profiling started but the sample was dropped
    uint64_t context_setup_ns = 0;  // first measurement in a context: its plan and enable
    uint64_t setup_ns = 0;          // per sample, before the launch (image, config, start)
    uint64_t launch_ns = 0;         // the measured launch calls (kernel replay runs inside)
    uint64_t readout_ns = 0;        // after it: synchronise, stop, decode, evaluate
    uint64_t max_sample_ns = 0;     // the costliest sample, set-up to read-out
    uint64_t switches = 0;          // pass-group switches (one-pass groups: a new object each)
    uint64_t switch_setup_ns = 0;   // set-up of the samples that switched (in setup_ns too)
  };
  Cost cost() const;
  std::string CostJson() const;  // {"gpu_counters_cost": {...}}

  bool off() const { return off_.load(std::memory_order_acquire); }
  const gpuroof::CounterSampler& sampler() const { return sampler_; }
  uint64_t measured() const { return measured_.load(std::memory_order_relaxed); }

  // --- The process's counter mode.
  // False once it is known to be off; the hooks' fast check.
  static bool Wanted() { return process_state_.load(std::memory_order_relaxed) != kProcessOff; }
  // The process's instance, made at the first launch when FLOPSPY_COUNTERS=1; null otherwise.
  static CounterMode* Process();

 private:
  enum ProcessState : uint8_t { kProcessUndecided = 0, kProcessOn = 1, kProcessOff = 2 };

  bool Ready();  // started (driver, CUPTI) and the GPU-timing session settled
  void TurnOff(const std::string& reason, bool permission);
  // The launch's signature when it may be measured; false when it is not (no class yet, a
  // collective, or every sample of its signature taken).
  bool SignatureOf(const Launch& launch, Ticket* ticket, bool* tensor_capable);
  const analyzers::KernelClass* ClassOf(const FunctionInfo& function);
  void NoteContexts();

  static inline std::atomic<uint8_t> process_state_{kProcessUndecided};

  CounterOptions options_;
  CounterEnvironment env_;
  gpuroof::CounterSampler sampler_;
  std::atomic<bool> off_{false};
  std::atomic<uint64_t> measured_{0};
  std::atomic<bool> disagree_reported_{false};

  // Written by the one measuring thread, read at the final flush.
  struct CostCounters {
    std::atomic<uint64_t> samples{0}, abandoned{0}, context_setup_ns{0}, setup_ns{0}, launch_ns{0},
        readout_ns{0}, max_sample_ns{0}, switches{0}, switch_setup_ns{0};
  } cost_;
  static void AddCost(std::atomic<uint64_t>& counter, uint64_t ns) {
    counter.fetch_add(ns, std::memory_order_relaxed);
  }

  std::mutex state_mutex_;  // guards the start
  std::atomic<bool> started_{false};
  int driver_waits_ = 0;
  std::unique_ptr<CounterProfiler> profiler_;
  // Signatures whose last wanted sample is recorded, and launches (function, shape and parameter
  // bytes) known to have such a signature: the lock-free way past the sampler.
  KeySet complete_signatures_;
  KeySet complete_launches_;

  // One measurement at a time: a launch that finds another being measured runs untouched. A
  // flag, not a mutex: a launch nested inside a measured one (on the same thread) must see it
  // taken rather than lock it twice. Guards profiler_ once started_.
  std::atomic<bool> measuring_{false};
  bool TryMeasure() {
    bool expected = false;
    return measuring_.compare_exchange_strong(expected, true, std::memory_order_acquire);
  }
  void DoneMeasuring() { measuring_.store(false, std::memory_order_release); }
  // Armed from TryMeasure to DoneMeasuring: should anything between throw (the hook catches
  // it), the measurement is stopped and given up rather than holding measuring_ for ever, which
  // would stop counter mode without a word.
  struct GiveUpOnThrow {
    CounterMode* mode;
    Ticket* ticket;
    bool armed = true;
    ~GiveUpOnThrow();
  };
};

// The hook-side scope (see the top of this file).
class CounterLaunch {
 public:
  CounterLaunch(const FunctionInfo* function, const LaunchShape& shape, const ParamSource& params,
                uint64_t correlation) noexcept
      : launch_{function, &shape, params, correlation} {}
  ~CounterLaunch() {
    if (__builtin_expect(mode_ != nullptr, 0)) Finish();
  }
  CounterLaunch(const CounterLaunch&) = delete;
  CounterLaunch& operator=(const CounterLaunch&) = delete;

  void Begin() noexcept {
    if (__builtin_expect(CounterMode::Wanted(), 0)) BeginSlow();
  }
  void End(int result) noexcept {
    if (__builtin_expect(mode_ != nullptr, 0)) EndSlow(result);
  }

 private:
  // Each catches whatever counter mode throws (one warning): nothing reaches the hook.
  void BeginSlow() noexcept;
  void EndSlow(int result) noexcept;
  void Finish() noexcept;

  CounterMode::Launch launch_;
  CounterMode* mode_ = nullptr;
  std::optional<CounterMode::Ticket> ticket_;
};

}  // namespace flopspy::interpose
