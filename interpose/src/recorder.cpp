#include "recorder.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <new>
#include <nlohmann/json.hpp>

#include "capture_window.h"
#include "catalog_param_bytes.h"
#include "clock.h"
#include "flopspy/platform/fork_wiped_memory.h"
#include "log.h"
#include "process_info.h"
#include "python_frames.h"
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
// Set when this thread could not get a buffer, so it does not retry on every call: it tries again
// once a buffer has been freed since (tls_no_buffer_freed holds the count it saw).
thread_local bool tls_no_buffer __attribute__((tls_model("initial-exec"))) = false;
thread_local uint64_t tls_no_buffer_freed __attribute__((tls_model("initial-exec"))) = 0;
// Set by the thread's exit handler: hooks called later in the thread's exit (another library's
// key destructor) record nothing, since the buffer may already be another thread's.
thread_local bool tls_thread_exiting __attribute__((tls_model("initial-exec"))) = false;
// Records of threads that had no buffer: lost, and counted like every other loss.
std::atomic<uint64_t> g_no_buffer_drops{0};

// A chunk's payload, in memory wiped on fork: the flusher writes it all the time, and a fork
// child never reads the parent's.
constexpr size_t kChunkBytes = size_t{1} << 20;
// Free buffers kept mapped for the next threads; the memory of the others is given back.
constexpr int kKeptFreeBuffers = 4;
// The share of an address-space limit (RLIMIT_AS) that record buffers may take.
constexpr size_t kAddressSpaceShare = 8;
// The flusher thread marks itself so that a crash inside it does not wait for itself.
thread_local bool tls_is_flusher __attribute__((tls_model("initial-exec"))) = false;

void OnThreadExit(void* value) {
  tls_buffer = nullptr;
  tls_thread_exiting = true;
  auto* buffer = static_cast<ThreadBuffer*>(value);
  // Only a buffer this thread still owns is retired (never one recycled to another thread).
  if (!buffer->TryMove(ThreadBuffer::State::kActive, ThreadBuffer::State::kRetired)) return;
  if (Recorder* r = Recorder::Get()) r->OnThreadRetired();
}

size_t BufferBudget(size_t capacity) {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  return std::max<size_t>(limit.rlim_cur / kAddressSpaceShare, capacity);
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

// FLOPSPY_OUT as an absolute path, fixed at start: the program may chdir (daemon() does) before
// anything is written.
std::string AbsoluteFolder(const std::string& dir) {
  if (dir.starts_with('/')) return dir;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return dir;
  std::string absolute = cwd;
  if (!absolute.ends_with('/')) absolute += '/';
  return absolute + (dir.starts_with("./") ? dir.substr(2) : dir);
}

}  // namespace

