#include "flopspy/analyzers/region_stats.h"

#include <algorithm>

namespace flopspy::analyzers {

void RegionAnalyzer::Add(const trace::RecordView& r, const StringLookup& strings) {
  if (r.type != trace::RecordType::kRegion) return;
  const auto region = r.As<trace::RegionRecord>();
  std::string name(strings(region.name));
  auto& stack = open_[{r.thread_id, name}];
  if (region.edge == static_cast<uint8_t>(trace::RegionEdge::kBegin)) {
    stack.push_back(region.time_ns);
    return;
  }
  if (stack.empty()) return;
  const uint64_t begin = stack.back();
  stack.pop_back();
  RegionStats& s = stats_[name];
  s.name = std::move(name);
  const double ns = region.time_ns > begin ? static_cast<double>(region.time_ns - begin) : 0;
  ++s.count;
  s.total_ns += ns;
  s.durations.Add(static_cast<uint64_t>(ns));
}

std::vector<RegionStats> RegionAnalyzer::Finish() {
  for (const auto& [key, stack] : open_) {
    if (stack.empty()) continue;
    RegionStats& s = stats_[key.second];
    s.name = key.second;
    s.open += stack.size();
  }
  std::vector<RegionStats> out;
  for (auto& [name, s] : stats_) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(),
            [](const RegionStats& a, const RegionStats& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace flopspy::analyzers
