#include "flopspy/analyzers/gpu_sampling.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace flopspy::analyzers {

namespace {

uint64_t UnsignedAt(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

}  // namespace

void GpuSamplingWindows::AddMetadata(std::string_view text) {
  // Most blocks are about something else: parsed only when they can be about this.
  if (text.find("\"gpu_window\"") == std::string_view::npos &&
      text.find("\"sampled\"") == std::string_view::npos) {
    return;
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  if (const auto timing = j.find("gpu_timing"); timing != j.end() && timing->is_object()) {
    const auto sampled = timing->find("sampled");
    if (sampled == timing->end() || !sampled->is_object()) return;
    sampled_ = true;
    window_ns_ = UnsignedAt(*sampled, "window_ns");
    period_ns_ = UnsignedAt(*sampled, "period_ns");
    windows_.assign(1, {UnsignedAt(*sampled, "first_window_open_ns"), kStillOpen});
    return;
  }
  const auto window = j.find("gpu_window");
  if (!sampled_ || window == j.end() || !window->is_object()) return;
  const auto event = window->find("event");
  const uint64_t t = UnsignedAt(*window, "time_ns");
  if (event == window->end() || !event->is_string() || t == 0) return;
  const bool open_now = !windows_.empty() && windows_.back().second == kStillOpen;
  if (*event == "close" && open_now) {
    windows_.back().second = std::max(t, windows_.back().first);
  } else if (*event == "open" && !open_now && (windows_.empty() || t >= windows_.back().second)) {
    windows_.emplace_back(t, kStillOpen);
  }
}

bool GpuSamplingWindows::TimedAt(uint64_t t) const {
  if (!sampled_) return true;
  // The last window opened at or before t.
  const auto after = std::upper_bound(
      windows_.begin(), windows_.end(), t,
      [](uint64_t time, const std::pair<uint64_t, uint64_t>& w) { return time < w.first; });
  if (after == windows_.begin()) return false;
  return t <= std::prev(after)->second;
}

uint64_t GpuSamplingWindows::TimedNs(uint64_t end_ns) const {
  uint64_t total = 0;
  for (const auto& [open, close] : windows_) {
    if (open >= end_ns) continue;  // opened after the end: nothing timed in it
    total += std::min(close, end_ns) - open;
  }
  return total;
}

}  // namespace flopspy::analyzers
