#include "cupti_session.h"

#include <pthread.h>

#include <array>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>

#include "clock.h"
#include "driver_probe.h"
#include "encoder.h"
#include "log.h"

namespace flopspy::interpose {
namespace {

// CUPTI's timestamp source: flopspy's clock, so CPU and GPU times need no mapping.
uint64_t CuptiTimestamp() {
  return NowNs();
}

// The subscriber exists only to learn whether another tool holds CUPTI; no domain is enabled,
// so this is never called.
void IgnoreCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

constexpr uint64_t kOneSecondNs = 1'000'000'000;
constexpr size_t kOldSubscriberNameBytes = 2 * CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN;

// Sessions that a fork() child must reset. Tests make a few; the process has one.
std::array<std::atomic<CuptiSession*>, 16> g_fork_sessions{};

void AtForkChild() {
  for (auto& slot : g_fork_sessions) {
    if (CuptiSession* session = slot.load(std::memory_order_acquire)) session->AfterForkInChild();
  }
}

// std::call_once is avoided in libflopspy.so: libstdc++ implements it with thread-local state
// reached through __tls_get_addr, which would make the library need ld-linux.so.
std::mutex g_once_mutex;

void RegisterForFork(CuptiSession* session) {
  {
    static bool registered = false;
    std::lock_guard lock(g_once_mutex);
    if (!registered) pthread_atfork(nullptr, nullptr, AtForkChild);
    registered = true;
  }
  for (auto& slot : g_fork_sessions) {
    if (slot.load(std::memory_order_acquire) == session) return;
  }
  for (auto& slot : g_fork_sessions) {
    CuptiSession* expected = nullptr;
    if (slot.compare_exchange_strong(expected, session, std::memory_order_acq_rel)) return;
  }
}

void UnregisterForFork(CuptiSession* session) {
  for (auto& slot : g_fork_sessions) {
    CuptiSession* expected = session;
    slot.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
  }
}

const char* KindName(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return "CONCURRENT_KERNEL";
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return "MEMCPY";
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return "MEMCPY2";
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return "MEMSET";
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return "EXTERNAL_CORRELATION";
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return "DRIVER";
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      return "RUNTIME";
    default:
      return "OTHER";
  }
}

// Decoded records into the GPU-activity chunk through the encoder.
class EncoderSink final : public ActivitySink {
 public:
  EncoderSink(Encoder& encoder, trace::ChunkBuilder& chunk, StreamOrderJoin* join)
      : encoder_(encoder), chunk_(chunk), join_(join) {}
  uint32_t KernelSignature(std::string_view mangled_name, const KernelShape& shape) override {
    return encoder_.KernelSignatureByName(mangled_name, shape.grid, shape.block, shape.cluster,
                                          shape.dynamic_smem, chunk_);
  }
  void Emit(const trace::GpuActivityRecord& record) override {
    encoder_.Append(chunk_, &record, sizeof(record));
  }
  StreamOrderJoin* stream_join() override { return join_; }

 private:
  Encoder& encoder_;
  trace::ChunkBuilder& chunk_;
  StreamOrderJoin* join_;
};

}  // namespace

CuptiEnvironment CuptiEnvironment::Production() {
  CuptiEnvironment e;
  e.recording = [] {
    return Recorder::Get() != nullptr && g_recording.load(std::memory_order_acquire);
  };
  e.loaded_driver = [] { return LoadedDriver(); };
  e.locate = [](std::string_view configured) { return LocateCupti(configured); };
  e.resolve = [](void* cupti, void* driver, CuptiApi* api) { ResolveCuptiApi(cupti, driver, api); };
  e.report = [](std::string_view key, trace::WarningCode code, std::string_view message) {
    ReportOnce(key, code, message);
  };
  e.notice = [](std::string_view key, trace::WarningCode code, std::string_view message) {
    NoticeOnce(key, code, message);
  };
  e.metadata = [](std::string json) {
    if (Recorder* r = Recorder::Get()) r->AddMetadata(std::move(json));
  };
  e.attach = [](ActivitySource* source) {
    if (Recorder* r = Recorder::Get()) r->SetActivitySource(source);
  };
  e.now = [] { return NowNs(); };
  return e;
}

CuptiSession::CuptiSession(CuptiSessionOptions options, CuptiEnvironment environment)
    : options_(std::move(options)),
      env_(std::move(environment)),
      pool_(options_.buffer_bytes, options_.buffer_count) {}

