#include "capture_window.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "clock.h"

namespace flopspy::interpose {

std::atomic<bool> g_capturing{true};

namespace {

enum Phase : int { kNone, kWaiting, kOpen, kClosed };

// Written once by InitCaptureWindow before any hook records; read-only afterwards. Constant
// initialised (no std::string): the library's constructor may run before this file's dynamic
// initialisers.
struct Window {
  uint64_t start_ns = 0;     // the process's start
  uint64_t open_at_ns = 0;   // a time window's start
  uint64_t duration_ns = 0;  // 0: until the end (or the range's end)
  char range[256] = {};      // the range's name without its "region:"/"nvtx:" prefix
  size_t range_size = 0;     // 0: a time window, or none
  std::string_view Range() const { return {range, range_size}; }
};
constinit Window g_window;
std::atomic<int> g_phase{kNone};
std::atomic<int> g_depth{0};
std::atomic<uint64_t> g_opened_ns{0};
std::atomic<uint64_t> g_closed_ns{0};
int g_reported_phase = kNone;  // the flusher's own: what the metadata said last

void Open(uint64_t now_ns) {
  int waiting = kWaiting;
  if (!g_phase.compare_exchange_strong(waiting, kOpen, std::memory_order_acq_rel)) return;
  g_opened_ns.store(now_ns, std::memory_order_relaxed);
  g_capturing.store(true, std::memory_order_release);
}

void Close(uint64_t now_ns) {
  int open = kOpen;
  if (!g_phase.compare_exchange_strong(open, kClosed, std::memory_order_acq_rel)) return;
  g_capturing.store(false, std::memory_order_release);
  g_closed_ns.store(now_ns, std::memory_order_relaxed);
}

double Seconds(uint64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

}  // namespace

void InitCaptureWindow(const Config& config, uint64_t start_ns) {
  g_window = Window{};
  g_window.start_ns = start_ns;
  g_window.duration_ns = config.duration_ns;
  g_depth.store(0, std::memory_order_relaxed);
  g_reported_phase = kNone;
  const std::string& range = config.capture_range;
  if (!range.empty()) {
    const std::string name = range.substr(range.find(':') + 1);
    g_window.range_size = std::min(name.size(), sizeof g_window.range);
    std::memcpy(g_window.range, name.data(), g_window.range_size);
  } else if (config.delay_ns > 0 || config.duration_ns > 0) {
    g_window.open_at_ns = start_ns + config.delay_ns;
  } else {
    g_phase.store(kNone, std::memory_order_relaxed);
    g_capturing.store(true, std::memory_order_relaxed);
    return;
  }
  g_phase.store(kWaiting, std::memory_order_relaxed);
  g_capturing.store(false, std::memory_order_release);
  if (g_window.range_size == 0 && config.delay_ns == 0) Open(start_ns);
}

std::string CaptureTick(uint64_t now_ns) {
  const int phase = g_phase.load(std::memory_order_acquire);
  if (phase == kNone) return "";
  if (phase == kWaiting && g_window.range_size == 0 && now_ns >= g_window.open_at_ns) {
    Open(now_ns);
  }
  if (g_phase.load(std::memory_order_acquire) == kOpen && g_window.duration_ns > 0 &&
      now_ns >= g_opened_ns.load(std::memory_order_relaxed) + g_window.duration_ns) {
    Close(now_ns);
  }
  const int now_phase = g_phase.load(std::memory_order_acquire);
  if (now_phase == g_reported_phase || now_phase == kWaiting) return "";
  g_reported_phase = now_phase;
  // When the window really opened and closed, in seconds after the process's start.
  nlohmann::json w;
  w["opened_s"] = Seconds(g_opened_ns.load(std::memory_order_relaxed) - g_window.start_ns);
  if (now_phase == kClosed) {
    w["closed_s"] = Seconds(g_closed_ns.load(std::memory_order_relaxed) - g_window.start_ns);
  }
  return nlohmann::json{{"capture_window", w}}.dump();
}

bool CaptureWindowOpensNow() {
  if (g_phase.load(std::memory_order_acquire) != kWaiting || g_window.range_size != 0) {
    return false;
  }
  const uint64_t now = NowNs();
  if (now < g_window.open_at_ns) return false;
  Open(now);
  return true;
}

void CaptureRangeEdge(std::string_view name, bool begin) {
  if (g_window.range_size == 0 || name != g_window.Range()) return;
  if (begin) {
    if (g_phase.load(std::memory_order_acquire) == kWaiting) {
      g_depth.store(1, std::memory_order_relaxed);
      Open(NowNs());
    } else if (g_phase.load(std::memory_order_acquire) == kOpen) {
      g_depth.fetch_add(1, std::memory_order_relaxed);
    }
    return;
  }
  if (g_phase.load(std::memory_order_acquire) != kOpen) return;
  if (g_depth.fetch_sub(1, std::memory_order_acq_rel) <= 1) Close(NowNs());
}

std::string_view CaptureRangeName() {
  return g_window.Range();
}

void ResetCaptureWindowForTest() {
  InitCaptureWindow(Config{}, 0);
}

}  // namespace flopspy::interpose
