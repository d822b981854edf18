// A lock-free set of 64-bit keys that only grows, for facts a hook looks up on every launch and
// learns once (counter mode: launches whose signature needs no more samples). Full (or a key
// whose probes are all taken): Insert does nothing and the caller takes its slow path.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace flopspy::interpose {

class KeySet {
 public:
  bool Contains(uint64_t key) const {
    key = Stored(key);
    for (size_t probe = 0, i = key & (kSlots - 1); probe < kProbes;
         ++probe, i = (i + 1) & (kSlots - 1)) {
      const uint64_t k = keys_[i].load(std::memory_order_acquire);
      if (k == key) return true;
      if (k == 0) return false;
    }
    return false;
  }
  void Insert(uint64_t key) {
    key = Stored(key);
    for (size_t probe = 0, i = key & (kSlots - 1); probe < kProbes;
         ++probe, i = (i + 1) & (kSlots - 1)) {
      uint64_t k = keys_[i].load(std::memory_order_acquire);
      if (k == key) return;
      if (k == 0 && keys_[i].compare_exchange_strong(k, key, std::memory_order_acq_rel)) return;
      if (k == key) return;  // another thread stored it first
    }
  }

 private:
  static constexpr size_t kSlots = 4096;
  static constexpr size_t kProbes = 16;
  static uint64_t Stored(uint64_t key) { return key == 0 ? 1 : key; }  // 0 marks an empty slot
  std::array<std::atomic<uint64_t>, kSlots> keys_{};
};

// FNV-1a over the bytes of each value, in turn.
class KeyHash {
 public:
  KeyHash& Add(const void* bytes, size_t size) {
    const auto* p = static_cast<const uint8_t*>(bytes);
    for (size_t i = 0; i < size; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001B3ull;
    return *this;
  }
  template <class T>
  KeyHash& Add(const T& value) {
    return Add(&value, sizeof(value));
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xCBF29CE484222325ull;
};

}  // namespace flopspy::interpose