CuptiSession::~CuptiSession() {
  UnregisterForFork(this);
  CuptiSession* self = this;
  if (collecting_.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel)) {
    launch_push_.store(nullptr, std::memory_order_release);
    push_.store(nullptr, std::memory_order_release);
    pop_.store(nullptr, std::memory_order_release);
  }
}

void CuptiSession::SetPushes(bool on) {
  const auto push = on ? api_.cuptiActivityPushExternalCorrelationId : nullptr;
  launch_push_.store(joins_by_stream() ? nullptr : push, std::memory_order_release);
  push_.store(push, std::memory_order_release);
}

void CuptiSession::StartProcessSession(Trigger trigger) noexcept {
  CuptiSession* session = process_.load(std::memory_order_acquire);
  if (session == nullptr) {
    Recorder* recorder = Recorder::Get();
    if (recorder == nullptr) {  // flopspy is off: nothing to time, nothing to say
      start_decided_.store(true, std::memory_order_release);
      return;
    }
    // Called from a hook: nothing may be thrown to the program (out of memory: no GPU timing).
    try {
      std::lock_guard lock(g_once_mutex);
      if (process_.load(std::memory_order_acquire) == nullptr) {
        CuptiSessionOptions options;
        options.timing = recorder->config().gpu_timing;
        options.window_ns = recorder->config().gpu_window_ns;
        options.period_ns = recorder->config().gpu_period_ns;
        options.cupti_path = recorder->config().cupti_path;
        options.api_records = recorder->config().cupti_api_records;
        const Config& c = recorder->config();
        options.join = c.gpu_join;
        if (c.gpu_join == GpuJoin::kStream && c.counters) {
          // Counter mode replays a measured launch: its replays would take later launches'
          // places in the stream's order.
          options.join = GpuJoin::kCorrelation;
          options.join_note =
              "FLOPSPY_GPU_JOIN=stream not taken: counter mode replays kernels, so kernels are "
              "joined by external correlation";
        }
        options.decoder.drop_unjoined =
            c.delay_ns > 0 || c.duration_ns > 0 || !c.capture_range.empty();
        // Never destroyed: CUPTI may call back while the process exits.
        process_.store(new CuptiSession(std::move(options), CuptiEnvironment::Production()),
                       std::memory_order_release);
      }
    } catch (...) {
      start_decided_.store(true, std::memory_order_release);
      return;
    }
    session = process_.load(std::memory_order_acquire);
  }
  const CuptiState state = session->Start(trigger);
  if (state != CuptiState::kNotStarted && state != CuptiState::kStarting) {
    start_decided_.store(true, std::memory_order_release);
  }
}

CuptiState CuptiSession::Start(Trigger trigger) {
  CuptiState expected = CuptiState::kNotStarted;
  if (!state_.compare_exchange_strong(expected, CuptiState::kStarting, std::memory_order_acq_rel)) {
    return expected;
  }
  Outcome outcome;
  try {
    RegisterForFork(this);
    if (!env_.recording()) {
      // Nothing would be written (flopspy off in this process, or past its final flush).
      reason_ = "flopspy is not recording in this process";
      outcome = Outcome::kFailed;
    } else {
      trigger_ = trigger;
      outcome = TryStart(trigger);
      if (outcome == Outcome::kActive) Activate();  // marks the session active last
    }
  } catch (const std::exception& e) {
    outcome = Fail(std::string("internal error while starting CUPTI: ") + e.what());
  } catch (...) {
    outcome = Fail("internal error while starting CUPTI");
  }
  switch (outcome) {
    case Outcome::kActive:
      break;
    case Outcome::kFailed:
      state_.store(CuptiState::kUnavailable, std::memory_order_release);
      break;
    case Outcome::kLater:
      state_.store(CuptiState::kNotStarted, std::memory_order_release);
      break;
  }
  return state();
}

