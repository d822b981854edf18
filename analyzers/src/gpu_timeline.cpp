#include "flopspy/analyzers/gpu_timeline.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace flopspy::analyzers {

GpuInterval GpuInterval::Make(uint64_t start_ns, uint64_t end_ns, GpuWorkKind kind, uint8_t flags) {
  GpuInterval out;
  out.start_ns = start_ns;
  const uint64_t duration = end_ns > start_ns ? std::min(end_ns - start_ns, kMaxDuration) : 0;
  out.SetPacked(duration, kUnknownThreadSlot,
                static_cast<uint8_t>((flags & ~kKindMask) | static_cast<uint8_t>(kind)));
  return out;
}

void GpuInterval::SetPacked(uint64_t duration, uint16_t thread, uint8_t flags) {
  packed =
      (duration & kMaxDuration) | (uint64_t{thread} << kDurationBits) | (uint64_t{flags} << 56);
}

void GpuInterval::SetSubmit(uint64_t call_exit_ns, uint16_t thread_slot, uint32_t launch_cost,
                            bool eager) {
  uint8_t f = static_cast<uint8_t>(flags() | kSubmitKnown);
  const int64_t lead = static_cast<int64_t>(start_ns) - static_cast<int64_t>(call_exit_ns);
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (lead > kMax) {
    // Queued for over two seconds: exact lead is not needed, only that the call returned long
    // before the work began (ClassifyGap treats it as submitted).
    submit_lead_ns = static_cast<int32_t>(kMax);
    f |= kLeadSaturated;
  } else {
    submit_lead_ns = static_cast<int32_t>(std::max<int64_t>(lead, -kMax));
  }
  if (eager) {
    f |= kEagerLaunch;
    launch_cost_ns = launch_cost;
  }
  SetPacked(duration_ns(), thread_slot, f);
}

// --- SyncIndex --------------------------------------------------------------------------------

SyncIndex::SyncIndex(std::vector<SyncSpan> spans) {
  by_thread_.reserve(spans.size());
  for (const SyncSpan& s : spans) {
    by_thread_.push_back({s.enter_ns, std::max(s.enter_ns, s.exit_ns), s.thread_slot});
  }
  spans = {};
  all_ = by_thread_;
  std::sort(by_thread_.begin(), by_thread_.end(), [](const Entry& a, const Entry& b) {
    return a.thread_slot != b.thread_slot ? a.thread_slot < b.thread_slot : a.enter_ns < b.enter_ns;
  });
  for (size_t i = 1; i < by_thread_.size(); ++i) {
    if (by_thread_[i].thread_slot == by_thread_[i - 1].thread_slot) {
      by_thread_[i].max_exit_ns =
          std::max(by_thread_[i].max_exit_ns, by_thread_[i - 1].max_exit_ns);
    }
  }
  std::sort(all_.begin(), all_.end(),
            [](const Entry& a, const Entry& b) { return a.enter_ns < b.enter_ns; });
  for (size_t i = 1; i < all_.size(); ++i) {
    all_[i].max_exit_ns = std::max(all_[i].max_exit_ns, all_[i - 1].max_exit_ns);
  }
}

bool SyncIndex::Covered(std::span<const Entry> list, uint64_t t) {
  // The last call that entered at or before t; the running maximum says whether it, or any
  // call before it, was still in progress at t.
  const auto it = std::upper_bound(list.begin(), list.end(), t,
                                   [](uint64_t v, const Entry& e) { return v < e.enter_ns; });
  if (it == list.begin()) return false;
  return std::prev(it)->max_exit_ns >= t;
}

bool SyncIndex::InProgress(uint16_t thread_slot, uint64_t t) const {
  if (thread_slot == kUnknownThreadSlot) return Covered(all_, t);
  struct ByThread {
    bool operator()(const Entry& e, uint16_t thread) const { return e.thread_slot < thread; }
    bool operator()(uint16_t thread, const Entry& e) const { return thread < e.thread_slot; }
  };
  const auto [lo, hi] =
      std::equal_range(by_thread_.begin(), by_thread_.end(), thread_slot, ByThread{});
  return Covered(std::span<const Entry>(lo, hi), t);
}

// --- Gaps -------------------------------------------------------------------------------------

std::string_view GapKindName(GapKind kind) {
  switch (kind) {
    case GapKind::kStarved:
      return "starved";
    case GapKind::kSynchronized:
      return "synchronised";
    case GapKind::kOther:
      return "other";
  }
  return "other";
}

GapKind ClassifyGap(uint64_t gap_start_ns, const GpuInterval& next, const SyncIndex& syncs,
                    bool* unattributed) {
  if (unattributed) *unattributed = false;
  const bool known = next.Has(GpuInterval::kSubmitKnown);
  // Work already handed to the GPU when it ran dry: neither the CPU's launches nor its syncs
  // kept it idle (a dependency, an event wait, GPU-side latency).
  if (known && (next.Has(GpuInterval::kLeadSaturated) || next.SubmitExitNs() <= gap_start_ns)) {
    return GapKind::kOther;
  }
  const uint16_t thread = known ? next.thread_slot() : kUnknownThreadSlot;
  if (syncs.InProgress(thread, gap_start_ns)) return GapKind::kSynchronized;
  if (!known) {
    if (unattributed) *unattributed = true;
    return GapKind::kOther;
  }
  return GapKind::kStarved;
}

