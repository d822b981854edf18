#include "recorder.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "clock.h"
#include "log.h"
#include "process_info.h"
#include "trace_file.h"

#ifndef FLOPSPY_VERSION
#define FLOPSPY_VERSION "unknown"
#endif

namespace flopspy::interpose {

std::atomic<bool> g_recording{false};
thread_local ThreadBuffer* tls_buffer __attribute__((tls_model("initial-exec"))) = nullptr;
std::atomic<Recorder*> Recorder::instance_{nullptr};

namespace {

// Set while this thread is inside AcquireThreadBuffer (allocation may re-enter a hook).
thread_local bool tls_acquiring __attribute__((tls_model("initial-exec"))) = false;
// Set when this thread could not get a buffer, so it does not retry on every call.
thread_local bool tls_no_buffer __attribute__((tls_model("initial-exec"))) = false;
// The flusher thread marks itself so that a crash inside it does not wait for itself.
thread_local bool tls_is_flusher __attribute__((tls_model("initial-exec"))) = false;

void OnThreadExit(void* buffer) {
  static_cast<ThreadBuffer*>(buffer)->set_state(ThreadBuffer::State::kRetired);
}

timespec MonotonicDeadline(uint32_t ms) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += static_cast<long>(ms % 1000) * 1'000'000L;
  if (ts.tv_nsec >= 1'000'000'000L) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1'000'000'000L;
  }
  return ts;
}

void SleepMs(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000L};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

}  // namespace

ThreadBuffer* AcquireThreadBuffer() {
  Recorder* recorder = Recorder::Get();
  if (recorder == nullptr || tls_acquiring || tls_no_buffer) return nullptr;
  tls_acquiring = true;
  ThreadBuffer* buffer = recorder->NewBuffer();
  tls_acquiring = false;
  if (buffer == nullptr) tls_no_buffer = true;
  tls_buffer = buffer;
  return buffer;
}

Recorder::Recorder(Config config, std::vector<std::string> config_warnings)
    : config_(std::move(config)),
      config_warnings_(std::move(config_warnings)),
      writer_([this](std::span<const uint8_t> b) { return SinkWrite(b.data(), b.size()); }),
      encoder_([this](trace::ChunkBuilder& chunk) { WriteChunk(chunk); }) {
  const ProcessIdentity id = ReadProcessIdentity();
  pid_ = id.pid;
  parent_pid_ = id.parent_pid;
  rank_ = id.rank;
  local_rank_ = id.local_rank;
  host_ = id.host;
  start_monotonic_ns_ = NowNs();
  start_realtime_ns_ = RealtimeNs();
  sem_init(&wake_, 0, 0);
  pthread_key_create(&thread_exit_key_, OnThreadExit);
}

void Recorder::Start() {
  if (instance_.load(std::memory_order_acquire) != nullptr) return;
  ConfigResult parsed = ParseConfigFromEnvironment();
  SetQuiet(parsed.config.quiet);
  for (const std::string& w : parsed.warnings) WriteStderr(w);
  if (!parsed.config.enabled) return;

  // Never destroyed: hooks on other threads may run while the process exits.
  auto* recorder = new Recorder(std::move(parsed.config), std::move(parsed.warnings));
  std::string error;
  if (!PrepareOutputFolder(recorder->config_.out_dir, &error)) {
    WriteStderr("cannot write traces to " + recorder->config_.out_dir + ": " + error +
                "; this process (pid " + std::to_string(recorder->pid_) +
                ") runs untraced, unchanged");
    return;  // the recorder is leaked deliberately; instance_ stays null, hooks pass through
  }
  for (const std::string& w : recorder->config_warnings_) {
    recorder->AddWarning(trace::WarningCode::kBadConfig, w);
  }
  instance_.store(recorder, std::memory_order_release);
  g_recording.store(true, std::memory_order_release);
}

void Recorder::AddWarning(trace::WarningCode code, std::string_view message, bool standalone) {
  std::lock_guard lock(pending_mutex_);
  pending_warnings_.emplace_back(code, std::string(message));
  standalone_warning_pending_ = standalone_warning_pending_ || standalone;
}

void Recorder::AddMetadata(std::string json) {
  std::lock_guard lock(pending_mutex_);
  pending_metadata_.push_back(std::move(json));
}