CuptiSession::Outcome CuptiSession::Fail(std::string reason) {
  reason_ = std::move(reason);
  // Undo what was done, so that another tool can have CUPTI.
  if (touched_cupti_) {
    for (const CUpti_ActivityKind kind : enabled_kinds_) api_.cuptiActivityDisable(kind);
    enabled_kinds_.clear();
    if (subscriber_ != nullptr) api_.cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
  }
  CuptiSession* self = this;
  collecting_.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);
  // Off as configured: information, which FLOPSPY_QUIET silences; anything else is a failure.
  const bool chosen = options_.timing == GpuTiming::kOff && env_.notice;
  (chosen ? env_.notice : env_.report)(
      "cupti-unavailable", trace::WarningCode::kCuptiUnavailable,
      "no GPU times: " + reason_ + "; kernel launches are still recorded");
  nlohmann::json j;
  j["gpu_timing"] = {{"available", false}, {"reason", reason_}};
  if (!cupti_path_.empty()) j["gpu_timing"]["cupti_path"] = cupti_path_;
  if (version_ != 0) j["gpu_timing"]["cupti_version"] = version_;
  env_.metadata(j.dump());
  return Outcome::kFailed;
}

CuptiSession::Outcome CuptiSession::TryStart(Trigger trigger) {
  if (options_.timing == GpuTiming::kOff) return Fail("FLOPSPY_GPU_TIMING=off");
  if (forked_child_) {
    return Fail(
        "this process was forked from one that used CUPTI, and CUDA does not carry over "
        "fork()");
  }

  // The driver first: CUPTI's device-side calls misbehave without one (docs/cuda-notes.md,
  // "CUPTI without a driver").
  void* driver = env_.loaded_driver();
  if (driver == nullptr) {
    if (trigger == Trigger::kFirstCudaCall && driver_waits_++ < options_.max_driver_waits) {
      return Outcome::kLater;
    }
    return Fail("no CUDA driver is loaded (libcuda.so.1)");
  }

  const CuptiLibrary library = env_.locate(options_.cupti_path);
  if (library.handle == nullptr) return Fail(library.error);
  cupti_path_ = library.path;
  cupti_origin_ = library.origin;
  env_.resolve(library.handle, driver, &api_);
  if (const std::string missing = api_.MissingRequired(); !missing.empty()) {
    return Fail(cupti_path_ + " lacks " + missing);
  }

  // Under injection the driver is initialising and calls us: it works, and cuInit would
  // re-enter it.
  if (trigger == Trigger::kFirstCudaCall) {
    const DriverProbe probe = ProbeDriver(api_.cuInit, api_.cuDeviceGetCount);
    if (!probe.ok()) return Fail(probe.failure);
    devices_ = probe.devices;
  }
  if (api_.cuDriverGetVersion != nullptr) api_.cuDriverGetVersion(&driver_version_);

  touched_cupti_ = true;
  if (api_.cuptiGetVersion(&version_) != CUPTI_SUCCESS) {
    version_ = 0;
    return Fail("cuptiGetVersion failed in " + cupti_path_);
  }

  // Is CUPTI free? One subscriber per process: nsys, ncu, compute-sanitizer and a running
  // torch.profiler hold it. The subscriber is released below, once activities are enabled.
  char holder[kOldSubscriberNameBytes] = {};
  CUptiResult rc;
  const char* call;
  if (api_.cuptiSubscribe_v2 != nullptr) {
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "flopspy";
    params.oldSubscriberName = holder;
    params.oldSubscriberSize = sizeof(holder);
    call = "cuptiSubscribe_v2";
    rc = api_.cuptiSubscribe_v2(&subscriber_, &IgnoreCallback, nullptr, &params);
  } else {
    call = "cuptiSubscribe";
    rc = api_.cuptiSubscribe(&subscriber_, &IgnoreCallback, nullptr);
  }
  if (rc != CUPTI_SUCCESS) {
    subscriber_ = nullptr;
    if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      holder[sizeof(holder) - 1] = '\0';
      const std::string who = holder[0] != '\0' ? std::string(holder) : "another tool";
      return Fail("CUPTI is in use by " + who +
                  " (one CUPTI subscriber per process; flopspy leaves it to that tool)");
    }
    return Fail(std::string(call) + " failed: " + CuptiErrorText(api_, rc));
  }

  rc = api_.cuptiActivityRegisterTimestampCallback(&CuptiTimestamp);
  if (rc != CUPTI_SUCCESS) {
    return Fail("CUPTI does not take flopspy's clock (cuptiActivityRegisterTimestampCallback: " +
                CuptiErrorText(api_, rc) + ")");
  }
  std::string error;
  if (!pool_.Allocate(&error)) return Fail(error);
  collecting_.store(this, std::memory_order_release);
  rc = api_.cuptiActivityRegisterCallbacks(&OnBufferRequested, &OnBufferCompleted);
  if (rc != CUPTI_SUCCESS) {
    return Fail("cuptiActivityRegisterCallbacks failed: " + CuptiErrorText(api_, rc));
  }
  if (!EnableKind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
    return Fail("CUPTI cannot trace kernels (cuptiActivityEnable(CONCURRENT_KERNEL): " +
                kinds_failed_.back() + ")");
  }
  EnableKind(CUPTI_ACTIVITY_KIND_MEMCPY);
  EnableKind(CUPTI_ACTIVITY_KIND_MEMCPY2);
  EnableKind(CUPTI_ACTIVITY_KIND_MEMSET);
  if (EnableKind(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) EnableApiRecords();

  // Activity collection does not need the subscriber; holding it would make Kineto's one-shot
  // subscribe fail for good, and torch.profiler would see no GPU events (docs/gpu-timing.md,
  // "One CUPTI client per process").
  api_.cuptiUnsubscribe(subscriber_);
  subscriber_ = nullptr;
  return Outcome::kActive;
}

