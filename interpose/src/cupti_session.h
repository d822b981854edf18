// GPU times from CUPTI's activity API, on flopspy's clock (docs/gpu-timing.md).
//
// What the hooks call:
//   CuptiSession::EnsureStarted()      before the real call of every CUDA entry point flopspy
//                                      hooks (one relaxed atomic load once decided);
//   CuptiSession::PushCorrelationIfCollecting(id)  just before the real launch/copy/set call,
//   CuptiSession::PopCorrelation()                 with the correlation id of its record, and
//                                                  just after it returns, if it was pushed.
// A push is a null check when CUPTI is not collecting (off, or between sampled windows).
//
// The session starts lazily (never in the library constructor), or from InitializeInjection
// when the driver loads libflopspy.so through CUDA_INJECTION64_PATH. When CUPTI cannot be had it
// says so once on stderr, records the reason in the trace and everything else keeps recording.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"
#include "cupti_api.h"
#include "cupti_buffers.h"
#include "cupti_decode.h"
#include "cupti_locate.h"
#include "recorder.h"
#include "stream_order_join.h"

namespace flopspy::interpose {

enum class CuptiState : uint8_t {
  kNotStarted = 0,   // the next Start tries (again, while the driver is not loaded yet)
  kStarting = 1,     // one thread is starting it
  kActive = 2,       // collecting
  kUnavailable = 3,  // off, or it failed: not tried again in this process
  kStopped = 4,      // the trace's final flush is done
};

struct CuptiSessionOptions {
  GpuTiming timing = GpuTiming::kAuto;
  std::string cupti_path;                               // FLOPSPY_CUPTI_PATH
  CuptiApiRecords api_records = CuptiApiRecords::kAll;  // FLOPSPY_CUPTI_API_RECORDS
  // FLOPSPY_GPU_JOIN=stream: launches push no correlation and keep no API record; their kernels
  // are joined by stream order (stream_order_join.h). `join_note` says why it was not taken.
  GpuJoin join = GpuJoin::kCorrelation;
  std::string join_note;
  StreamOrderJoinOptions stream_join;
  size_t buffer_bytes = size_t{2} << 20;     // per CUPTI activity buffer
  size_t buffer_count = 16;                  // the whole pool, mapped at start
  uint64_t periodic_flush_ns = 500'000'000;  // cuptiActivityFlushAll(0) at most this often
  // Sampled GPU timing (GpuTiming::kSampled): CUPTI collects for window_ns every period_ns,
  // the first window from the start (WindowTick).
  uint64_t window_ns = 0;
  uint64_t period_ns = 0;
  // Start attempts that find no libcuda.so.1 loaded before giving up (a program's very first
  // CUDA call loads the driver inside the real call).
  int max_driver_waits = 8;
  DecoderOptions decoder;  // cupti_version and valid_from_ns are set at start
};

// Everything the session needs from the process; tests substitute their own.
struct CuptiEnvironment {
  std::function<bool()> recording;                       // the recorder is writing a trace
  std::function<void*()> loaded_driver;                  // libcuda.so.1 handle if loaded, else null
  std::function<CuptiLibrary(std::string_view)> locate;  // argument: FLOPSPY_CUPTI_PATH
  std::function<void(void* cupti, void* driver, CuptiApi*)> resolve;
  // A degradation: one stderr line and a trace warning per key.
  std::function<void(std::string_view key, trace::WarningCode code, std::string_view message)>
      report;
  // What was left undone as configured (GPU timing off): as `report`, but silenced by
  // FLOPSPY_QUIET on stderr. Empty: `report` is used.
  std::function<void(std::string_view key, trace::WarningCode code, std::string_view message)>
      notice;
  std::function<void(std::string json)> metadata;  // a metadata block for the trace
  std::function<void(ActivitySource*)> attach;     // hand the session to the flusher
  std::function<uint64_t()> now;

  static CuptiEnvironment Production();
};

class CuptiSession final : public ActivitySource {
 public:
  enum class Trigger { kFirstCudaCall, kInjection };

  // --- For the hooks (the process's session).
  static void EnsureStarted() {
    if (__builtin_expect(start_decided_.load(std::memory_order_relaxed), 1)) return;
    StartProcessSession(Trigger::kFirstCudaCall);
  }
  // Pushes only while CUPTI collects, starting nothing (a cuBLAS call needs no CUPTI of its own:
  // its launches start it); true when pushed, and then PopCorrelation is owed.
  static bool PushCorrelationIfCollecting(uint64_t id) { return PushWith(push_, id); }
  // A kernel launch's or a library call's push: none when kernels are joined by stream order.
  static bool PushLaunchCorrelationIfCollecting(uint64_t id) { return PushWith(launch_push_, id); }
  static void PopCorrelation() {
    if (auto pop = pop_.load(std::memory_order_relaxed)) {
      uint64_t last = 0;
      pop(kFlopspyCorrelationKind, &last);
    }
  }
  // InitializeInjection (hooks_cupti_injection.cpp).
  static void StartFromInjection() { StartProcessSession(Trigger::kInjection); }
  // The process's session, or null before the first start (or when flopspy is off).
  static CuptiSession* Process() { return process_.load(std::memory_order_acquire); }

  // --- Any session (tests make their own).
  CuptiSession(CuptiSessionOptions options, CuptiEnvironment environment);
  ~CuptiSession() override;
  CuptiSession(const CuptiSession&) = delete;
  CuptiSession& operator=(const CuptiSession&) = delete;

