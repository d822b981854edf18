// The one join of a submitting CPU call (a kernel launch, a copy) to its GPU record, by
// correlation id, whichever of the two the trace holds first: CUPTI delivers GPU records in
// their own chunks, before or after the launching thread's chunk. Memory is bounded: beyond
// `max_pending` entries waiting on one side, the oldest are given up and counted
// (docs/architecture.md). LibraryCorrelator, below, adds library calls for the trace analysis.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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
  V* Find(uint64_t key) {
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

// The trace analysis's join: Correlator's rules over the same bounded maps, and a library call
// (cuBLAS) as a third side. A launch made inside a call waits on after its GPU record until the
// call's record arrives. The call's own correlation is the one CUPTI gives the kernels it launched
// through a runtime linked into the library, so several GPU records may wait on it: each joins
// the call's launches still without a GPU record, one of the same kernel first. A GPU record of
// a counter-measured launch beyond the first is a replay, counted and not joined. Bounded: beyond
// `max_pending` launches (or calls) the oldest is given up; a GPU record finding more than that
// waiting counts alone at once.
//
// The caller's hooks `h`: h.Time(L&, const G&) gives a launch its GPU record; h.Alone(const G&,
// const C*) counts a record of no launch (of a call's, when not null); h.Same(const L&, const G&)
// says the record is of the launch's kernel; h.Before(const G&, const G&) orders by start.
template <class L, class G, class C>
class LibraryCorrelator {
 public:
  enum class GpuJoin { kLaunch, kCall, kWaits, kReplay, kAlone };
  struct Found {
    L* launch = nullptr;
    bool timed = false;  // its GPU record came: it waits only for its call
  };

  explicit LibraryCorrelator(size_t max_pending)
      : max_gpus_(max_pending), untimed_(max_pending), timed_(max_pending), calls_(max_pending) {}

  // `inside_call`: made inside a library call of `thread`, whose record follows its launches.
  template <class H>
  void OnLaunch(uint64_t correlation, L launch, uint32_t thread, bool inside_call, H& h) {
    if (inside_call) call_launches_[thread].push_back(correlation);
    if (correlation == 0) return;
    if (const auto early = gpus_.find(correlation); early != gpus_.end()) {
      h.Time(launch, early->second);
      gpus_.erase(early);
      if (inside_call) timed_.Insert(correlation, std::move(launch));
      return;
    }
    untimed_.Insert(correlation, Untimed{std::move(launch), inside_call});
  }

  // A launch made inside a library call of `thread` that ran nothing (recorded into a CUDA graph):
  // the call's record still attributes it (FindLaunch does not know it; the caller does).
  void OnCallLaunchElsewhere(uint32_t thread, uint64_t correlation) {
    call_launches_[thread].push_back(correlation);
  }

  // `from_cpu`: a launch record may come (not a graph node or a device launch).
  template <class H>
  GpuJoin OnGpu(uint64_t correlation, bool from_cpu, const G& gpu, H& h) {
    if (correlation != 0) {
      if (L* timed = timed_.Find(correlation)) {
        if (measured_.contains(correlation)) return GpuJoin::kReplay;
        h.Time(*timed, gpu);
        return GpuJoin::kLaunch;
      }
      if (Untimed* u = untimed_.Find(correlation)) {
        h.Time(u->launch, gpu);
        Untimed done = std::move(*untimed_.Take(correlation));
        if (done.awaits_call) timed_.Insert(correlation, std::move(done.launch));
        return GpuJoin::kLaunch;
      }
      if (measured_.contains(correlation)) return GpuJoin::kReplay;
      if (Call* call = calls_.Find(correlation)) {
        JoinCall(*call, gpu, h);
        return GpuJoin::kCall;
      }
      if (from_cpu && gpus_.size() < max_gpus_) {
        gpus_.emplace(correlation, gpu);  // its launch (or call) record comes later in the file
        return GpuJoin::kWaits;
      }
    }
    h.Alone(gpu, nullptr);
    return GpuJoin::kAlone;
  }

  // The launches `thread` made since its last call, in launch order: read them (FindLaunch), then
  // hand them to OnCall with the call's record.
  std::vector<uint64_t> TakeCallLaunches(uint32_t thread) {
    std::vector<uint64_t> launched;
    launched.swap(call_launches_[thread]);
    return launched;
  }

  // A call's record: its timed launches are done, the others wait for a GPU record only; GPU
  // records that came before it with its own correlation join in start order.
  template <class H>
  void OnCall(uint64_t correlation, const C& call, const std::vector<uint64_t>& launched, H& h) {
    for (uint64_t c : launched) {
      timed_.Take(c);
      if (Untimed* u = untimed_.Find(c)) u->awaits_call = false;
    }
    if (correlation == 0) return;
    Call entry{call, {}};
    for (uint64_t c : launched) {
      if (untimed_.Find(c) != nullptr) entry.waiting.push_back(c);
    }
    const auto [first, last] = gpus_.equal_range(correlation);
    std::vector<G> early;
    for (auto e = first; e != last; ++e) early.push_back(e->second);
    gpus_.erase(correlation);
    std::sort(early.begin(), early.end(), [&](const G& a, const G& b) { return h.Before(a, b); });
    calls_.Insert(correlation, std::move(entry));
    Call& stored = *calls_.Find(correlation);
    for (const G& gpu : early) JoinCall(stored, gpu, h);
  }

  Found FindLaunch(uint64_t correlation) {
    if (Untimed* u = untimed_.Find(correlation)) return {&u->launch, false};
    if (L* l = timed_.Find(correlation)) return {l, true};
    return {};
  }

  // A counter sample of a launch: its later GPU records are replays. When the launch is known,
  // the records waiting for it already are; returns how many.
  size_t OnMeasured(uint64_t correlation, bool launch_known) {
    measured_.insert(correlation);
    return launch_known ? gpus_.erase(correlation) : 0;
  }

  // At the end: the GPU records still waiting count alone; returns how many.
  template <class H>
  uint64_t FinishGpu(H& h) {
    for (const auto& [correlation, gpu] : gpus_) h.Alone(gpu, nullptr);
    const uint64_t n = gpus_.size();
    gpus_.clear();
    return n;
  }
  // Launches whose GPU record never came, given up on or still waiting.
  uint64_t UntimedLaunches() const { return untimed_.size() + untimed_.evicted(); }

  size_t waiting_launches() const { return untimed_.size() + timed_.size(); }
  size_t waiting_gpu() const { return gpus_.size(); }
  size_t calls() const { return calls_.size(); }

 private:
  struct Untimed {
    L launch;
    bool awaits_call = false;  // made inside a call whose record has not come
  };
  struct Call {
    C call;
    std::vector<uint64_t> waiting;  // its launches without a GPU record, in launch order
  };

  template <class H>
  void JoinCall(Call& call, const G& gpu, H& h) {
    std::erase_if(call.waiting, [&](uint64_t c) { return untimed_.Find(c) == nullptr; });
    // A call that also launches through the driver (cuBLASLt) has launches whose records carry
    // their own correlation: the same kernel first, else the first.
    auto pick = std::find_if(call.waiting.begin(), call.waiting.end(),
                             [&](uint64_t c) { return h.Same(untimed_.Find(c)->launch, gpu); });
    if (pick == call.waiting.end() && !call.waiting.empty()) pick = call.waiting.begin();
    if (pick == call.waiting.end()) {
      h.Alone(gpu, &call.call);  // more kernels than launches seen: the call's time still
      return;
    }
    Untimed done = std::move(*untimed_.Take(*pick));
    call.waiting.erase(pick);
    h.Time(done.launch, gpu);
  }

  size_t max_gpus_;
  BoundedPendingMap<Untimed> untimed_;
  BoundedPendingMap<L> timed_;
  BoundedPendingMap<Call> calls_;
  // GPU records before their launch or call: several may carry a call's correlation.
  std::unordered_multimap<uint64_t, G> gpus_;
  std::unordered_map<uint32_t, std::vector<uint64_t>> call_launches_;  // per thread
  std::unordered_set<uint64_t> measured_;
};

}  // namespace flopspy::analyzers