bool CuptiSession::EnableKind(CUpti_ActivityKind kind) {
  const CUptiResult rc = api_.cuptiActivityEnable(kind);
  if (rc == CUPTI_SUCCESS) {
    enabled_kinds_.push_back(kind);
    return true;
  }
  kinds_failed_.push_back(std::string(KindName(kind)) + ": " + CuptiErrorText(api_, rc));
  return false;
}

bool CuptiSession::WantApiRecord(CUpti_CallbackDomain domain, std::string_view name,
                                 bool launches) {
  const auto starts = [&](std::string_view prefix) {
    return name.substr(0, prefix.size()) == prefix;
  };
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (starts("cuLaunchHostFunc")) return false;  // runs on the CPU: no GPU record
    return (launches && starts("cuLaunch")) || starts("cuGraphLaunch") || starts("cuMemcpy") ||
           starts("cuMemset");
  }
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (starts("cudaLaunchHostFunc")) return false;
    return (launches && (starts("cudaLaunch") || starts("__cudaLaunch"))) ||
           starts("cudaGraphLaunch") || starts("cudaMemcpy") || starts("cudaMemset");
  }
  return false;
}

bool CuptiSession::EnableApiRecords() {
  // External correlation records come only with API records, so the driver and runtime kinds are
  // on. CUPTI's per-call switch alone (cuptiActivityEnableDriverApi on a kind left off) gave no
  // API records at all on an H200 (CUPTI 13.0.1, driver 580): docs/validation.md. With
  // FLOPSPY_CUPTI_API_RECORDS=selected the calls that put no work on the GPU are then switched
  // off one by one (the kinds must be on first: enabling a kind resets the per-call switches).
  const bool d = EnableKind(CUPTI_ACTIVITY_KIND_DRIVER);
  const bool r = EnableKind(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (!d && !r) {
    api_records_ = "none (no correlation)";
    return false;
  }
  api_records_ = "all driver and runtime calls";
  if (!selects_api_records() || api_.cuptiGetCallbackName == nullptr ||
      api_.cuptiActivityEnableDriverApi == nullptr ||
      api_.cuptiActivityEnableRuntimeApi == nullptr) {
    return true;
  }
  int kept = 0;
  const int off = SwitchOffUnwantedApiRecords(d, r, &kept);
  api_records_ = "selected: " + std::to_string(kept) +
                 (joins_by_stream() ? " graph launch, copy and set calls kept, "
                                    : " launch, copy and set calls kept, ") +
                 std::to_string(off) + " others switched off";
  return true;
}

// Switches off, call by call, the API records of calls that put no work on the GPU. Returns how
// many; `kept` receives how many stay on.
int CuptiSession::SwitchOffUnwantedApiRecords(bool driver, bool runtime, int* kept) {
  int off = 0;
  for (const CUpti_CallbackDomain domain :
       {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API}) {
    const bool is_driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
    if (!(is_driver ? driver : runtime)) continue;
    // Ids past the headers' count: calls a newer library added.
    const uint32_t limit = (is_driver ? static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_SIZE)
                                      : static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_SIZE)) +
                           512;
    for (uint32_t cbid = 1; cbid < limit; ++cbid) {
      const char* name = nullptr;
      if (api_.cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) {
        continue;
      }
      if (WantApiRecord(domain, name, /*launches=*/!joins_by_stream())) {
        ++*kept;
        continue;
      }
      const CUptiResult rc = is_driver ? api_.cuptiActivityEnableDriverApi(cbid, 0)
                                       : api_.cuptiActivityEnableRuntimeApi(cbid, 0);
      off += rc == CUPTI_SUCCESS ? 1 : 0;
    }
  }
  return off;
}