ThreadBuffer* AcquireThreadBuffer() {
  Recorder* recorder = Recorder::Get();
  if (recorder == nullptr) return nullptr;
  if (tls_acquiring || tls_thread_exiting ||
      (tls_no_buffer && recorder->buffers_freed() == tls_no_buffer_freed)) {
    g_no_buffer_drops.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  tls_acquiring = true;
  const int saved_errno = errno;  // the program's: mmap or a warning must not change it
  const uint64_t freed = recorder->buffers_freed();
  ThreadBuffer* buffer = recorder->NewBuffer();
  errno = saved_errno;
  tls_acquiring = false;
  tls_no_buffer = buffer == nullptr;
  tls_no_buffer_freed = freed;
  if (buffer == nullptr) g_no_buffer_drops.fetch_add(1, std::memory_order_relaxed);
  tls_buffer = buffer;
  return buffer;
}

Recorder::Recorder(Config config, std::vector<std::string> config_warnings)
    : config_(std::move(config)),
      config_warnings_(std::move(config_warnings)),
      writer_([this](std::span<const uint8_t> b) { return SinkWrite(b.data(), b.size()); }),
      thread_chunk_(kChunkBytes, platform::ForkWipedMemory()),
      process_chunk_(kChunkBytes, platform::ForkWipedMemory()),
      encoder_([this](trace::ChunkBuilder& chunk) { WriteChunk(chunk); }) {
  if (config_.compress) writer_.SetCompression(trace::kDefaultCompressionLevel);
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
  buffer_budget_bytes_ = BufferBudget(size_t{config_.buffer_kib} * 1024);
}

void Recorder::Start() {
  if (instance_.load(std::memory_order_acquire) != nullptr) return;
  CaptureStderr();
  ConfigResult parsed = ParseConfigFromEnvironment();
  SetQuiet(parsed.config.quiet);
  for (const std::string& w : parsed.warnings) WriteStderr(w);
  if (!parsed.config.enabled) return;

  // Never destroyed: hooks on other threads may run while the process exits.
  auto* recorder = new Recorder(std::move(parsed.config), std::move(parsed.warnings));
  recorder->config_.out_dir = AbsoluteFolder(recorder->config_.out_dir);
  std::string error;
  // The file is made now, as the user who started the program, in the folder named at start:
  // a later chdir, daemon() or privilege drop does not lose the trace (docs/guarantees.md).
  if (!PrepareOutputFolder(recorder->config_.out_dir, &error) ||
      !recorder->sink_.Create(recorder->config_.out_dir,
                              {recorder->host_, recorder->pid_, recorder->rank_}, &error)) {
    WriteStderr("cannot write traces to " + recorder->config_.out_dir + ": " + error +
                "; this process (pid " + std::to_string(recorder->pid_) +
                ") runs untraced, unchanged");
    return;  // the recorder is leaked deliberately; instance_ stays null, hooks pass through
  }
  for (const std::string& w : recorder->config_warnings_) {
    recorder->AddWarning(trace::WarningCode::kBadConfig, w);
  }
  // Whether the flusher may move the clock to the TSC; the trace's end says what was used.
  TraceClockStart(recorder->config_.clock);
  instance_.store(recorder, std::memory_order_release);
  // Closed until its start when --delay or --capture-range asked for one.
  InitCaptureWindow(recorder->config_, recorder->start_monotonic_ns_);
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
  const size_t capacity = size_t{config_.buffer_kib} * 1024;
  ThreadBuffer* buffer = nullptr;
  // Reuse the buffer of a thread that has exited, so programs that create many short-lived
  // threads keep a bounded footprint.
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b != nullptr; b = b->next) {
    if (b->TryMove(ThreadBuffer::State::kFree, ThreadBuffer::State::kClaiming)) {
      free_buffers_.fetch_sub(1, std::memory_order_acq_rel);
      buffer = b;
      break;
    }
  }
  if (buffer == nullptr) {
    // New memory, within the budget: a program that stays inside its address-space limit
    // without flopspy must stay inside it with flopspy.
    if (mapped_bytes_.fetch_add(capacity, std::memory_order_acq_rel) + capacity >
        buffer_budget_bytes_) {
      mapped_bytes_.fetch_sub(capacity, std::memory_order_acq_rel);
      if (budget_reported_.exchange(true, std::memory_order_acq_rel)) return nullptr;
      ReportOnce("buffer-budget", trace::WarningCode::kInternalError,
                 "record buffers reached " + std::to_string(buffer_budget_bytes_ >> 20) +
                     " MiB, 1/" + std::to_string(kAddressSpaceShare) +
                     " of the address-space limit (RLIMIT_AS); threads beyond it are not "
                     "recorded until a buffer is free, and their records are counted as lost");
      return nullptr;
    }
    // Wiped on fork: a fork child throws the parent's records away anyway, and the parent's
    // threads are spared a copy-on-write fault on every page they write after each fork.
    void* memory = platform::MapForkWiped(capacity);
    if (memory == nullptr) {
      mapped_bytes_.fetch_sub(capacity, std::memory_order_acq_rel);
      ReportOnce("buffer-mmap", trace::WarningCode::kInternalError,
                 std::string("cannot allocate a record buffer (") + std::strerror(errno) +
                     "); thread " + std::to_string(tid) +
                     " is not recorded, and its records are counted as lost");
      return nullptr;
    }
    // A buffer whose memory was given back is mapped again rather than a new one made.
    for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b != nullptr; b = b->next) {
      if (b->TryMove(ThreadBuffer::State::kUnmapped, ThreadBuffer::State::kClaiming)) {
        buffer = b;
        buffer->Attach(static_cast<uint8_t*>(memory));
        break;
      }
    }
    if (buffer == nullptr) {
      buffer = new (std::nothrow) ThreadBuffer(static_cast<uint8_t*>(memory), capacity);
      if (buffer == nullptr) {
        platform::UnmapForkWiped(memory, capacity);
        mapped_bytes_.fetch_sub(capacity, std::memory_order_acq_rel);
        return nullptr;
      }
      buffer->set_state(ThreadBuffer::State::kClaiming);
      ThreadBuffer* head = buffers_.load(std::memory_order_relaxed);
      do {
        buffer->next = head;
      } while (!buffers_.compare_exchange_weak(head, buffer, std::memory_order_release,
                                               std::memory_order_relaxed));
    }
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
    while (sem_trywait(&r->wake_) == 0) {  // one pass answers every wake so far
    }
    const uint64_t requested = r->flush_requested_.load(std::memory_order_acquire);
    const int reason = r->end_reason_.exchange(0, std::memory_order_acq_rel);
    {
      std::lock_guard lock(r->flush_mutex_);
      r->FlushPass(reason != 0, static_cast<trace::EndReason>(reason),
                   r->end_value_.load(std::memory_order_acquire));
    }
    r->flush_completed_.store(requested, std::memory_order_release);
    r->flush_progress_.fetch_add(1, std::memory_order_release);
  }
  return nullptr;
}

