// The recorder: per-thread buffers on the hot path, one flusher thread that turns their contents
// into trace chunks, and the fork callbacks. When the trace starts and ends is decided elsewhere:
// hooks_lifecycle.cpp (constructor, exit, exec) and hooks_signals.cpp (fatal signals) call Start
// and Finish.
//
// Hooks write a record in place (RecordingBuffer, then ThreadBuffer::Reserve/Commit) or copy one
// with Emit(record): a TLS load and a write into the thread's ring; no lock, no allocation, no
// system call. Everything else (interning names, computing FLOPs, writing) happens on the flusher
// thread.
#pragma once

#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "encoder.h"
#include "flopspy/trace/schema.h"
#include "flopspy/trace/writer.h"
#include "raw_events.h"
#include "thread_buffer.h"
#include "trace_sink.h"

namespace flopspy::interpose {

// True while records are wanted; false when flopspy is off, could not open its output, or the
// process is past its final flush. Checked first by every hook.
extern std::atomic<bool> g_recording;

// This thread's buffer, or nullptr before its first record.
extern thread_local ThreadBuffer* tls_buffer __attribute__((tls_model("initial-exec")));

// Slow path of Emit: gives the thread a buffer (first record of a thread). Returns nullptr, and
// counts the record as lost, when the thread cannot have one.
ThreadBuffer* AcquireThreadBuffer();

// This thread's buffer while records are wanted, or nullptr (recording off, or no buffer to be
// had: the record is then counted as lost). A hook writes a record in place with Reserve/Commit.
inline ThreadBuffer* RecordingBuffer() {
  if (!g_recording.load(std::memory_order_relaxed)) return nullptr;
  ThreadBuffer* buffer = tls_buffer;
  if (__builtin_expect(buffer == nullptr, 0)) buffer = AcquireThreadBuffer();
  return buffer;
}

// Copies a record (trace record or raw event, size from its header) into this thread's buffer.
// Returns false if it was dropped (buffer full) or recording is off.
inline bool EmitBytes(const void* record, size_t size) {
  ThreadBuffer* buffer = RecordingBuffer();
  return buffer != nullptr && buffer->Write(record, size);
}

template <class Record>
inline bool Emit(const Record& record) {
  return EmitBytes(&record, record.h.size());
}

// --- Records made off the application threads (CUPTI activity) ---------------------------------
// What the flusher hands an ActivitySource in each pass.
struct ActivityDrain {
  Encoder& encoder;
  trace::ChunkBuilder& chunk;          // ChunkSource::kGpuActivity, written by the recorder after
  trace::ChunkBuilder& process_chunk;  // for LostRecords and metadata
  bool final;                          // the pass that writes the end record
  trace::EndReason reason;             // why the trace ends, when final
  uint64_t lost = 0;                   // set by the source: records it reported as lost
};

class ActivitySource {
 public:
  virtual ~ActivitySource() = default;
  // Every flusher pass, after the thread buffers, with the flush mutex held.
  virtual void Drain(ActivityDrain& drain) = 0;
  // The trace cannot be written: drop what is queued.
  virtual void Discard() = 0;
  // The flusher, at the start of every pass (before this pass's records are written): what
  // changed that the trace's metadata must say before them, as JSON text; "" for nothing.
  virtual std::string Tick(uint64_t /*now_ns*/) { return ""; }
  // FLOPSPY_GPU_JOIN=stream: the join the encoder queues launches on (stream_order_join.h).
  virtual StreamOrderJoin* stream_join() { return nullptr; }
};

class Recorder {
 public:
  // The process's recorder, or nullptr when flopspy is disabled or not yet started.
  static Recorder* Get() { return instance_.load(std::memory_order_acquire); }
  // The recorder if it is this process's own: a vfork() child shares its parent's memory but is
  // another process, and must never flush into its parent's trace.
  static Recorder* OfThisProcess() {
    Recorder* r = Get();
    return r != nullptr && r->pid() == static_cast<uint32_t>(getpid()) ? r : nullptr;
  }

