// AnalyzeRanges: each range's CPU time and the kernels launched inside it, per name and domain.
#include "flopspy/analyzers/ranges.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace flopspy::analyzers {

namespace {

// Kernels of one thread (or of all) by launch time, with running sums: a range's kernels are a
// slice, summed in O(log n).
struct Launches {
  std::vector<uint64_t> at;
  std::vector<double> gpu{0}, flops{0}, flops_ns{0};

  void Add(const TimedActivity& a) {
    at.push_back(a.launch_ns);
    const auto ns = static_cast<double>(a.end_ns - a.start_ns);
    gpu.push_back(gpu.back() + ns);
    flops.push_back(flops.back() + a.flops);
    flops_ns.push_back(flops_ns.back() + (a.flops_known ? ns : 0));
  }
};

struct Inside {
  uint64_t kernels = 0;
  double gpu = 0, flops = 0, flops_ns = 0;
};

Inside Sum(const Launches& l, uint64_t begin, uint64_t end) {
  const auto lo =
      static_cast<size_t>(std::lower_bound(l.at.begin(), l.at.end(), begin) - l.at.begin());
  const auto hi =
      static_cast<size_t>(std::lower_bound(l.at.begin(), l.at.end(), end) - l.at.begin());
  if (hi <= lo) return {};
  return {hi - lo, l.gpu[hi] - l.gpu[lo], l.flops[hi] - l.flops[lo],
          l.flops_ns[hi] - l.flops_ns[lo]};
}

// For each activity, the row in `rows` of the innermost range holding its launch: among the
// ranges that hold it, the latest opened (a child opens after its parent).
std::vector<int32_t> InnermostRangeRows(const RangeLog& log,
                                        std::span<const TimedActivity> activities,
                                        const std::vector<RangeStats>& rows) {
  std::vector<int32_t> out(activities.size(), -1);
  if (log.ranges.empty()) return out;
  std::map<std::tuple<RangeSource, std::string, std::string>, int32_t> row_of;
  for (size_t i = 0; i < rows.size(); ++i) {
    row_of[{rows[i].source, rows[i].domain, rows[i].name}] = static_cast<int32_t>(i);
  }
  // Activity indices by launch time, all and per thread.
  std::vector<size_t> all;
  std::unordered_map<uint32_t, std::vector<size_t>> by_thread;
  for (size_t i = 0; i < activities.size(); ++i) {
    if (!activities[i].is_copy && activities[i].launch_ns != 0) all.push_back(i);
  }
  std::stable_sort(all.begin(), all.end(), [&](size_t a, size_t b) {
    return activities[a].launch_ns < activities[b].launch_ns;
  });
  for (size_t i : all) by_thread[activities[i].thread].push_back(i);
  const std::vector<size_t> none;
  std::vector<int64_t> best(activities.size(), -1);  // index into log.ranges
  for (size_t r = 0; r < log.ranges.size(); ++r) {
    const RangeInstance& range = log.ranges[r];
    const auto it = by_thread.find(range.thread);
    const std::vector<size_t>& pool = !range.nested           ? all
                                      : it != by_thread.end() ? it->second
                                                              : none;
    const auto at = [&](size_t i, uint64_t t) { return activities[i].launch_ns < t; };
    for (auto k = std::lower_bound(pool.begin(), pool.end(), range.begin_ns, at);
         k != pool.end() && activities[*k].launch_ns < range.end_ns; ++k) {
      int64_t& b = best[*k];
      if (b < 0 || log.ranges[static_cast<size_t>(b)].begin_ns <= range.begin_ns) {
        b = static_cast<int64_t>(r);
      }
    }
  }
  for (size_t i = 0; i < activities.size(); ++i) {
    if (best[i] < 0) continue;
    const RangeInstance& range = log.ranges[static_cast<size_t>(best[i])];
    const auto row = row_of.find({range.source, range.domain, RangeGroupName(range.name)});
    if (row != row_of.end()) out[i] = row->second;
  }
  return out;
}

}  // namespace