ThreadBuffer* Recorder::NewBuffer() {
  const auto tid = static_cast<uint32_t>(syscall(SYS_gettid));
  ThreadBuffer* buffer = nullptr;
  // Reuse the buffer of a thread that has exited, so programs that create many short-lived
  // threads keep a bounded footprint.
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b != nullptr; b = b->next) {
    if (b->TryClaim()) {
      buffer = b;
      break;
    }
  }
  if (buffer == nullptr) {
    const size_t capacity = size_t{config_.buffer_kib} * 1024;
    void* memory = mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
      ReportOnce("buffer-mmap", trace::WarningCode::kInternalError,
                 std::string("cannot allocate a record buffer (") + std::strerror(errno) +
                     "); thread " + std::to_string(tid) + " is not recorded");
      return nullptr;
    }
    buffer = new ThreadBuffer(static_cast<uint8_t*>(memory), capacity);
    buffer->set_state(ThreadBuffer::State::kClaiming);
    ThreadBuffer* head = buffers_.load(std::memory_order_relaxed);
    do {
      buffer->next = head;
    } while (!buffers_.compare_exchange_weak(head, buffer, std::memory_order_release,
                                             std::memory_order_relaxed));
  }
  buffer->set_thread_id(tid);
  buffer->set_state(ThreadBuffer::State::kActive);
  pthread_setspecific(thread_exit_key_, buffer);
  StartFlusherOnce();
  return buffer;
}

void Recorder::StartFlusherOnce() {
  if (flusher_started_.exchange(true, std::memory_order_acq_rel)) return;
  // The flusher must never receive the program's signals (SIGINT, SIGTERM, SIGCHLD...).
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  const int rc = pthread_create(&flusher_thread_, &attr, &Recorder::FlusherMain, this);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    ReportOnce("flusher", trace::WarningCode::kInternalError,
               std::string("cannot start the flusher thread (") + std::strerror(rc) +
                   "); records are written only at exit");
    return;
  }
  flusher_running_.store(true, std::memory_order_release);
}

void* Recorder::FlusherMain(void* self) {
  auto* r = static_cast<Recorder*>(self);
  tls_is_flusher = true;
  pthread_setname_np(pthread_self(), "flopspy-flush");
  for (;;) {
    const timespec deadline = MonotonicDeadline(r->config_.flush_ms);
    while (sem_clockwait(&r->wake_, CLOCK_MONOTONIC, &deadline) == -1 && errno == EINTR) {
    }
    const uint64_t requested = r->flush_requested_.load(std::memory_order_acquire);
    const int reason = r->end_reason_.exchange(0, std::memory_order_acq_rel);
    {
      std::lock_guard lock(r->flush_mutex_);
      r->FlushPass(reason != 0, static_cast<trace::EndReason>(reason),
                   r->end_value_.load(std::memory_order_acquire));
    }
    r->flush_completed_.store(requested, std::memory_order_release);
  }
  return nullptr;
}

void Recorder::FlushNow(int wait_ms) {
  if (!flusher_running_.load(std::memory_order_acquire) || tls_is_flusher) return;
  const uint64_t ticket = flush_requested_.fetch_add(1, std::memory_order_acq_rel) + 1;
  sem_post(&wake_);
  for (int waited = 0; waited < wait_ms; ++waited) {
    if (flush_completed_.load(std::memory_order_acquire) >= ticket) return;
    SleepMs(1);
  }
}

void Recorder::Finish(trace::EndReason reason, int32_t value, int wait_ms, bool from_signal) {
  if (tls_is_flusher) return;
  if (flusher_running_.load(std::memory_order_acquire)) {
    end_value_.store(value, std::memory_order_release);
    end_reason_.store(static_cast<int>(reason), std::memory_order_release);
    FlushNow(wait_ms);
    return;
  }
  if (from_signal) return;  // no flusher: nothing was recorded that a signal handler could save
  std::lock_guard lock(flush_mutex_);
  FlushPass(true, reason, value);
}

void Recorder::BeforeFork() {
  flush_mutex_.lock();
}

void Recorder::AfterForkInParent() {
  flush_mutex_.unlock();
}

void Recorder::AfterForkInChild() {
  flush_mutex_.unlock();
  // The parent's threads do not exist here and the parent flushes its own copy of their
  // records: this process starts a trace of its own, or none.
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b != nullptr; b = b->next) {
    b->set_state(ThreadBuffer::State::kOrphaned);
  }
  tls_buffer = nullptr;
  tls_no_buffer = false;
  flusher_started_.store(false);
  flusher_running_.store(false);
  sem_destroy(&wake_);
  sem_init(&wake_, 0, 0);
  flush_requested_.store(0);
  flush_completed_.store(0);
  end_reason_.store(0);
  if (fd_ >= 0) close(fd_);  // the parent's file: never write into it
  fd_ = -1;
  file_failed_ = false;
  good_offset_ = 0;
  path_.clear();
  writer_ = trace::TraceWriter(
      [this](std::span<const uint8_t> b) { return SinkWrite(b.data(), b.size()); });
  encoder_.ForgetDefinitions();
  encoder_.ResetCounts();
  records_lost_ = 0;
  metadata_written_ = false;
  {
    std::lock_guard lock(pending_mutex_);
    pending_warnings_.clear();
    pending_metadata_.clear();
  }
  parent_pid_ = pid_;
  pid_ = static_cast<uint32_t>(getpid());
  file_flags_ |= trace::kFileForkedChild;
  start_monotonic_ns_ = NowNs();
  start_realtime_ns_ = RealtimeNs();
  if (!config_.follow_fork) g_recording.store(false, std::memory_order_release);
}