  // Library constructor: reads the configuration and prepares output. Idempotent.
  static void Start();

  const Config& config() const { return config_; }
  uint32_t pid() const { return pid_; }

  // Thread-safe: queues a warning record for the next flush. A `standalone` warning makes the
  // process write a trace even if it records nothing else; others (what the CPU sampler says
  // about missing counters) only go into a trace that exists anyway.
  void AddWarning(trace::WarningCode code, std::string_view message, bool standalone = true);
  // Thread-safe: queues a metadata block (JSON object text) for the next flush.
  void AddMetadata(std::string json);

  // How long a caller waits for the flusher: at most `total_ms`, and no longer than `stall_ms`
  // while the flusher makes no progress (a write stuck on a frozen or hung file system).
  struct Wait {
    int stall_ms = 0;
    int total_ms = 0;
  };

  // Writes everything buffered now and waits as `wait` says ({}: do not wait).
  void FlushNow(Wait wait);

  // Wakes the flusher so that it catalogues the kernels first seen since its last pass, and
  // waits for that step only, never for the pass's writes: at most `limit_ms`, and not at all
  // once a wait has run out (the flusher is stuck on its file). True if a catalogue step ran.
  bool CatalogueNow(int limit_ms);

  // Flushes and writes the end record (or removes the file of a process that recorded nothing).
  // Safe to call from a signal handler when `from_signal` is set.
  void Finish(trace::EndReason reason, int32_t value, Wait wait, bool from_signal);

  // fork() handling in the child, run by pthread_atfork. The parent takes no lock before fork:
  // the flusher may be anywhere, even stuck in a write, so the child starts over with fresh
  // synchronisation objects and, at its first flush, fresh flusher state.
  void AfterForkInChild();

  // An application thread ended: when no free buffer is left for the next thread, the flusher
  // drains and recycles this one now rather than a pass later.
  void OnThreadRetired() {
    if (free_buffers_.load(std::memory_order_acquire) == 0) sem_post(&wake_);
  }

  // Used by AcquireThreadBuffer: a buffer for this thread, or nullptr (budget spent, no memory).
  ThreadBuffer* NewBuffer();
  uint64_t buffers_freed() const { return buffers_freed_.load(std::memory_order_acquire); }

  // Monotonic time of the start of this process's trace.
  uint64_t start_ns() const { return start_monotonic_ns_; }

  // The CUPTI session registers itself here once it collects (never unregistered).
  void SetActivitySource(ActivitySource* source) {
    activity_source_.store(source, std::memory_order_release);
  }

  // A metadata block made at the final flush (counter mode's cost), never unregistered. The
  // provider returns JSON object text, or "" for nothing; it must not throw.
  using FinalMetadata = std::string (*)();
  void SetFinalMetadata(FinalMetadata provider) {
    final_metadata_.store(provider, std::memory_order_release);
  }

 private:
  Recorder(Config config, std::vector<std::string> config_warnings);

  void StartFlusherOnce();
  static void* FlusherMain(void* self);
  void WaitForFlush(uint64_t ticket, Wait wait);
  // Drains every buffer into chunks and writes them. Caller holds flush_mutex_.
  void FlushPass(bool write_end, trace::EndReason reason, int32_t value);
  void FlushPassBody(bool write_end, trace::EndReason reason, int32_t value);
  void DrainBuffer(ThreadBuffer& buffer);
  // Retired buffers drained, memory beyond a small pool of free buffers given back.
  void RecycleBuffers();
  // Queued metadata blocks and warnings into process_chunk_. Caller holds flush_mutex_.
  void AppendPending();
  // Losses not yet in a LostRecords record (failed writes, threads without a buffer).
  void AppendLosses();
  bool WriteChunk(trace::ChunkBuilder& chunk);
  void KeepLossRecordsOf(const trace::ChunkBuilder& chunk);
  bool HasContent();
  bool EnsureFileOpen();
  bool EnsureHeader();
  bool SinkWrite(const uint8_t* bytes, size_t size);
  // In a fork child, at its first flush: what the parent's flusher may have left mid-change.
  void ResetFlusherState();
  std::string InitialMetadata() const;
  void EmitThreadNames(trace::ChunkBuilder& chunk, ThreadBuffer& buffer);