void Recorder::WaitForFlush(uint64_t ticket, Wait wait) {
  uint64_t progress = flush_progress_.load(std::memory_order_acquire);
  int stalled = 0;
  for (int waited = 0; waited < wait.total_ms && stalled < wait.stall_ms; ++waited) {
    if (flush_completed_.load(std::memory_order_acquire) >= ticket) return;
    SleepMs(1);
    const uint64_t now = flush_progress_.load(std::memory_order_acquire);
    stalled = now == progress ? stalled + 1 : 0;
    progress = now;
  }
}

void Recorder::FlushNow(Wait wait) {
  if (!flusher_running_.load(std::memory_order_acquire) || tls_is_flusher) return;
  const uint64_t ticket = flush_requested_.fetch_add(1, std::memory_order_acq_rel) + 1;
  sem_post(&wake_);
  WaitForFlush(ticket, wait);
}

bool Recorder::CatalogueNow(int limit_ms) {
  if (!flusher_running_.load(std::memory_order_acquire) || tls_is_flusher ||
      catalogue_stuck_.load(std::memory_order_acquire)) {
    return false;
  }
  // A pass under way may have catalogued before the new kernel arrived: then the next one counts.
  const uint64_t steps = catalogue_steps_.load(std::memory_order_acquire);
  const uint64_t wanted = steps + (pass_running_.load(std::memory_order_acquire) ? 2 : 1);
  flush_requested_.fetch_add(1, std::memory_order_acq_rel);
  sem_post(&wake_);
  for (int waited = 0; waited < limit_ms; ++waited) {
    if (catalogue_steps_.load(std::memory_order_acquire) >= wanted) return true;
    SleepMs(1);
  }
  catalogue_stuck_.store(true, std::memory_order_release);
  return false;
}