bool Recorder::EnsureFileOpen() {
  if (fd_ >= 0) return true;
  if (file_failed_) return false;
  std::string error;
  TraceFileIdentity name{host_, pid_, rank_};
  fd_ = CreateTraceFile(config_.out_dir, name, &path_, &error);
  if (fd_ < 0) {
    file_failed_ = true;
    g_recording.store(false, std::memory_order_release);
    ReportOnce("output", trace::WarningCode::kOutputUnavailable,
               "cannot create a trace in " + config_.out_dir + ": " + error +
                   "; this process (pid " + std::to_string(pid_) + ") runs untraced, unchanged");
    return false;
  }
  trace::FileIdentity identity;
  identity.pid = pid_;
  identity.parent_pid = parent_pid_;
  identity.rank = rank_;
  identity.local_rank = local_rank_;
  identity.flags = file_flags_;
  identity.start_realtime_ns = start_realtime_ns_;
  identity.start_monotonic_ns = start_monotonic_ns_;
  identity.run_id = config_.run_id;
  identity.host = host_;
  writer_.WriteHeader(trace::MakeFileHeader(identity));
  return true;
}

bool Recorder::SinkWrite(const uint8_t* bytes, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t w = ::write(fd_, bytes + done, size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int err = w < 0 ? errno : ENOSPC;
      // Cut the partial chunk off so that the file stays readable up to the last good chunk.
      if (ftruncate(fd_, static_cast<off_t>(good_offset_)) == 0) {
        lseek(fd_, static_cast<off_t>(good_offset_), SEEK_SET);
      }
      ReportOnce("write", trace::WarningCode::kOutputUnavailable,
                 "writing " + path_ + " failed (" + std::strerror(err) +
                     "); records are being lost until it works again");
      return false;
    }
    done += static_cast<size_t>(w);
  }
  good_offset_ += size;
  return true;
}

void Recorder::WriteChunk(trace::ChunkBuilder& chunk) {
  if (chunk.empty()) return;
  const uint32_t count = chunk.record_count();
  if (!writer_.WriteChunk(chunk)) {
    records_lost_ += count;
    // The chunk may have held definitions: define everything again from now on.
    encoder_.ForgetDefinitions();
  }
  chunk.Reset(chunk.source(), chunk.thread_id());
}

void Recorder::EmitThreadNames(trace::ChunkBuilder& chunk, ThreadBuffer& buffer) {
  buffer.thread_named = true;
  const uint32_t tid = buffer.thread_id();
  std::string name = ReadThreadName(tid);
  trace::ThreadDef def{};
  def.h = trace::MakeHeader<trace::ThreadDef>();
  def.thread_id = tid;
  def.name = name.empty() ? 0 : encoder_.Intern(name, chunk);
  encoder_.Append(chunk, &def, sizeof(def));
}

void Recorder::DrainBuffer(ThreadBuffer& buffer) {
  thread_chunk_.Reset(trace::ChunkSource::kThread, buffer.thread_id());
  buffer.Drain(
      [&](const uint8_t* record, size_t size) { encoder_.Encode(record, size, thread_chunk_); });
  WriteChunk(thread_chunk_);
}

bool Recorder::HasContent() {
  if (fd_ >= 0) return true;
  {
    std::lock_guard lock(pending_mutex_);
    // Metadata alone (the CPU sampler's capabilities) makes no trace.
    if (standalone_warning_pending_) return true;
  }
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b; b = b->next) {
    const auto state = b->state();
    if ((state == ThreadBuffer::State::kActive || state == ThreadBuffer::State::kRetired) &&
        (!b->empty() || b->dropped() > 0)) {
      return true;
    }
  }
  return false;
}

