#include "flopspy/analyzers/rank_table.h"

#include <algorithm>
#include <tuple>

namespace flopspy::analyzers {
namespace {

// The process a forked child descends from, among the traces of its host: children inherit
// their parent's rank, and without ranks they still belong to the parent's row.
size_t RootOf(std::span<const TraceFacts> traces, size_t i,
              const std::map<std::pair<std::string, uint32_t>, size_t>& by_pid) {
  size_t at = i;
  for (size_t hops = 0; hops < traces.size() && traces[at].forked; ++hops) {
    const auto parent = by_pid.find({traces[at].host, traces[at].parent_pid});
    if (parent == by_pid.end() || parent->second == at) break;
    at = parent->second;
  }
  return at;
}

struct RegionTally {
  size_t ranks = 0;
  uint64_t count = 0;
  double total_ns = 0;
};

using GroupKey = std::tuple<int32_t, std::string, uint32_t>;
using TraceGroups = std::map<GroupKey, std::vector<size_t>>;

// Group: by rank when there is one, else by process tree (host, root pid).
TraceGroups GroupTraces(std::span<const TraceFacts> traces,
                        const std::map<std::pair<std::string, uint32_t>, size_t>& by_pid) {
  TraceGroups groups;
  for (size_t i = 0; i < traces.size(); ++i) {
    const TraceFacts& t = traces[i];
    if (t.run == nullptr) continue;
    if (t.rank >= 0) {
      groups[{t.rank, "", 0}].push_back(i);
    } else {
      const TraceFacts& root = traces[RootOf(traces, i, by_pid)];
      groups[{-1, root.host, root.pid}].push_back(i);
    }
  }

  return groups;
}

// The step region: the name most rows have, then most completed, then longest; "" if none.
std::string StepRegion(std::span<const TraceFacts> traces, const TraceGroups& groups) {
  std::string step_region;
  std::map<std::string, RegionTally> tallies;
  for (const auto& [key, members] : groups) {
    std::map<std::string, std::pair<uint64_t, double>> row_regions;
    for (size_t i : members) {
      if (traces[i].regions == nullptr) continue;
      for (const RegionStats& r : *traces[i].regions) {
        if (r.count == 0) continue;
        row_regions[r.name].first += r.count;
        row_regions[r.name].second += r.total_ns;
      }
    }
    for (const auto& [name, counts] : row_regions) {
      RegionTally& tally = tallies[name];
      ++tally.ranks;
      tally.count += counts.first;
      tally.total_ns += counts.second;
    }
  }
  const RegionTally* best = nullptr;
  for (const auto& [name, tally] : tallies) {
    if (best == nullptr || std::tie(tally.ranks, tally.count, tally.total_ns) >
                               std::tie(best->ranks, best->count, best->total_ns)) {
      best = &tally;
      step_region = name;
    }
  }

  return step_region;
}

// One row: the traces of one rank (or process tree), the first of them in `members` front.
RankRow BuildRow(RankTable& table, std::span<const TraceFacts> traces, std::vector<size_t> members,
                 uint64_t earliest) {
  // The first trace: a process that was not forked, the earliest started.
  std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
    return std::make_tuple(traces[a].forked, traces[a].start_realtime_ns, traces[a].pid) <
           std::make_tuple(traces[b].forked, traces[b].start_realtime_ns, traces[b].pid);
  });
  const TraceFacts& first = traces[members.front()];
  RankRow row;
  row.rank = first.rank;
  row.host = first.host;
  row.pid = first.pid;
  row.local_rank = first.local_rank;
  row.traces = members;
  row.start_offset_ns = static_cast<int64_t>(first.start_realtime_ns - earliest);
  row.end = first.end;
  size_t unforked = 0;
  uint64_t first_rt = UINT64_MAX, last_rt = 0;
  DurationHistogram steps;
  double step_total = 0;
  uint64_t step_count = 0;
  std::string other_ends;
  for (size_t i : members) {
    const TraceFacts& t = traces[i];
    unforked += t.forked ? 0 : 1;
    if (t.HasEvents()) {
      const int64_t offset = t.RealtimeOffset();
      first_rt = std::min(first_rt, static_cast<uint64_t>(t.first_ns + offset));
      last_rt = std::max(last_rt, static_cast<uint64_t>(t.last_ns + offset));
    }
    row.gpu_busy_ns += t.gpu_busy_ns;
    row.gpu_window_ns += t.gpu_window_ns;
    row.lost += t.lost;
    row.launches += t.run->launches;
    for (const KernelGroup& g : t.run->kernels) {
      row.kernel_ns += g.gpu_ns;
      if (g.timed.flops_source != trace::FigureSource::kUnknown) {
        row.flops += g.timed.flops;
        row.flops_ns += g.timed.flops_ns;
      }
      const std::string k = KernelKey(g);
      row.kernel_ns_by_key[k] += g.gpu_ns;
      table.kernel_labels.try_emplace(k, KernelShortLabel(g));
    }
    for (const DeviceActivity& d : t.run->devices) {
      const double active =
          d.last_ns > d.first_ns ? static_cast<double>(d.last_ns - d.first_ns) : 0;
      if (!d.utilization || d.utilization->nominal_peak <= 0 || active <= 0) continue;
      row.mfu_capacity += active / 1e9 * d.utilization->nominal_peak;
      row.analytic_flops += d.analytic_flops;
    }
    if (t.regions != nullptr && !table.step_region.empty()) {
      for (const RegionStats& r : *t.regions) {
        if (r.name != table.step_region || r.count == 0) continue;
        steps.Merge(r.durations);
        step_total += r.total_ns;
        step_count += r.count;
      }
    }
    if (i != members.front() && t.end != first.end && other_ends.size() < 200) {
      other_ends += "; pid " + std::to_string(t.pid) + ": " + t.end;
    }
  }
  row.end += other_ends;
  if (first_rt != UINT64_MAX) {
    row.first_realtime_ns = first_rt;
    row.span_ns = last_rt - first_rt;
  }
  if (row.gpu_window_ns > 0) {
    row.busy_fraction =
        static_cast<double>(row.gpu_busy_ns) / static_cast<double>(row.gpu_window_ns);
  }
  if (row.flops > 0 && row.flops_ns > 0) row.flops_per_s = row.flops / row.flops_ns * 1e9;
  for (const auto& [key, ns] : row.kernel_ns_by_key) {
    if (ns > row.top_kernel_ns) {
      row.top_kernel = key;
      row.top_kernel_ns = ns;
    }
  }
  if (row.mfu_capacity > 0 && row.analytic_flops > 0) {
    row.mfu = row.analytic_flops / row.mfu_capacity;
  }
  if (step_count > 0) {
    row.step =
        StepTime{step_count, step_total / static_cast<double>(step_count), steps.Percentile(50)};
  }
  if (row.rank >= 0 && unforked > 1) {
    table.notes.push_back(row.Name() + " has " + std::to_string(unforked) +
                          " traces of processes that are not forks of one another (several "
                          "runs in one folder, or a restarted job?); they are counted together.");
  }
  return row;
}

}  // namespace

