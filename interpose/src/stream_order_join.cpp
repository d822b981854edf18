#include "stream_order_join.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <utility>

namespace flopspy::interpose {

uint64_t KernelNameHash(std::string_view mangled_name) {
  if (mangled_name.empty()) return 0;
  const uint64_t hash = std::hash<std::string_view>{}(mangled_name);
  return hash == 0 ? 1 : hash;  // 0 means "no name"
}

bool SameKernel(const KernelIdentity& a, const KernelIdentity& b) {
  if (a.name_hash != 0 && b.name_hash != 0 && a.name_hash != b.name_hash) return false;
  return std::equal(a.grid, a.grid + 3, b.grid) && std::equal(a.block, a.block + 3, b.block);
}

size_t StreamOrderJoin::StreamHash::operator()(const LaunchStream& s) const {
  uint64_t h = s.handle * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<uint64_t>(static_cast<uint32_t>(s.device)) << 32 | s.per_thread_owner) *
       0xC2B2AE3D27D4EB4Full;
  return static_cast<size_t>(h ^ (h >> 29));
}

StreamOrderJoin::LaunchQueue& StreamOrderJoin::QueueFor(const LaunchStream& stream) {
  const auto [it, added] = queue_index_.try_emplace(stream, queues_.size());
  if (added) {
    LaunchQueue queue;
    queue.stream = stream;
    queues_.push_back(std::move(queue));
  }
  return queues_[it->second];
}

void StreamOrderJoin::Enqueue(const LaunchStream& stream, const Entry& entry) {
  if (entry.enter_ns < window_opened_ns_ || entry.enter_ns >= window_closed_ns_) {
    if (!entry.library) ++stats_.launches_dropped;  // between sampled windows: no record owed
    return;
  }
  QueueFor(stream).incoming.push_back(entry);
}

void StreamOrderJoin::MergeIncoming(LaunchQueue& queue) {
  if (queue.incoming.empty()) return;
  // One thread's records after another's: sorted here, merged once, never inserted one by one.
  const auto by_entry = [](const Entry& a, const Entry& b) { return a.enter_ns < b.enter_ns; };
  std::stable_sort(queue.incoming.begin(), queue.incoming.end(), by_entry);
  if (queue.entries.empty() || queue.entries.back().enter_ns <= queue.incoming.front().enter_ns) {
    queue.entries.insert(queue.entries.end(), queue.incoming.begin(), queue.incoming.end());
  } else {
    std::deque<Entry> merged;
    std::merge(queue.entries.begin(), queue.entries.end(), queue.incoming.begin(),
               queue.incoming.end(), std::back_inserter(merged), by_entry);
    queue.entries.swap(merged);
  }
  queue.incoming.clear();
  while (queue.entries.size() > options_.max_queued) {
    if (!queue.entries.front().library) ++stats_.launches_dropped;
    queue.entries.pop_front();
  }
}

void StreamOrderJoin::AddLaunch(const LaunchStream& stream, const KernelIdentity& kernel,
                                uint64_t correlation, uint64_t enter_ns) {
  ++stats_.launches;
  Enqueue(stream, Entry{.kernel = kernel, .correlation = correlation, .enter_ns = enter_ns});
}

void StreamOrderJoin::AddLibraryCall(const LaunchStream& stream, uint64_t correlation,
                                     uint64_t enter_ns, uint64_t exit_ns) {
  ++stats_.library_calls;
  Entry entry;
  entry.correlation = correlation;
  entry.enter_ns = enter_ns;
  entry.exit_ns = exit_ns;
  entry.library = true;
  Enqueue(stream, entry);
}

void StreamOrderJoin::AddKernel(const trace::GpuActivityRecord& record,
                                const KernelIdentity& kernel) {
  GpuStream& gpu = gpu_streams_[{record.device, record.context, record.stream}];
  gpu.device = record.device;
  // By start: CUPTI keeps a buffer per thread, so two threads' kernels on one stream may come
  // back out of order (a few places back at most are looked at).
  auto at = gpu.waiting.end();
  for (int looked = 0;
       looked < 64 && at != gpu.waiting.begin() && std::prev(at)->record.start_ns > record.start_ns;
       ++looked) {
    --at;
  }
  gpu.waiting.insert(at, Waiting{.record = record, .kernel = kernel, .arrived_pass = pass_});
  ++waiting_total_;
}

StreamOrderJoin::Match StreamOrderJoin::FindIn(const std::deque<Entry>& entries, size_t from,
                                               const Waiting& w) const {
  const uint64_t latest_enter = w.record.start_ns + options_.clock_slack_ns;
  const size_t end = std::min(entries.size(), from + options_.scan);
  size_t library = end;
  for (size_t i = from; i < end; ++i) {
    const Entry& e = entries[i];
    if (e.enter_ns > latest_enter) break;  // queued in call order: none later can be its launch
    if (e.library) {
      if (library == end) library = i;
      continue;
    }
    if (SameKernel(e.kernel, w.kernel)) return {MatchKind::kLaunch, i};
  }
  if (library == end) return {};
  // A kernel the call launched unseen, unless launches made before the call are still queued:
  // their records are owed first.
  for (size_t j = from; j < library; ++j) {
    if (!entries[j].library) return {};
  }
  return {MatchKind::kLibrary, library};
}