void Recorder::Finish(trace::EndReason reason, int32_t value, Wait wait, bool from_signal) {
  if (tls_is_flusher) return;
  // A fatal signal's last chunks are stored as they are: the thread it interrupted may hold
  // malloc's lock, and compressing may allocate.
  if (from_signal) store_raw_.store(true, std::memory_order_release);
  if (flusher_running_.load(std::memory_order_acquire)) {
    end_value_.store(value, std::memory_order_release);
    end_reason_.store(static_cast<int>(reason), std::memory_order_release);
    FlushNow(wait);
    return;
  }
  if (from_signal) {
    // No flusher: nothing was recorded that a signal handler could save. The file made at start
    // goes, as at any other end of a process that recorded nothing, unless a pass is writing it
    // on the thread this signal interrupted (only system calls here: async-signal-safe).
    if (!flusher_started_.load(std::memory_order_acquire) &&
        !pass_running_.load(std::memory_order_acquire)) {
      sink_.UnlinkIfEmpty();
    }
    return;
  }
  std::lock_guard lock(flush_mutex_);
  FlushPass(true, reason, value);
}

void Recorder::AfterForkInChild() {
  trace::CompressionAfterFork();
  // The parent's threads, its flusher among them, do not exist here, and any lock they held
  // stays held: every synchronisation object starts over. The parent flushes its own copy of
  // their records: this process starts a trace of its own, or none.
  new (&flush_mutex_) std::mutex();
  new (&pending_mutex_) std::mutex();
  ResetLogAfterFork();
  // The queues may be half-changed by a parent thread: start empty (the old memory is leaked).
  new (&pending_warnings_) std::vector<std::pair<trace::WarningCode, std::string>>();
  new (&pending_metadata_) std::vector<std::string>();
  standalone_warning_pending_ = false;
  int free_buffers = 0;
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b != nullptr; b = b->next) {
    const auto state = b->state();
    // Mid-unmap, or claimed by a parent thread before its memory came: the memory may be gone.
    if (state == ThreadBuffer::State::kUnmapped || state == ThreadBuffer::State::kUnmapping ||
        !b->has_memory()) {
      b->set_state(ThreadBuffer::State::kUnmapped);
      continue;
    }
    b->ResetAfterFork();
    b->set_state(ThreadBuffer::State::kFree);
    ++free_buffers;
  }
  free_buffers_.store(free_buffers);
  tls_buffer = nullptr;
  tls_no_buffer = false;
  pthread_setspecific(thread_exit_key_, nullptr);  // its old buffer is free for any thread now
  flusher_started_.store(false);
  flusher_running_.store(false);
  sem_destroy(&wake_);
  sem_init(&wake_, 0, 0);
  flush_requested_.store(0);
  flush_completed_.store(0);
  end_reason_.store(0);
  // The parent's file is the parent's: never written here, closed later by identity.
  sink_.ForgetAfterFork();
  file_failed_ = false;
  header_written_ = false;
  // The flusher's own state (encoder, chunks, writer) may be mid-change: replaced at the first
  // flush that has something to write, off the path of fork() itself.
  reset_flusher_state_ = true;
  // What decides whether the child has anything to write (HasContent) starts over now: the
  // parent's losses are the parent's.
  write_losses_unreported_ = 0;
  new (&losses_to_restate_) std::vector<trace::LostRecordsRecord>();
  no_buffer_losses_reported_ = g_no_buffer_drops.load(std::memory_order_acquire);
  activity_source_.store(nullptr, std::memory_order_release);  // CUDA does not cross fork()
  parent_pid_ = pid_;
  pid_ = static_cast<uint32_t>(getpid());
  file_flags_ |= trace::kFileForkedChild;
  start_monotonic_ns_ = NowNs();
  start_realtime_ns_ = RealtimeNs();
  if (!config_.follow_fork) g_recording.store(false, std::memory_order_release);
}

void Recorder::ResetFlusherState() {
  reset_flusher_state_ = false;
  // Placement new without destruction: the old objects may be inconsistent; their memory leaks.
  new (&writer_) trace::TraceWriter(
      [this](std::span<const uint8_t> b) { return SinkWrite(b.data(), b.size()); });
  if (config_.compress) writer_.SetCompression(trace::kDefaultCompressionLevel);
  new (&encoder_) Encoder([this](trace::ChunkBuilder& chunk) { WriteChunk(chunk); });
  new (&thread_chunk_) trace::ChunkBuilder(kChunkBytes, platform::ForkWipedMemory());
  new (&process_chunk_) trace::ChunkBuilder(kChunkBytes, platform::ForkWipedMemory());
  records_lost_ = 0;
  records_in_file_ = 0;
  metadata_written_ = false;
}

