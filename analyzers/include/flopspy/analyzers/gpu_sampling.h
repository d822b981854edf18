// Sampled GPU timing (FLOPSPY_GPU_TIMING=sampled, docs/gpu-timing.md): CUPTI collects only in
// windows, and the trace's metadata says when each opened and closed before the records of
// that time. The analyses read the windows as the trace streams past and ask, for each launch,
// whether it should have a GPU record.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace flopspy::analyzers {

class GpuSamplingWindows {
 public:
  static constexpr uint64_t kStillOpen = UINT64_MAX;

  // One metadata block: the session's {"gpu_timing": {"sampled": {...}}} and each
  // {"gpu_window": {"event": "open"|"close", "time_ns": T}}; anything else is ignored.
  void AddMetadata(std::string_view json);

  bool sampled() const { return sampled_; }
  uint64_t window_ns() const { return window_ns_; }
  uint64_t period_ns() const { return period_ns_; }
  // [open, close] of every window so far, in time order; close is kStillOpen while open.
  const std::vector<std::pair<uint64_t, uint64_t>>& windows() const { return windows_; }
  // Whether work launched at `t` should have GPU times: always, unless sampled; then only
  // inside a window.
  bool TimedAt(uint64_t t) const;
  // The time inside windows up to `end_ns` (a window still open counted to it).
  uint64_t TimedNs(uint64_t end_ns) const;

 private:
  bool sampled_ = false;
  uint64_t window_ns_ = 0;
  uint64_t period_ns_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> windows_;
};

}  // namespace flopspy::analyzers