std::string CuptiSession::WindowTick(uint64_t now_ns) {
  if (!sampled() || state() != CuptiState::kActive || forked_child_) return "";
  if (window_open_) {
    if (now_ns - window_opened_ns_ < options_.window_ns) return "";
    // The window ends before the pushes stop: a launch entering after `closed` is outside it,
    // whether or not it was still pushed. A push made before still pops (pop_ stays).
    const uint64_t closed = env_.now();
    SetPushes(false);
    if (join_) join_->WindowClosed(closed);
    for (auto kind = enabled_kinds_.rbegin(); kind != enabled_kinds_.rend(); ++kind) {
      api_.cuptiActivityDisable(*kind);
    }
    api_.cuptiActivityFlushAll(0);
    window_open_ = false;
    return nlohmann::json{
        {"gpu_window", {{"event", "close"}, {"index", window_index_}, {"time_ns", closed}}}}
        .dump();
  }
  const uint64_t next = first_window_ns_ + (window_index_ + 1) * options_.period_ns;
  if (now_ns < next) return "";
  // Kernels launched while the kinds are being enabled may get records: the join queues launches
  // from before (it passes over those that get none), the trace counts them owed from after.
  const uint64_t enabling = env_.now();
  bool driver = false, runtime = false;
  for (const CUpti_ActivityKind kind : enabled_kinds_) {
    api_.cuptiActivityEnable(kind);
    driver = driver || kind == CUPTI_ACTIVITY_KIND_DRIVER;
    runtime = runtime || kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  }
  // Enabling a kind switched its calls back on: the selection is made again.
  if (selects_api_records() && api_.cuptiGetCallbackName != nullptr &&
      api_.cuptiActivityEnableDriverApi != nullptr &&
      api_.cuptiActivityEnableRuntimeApi != nullptr && (driver || runtime)) {
    int kept = 0;
    SwitchOffUnwantedApiRecords(driver, runtime, &kept);
  }
  const uint64_t opened = env_.now();
  // A flusher held up for more than a period skips the windows it missed.
  window_index_ = (now_ns - first_window_ns_) / options_.period_ns;
  window_opened_ns_ = now_ns;  // on the flusher's ticks, as the close is decided
  window_open_ = true;
  if (join_) join_->WindowOpened(enabling);
  SetPushes(true);
  return nlohmann::json{
      {"gpu_window", {{"event", "open"}, {"index", window_index_}, {"time_ns", opened}}}}
      .dump();
}

void CuptiSession::Activate() {
  DecoderOptions decoder = options_.decoder;
  decoder.cupti_version = version_;
  const uint64_t now = env_.now();
  decoder.valid_from_ns = now > kOneSecondNs ? now - kOneSecondNs : 1;
  decoder_ = std::make_unique<ActivityDecoder>(decoder);
  if (joins_by_stream()) join_ = std::make_unique<StreamOrderJoin>(options_.stream_join);
  last_flush_ns_ = now;

  nlohmann::json j;
  nlohmann::json kinds = nlohmann::json::array();
  for (const CUpti_ActivityKind kind : enabled_kinds_) kinds.push_back(KindName(kind));
  j["gpu_timing"] = {
      {"available", true},
      {"source", "CUPTI activity API"},
      {"cupti_version", version_},
      {"cupti_path", cupti_path_},
      {"cupti_found", cupti_origin_},
      {"started_by", trigger_ == Trigger::kInjection ? "CUDA_INJECTION64_PATH" : "first CUDA call"},
      {"clock", "CLOCK_MONOTONIC (flopspy's timestamp callback)"},
      {"external_correlation_kind", "CUSTOM2"},
      {"join", joins_by_stream() ? "stream order (kernels); external correlation (graph "
                                   "launches, copies, sets)"
                                 : "external correlation"},
      {"activity_kinds", kinds},
      {"kinds_failed", kinds_failed_},
      {"api_records", api_records_},
      {"subscriber", "released after enabling activities"},
      {"buffers", {{"bytes", pool_.buffer_bytes()}, {"count", pool_.count()}}},
  };
  if (sampled()) {
    // Window 0 is open from now: CUPTI's start-up is paid here, once.
    window_open_ = true;
    first_window_ns_ = window_opened_ns_ = now;
    window_index_ = 0;
    j["gpu_timing"]["sampled"] = {{"window_ns", options_.window_ns},
                                  {"period_ns", options_.period_ns},
                                  {"first_window_open_ns", now}};
  }
  if (!options_.join_note.empty()) j["gpu_timing"]["join_note"] = options_.join_note;
  if (devices_ >= 0) j["gpu_timing"]["devices"] = devices_;
  if (driver_version_ != 0) j["gpu_timing"]["driver_version"] = driver_version_;
  env_.metadata(j.dump());

  SetPushes(true);
  pop_.store(api_.cuptiActivityPopExternalCorrelationId, std::memory_order_release);
  state_.store(CuptiState::kActive, std::memory_order_release);
  env_.attach(this);
}