  static std::atomic<Recorder*> instance_;
  std::atomic<FinalMetadata> final_metadata_{nullptr};

  Config config_;
  std::vector<std::string> config_warnings_;
  uint32_t pid_ = 0;
  uint32_t parent_pid_ = 0;
  uint32_t file_flags_ = 0;
  int32_t rank_ = -1;
  int32_t local_rank_ = -1;
  std::string host_;
  uint64_t start_monotonic_ns_ = 0;
  uint64_t start_realtime_ns_ = 0;

  // Registry of every buffer ever handed out (a push-only list).
  std::atomic<ThreadBuffer*> buffers_{nullptr};
  pthread_key_t thread_exit_key_{};
  // Buffer memory mapped now, and the most flopspy maps (a share of RLIMIT_AS, if one is set).
  std::atomic<size_t> mapped_bytes_{0};
  size_t buffer_budget_bytes_ = 0;
  // Bumped whenever a buffer becomes free: a thread that got none tries again after it changes.
  std::atomic<uint64_t> buffers_freed_{0};
  std::atomic<int> free_buffers_{0};  // kFree buffers now (mapped, ready for a new thread)
  std::atomic<bool> budget_reported_{false};

  // Flusher thread and flush requests. Requests are counted; a waiter compares counts.
  std::atomic<bool> flusher_started_{false};
  std::atomic<bool> flusher_running_{false};
  pthread_t flusher_thread_{};
  sem_t wake_{};
  std::atomic<uint64_t> flush_requested_{0};
  std::atomic<uint64_t> flush_completed_{0};
  std::atomic<uint64_t> flush_progress_{0};   // bumped as a pass goes: writes, buffers, CUPTI
  std::atomic<uint64_t> catalogue_steps_{0};  // passes that have catalogued new kernels
  std::atomic<bool> catalogue_stuck_{false};  // a CatalogueNow wait ran out: wait no more
  std::atomic<bool> pass_running_{false};
  std::atomic<bool> store_raw_{false};  // chunks uncompressed from now on (a fatal signal)
  std::atomic<int> end_reason_{0};      // 0: none; else trace::EndReason of the pending request
  std::atomic<int32_t> end_value_{0};

  // Everything below is touched only with flush_mutex_ held.
  std::mutex flush_mutex_;
  TraceSink sink_;
  bool file_failed_ = false;
  bool header_written_ = false;
  bool reset_flusher_state_ = false;
  uint64_t write_losses_unreported_ = 0;
  std::vector<trace::LostRecordsRecord> losses_to_restate_;  // stated in chunks that failed
  uint64_t no_buffer_losses_reported_ = 0;
  trace::TraceWriter writer_;
  trace::ChunkBuilder thread_chunk_;
  trace::ChunkBuilder process_chunk_;
  Encoder encoder_;
  uint32_t catalog_next_id_ = 1;  // the first FunctionTable id not yet catalogued
  uint64_t records_lost_ = 0;
  uint64_t records_in_file_ = 0;
  bool metadata_written_ = false;

  std::atomic<ActivitySource*> activity_source_{nullptr};

  std::mutex pending_mutex_;  // guards the queues below (filled by any thread)
  std::vector<std::pair<trace::WarningCode, std::string>> pending_warnings_;
  bool standalone_warning_pending_ = false;
  std::vector<std::string> pending_metadata_;
};

}  // namespace flopspy::interpose
