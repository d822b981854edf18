// RangeCollector: NVTX range records and flopspy region records into ranges as they ran.
#include <algorithm>

#include "flopspy/analyzers/ranges.h"

namespace flopspy::analyzers {

std::string_view RangeSourceName(RangeSource source) {
  return source == RangeSource::kRegion ? "flopspy region" : "nvtx";
}

std::string RangeGroupName(std::string_view name) {
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size() || digits < 2) return std::string(name);
  const char before = name[digits - 1];
  if (before != '#' && before != '_' && before != ' ') return std::string(name);
  return std::string(name.substr(0, digits)) + "N";
}

size_t RangeCollector::OpenRange(RangeInstance range, int64_t parent) {
  if (log_.ranges.size() >= kMaxRanges) {
    ++log_.dropped;
    return kDropped;
  }
  range.parent = parent;
  if (parent >= 0) {
    range.path = log_.ranges[static_cast<size_t>(parent)].path + " > " + RangeGroupName(range.name);
  } else {
    range.path = RangeGroupName(range.name);
  }
  log_.ranges.push_back(std::move(range));
  closed_.push_back(false);
  return log_.ranges.size() - 1;
}

void RangeCollector::CloseRange(size_t index, uint64_t end_ns) {
  if (index == kDropped) return;
  RangeInstance& r = log_.ranges[index];
  r.end_ns = std::max(end_ns, r.begin_ns);
  closed_[index] = true;
}

namespace {

int64_t Top(const std::vector<size_t>& stack) {
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    if (*it != SIZE_MAX) return static_cast<int64_t>(*it);
  }
  return -1;
}

}  // namespace

void RangeCollector::Add(const trace::RecordView& r, const StringLookup& strings) {
  if (r.type == trace::RecordType::kResourceName) {
    const auto n = r.As<trace::ResourceNameRecord>();
    log_.resource_names[{static_cast<trace::NamedResource>(n.resource), n.handle}] =
        std::string(strings(n.name));
    return;
  }
  if (r.type == trace::RecordType::kRegion) {
    const auto region = r.As<trace::RegionRecord>();
    std::string name(strings(region.name));
    auto& stack = regions_[r.thread_id];
    if (region.edge == static_cast<uint8_t>(trace::RegionEdge::kBegin)) {
      RangeInstance range;
      range.source = RangeSource::kRegion;
      range.name = std::move(name);
      range.thread = r.thread_id;
      range.begin_ns = region.time_ns;
      stack.push_back(OpenRange(std::move(range), Top(stack)));
      return;
    }
    // Regions of one name pair innermost first; an end whose begin is gone is counted.
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      if (*it != kDropped && log_.ranges[*it].name != name) continue;
      CloseRange(*it, region.time_ns);
      stack.erase(std::next(it).base());
      return;
    }
    ++log_.unmatched_ends;
    return;
  }
  if (r.type == trace::RecordType::kRangePayload) {
    // Follows the push or start it belongs to on the same thread.
    const auto payload = r.As<trace::RangePayloadRecord>();
    const auto last = last_opened_.find(r.thread_id);
    if (last == last_opened_.end() || last->second == kDropped ||
        (payload.flags & trace::kPayloadBytes) == 0) {
      return;
    }
    log_.ranges[last->second].has_bytes = true;
    log_.ranges[last->second].bytes = payload.bytes;
    return;
  }
  if (r.type != trace::RecordType::kRange) return;
  const auto range = r.As<trace::RangeRecord>();
  last_opened_[r.thread_id] = kDropped;  // a payload after anything but a push or start: none
  const std::string domain(range.domain != 0 ? strings(range.domain) : std::string_view());
  switch (static_cast<trace::RangeEdge>(range.edge)) {
    case trace::RangeEdge::kPush: {
      auto& stack = pushed_[{r.thread_id, domain}];
      RangeInstance open;
      open.domain = domain;
      open.name = std::string(strings(range.name));
      open.thread = r.thread_id;
      open.begin_ns = range.time_ns;
      stack.push_back(OpenRange(std::move(open), Top(stack)));
      last_opened_[r.thread_id] = stack.back();
      return;
    }
    case trace::RangeEdge::kPop: {
      auto& stack = pushed_[{r.thread_id, domain}];
      if (stack.empty()) {
        ++log_.unmatched_ends;
        return;
      }
      CloseRange(stack.back(), range.time_ns);
      stack.pop_back();
      return;
    }
    case trace::RangeEdge::kStart: {
      RangeInstance open;
      open.nested = false;
      open.domain = domain;
      open.name = std::string(strings(range.name));
      open.thread = r.thread_id;
      open.begin_ns = range.time_ns;
      started_[range.range_id] = OpenRange(std::move(open), -1);
      last_opened_[r.thread_id] = started_[range.range_id];
      return;
    }
    case trace::RangeEdge::kEnd: {
      const auto it = started_.find(range.range_id);
      if (it == started_.end()) {
        ++log_.unmatched_ends;
        return;
      }
      CloseRange(it->second, range.time_ns);
      started_.erase(it);
      return;
    }
    case trace::RangeEdge::kMark:
      ++log_.marks[{domain, std::string(strings(range.name))}];
      return;
  }
}

RangeLog RangeCollector::Finish() {
  // Ranges never closed are counted by name and leave the log; their children keep no parent.
  std::vector<int64_t> new_index(log_.ranges.size(), -1);
  std::vector<RangeInstance> kept;
  for (size_t i = 0; i < log_.ranges.size(); ++i) {
    RangeInstance& r = log_.ranges[i];
    if (!closed_[i]) {
      ++log_.open[{r.source, r.domain, r.name}];
      continue;
    }
    new_index[i] = static_cast<int64_t>(kept.size());
    if (r.parent >= 0) r.parent = new_index[static_cast<size_t>(r.parent)];
    kept.push_back(std::move(r));
  }
  log_.ranges = std::move(kept);
  closed_.clear();
  pushed_.clear();
  regions_.clear();
  started_.clear();
  last_opened_.clear();
  return std::move(log_);
}

}  // namespace flopspy::analyzers