bool Recorder::EnsureFileOpen() {
  if (sink_.is_open()) return true;
  if (file_failed_) return false;
  // A fork child's first trace, or the next after an exec that failed: made now, by name.
  std::string error;
  header_written_ = false;
  if (!sink_.Create(config_.out_dir, {host_, pid_, rank_}, &error)) {
    file_failed_ = true;
    g_recording.store(false, std::memory_order_release);
    ReportOnce("output", trace::WarningCode::kOutputUnavailable,
               "cannot create a trace in " + config_.out_dir + ": " + error +
                   "; this process (pid " + std::to_string(pid_) + ") runs untraced, unchanged");
    return false;
  }
  return true;
}

bool Recorder::EnsureHeader() {
  if (header_written_) return true;
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
  identity.compressed_chunks = config_.compress;
  header_written_ = writer_.WriteHeader(trace::MakeFileHeader(identity));
  return header_written_;
}

bool Recorder::SinkWrite(const uint8_t* bytes, size_t size) {
  int error = 0;
  const bool written = sink_.Write(bytes, size, &error);
  flush_progress_.fetch_add(1, std::memory_order_release);
  if (written) return true;
  if (!sink_.is_open()) {
    // The sink gave up (and said why): nothing more can be written, so nothing more is kept.
    file_failed_ = true;
    g_recording.store(false, std::memory_order_release);
    return false;
  }
  ReportOnce("write", trace::WarningCode::kOutputUnavailable,
             "writing " + sink_.path() + " failed (" + std::strerror(error) +
                 "); records are being lost until it works again, and counted");
  return false;
}

bool Recorder::WriteChunk(trace::ChunkBuilder& chunk) {
  if (chunk.empty()) return true;
  const uint32_t count = chunk.record_count();
  writer_.PauseCompression(store_raw_.load(std::memory_order_acquire));
  const bool written = sink_.is_open() && EnsureHeader() && writer_.WriteChunk(chunk);
  if (writer_.compression_unavailable()) {
    ReportOnce("compress", trace::WarningCode::kGeneric,
               "libzstd.so.1 cannot be loaded: trace chunks are stored uncompressed "
               "(FLOPSPY_COMPRESS=off says so without this line)");
  }
  if (written) records_in_file_ += count;
  if (!written) {
    records_lost_ += count;
    write_losses_unreported_ += count;
    KeepLossRecordsOf(chunk);
    // The chunk may have held definitions: define everything again from now on.
    encoder_.ForgetDefinitions();
  }
  chunk.Reset(chunk.source(), chunk.thread_id());
  return written;
}

void Recorder::KeepLossRecordsOf(const trace::ChunkBuilder& chunk) {
  // The losses a failed chunk stated are said again in a later one, so that the loss records in
  // the file still add up to the end record's count. (Their number is already in records_lost_.)
  for (const trace::LostRecordsRecord& lost : trace::LostRecordsIn(chunk.payload())) {
    losses_to_restate_.push_back(lost);
  }
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
  if (sink_.size() > 0) return true;
  // Every write failed so far: the end record, with the count of what was lost, is still tried.
  if (write_losses_unreported_ > 0 || !losses_to_restate_.empty()) return true;
  if (g_no_buffer_drops.load(std::memory_order_acquire) > no_buffer_losses_reported_) return true;
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
  pass_running_.store(true, std::memory_order_release);
  FlushPassBody(write_end, reason, value);
  pass_running_.store(false, std::memory_order_release);
}