std::string RankRow::Name() const {
  if (rank >= 0) return "rank " + std::to_string(rank);
  return "pid " + std::to_string(pid) + " on " + host;
}

RankTable BuildRankTable(std::span<const TraceFacts> traces) {
  RankTable table;
  std::map<std::pair<std::string, uint32_t>, size_t> by_pid;
  uint64_t earliest = UINT64_MAX;
  for (size_t i = 0; i < traces.size(); ++i) {
    if (traces[i].run == nullptr) continue;
    by_pid.emplace(std::make_pair(traces[i].host, traces[i].pid), i);
    earliest = std::min(earliest, traces[i].start_realtime_ns);
  }
  if (earliest == UINT64_MAX) return table;
  table.earliest_start_realtime_ns = earliest;

  const TraceGroups groups = GroupTraces(traces, by_pid);
  table.step_region = StepRegion(traces, groups);
  for (const auto& [key, members] : groups)
    table.rows.push_back(BuildRow(table, traces, members, earliest));
  // Ranks in order, then the rank-less process trees by host and pid.
  std::stable_sort(table.rows.begin(), table.rows.end(), [](const RankRow& a, const RankRow& b) {
    return std::make_tuple(a.rank < 0, a.rank, a.host, a.pid) <
           std::make_tuple(b.rank < 0, b.rank, b.host, b.pid);
  });
  return table;
}

}  // namespace flopspy::analyzers