void CuptiSession::Deactivate(CuptiState final_state) {
  if (collecting_.load(std::memory_order_acquire) == this) {
    SetPushes(false);
    pop_.store(nullptr, std::memory_order_release);
  }
  state_.store(final_state, std::memory_order_release);
}

void CuptiSession::OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  CuptiSession* session = collecting_.load(std::memory_order_acquire);
  // While starting too: the kinds are enabled before the session is marked active.
  const CuptiState state = session != nullptr ? session->state() : CuptiState::kStopped;
  if (state != CuptiState::kActive && state != CuptiState::kStarting) {
    *buffer = nullptr;
    *size = 0;
    return;
  }
  *buffer = session->pool_.Take(size);
}

void CuptiSession::OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t,
                                     size_t valid_size) {
  if (CuptiSession* session = collecting_.load(std::memory_order_acquire)) {
    session->pool_.Complete(buffer, valid_size);
  }
}

void CuptiSession::ReleaseCompleted() {
  pool_.CollectCompleted(&completed_);
  for (const auto& c : completed_) pool_.Release(c.slot);
  completed_.clear();
}

void CuptiSession::Discard() {
  ReleaseCompleted();
}

StreamOrderJoin* CuptiSession::stream_join() {
  return state() == CuptiState::kActive && !forked_child_ ? join_.get() : nullptr;
}

void CuptiSession::Drain(ActivityDrain& drain) {
  if (state() != CuptiState::kActive || forked_child_) {
    ReleaseCompleted();
    return;
  }
  // Buffers CUPTI still holds: all of them at the end (unless a fatal signal is being handled:
  // the crashing thread may hold CUPTI's locks), and now and then the finished ones.
  const uint64_t before = env_.now();
  if (drain.final) {
    if (drain.reason != trace::EndReason::kSignal) {
      const CUptiResult rc = api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      if (rc != CUPTI_SUCCESS) {
        env_.report("cupti-final-flush", trace::WarningCode::kCuptiUnavailable,
                    "CUPTI could not hand over its last GPU records at the end "
                    "(cuptiActivityFlushAll: " +
                        CuptiErrorText(api_, rc) +
                        "); GPU records of the last kernels may be missing");
      }
    }
  } else if (pool_.refused() > refused_at_forced_flush_ &&
             (forced_flushes_ == 0 || before - last_forced_ns_ >= options_.periodic_flush_ns)) {
    // CUPTI asked for a buffer and every one was taken. CUPTI 13 keeps one buffer per thread
    // that makes records and a plain flush withholds any holding unfinished work, so only a
    // forced flush brings the part-filled ones back (work still running comes back without an
    // end and is counted as incomplete: fewer records lost than with no buffer at all).
    // At most once per periodic flush interval: each one ends running work's records early.
    refused_at_forced_flush_ = pool_.refused();
    api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    ++forced_flushes_;
    last_flush_ns_ = last_forced_ns_ = before;
  } else if (before - last_flush_ns_ >= options_.periodic_flush_ns) {
    api_.cuptiActivityFlushAll(0);
    last_flush_ns_ = before;
  }

  size_t dropped = 0;
  if (api_.cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS &&
      dropped > 0) {
    trace::LostRecordsRecord lost{};
    lost.h = trace::MakeHeader<trace::LostRecordsRecord>();
    lost.source = static_cast<uint16_t>(trace::LossSource::kCuptiBuffer);
    lost.count = dropped;
    lost.time_ns = env_.now();
    drain.encoder.Append(drain.process_chunk, &lost, sizeof(lost));
    drain.lost += dropped;
    dropped_total_ += dropped;
    if (join_) join_->NoteLostRecords(dropped);
  }

  pool_.CollectCompleted(&completed_);
  views_.clear();
  for (const auto& c : completed_) views_.push_back({c.data, c.valid_size});
  EncoderSink sink(drain.encoder, drain.chunk, join_.get());
  decoder_->Decode(views_, api_.cuptiActivityGetNextRecord, sink, env_.now(), drain.final);
  for (const auto& c : completed_) pool_.Release(c.slot);
  completed_.clear();

  if (pool_.refused() > refused_reported_) {
    refused_reported_ = pool_.refused();
    env_.report("cupti-buffers", trace::WarningCode::kGeneric,
                "CUPTI's activity buffers ran out (" +
                    std::to_string(pool_.count() * pool_.buffer_bytes() >> 20) +
                    " MiB in use); CUPTI dropped GPU records, counted in the trace");
  }
  if (decoder_->stats().off_clock > off_clock_reported_) {
    off_clock_reported_ = decoder_->stats().off_clock;
    env_.report("cupti-clock", trace::WarningCode::kCuptiUnavailable,
                "GPU records arrived on another clock (another CUPTI client, such as "
                "torch.profiler, replaced flopspy's timestamp source); they are left out");
  }
  if (drain.final) {
    AddFinalStats(drain);
    Deactivate(CuptiState::kStopped);
  }
}

