// CUPTI's activity buffers: a fixed pool mapped once when the session starts, handed to CUPTI on
// request and queued for the flusher on completion. CUPTI's side never allocates, locks or
// waits (allocating during collection made launches "orders of magnitude longer" in Kineto,
// docs/gpu-timing.md, "Buffers and losses"); when every buffer is taken CUPTI gets none, drops
// records and counts them, and flopspy reports the count.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace flopspy::interpose {

class ActivityBufferPool {
 public:
  struct Completed {
    uint8_t* data;
    size_t valid_size;
    uint64_t sequence;  // completion order
    size_t slot;
  };

  // `buffer_bytes` is rounded up to a multiple of 8 (CUPTI's record alignment).
  ActivityBufferPool(size_t buffer_bytes, size_t count);
  ~ActivityBufferPool();
  ActivityBufferPool(const ActivityBufferPool&) = delete;
  ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

  // Maps the memory (once). False with a reason when it cannot.
  bool Allocate(std::string* error);

  // --- CUPTI's threads: wait-free apart from a scan of `count` slots.
  // A free buffer and its size, or null (counted in refused()) when every buffer is taken.
  uint8_t* Take(size_t* size);
  // CUPTI is done with `buffer`; false when it is not one of ours.
  bool Complete(const uint8_t* buffer, size_t valid_size);

  // --- The flusher.
  // Completed buffers, oldest completion first; they stay out of the pool until Release.
  void CollectCompleted(std::vector<Completed>* out);
  void Release(size_t slot);
  // Every slot free again (a fork child: the parent's CUPTI does not exist here).
  void ResetAll();

  size_t count() const { return count_; }
  size_t buffer_bytes() const { return buffer_bytes_; }
  uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }
  uint64_t taken() const { return taken_.load(std::memory_order_relaxed); }
  uint64_t foreign() const { return foreign_.load(std::memory_order_relaxed); }
  size_t with_cupti() const;

 private:
  enum State : uint32_t { kFree = 0, kWithCupti = 1, kCompleted = 2 };
  struct Slot {
    std::atomic<uint32_t> state{kFree};
    size_t valid_size = 0;  // written before state becomes kCompleted
    uint64_t sequence = 0;
  };

  size_t buffer_bytes_;
  size_t count_;
  uint8_t* memory_ = nullptr;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<uint64_t> next_sequence_{0};
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> taken_{0};
  std::atomic<uint64_t> foreign_{0};
};

}  // namespace flopspy::interpose