  // Tries to start now; returns the state it leaves (kNotStarted: try again later).
  CuptiState Start(Trigger trigger);
  CuptiState state() const { return state_.load(std::memory_order_acquire); }
  const std::string& reason() const { return reason_; }  // why not available
  uint32_t cupti_version() const { return version_; }
  const CuptiApi& api() const { return api_; }
  const ActivityBufferPool& pool() const { return pool_; }
  const ActivityDecoder* decoder() const { return decoder_.get(); }
  uint64_t dropped_by_cupti() const { return dropped_total_; }

  // Sampled GPU timing, the flusher at the start of each pass: closes the open window once its
  // time is up (the activity kinds disabled, no more correlation pushes), opens the next when
  // its time has come (the same kinds enabled again; CUPTI's start-up is paid once). Returns
  // the trace metadata that says so ({"gpu_window": {...}}), "" when nothing changed.
  std::string WindowTick(uint64_t now_ns);
  std::string Tick(uint64_t now_ns) override { return WindowTick(now_ns); }
  bool sampled() const { return options_.timing == GpuTiming::kSampled && options_.period_ns > 0; }

  // ActivitySource: the flusher's side.
  void Drain(ActivityDrain& drain) override;
  void Discard() override;
  StreamOrderJoin* stream_join() override;

  // A fork() child: CUPTI and CUDA do not carry over; if the parent had touched CUPTI, the child
  // reports that at its first CUDA call and never starts CUPTI.
  void AfterForkInChild();

  // The callbacks CUPTI calls (routed to the collecting session).
  static void OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void OnBufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t size,
                                size_t valid_size);

  // Selection of the API records needed for external correlation: launches (unless joined by
  // stream order), graph launches, copies, sets.
  static bool WantApiRecord(CUpti_CallbackDomain domain, std::string_view name,
                            bool launches = true);

 private:
  enum class Outcome { kActive, kFailed, kLater };

  static void StartProcessSession(Trigger trigger) noexcept;
  Outcome TryStart(Trigger trigger);
  Outcome Fail(std::string reason);
  bool EnableKind(CUpti_ActivityKind kind);
  bool EnableApiRecords();
  int SwitchOffUnwantedApiRecords(bool driver, bool runtime, int* kept);
  void Activate();
  void Deactivate(CuptiState final_state);
  void ReleaseCompleted();
  void AddFinalStats(ActivityDrain& drain);
  bool joins_by_stream() const { return options_.join == GpuJoin::kStream; }
  bool selects_api_records() const {
    return options_.api_records == CuptiApiRecords::kSelected || joins_by_stream();
  }
  // Pushes on (a window opens, collection starts) or off.
  void SetPushes(bool on);

  using PushFn = decltype(&::cuptiActivityPushExternalCorrelationId);
  static bool PushWith(const std::atomic<PushFn>& slot, uint64_t id) {
    const PushFn push = slot.load(std::memory_order_relaxed);
    if (push == nullptr) return false;
    push(kFlopspyCorrelationKind, id);
    return true;
  }

  // The process session's fast path.
  static inline std::atomic<bool> start_decided_{false};
  static inline std::atomic<decltype(&::cuptiActivityPushExternalCorrelationId)> push_{nullptr};
  static inline std::atomic<decltype(&::cuptiActivityPopExternalCorrelationId)> pop_{nullptr};
  // push_, or null when kernels are joined by stream order.
  static inline std::atomic<decltype(&::cuptiActivityPushExternalCorrelationId)> launch_push_{
      nullptr};
  static inline std::atomic<CuptiSession*> process_{nullptr};
  // The session whose buffers CUPTI's callbacks serve.
  static inline std::atomic<CuptiSession*> collecting_{nullptr};

  CuptiSessionOptions options_;
  CuptiEnvironment env_;
  std::atomic<CuptiState> state_{CuptiState::kNotStarted};
  std::string reason_;
  bool touched_cupti_ = false;  // a CUPTI function was called (fork children then stay off)
  bool forked_child_ = false;
  int driver_waits_ = 0;
  CuptiApi api_;
  uint32_t version_ = 0;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::vector<CUpti_ActivityKind> enabled_kinds_;
  std::string cupti_path_;
  std::string cupti_origin_;
  std::string api_records_;  // how API records were enabled
  std::vector<std::string> kinds_failed_;
  Trigger trigger_ = Trigger::kFirstCudaCall;
  int devices_ = -1;
  int driver_version_ = 0;
  ActivityBufferPool pool_;
  std::unique_ptr<ActivityDecoder> decoder_;  // made when collection starts
  std::unique_ptr<StreamOrderJoin> join_;     // FLOPSPY_GPU_JOIN=stream, made with the decoder

  // Flusher-side bookkeeping.
  std::vector<ActivityBufferPool::Completed> completed_;
  std::vector<ActivityBufferView> views_;
  uint64_t last_flush_ns_ = 0;
  uint64_t dropped_total_ = 0;
  uint64_t refused_reported_ = 0;
  uint64_t refused_at_forced_flush_ = 0;  // pool refusals when the last forced flush was made
  uint64_t forced_flushes_ = 0;           // made because the pool ran dry
  uint64_t last_forced_ns_ = 0;
  uint64_t off_clock_reported_ = 0;
  // Sampled GPU timing (flusher side once active).
  bool window_open_ = false;
  uint64_t first_window_ns_ = 0;  // collection started: window 0 opened
  uint64_t window_opened_ns_ = 0;
  uint64_t window_index_ = 0;
};

}  // namespace flopspy::interpose