void CuptiSession::AddFinalStats(ActivityDrain& drain) {
  const DecoderStats& s = decoder_->stats();
  nlohmann::json j;
  j["gpu_timing_stats"] = {
      {"kernels", s.kernels},
      {"memcpys", s.memcpys},
      {"memsets", s.memsets},
      {"joined", s.joined},
      {"unjoined", s.unjoined},
      {"outside_window", s.outside_window},
      {"waited_for_correlation", s.deferred},
      {"incomplete_dropped", s.incomplete},
      {"off_clock_dropped", s.off_clock},
      {"dropped_by_cupti", dropped_total_},
      {"buffer_requests", pool_.taken()},
      {"buffer_requests_refused", pool_.refused()},
      {"forced_flushes", forced_flushes_},
      {"foreign_correlation_records", s.foreign_correlations},
      {"correlation_records", s.external_correlations},
      {"api_records", s.api_records},
      {"other_records", s.other_records},
      {"iterator_errors", s.iterator_errors},
      {"foreign_buffers", pool_.foreign()},
  };
  if (join_) {
    const StreamOrderJoinStats& t = join_->stats();
    j["gpu_timing_stats"]["stream_join"] = {
        {"launches", t.launches},
        {"library_calls", t.library_calls},
        {"joined", t.joined},
        {"joined_to_library", t.joined_to_library},
        {"unjoined", t.unjoined},
        {"launches_passed_over", t.launches_passed_over},
        {"launches_dropped", t.launches_dropped},
        {"records_without_launch", t.without_launch},
        {"records_dropped", t.records_dropped},
        {"streams_mapped", t.streams_mapped},
        {"ambiguous_maps", t.ambiguous_maps},
    };
  }
  // A few hundred bytes into a chunk of a megabyte that holds only this pass's bookkeeping; if
  // it ever does not fit, the figures are left out rather than the chunk split here.
  drain.process_chunk.AppendMetadata(j.dump());
}

void CuptiSession::AfterForkInChild() {
  // The parent's CUPTI does not exist here; its buffers are the parent's to write.
  CuptiSession* self = this;
  if (collecting_.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel)) {
    launch_push_.store(nullptr, std::memory_order_relaxed);
    push_.store(nullptr, std::memory_order_relaxed);
    pop_.store(nullptr, std::memory_order_relaxed);
  }
  pool_.ResetAll();
  // The parent's launches are not the child's. Leaked, not freed: the parent's flusher may have
  // been changing it when fork() was called.
  (void)join_.release();
  forked_child_ = forked_child_ || touched_cupti_;
  subscriber_ = nullptr;
  enabled_kinds_.clear();
  driver_waits_ = 0;
  state_.store(CuptiState::kNotStarted, std::memory_order_relaxed);
  if (process_.load(std::memory_order_relaxed) == this) {
    start_decided_.store(false, std::memory_order_relaxed);
  }
}

}  // namespace flopspy::interpose
