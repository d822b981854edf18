// The one join of a submitting CPU call (a kernel launch, a copy) to its GPU record, by
// correlation id, whichever of the two the trace holds first: CUPTI delivers GPU records in
// their own chunks, before or after the launching thread's chunk. Memory is bounded: beyond
// `max_pending` entries waiting on one side, the oldest are given up and counted
// (docs/architecture.md).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <utility>

namespace flopspy::analyzers {

// Entries waiting for their partner, keyed by correlation id, in arrival order. Bounded: beyond
// `cap` live entries (or 2 x cap remembered keys) the oldest is given up and counted.
template <class V>
class BoundedPendingMap {
 public:
  explicit BoundedPendingMap(size_t cap) : cap_(cap == 0 ? 1 : cap) {}

  void Insert(uint64_t key, const V& value) {
    const auto [it, inserted] = map_.insert_or_assign(key, value);
    (void)it;
    if (inserted) order_.push_back(key);
    Trim();
  }
  std::optional<V> Take(uint64_t key) {
    const auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    V value = std::move(it->second);
    map_.erase(it);
    return value;
  }
  const V* Find(uint64_t key) const {
    const auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second;
  }
  size_t size() const { return map_.size(); }
  uint64_t evicted() const { return evicted_; }
  size_t MemoryBytes() const {
    // A node holds the pair and a next pointer; the table a pointer per bucket.
    return map_.size() * (sizeof(std::pair<const uint64_t, V>) + 2 * sizeof(void*)) +
           map_.bucket_count() * sizeof(void*) + order_.size() * sizeof(uint64_t);
  }

 private:
  void Trim() {
    while (!order_.empty()) {
      const uint64_t front = order_.front();
      const bool live = map_.contains(front);
      if (live && map_.size() <= cap_ && order_.size() <= 2 * cap_) break;
      order_.pop_front();
      if (live) {
        map_.erase(front);
        ++evicted_;
      }
    }
  }

  size_t cap_;
  std::unordered_map<uint64_t, V> map_;
  std::deque<uint64_t> order_;
  uint64_t evicted_ = 0;
};

// A launch side `L` and a GPU side `G` joined by correlation id in either order. Each call
// returns the partner that was waiting, if any; otherwise the caller's entry waits for it.
// Correlation 0 means "none" and never joins.
template <class L, class G>
class Correlator {
 public:
  explicit Correlator(size_t max_pending) : launches_(max_pending), gpus_(max_pending) {}

  std::optional<G> OnLaunch(uint64_t correlation, const L& launch) {
    if (correlation == 0) return std::nullopt;
    if (auto gpu = gpus_.Take(correlation)) return gpu;
    launches_.Insert(correlation, launch);
    return std::nullopt;
  }
  std::optional<L> OnGpu(uint64_t correlation, const G& gpu) {
    if (correlation == 0) return std::nullopt;
    if (auto launch = launches_.Take(correlation)) return launch;
    gpus_.Insert(correlation, gpu);
    return std::nullopt;
  }

  const BoundedPendingMap<L>& waiting_launches() const { return launches_; }
  const BoundedPendingMap<G>& waiting_gpu() const { return gpus_; }
  size_t MemoryBytes() const { return launches_.MemoryBytes() + gpus_.MemoryBytes(); }

 private:
  BoundedPendingMap<L> launches_;
  BoundedPendingMap<G> gpus_;
};

}  // namespace flopspy::analyzers