void Recorder::FlushPassBody(bool write_end, trace::EndReason reason, int32_t value) {
  // The capture window opens and closes at the flusher's ticks; the trace says when it did.
  if (std::string window = CaptureTick(NowNs()); !window.empty()) AddMetadata(std::move(window));
  // The TSC clock is steered by the flusher alone (trace_clock.h); the end says how it went.
  if (tls_is_flusher) {
    std::string clock_warning;
    if (std::string clock = TraceClockTick(&clock_warning); !clock.empty()) {
      AddMetadata(std::move(clock));
    }
    if (!clock_warning.empty()) {
      WriteStderr(clock_warning);
      AddWarning(trace::WarningCode::kGeneric, clock_warning);
    }
  }
  if (write_end) {
    if (std::string clock = TraceClockSummary(); !clock.empty()) AddMetadata(std::move(clock));
  }
  // Sampled GPU timing's windows open and close here, so the trace says so before the records
  // of this pass (the analysis tells from it which launches should have GPU times).
  if (tls_is_flusher) {
    if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
      if (std::string said = source->Tick(NowNs()); !said.empty()) AddMetadata(std::move(said));
    }
  }
  // Kernels first seen since the last pass are catalogued before anything else: counter mode
  // waits for their class (catalog_param_bytes.h).
  CatalogNewFunctions(Functions(), catalog_next_id_);
  catalogue_steps_.fetch_add(1, std::memory_order_release);
  // Only the flusher closes the parent's copy: a close may wait on a network file system, and an
  // exit path runs this pass on the program's thread when there is no flusher.
  if (tls_is_flusher) sink_.CloseInherited();
  if (!HasContent()) {
    // A process that recorded nothing (a shell, `ls` started by the program) leaves no file.
    if (write_end) sink_.RemoveIfEmpty();
    RecycleBuffers();
    return;
  }
  // A fork child that records gets its own flusher state here; one that ends without recording
  // (most forked helpers) never pays for it.
  if (reset_flusher_state_) ResetFlusherState();
  if (!EnsureFileOpen()) {
    // No output: keep buffers from filling up, nothing else.
    for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b; b = b->next) {
      const auto state = b->state();
      if (state == ThreadBuffer::State::kActive || state == ThreadBuffer::State::kRetired) {
        b->Discard();
      }
    }
    RecycleBuffers();
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
  AppendLosses();
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b; b = b->next) {
    const auto state = b->state();
    if ((state == ThreadBuffer::State::kActive || state == ThreadBuffer::State::kRetired) &&
        !b->thread_named && !b->empty()) {
      EmitThreadNames(process_chunk_, *b);
    }
  }
  WriteChunk(process_chunk_);

  // Launches are queued for the stream join (FLOPSPY_GPU_JOIN=stream) from the pass in which
  // the CUPTI session became active.
  {
    ActivitySource* source = activity_source_.load(std::memory_order_acquire);
    encoder_.set_stream_join(source != nullptr ? source->stream_join() : nullptr);
  }
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b; b = b->next) {
    const auto state = b->state();
    if (state != ThreadBuffer::State::kActive && state != ThreadBuffer::State::kRetired) continue;
    DrainBuffer(*b);
    flush_progress_.fetch_add(1, std::memory_order_release);  // a waiter sees work going on
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
      // Launch records among them: the stream join must not take another launch for theirs.
      if (StreamOrderJoin* join = encoder_.stream_join()) join->NoteLostLaunches(lost.count);
      encoder_.Append(process_chunk_, &lost, sizeof(lost));
    }
  }
  RecycleBuffers();
  // GPU activity, in the thread chunk's memory (idle by now).
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    thread_chunk_.Reset(trace::ChunkSource::kGpuActivity, 0);
    ActivityDrain drain{encoder_, thread_chunk_, process_chunk_, write_end, reason};
    flush_progress_.fetch_add(1, std::memory_order_release);
    source->Drain(drain);
    flush_progress_.fetch_add(1, std::memory_order_release);
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
    AppendLosses();
    // The end record's count of what reached the file must not be changed by the chunk filling
    // up as the record is appended: make room first.
    if (!process_chunk_.Fits(sizeof(trace::TraceEndRecord))) WriteChunk(process_chunk_);
    trace::TraceEndRecord end{};
    end.h = trace::MakeHeader<trace::TraceEndRecord>();
    end.reason = static_cast<uint8_t>(reason);
    end.time_ns = NowNs();
    end.value = value;
    // Every record that reached the file, this chunk's (the end record's own) included: a reader
    // that finds fewer knows records are missing.
    end.records_written = records_in_file_ + process_chunk_.record_count() + 1;
    end.records_lost = records_lost_;
    encoder_.Append(process_chunk_, &end, sizeof(end));
  }
  WriteChunk(process_chunk_);
}

