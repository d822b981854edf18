// The capture window of `flopspy run --delay/--duration/--capture-range` (FLOPSPY_DELAY,
// FLOPSPY_DURATION, FLOPSPY_CAPTURE_RANGE; docs/flopspy-run.md, "Capture window"): the hooks
// record launches, calls and regions only while g_capturing is set. Definitions (modules,
// functions, names) are recorded always, so a kernel launched inside the window is named.
//
// The hot path pays one relaxed load inside the window; before a --delay window opens, a clock
// read. The first hook after the start opens it; the flusher closes it at its first tick after
// --duration (at most FLOPSPY_FLUSH_MS late); a range opens and closes it at its own begin and
// end. Nothing here blocks, allocates or throws on an application thread (docs/guarantees.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "config.h"
#include "recorder.h"

namespace flopspy::interpose {

// Whether records are wanted now (true unless a window was asked for and is closed).
extern std::atomic<bool> g_capturing;

// A time window still waiting for its start: opens it when the start has come (one clock read,
// only while --delay runs). Whether records are wanted now.
bool CaptureWindowOpensNow();

// Whether records are wanted now: one relaxed load inside the window (or without one).
inline bool CapturingNow() {
  return __builtin_expect(g_capturing.load(std::memory_order_relaxed), 1) ||
         CaptureWindowOpensNow();
}

// The gate of the hooks that record launches, calls and regions: recording, and inside the
// capture window.
inline bool RecordingCalls() {
  return g_recording.load(std::memory_order_relaxed) && CapturingNow();
}

// At start: closes the window until its start when one is configured. `start_ns`: NowNs().
void InitCaptureWindow(const Config& config, uint64_t start_ns);

// The flusher, each pass: opens a time window whose start has come, closes one (of either
// kind) whose --duration is over. Returns what happened since the last call that the trace
// metadata should say, as a JSON object text ({"capture_window": {...}}), or "".
std::string CaptureTick(uint64_t now_ns);

// A range's edge (a flopspy region; the NVTX receiver's push/pop and start/end): the first
// begin of the configured range name opens the window, the matching end closes it for good.
// Nested ranges of the same name are counted. Cheap when no range was asked for.
void CaptureRangeEdge(std::string_view name, bool begin);

// The configured range's name without its "region:"/"nvtx:" prefix; empty without one.
std::string_view CaptureRangeName();

// Forgets the state (tests; a fork child that starts its own trace keeps the parent's).
void ResetCaptureWindowForTest();

}  // namespace flopspy::interpose
