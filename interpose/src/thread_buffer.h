// One application thread's record buffer: a single-producer single-consumer byte ring.
// The owning thread writes records without locks, system calls or allocation; the flusher thread
// drains it. A record that does not fit is dropped and counted, never waited for.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "flopspy/trace/schema.h"

namespace flopspy::interpose {

class ThreadBuffer {
 public:
  enum class State : uint32_t {
    kActive = 0,     // owned by a live thread
    kRetired = 1,    // its thread exited; the flusher drains what is left
    kFree = 2,       // drained, may be handed to a new thread
    kClaiming = 4,   // being handed to a thread; the flusher leaves it alone
    kUnmapped = 5,   // its memory was given back; a new thread may map it again
    kUnmapping = 6,  // the flusher is giving its memory back
  };

  // `capacity` must be a power of two and at least 4 KiB; `memory` must hold that many bytes.
  ThreadBuffer(uint8_t* memory, size_t capacity);

  // Producer side (the owning thread only), in two steps so that a record is written in place:
  // Reserve(size) returns where up to `size` bytes go, or nullptr and counts a drop when they do
  // not fit; Commit(size) then publishes the record, `size` (its header's size) at most the
  // reserved size. Nothing else is written in between.
  uint8_t* Reserve(size_t size) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    const size_t pos = head & mask_;
    const size_t contiguous = capacity_ - pos;
    const size_t needed = contiguous >= size ? size : contiguous + size;
    // The consumer's position is re-read only when the last one seen leaves too little room:
    // most writes touch no cache line the flusher writes.
    if (capacity_ - (head - cached_tail_) < needed) {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (capacity_ - (head - cached_tail_) < needed) {
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return nullptr;
      }
    }
    reserved_at_ = head;
    if (contiguous < size) {
      // Records never straddle the end: a padding marker sends the reader back to the start.
      const trace::RecordHeader skip{static_cast<uint8_t>(trace::RecordType::kPadding), 0, 0};
      std::memcpy(data_ + pos, &skip, sizeof(skip));
      reserved_at_ += contiguous;
    }
    return data_ + (reserved_at_ & mask_);
  }
  void Commit(size_t size) { head_.store(reserved_at_ + size, std::memory_order_release); }

  // Reserve, copy, Commit. Returns false and counts a drop when full.
  bool Write(const void* record, size_t size) {
    uint8_t* at = Reserve(size);
    if (at == nullptr) return false;
    std::memcpy(at, record, size);
    Commit(size);
    return true;
  }

  // Consumer side (the flusher). Calls `consume(const uint8_t* record, size_t size)` for every
  // record written so far, then frees their space. Returns the number of records consumed.
  template <class Consume>
  uint64_t Drain(Consume&& consume) {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    const uint64_t head = head_.load(std::memory_order_acquire);
    uint64_t count = 0;
    while (tail < head) {
      const size_t pos = tail & mask_;
      trace::RecordHeader h;
      std::memcpy(&h, data_ + pos, sizeof(h));
      if (h.type == static_cast<uint8_t>(trace::RecordType::kPadding) && h.size8 == 0) {
        tail += capacity_ - pos;
        continue;
      }
      consume(data_ + pos, h.size());
      tail += h.size();
      ++count;
    }
    tail_.store(tail, std::memory_order_release);
    return count;
  }

  // Throws away everything written (used in a fork child for the parent's records).
  void Discard() { tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release); }

  // Gives the ring new memory of the same capacity (a buffer whose memory was unmapped, handed
  // to a new thread), empty and with no drops. Only while no thread writes and no flusher reads.
  void Attach(uint8_t* memory) {
    data_ = memory;
    head_.store(0, std::memory_order_relaxed);
    tail_.store(0, std::memory_order_relaxed);
    cached_tail_ = 0;
    reserved_at_ = 0;
    dropped_.store(0, std::memory_order_relaxed);
    reported_drops = 0;
    thread_named = false;
  }
  // Takes the memory away (to unmap it); the buffer must be empty and unowned.
  uint8_t* Detach() {
    uint8_t* memory = data_;
    data_ = nullptr;
    return memory;
  }
  // Forgets everything, as after fork() in the child: what it held was the parent's.
  void ResetAfterFork() {
    Discard();
    reported_drops = dropped();
    thread_named = false;
  }

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  bool empty() const {
    return head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_relaxed);
  }
  size_t capacity() const { return capacity_; }
  bool has_memory() const { return data_ != nullptr; }

  uint32_t thread_id() const { return thread_id_.load(std::memory_order_relaxed); }
  void set_thread_id(uint32_t tid) { thread_id_.store(tid, std::memory_order_relaxed); }

  State state() const { return state_.load(std::memory_order_acquire); }
  void set_state(State s) { state_.store(s, std::memory_order_release); }
  // `from` -> `to` if the state is `from` (kFree -> kClaiming for reuse by a new thread, then
  // kActive; kFree -> kUnmapping by the flusher; kUnmapped -> kClaiming to map it again).
  bool TryMove(State from, State to) {
    return state_.compare_exchange_strong(from, to, std::memory_order_acq_rel);
  }

  // Drops counted but not yet reported in a LostRecords record (flusher bookkeeping).
  uint64_t reported_drops = 0;
  // The thread name was written for this owner (flusher bookkeeping).
  bool thread_named = false;
  // Registry link, set once before the buffer is published.
  ThreadBuffer* next = nullptr;

 private:
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t cached_tail_ = 0;  // producer's last view of tail_ (same cache line as head_)
  uint64_t reserved_at_ = 0;  // producer: where the reserved record starts
  alignas(64) std::atomic<uint64_t> tail_{0};
  alignas(64) std::atomic<uint64_t> dropped_{0};
  std::atomic<uint32_t> thread_id_{0};
  std::atomic<State> state_{State::kActive};
  uint8_t* data_;  // nullptr while kUnmapped
  size_t capacity_;
  size_t mask_;
};

}  // namespace flopspy::interpose