bool StreamOrderJoin::Expired(const Waiting& w, bool final) const {
  return final || pass_ - w.arrived_pass > options_.max_wait_passes;
}

bool StreamOrderJoin::TryMap(GpuStream& gpu, bool give_up) {
  struct Candidate {
    size_t queue;
    size_t launches_matched;
    uint64_t first_enter;
    bool free;
  };
  std::vector<Candidate> fits;
  const size_t compared = std::min(gpu.waiting.size(), options_.records_to_map);
  for (size_t q = 0; q < queues_.size(); ++q) {
    const LaunchQueue& queue = queues_[q];
    if (queue.stream.device != gpu.device || queue.entries.empty()) continue;
    size_t cursor = 0;
    size_t matched = 0;
    uint64_t first_enter = 0;
    for (size_t k = 0; k < compared; ++k) {
      const Match m = FindIn(queue.entries, cursor, gpu.waiting[k]);
      if (m.kind == MatchKind::kNone) {
        if (k == 0) matched = 0;  // the first record must fit
        break;                    // a later one may be a kernel flopspy never saw
      }
      if (m.kind == MatchKind::kLaunch) {
        if (matched++ == 0) first_enter = queue.entries[m.index].enter_ns;
        cursor = m.index + 1;
      }
    }
    // A library call fits any record: it alone maps nothing.
    if (matched > 0) fits.push_back({q, matched, first_enter, queue.mapped_by == 0});
  }
  if (fits.empty()) return false;
  // The best fit: most launches followed, then a stream no other CUPTI stream has taken, then the
  // one launched first.
  std::sort(fits.begin(), fits.end(), [](const Candidate& a, const Candidate& b) {
    if (a.launches_matched != b.launches_matched) return a.launches_matched > b.launches_matched;
    if (a.free != b.free) return a.free;
    return a.first_enter < b.first_enter;
  });
  const bool tied = fits.size() > 1 && fits[1].launches_matched == fits[0].launches_matched &&
                    fits[1].free == fits[0].free;
  if (tied) {
    // More records may tell them apart; beyond records_to_map, or when waiting is over, they
    // will not.
    if (!give_up && gpu.waiting.size() < options_.records_to_map) return false;
    ++stats_.ambiguous_maps;
  }
  gpu.queue = fits[0].queue;
  ++queues_[gpu.queue].mapped_by;
  ++stats_.streams_mapped;
  return true;
}

void StreamOrderJoin::SendOn(GpuStream& gpu, Waiting& w, uint64_t correlation, const Emit& emit) {
  w.record.correlation = correlation;
  gpu.last_end_ns = std::max(gpu.last_end_ns, w.record.end_ns);
  emit(w.record);
  --waiting_total_;
}

size_t StreamOrderJoin::LibraryCallFor(const GpuStream& gpu, const std::deque<Entry>& entries,
                                       const Waiting& w) const {
  // The calls at the head, each entered before this kernel started. A call the stream was idle
  // for (its last kernel had ended when the call began) saw every earlier call's kernels run:
  // the latest such call is the one running now.
  const uint64_t latest_enter = w.record.start_ns + options_.clock_slack_ns;
  size_t chosen = 0;
  for (size_t i = 0; i < entries.size() && entries[i].library; ++i) {
    if (entries[i].enter_ns > latest_enter) break;
    if (i > 0 && gpu.last_end_ns != 0 && entries[i].enter_ns > gpu.last_end_ns) chosen = i;
  }
  return chosen;
}