RangeReport AnalyzeRanges(const RangeLog& log, std::span<const TimedActivity> activities) {
  RangeReport out;
  out.unmatched_ends = log.unmatched_ends;
  out.dropped = log.dropped;
  out.resource_names = log.resource_names;

  std::vector<const TimedActivity*> launched;
  for (const TimedActivity& a : activities) {
    if (!a.is_copy && a.launch_ns != 0) launched.push_back(&a);
  }
  std::stable_sort(
      launched.begin(), launched.end(),
      [](const TimedActivity* a, const TimedActivity* b) { return a->launch_ns < b->launch_ns; });
  Launches all;
  std::unordered_map<uint32_t, Launches> by_thread;
  for (const TimedActivity* a : launched) {
    all.Add(*a);
    by_thread[a->thread].Add(*a);
  }
  const Launches none;

  // Each range's own figures, then its children's taken from its parent's self figures.
  const size_t n = log.ranges.size();
  std::vector<Inside> inside(n);
  std::vector<Inside> children(n);
  std::vector<double> child_cpu(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const RangeInstance& r = log.ranges[i];
    const auto it = by_thread.find(r.thread);
    const Launches& pool = !r.nested ? all : it != by_thread.end() ? it->second : none;
    inside[i] = Sum(pool, r.begin_ns, r.end_ns);
    if (r.parent >= 0) {
      const auto p = static_cast<size_t>(r.parent);
      child_cpu[p] += static_cast<double>(r.end_ns - r.begin_ns);
      children[p].gpu += inside[i].gpu;
    }
  }

  std::map<std::tuple<RangeSource, std::string, std::string>, RangeStats> stats;
  const auto row = [&stats](RangeSource source, const std::string& domain,
                            const std::string& name) -> RangeStats& {
    RangeStats& s = stats[{source, domain, name}];
    s.source = source;
    s.domain = domain;
    s.name = name;
    return s;
  };
  std::map<std::string, RangePath> paths;
  for (size_t i = 0; i < n; ++i) {
    const RangeInstance& r = log.ranges[i];
    RangeStats& s = row(r.source, r.domain, RangeGroupName(r.name));
    const auto cpu = static_cast<double>(r.end_ns - r.begin_ns);
    ++s.count;
    s.cpu_ns += cpu;
    s.cpu_self_ns += std::max(0.0, cpu - child_cpu[i]);
    s.kernels += inside[i].kernels;
    s.gpu_ns += inside[i].gpu;
    s.gpu_self_ns += std::max(0.0, inside[i].gpu - children[i].gpu);
    s.flops += inside[i].flops;
    s.flops_ns += inside[i].flops_ns;
    if (r.has_bytes) {
      s.bytes += r.bytes;
      ++s.bytes_ranges;
    }
    if (r.parent >= 0) {
      RangePath& p = paths[r.path];
      p.path = r.path;
      ++p.count;
      p.cpu_ns += cpu;
      p.gpu_ns += inside[i].gpu;
    }
  }
  for (const auto& [key, count] : log.open) {
    row(std::get<0>(key), std::get<1>(key), RangeGroupName(std::get<2>(key))).open += count;
  }
  for (const auto& [key, count] : log.marks)
    row(RangeSource::kNvtx, key.first, RangeGroupName(key.second)).marks += count;

  for (auto& [key, s] : stats) out.ranges.push_back(std::move(s));
  std::stable_sort(out.ranges.begin(), out.ranges.end(),
                   [](const RangeStats& a, const RangeStats& b) { return a.cpu_ns > b.cpu_ns; });
  out.innermost = InnermostRangeRows(log, activities, out.ranges);
  for (auto& [key, p] : paths) out.paths.push_back(std::move(p));
  std::stable_sort(out.paths.begin(), out.paths.end(),
                   [](const RangePath& a, const RangePath& b) { return a.cpu_ns > b.cpu_ns; });
  if (out.paths.size() > kTopPaths) out.paths.resize(kTopPaths);
  return out;
}

}  // namespace flopspy::analyzers