void Recorder::AppendLosses() {
  std::vector<trace::LostRecordsRecord> restate;
  restate.swap(losses_to_restate_);
  for (const trace::LostRecordsRecord& lost : restate) {
    encoder_.Append(process_chunk_, &lost, sizeof(lost));
  }
  // Records of chunks that failed to write are said once writing works again; if this chunk
  // fails too, its own records (this one included) are counted again by WriteChunk.
  if (write_losses_unreported_ > 0) {
    trace::LostRecordsRecord lost{};
    lost.h = trace::MakeHeader<trace::LostRecordsRecord>();
    lost.source = static_cast<uint16_t>(trace::LossSource::kWriteFailed);
    lost.count = write_losses_unreported_;
    lost.time_ns = NowNs();
    write_losses_unreported_ = 0;
    encoder_.Append(process_chunk_, &lost, sizeof(lost));
  }
  const uint64_t no_buffer = g_no_buffer_drops.load(std::memory_order_acquire);
  if (no_buffer > no_buffer_losses_reported_) {
    trace::LostRecordsRecord lost{};
    lost.h = trace::MakeHeader<trace::LostRecordsRecord>();
    lost.source = static_cast<uint16_t>(trace::LossSource::kNoBuffer);
    lost.count = no_buffer - no_buffer_losses_reported_;
    lost.time_ns = NowNs();
    records_lost_ += lost.count;
    no_buffer_losses_reported_ = no_buffer;
    encoder_.Append(process_chunk_, &lost, sizeof(lost));
  }
}

void Recorder::RecycleBuffers() {
  // The flusher's work: an exit path without a flusher (a fork child about to exec or _exit)
  // must not spend the program's time unmapping the parent's buffers.
  if (!tls_is_flusher) return;
  const size_t capacity = size_t{config_.buffer_kib} * 1024;
  for (ThreadBuffer* b = buffers_.load(std::memory_order_acquire); b; b = b->next) {
    if (b->state() == ThreadBuffer::State::kRetired && b->empty()) {
      b->thread_named = false;
      b->set_state(ThreadBuffer::State::kFree);
      free_buffers_.fetch_add(1, std::memory_order_acq_rel);
      buffers_freed_.fetch_add(1, std::memory_order_acq_rel);
    }
    if (free_buffers_.load(std::memory_order_acquire) <= kKeptFreeBuffers) continue;
    // A thread may claim it at this very moment: only a buffer this pass takes is unmapped.
    if (!b->TryMove(ThreadBuffer::State::kFree, ThreadBuffer::State::kUnmapping)) continue;
    free_buffers_.fetch_sub(1, std::memory_order_acq_rel);
    platform::UnmapForkWiped(b->Detach(), capacity);
    mapped_bytes_.fetch_sub(capacity, std::memory_order_acq_rel);
    b->set_state(ThreadBuffer::State::kUnmapped);
    buffers_freed_.fetch_add(1, std::memory_order_acq_rel);
  }
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
  // Call sites (docs/call-sites.md); "python" is said again once the interpreter is known.
  j["call_sites"] = {{"stacks", StackPolicyName(config_)},
                     {"stack_sample", config_.stack_sample},
                     {"python", std::string(PythonFramesDescription())}};
  return j.dump();
}

}  // namespace flopspy::interpose