void Recorder::FlushPass(bool write_end, trace::EndReason reason, int32_t value) {
  // A process that recorded nothing (a shell, `ls` started by the program) leaves no file.
  if (!HasContent()) return;
  if (!EnsureFileOpen()) {
    // No output: keep buffers from filling up, nothing else.
    for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b; b = b->next) b->Discard();
    if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
      source->Discard();
    }
    return;
  }
  // Definitions first, so that every id is defined before any record uses it.
  process_chunk_.Reset(trace::ChunkSource::kProcess, 0);
  if (!metadata_written_) {
    process_chunk_.AppendMetadata(InitialMetadata());
    metadata_written_ = true;
  }
  AppendPending();
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b; b = b->next) {
    const auto state = b->state();
    if ((state == ThreadBuffer::State::kActive || state == ThreadBuffer::State::kRetired) &&
        !b->thread_named && !b->empty()) {
      EmitThreadNames(process_chunk_, *b);
    }
  }
  WriteChunk(process_chunk_);

  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b; b = b->next) {
    const auto state = b->state();
    if (state != ThreadBuffer::State::kActive && state != ThreadBuffer::State::kRetired) continue;
    DrainBuffer(*b);
    const uint64_t dropped = b->dropped();
    if (dropped > b->reported_drops) {
      trace::LostRecordsRecord lost{};
      lost.h = trace::MakeHeader<trace::LostRecordsRecord>();
      lost.source = static_cast<uint16_t>(trace::LossSource::kThreadBuffer);
      lost.thread_id = b->thread_id();
      lost.count = dropped - b->reported_drops;
      lost.time_ns = NowNs();
      records_lost_ += lost.count;
      b->reported_drops = dropped;
      encoder_.Append(process_chunk_, &lost, sizeof(lost));
    }
    if (state == ThreadBuffer::State::kRetired && b->empty()) {
      b->thread_named = false;
      b->set_state(ThreadBuffer::State::kFree);
    }
  }
  // GPU activity, in the thread chunk's memory (idle by now).
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    thread_chunk_.Reset(trace::ChunkSource::kGpuActivity, 0);
    ActivityDrain drain{encoder_, thread_chunk_, process_chunk_, write_end, reason};
    source->Drain(drain);
    WriteChunk(thread_chunk_);
    records_lost_ += drain.lost;
  }
  if (write_end) {
    if (const FinalMetadata provider = final_metadata_.load(std::memory_order_acquire)) {
      if (std::string json = provider(); !json.empty()) AddMetadata(std::move(json));
    }
  }
  // What was said during this pass (the CUPTI session's last words at the final one: buffers
  // that ran out, a flush that failed) goes into this pass, before the end record.
  AppendPending();
  if (write_end) {
    trace::TraceEndRecord end{};
    end.h = trace::MakeHeader<trace::TraceEndRecord>();
    end.reason = static_cast<uint8_t>(reason);
    end.time_ns = NowNs();
    end.value = value;
    end.records_written = encoder_.records_written() + 1;
    end.records_lost = records_lost_;
    encoder_.Append(process_chunk_, &end, sizeof(end));
  }
  WriteChunk(process_chunk_);
}

void Recorder::AppendPending() {
  std::vector<std::pair<trace::WarningCode, std::string>> warnings;
  std::vector<std::string> metadata;
  {
    std::lock_guard lock(pending_mutex_);
    warnings.swap(pending_warnings_);
    metadata.swap(pending_metadata_);
    standalone_warning_pending_ = false;
  }
  for (const std::string& json : metadata) {
    if (!process_chunk_.AppendMetadata(json)) {
      WriteChunk(process_chunk_);
      process_chunk_.AppendMetadata(json);
    }
  }
  for (const auto& [code, text] : warnings) {
    trace::WarningRecord w{};
    w.h = trace::MakeHeader<trace::WarningRecord>();
    w.code = static_cast<uint16_t>(code);
    w.time_ns = NowNs();
    w.message = encoder_.Intern(text, process_chunk_);
    encoder_.Append(process_chunk_, &w, sizeof(w));
  }
}

std::string Recorder::InitialMetadata() const {
  nlohmann::json j;
  j["flopspy"] = {{"version", FLOPSPY_VERSION}, {"trace_format", trace::kFormatVersion}};
  const ProcessIdentity id = ReadProcessIdentity();
  j["process"] = {{"pid", pid_},
                  {"parent_pid", parent_pid_},
                  {"host", host_},
                  {"rank", rank_},
                  {"local_rank", local_rank_},
                  {"command", id.command_line},
                  {"executable", id.executable},
                  {"start_realtime_ns", start_realtime_ns_},
                  {"forked", (file_flags_ & trace::kFileForkedChild) != 0}};
  j["system"] = {{"kernel", id.kernel_release},
                 {"machine", id.machine},
                 {"cpu_model", id.cpu_model},
                 {"online_cpus", id.online_cpus}};
  j["config"] = nlohmann::json::parse(ConfigToJson(config_));
  j["config_warnings"] = config_warnings_;
  return j.dump();
}

}  // namespace flopspy::interpose
