#include "cupti_buffers.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace flopspy::interpose {

ActivityBufferPool::ActivityBufferPool(size_t buffer_bytes, size_t count)
    : buffer_bytes_((std::max<size_t>(buffer_bytes, 8) + 7) / 8 * 8),
      count_(count),
      slots_(new Slot[count]) {}

ActivityBufferPool::~ActivityBufferPool() {
  if (memory_ != nullptr) munmap(memory_, buffer_bytes_ * count_);
}

bool ActivityBufferPool::Allocate(std::string* error) {
  if (memory_ != nullptr) return true;
  if (count_ == 0) {
    *error = "the activity buffer pool is empty";
    return false;
  }
  // Pages are committed only when CUPTI first writes them; they are then reused.
  void* memory = mmap(nullptr, buffer_bytes_ * count_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    *error = std::string("cannot map ") + std::to_string(buffer_bytes_ * count_ >> 20) +
             " MiB for CUPTI activity buffers (" + std::strerror(errno) + ")";
    return false;
  }
  memory_ = static_cast<uint8_t*>(memory);
  return true;
}

uint8_t* ActivityBufferPool::Take(size_t* size) {
  *size = 0;
  if (memory_ != nullptr) {
    for (size_t i = 0; i < count_; ++i) {
      uint32_t expected = kFree;
      if (slots_[i].state.compare_exchange_strong(expected, kWithCupti,
                                                  std::memory_order_acq_rel)) {
        taken_.fetch_add(1, std::memory_order_relaxed);
        *size = buffer_bytes_;
        return memory_ + i * buffer_bytes_;
      }
    }
  }
  refused_.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

bool ActivityBufferPool::Complete(const uint8_t* buffer, size_t valid_size) {
  if (memory_ == nullptr || buffer < memory_ || buffer >= memory_ + buffer_bytes_ * count_ ||
      (buffer - memory_) % buffer_bytes_ != 0) {
    foreign_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  Slot& slot = slots_[static_cast<size_t>(buffer - memory_) / buffer_bytes_];
  if (slot.state.load(std::memory_order_acquire) != kWithCupti) {
    foreign_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  slot.valid_size = std::min(valid_size, buffer_bytes_);
  slot.sequence = next_sequence_.fetch_add(1, std::memory_order_relaxed);
  slot.state.store(kCompleted, std::memory_order_release);
  return true;
}

void ActivityBufferPool::CollectCompleted(std::vector<Completed>* out) {
  out->clear();
  for (size_t i = 0; i < count_; ++i) {
    if (slots_[i].state.load(std::memory_order_acquire) != kCompleted) continue;
    out->push_back({memory_ + i * buffer_bytes_, slots_[i].valid_size, slots_[i].sequence, i});
  }
  std::sort(out->begin(), out->end(),
            [](const Completed& a, const Completed& b) { return a.sequence < b.sequence; });
}

void ActivityBufferPool::Release(size_t slot) {
  if (slot < count_) slots_[slot].state.store(kFree, std::memory_order_release);
}

void ActivityBufferPool::ResetAll() {
  for (size_t i = 0; i < count_; ++i) slots_[i].state.store(kFree, std::memory_order_release);
}

size_t ActivityBufferPool::with_cupti() const {
  size_t n = 0;
  for (size_t i = 0; i < count_; ++i) {
    n += slots_[i].state.load(std::memory_order_relaxed) == kWithCupti ? 1 : 0;
  }
  return n;
}

}  // namespace flopspy::interpose