uint64_t GapBreakdown::TotalNs() const {
  uint64_t total = 0;
  for (const auto& k : by_kind) total += k.ns;
  return total;
}

uint64_t GapBreakdown::TotalCount() const {
  uint64_t total = 0;
  for (const auto& k : by_kind) total += k.count;
  return total;
}

// --- Timeline ---------------------------------------------------------------------------------

void SortIntervals(std::vector<GpuInterval>& intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const GpuInterval& a, const GpuInterval& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns() < b.end_ns();
  });
}

uint64_t BusyNs(std::span<const GpuInterval> sorted) {
  uint64_t busy = 0;
  uint64_t open_start = 0, open_end = 0;
  bool open = false;
  for (const GpuInterval& iv : sorted) {
    const uint64_t end = iv.end_ns();
    if (!open || iv.start_ns > open_end) {
      if (open) busy += open_end - open_start;
      open_start = iv.start_ns;
      open_end = end;
      open = true;
    } else {
      open_end = std::max(open_end, end);
    }
  }
  if (open) busy += open_end - open_start;
  return busy;
}

std::vector<float> BusyBins(std::span<const GpuInterval> sorted, uint64_t start_ns, uint64_t bin_ns,
                            size_t bins) {
  std::vector<float> out;
  if (bins == 0 || bin_ns == 0) return out;
  std::vector<uint64_t> busy(bins, 0);
  const uint64_t end_ns = start_ns + bin_ns * bins;
  // Adds [a, b) clipped to the bins, spread over the bins it covers.
  const auto add = [&](uint64_t a, uint64_t b) {
    a = std::max(a, start_ns);
    b = std::min(b, end_ns);
    while (a < b) {
      const size_t bin = (a - start_ns) / bin_ns;
      const uint64_t bin_end = start_ns + (bin + 1) * bin_ns;
      const uint64_t stop = std::min(b, bin_end);
      busy[bin] += stop - a;
      a = stop;
    }
  };
  uint64_t open_start = 0, open_end = 0;
  bool open = false;
  for (const GpuInterval& iv : sorted) {
    if (!open || iv.start_ns > open_end) {
      if (open) add(open_start, open_end);
      open_start = iv.start_ns;
      open_end = iv.end_ns();
      open = true;
    } else {
      open_end = std::max(open_end, iv.end_ns());
    }
  }
  if (open) add(open_start, open_end);
  out.reserve(bins);
  for (const uint64_t b : busy) {
    out.push_back(static_cast<float>(static_cast<double>(b) / static_cast<double>(bin_ns)));
  }
  return out;
}

DeviceTimeline AnalyzeDeviceTimeline(std::span<const std::span<const GpuInterval>> streams,
                                     const SyncIndex& syncs, const TimelineOptions& options) {
  DeviceTimeline out;
  out.stream_busy_ns.reserve(streams.size());
  for (const auto& s : streams) out.stream_busy_ns.push_back(BusyNs(s));

  // Min-heap of (start, stream, index): the next interval of the device in start order.
  struct Cursor {
    uint64_t start;
    uint64_t end;
    uint32_t stream;
    size_t index;
  };
  const auto later = [](const Cursor& a, const Cursor& b) {
    return a.start != b.start ? a.start > b.start : a.end > b.end;
  };
  std::priority_queue<Cursor, std::vector<Cursor>, decltype(later)> heap(later);
  for (uint32_t i = 0; i < streams.size(); ++i) {
    if (!streams[i].empty()) heap.push({streams[i][0].start_ns, streams[i][0].end_ns(), i, 0});
  }

  bool open = false;
  uint64_t open_start = 0, open_end = 0;
  const double node_cost = std::max(0.0, options.graph_node_cost_ns);
  while (!heap.empty()) {
    const Cursor c = heap.top();
    heap.pop();
    const GpuInterval& iv = streams[c.stream][c.index];
    if (c.index + 1 < streams[c.stream].size()) {
      const GpuInterval& next = streams[c.stream][c.index + 1];
      heap.push({next.start_ns, next.end_ns(), c.stream, c.index + 1});
    }
    ++out.intervals;
    if (!open) {
      out.first_start_ns = iv.start_ns;
      open = true;
      open_start = iv.start_ns;
      open_end = c.end;
      continue;
    }
    if (iv.start_ns > open_end) {
      out.busy_ns += open_end - open_start;
      const uint64_t gap = iv.start_ns - open_end;
      bool unattributed = false;
      const GapKind kind = ClassifyGap(open_end, iv, syncs, &unattributed);
      out.gaps[kind].Add(gap);
      if (unattributed) out.gaps.unattributed.Add(gap);
      if (kind == GapKind::kStarved && iv.Has(GpuInterval::kEagerLaunch)) {
        const double shrink = static_cast<double>(iv.launch_cost_ns) - node_cost;
        if (shrink > 0) {
          out.graphs_saved_ns += std::min(static_cast<double>(gap), shrink);
          ++out.graphs_gaps;
        }
      }
      open_start = iv.start_ns;
      open_end = c.end;
    } else {
      open_end = std::max(open_end, c.end);
    }
  }
  if (open) {
    out.busy_ns += open_end - open_start;
    out.last_end_ns = open_end;
  }
  return out;
}

}  // namespace flopspy::analyzers