void StreamOrderJoin::JoinStream(GpuStream& gpu, bool final, const Emit& emit) {
  LaunchQueue& queue = queues_[gpu.queue];
  while (!gpu.waiting.empty()) {
    Waiting& w = gpu.waiting.front();
    const Match m = FindIn(queue.entries, 0, w);
    if (m.kind == MatchKind::kLaunch) {
      size_t first_launch = 0;
      while (queue.entries[first_launch].library) ++first_launch;
      if (m.index > first_launch) {
        // Launches would be passed over: either their records were lost, or this record's own
        // launch was (then a later launch of its kernel is not its own, and every join after
        // it would be one off). What was lost says which; when both were, the next record
        // does: it follows at the first queued launch when this record's launch is missing.
        bool launch_missing = false;
        if (lost_launches_ > 0) {
          if (lost_records_ == 0) {
            launch_missing = true;
          } else if (gpu.waiting.size() >= 2) {
            const Match next = FindIn(queue.entries, 0, gpu.waiting[1]);
            launch_missing = next.kind == MatchKind::kLaunch && next.index == first_launch;
          } else if (!Expired(w, final)) {
            return;  // the next record will tell
          }
        }
        if (launch_missing) {
          --lost_launches_;
          ++stats_.unjoined;
          ++stats_.without_launch;
          SendOn(gpu, w, 0, emit);
          gpu.waiting.pop_front();
          continue;
        }
        lost_records_ -= std::min<uint64_t>(lost_records_, m.index - first_launch);
      }
      // The stream ran everything queued before this launch: their records are not coming. A
      // library call the launch was made inside stays: it may have launched more.
      const Entry launch = queue.entries[m.index];
      std::vector<Entry> calls_still_open;
      for (size_t i = 0; i < m.index; ++i) {
        const Entry& before = queue.entries[i];
        if (!before.library) {
          ++stats_.launches_passed_over;
        } else if (launch.enter_ns <= before.exit_ns) {
          calls_still_open.push_back(before);
        }
      }
      queue.entries.erase(queue.entries.begin(),
                          queue.entries.begin() + static_cast<std::ptrdiff_t>(m.index) + 1);
      queue.entries.insert(queue.entries.begin(), calls_still_open.begin(), calls_still_open.end());
      ++stats_.joined;
      SendOn(gpu, w, launch.correlation, emit);
    } else if (m.kind == MatchKind::kLibrary) {
      const size_t call = LibraryCallFor(gpu, queue.entries, w);
      queue.entries.erase(queue.entries.begin(),
                          queue.entries.begin() + static_cast<std::ptrdiff_t>(call));
      ++stats_.joined_to_library;  // the call stays queued: it may have launched more
      SendOn(gpu, w, queue.entries.front().correlation, emit);
    } else if (Expired(w, final)) {
      ++stats_.unjoined;
      SendOn(gpu, w, 0, emit);
    } else {
      return;  // its launch record may come in the next pass; the stream's later ones wait
    }
    gpu.waiting.pop_front();
  }
}

void StreamOrderJoin::Pass(bool final, const Emit& emit) {
  ++pass_;
  for (LaunchQueue& queue : queues_) MergeIncoming(queue);
  // Beyond the bound, the oldest waiting records go on unjoined.
  while (waiting_total_ > options_.max_waiting) {
    GpuStream* longest = nullptr;
    for (auto& [key, gpu] : gpu_streams_) {
      if (longest == nullptr || gpu.waiting.size() > longest->waiting.size()) longest = &gpu;
    }
    ++stats_.records_dropped;
    SendOn(*longest, longest->waiting.front(), 0, emit);
    longest->waiting.pop_front();
  }
  // Unmapped CUPTI streams choose in the order their first kernels started: the stream whose
  // kernel ran first most likely had its launches made first, and takes the launch stream
  // launched first among those that fit.
  std::vector<GpuStream*> unmapped;
  for (auto& [key, gpu] : gpu_streams_) {
    if (gpu.queue == kUnmapped && !gpu.waiting.empty()) unmapped.push_back(&gpu);
  }
  std::sort(unmapped.begin(), unmapped.end(), [](const GpuStream* a, const GpuStream* b) {
    return a->waiting.front().record.start_ns < b->waiting.front().record.start_ns;
  });
  for (GpuStream* gpu : unmapped) {
    while (!gpu->waiting.empty() && gpu->queue == kUnmapped) {
      const bool give_up = Expired(gpu->waiting.front(), final);
      if (TryMap(*gpu, give_up)) break;
      if (!give_up) break;
      ++stats_.unjoined;  // no launch stream fits its first record
      SendOn(*gpu, gpu->waiting.front(), 0, emit);
      gpu->waiting.pop_front();
    }
  }
  for (auto& [key, gpu] : gpu_streams_) {
    if (gpu.queue != kUnmapped) JoinStream(gpu, final, emit);
  }
}

void StreamOrderJoin::WindowOpened(uint64_t now_ns) {
  window_opened_ns_ = now_ns;
  window_closed_ns_ = ~uint64_t{0};
  // What the last window left queued never ran inside one.
  for (LaunchQueue& queue : queues_) {
    MergeIncoming(queue);
    while (!queue.entries.empty() && queue.entries.front().enter_ns < now_ns) {
      if (!queue.entries.front().library) ++stats_.launches_dropped;
      queue.entries.pop_front();
    }
  }
}

void StreamOrderJoin::WindowClosed(uint64_t now_ns) {
  window_closed_ns_ = now_ns;
}

void StreamOrderJoin::NoteLostLaunches(uint64_t count) {
  lost_launches_ += count;
}

void StreamOrderJoin::NoteLostRecords(uint64_t count) {
  lost_records_ += count;
}

size_t StreamOrderJoin::queued_launches() const {
  size_t n = 0;
  for (const LaunchQueue& queue : queues_) n += queue.entries.size() + queue.incoming.size();
  return n;
}

}  // namespace flopspy::interpose
