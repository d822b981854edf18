// The trace clock: CLOCK_MONOTONIC nanoseconds, read from the CPU's time-stamp counter once the
// flusher has calibrated it (about 12 ns a read against 30 for clock_gettime through the vDSO,
// docs/performance.md). Every timestamp of a trace comes from TraceNowNs, CUPTI's included (its
// timestamp callback), so CPU and GPU times share it and traces of several processes still
// merge on CLOCK_MONOTONIC.
//
// How it stays on CLOCK_MONOTONIC (docs/architecture.md, "The clock"):
//   - until the flusher has two calibrations that agree, and wherever the TSC cannot be trusted
//     (not invariant, a kernel clock source not built on it, FLOPSPY_CLOCK=monotonic), a read is
//     clock_gettime;
//   - each flusher pass reads both clocks side by side and publishes a new tick-to-nanosecond
//     mapping: the rate of the last half second to second, corrected to slew the error away
//     over the next quarter second (by at most 0.1 %);
//   - a mapping switches at a tick a little ahead of its publication, where the old and the new
//     mapping agree, so no reader ever sees time go backwards across the switch;
//   - an error too large to slew (a TSC that changed rate, differs between CPUs, or a
//     suspend) ends the TSC for good: reads go back to clock_gettime, held at the last TSC time
//     until CLOCK_MONOTONIC passes it, and the trace says why.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "config.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace flopspy::interpose {

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t ReadTicks() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return 0;  // no counter used: TraceClockStart never enables the TSC here
#endif
}

// ns = ns_base + (ticks - tick_base) * mult / 2^32, for ticks on either side of tick_base.
struct TickMapping {
  uint64_t tick_base = 0;
  uint64_t ns_base = 0;
  uint64_t mult = 0;  // nanoseconds per tick, 32.32 fixed point
};

inline uint64_t MapTicks(const TickMapping& m, uint64_t ticks) {
  using Wide = unsigned __int128;
  if (ticks >= m.tick_base) {
    return m.ns_base + static_cast<uint64_t>((Wide{ticks - m.tick_base} * m.mult) >> 32);
  }
  const auto back = static_cast<uint64_t>((Wide{m.tick_base - ticks} * m.mult) >> 32);
  return back < m.ns_base ? m.ns_base - back : 0;
}

// What the readers use: `before` up to `switch_ticks`, `after` from there on; the two agree at
// the switch.
struct PiecewiseMapping {
  TickMapping before;
  TickMapping after;
  uint64_t switch_ticks = 0;

  uint64_t Map(uint64_t ticks) const {
    return MapTicks(ticks < switch_ticks ? before : after, ticks);
  }
};

// Both clocks read at one instant: `ticks` the midpoint of two counter reads around one
// clock_gettime, `spread_ticks` their distance.
struct ClockPair {
  uint64_t ticks = 0;
  uint64_t ns = 0;
  uint64_t spread_ticks = 0;
};

// The flusher's steering, apart from the clocks it reads so tests can drive it with simulated
// ones (drift, rate changes, CPUs whose counters differ). Not thread-safe: one caller.
class ClockSteering {
 public:
  struct Decision {
    enum class Kind { kNothing, kPublish, kGiveUp } kind = Kind::kNothing;
    PiecewiseMapping mapping;  // kPublish: what readers use from now on; kGiveUp: the last one
    uint64_t floor_ns = 0;     // kGiveUp: the latest TSC time readers may have been handed
    std::string reason;        // kGiveUp: one sentence
  };

  // Margins, in nanoseconds.
  static constexpr uint64_t kCalibrationNs = 20'000'000;  // per calibration span
  static constexpr uint64_t kRateBaselineNs = 500'000'000;
  static constexpr uint64_t kSlewHorizonNs = 250'000'000;
  static constexpr uint64_t kMaxSlewPpm = 1000;
  static constexpr uint64_t kSwitchAheadNs = 10'000'000;  // a switch this far past publication
  static constexpr uint64_t kAgreeNs = 50'000;            // calibrations agree within this
  // An error beyond kToleranceNs + kTolerancePpm of the time since the last pair ends the TSC.
  static constexpr uint64_t kToleranceNs = 200'000;
  static constexpr uint64_t kTolerancePpm = 2'000;

  // One pass: `pair` read now; `now_ticks` a counter read just before a publication would happen.
  Decision Observe(const ClockPair& pair, uint64_t now_ticks);
  // The publication Observe decided could not be made in time (its switch tick had come before
  // readers could see it): back to `previous`, the mapping readers still use.
  void Abandon(const PiecewiseMapping& previous);

  bool on_tsc() const { return published_.has_value(); }
  bool given_up() const { return given_up_; }
  const std::optional<PiecewiseMapping>& published() const { return published_; }
  int64_t max_abs_error_ns() const { return max_abs_error_ns_; }
  uint64_t publications() const { return publications_; }
  // Nanoseconds per tick of the current mapping (0 before the first).
  double NsPerTick() const;

 private:
  Decision Calibrate(const ClockPair& pair, uint64_t now_ticks);
  Decision GiveUp(std::string reason, uint64_t now_ticks);
  static uint64_t Rate(const ClockPair& from, const ClockPair& to);  // 32.32 ns per tick

  std::optional<ClockPair> origin_;     // the first pair
  std::optional<ClockPair> candidate_;  // the second: a rate to confirm
  std::optional<ClockPair> last_;
  std::optional<ClockPair> baseline_;       // where the rate is measured from
  std::optional<ClockPair> next_baseline_;  // its successor, once a baseline span old
  int disagreements_ = 0;
  std::optional<PiecewiseMapping> published_;
  bool given_up_ = false;
  int64_t max_abs_error_ns_ = 0;
  uint64_t publications_ = 0;
};

// --- The process's clock.

namespace trace_clock_detail {

struct Slot {
  std::atomic<uint32_t> version{0};  // odd while written
  std::atomic<uint64_t> switch_ticks{0};
  std::atomic<uint64_t> before[3]{};  // tick_base, ns_base, mult
  std::atomic<uint64_t> after[3]{};
};

struct State {
  std::atomic<uint32_t> active{0};  // 0: clock_gettime; 1 or 2: the slot in use, plus one
  std::atomic<uint64_t> floor_ns{0};
  Slot slots[2];
};

extern State g_state;

uint64_t MonotonicAtOrAboveFloor();
uint64_t MapRetrying(uint64_t ticks);

// Maps `ticks` with `slot` unless a publication is writing it (then false).
inline bool TryMap(const Slot& slot, uint64_t ticks, uint64_t* ns) {
  const uint32_t version = slot.version.load(std::memory_order_acquire);
  const uint64_t switch_ticks = slot.switch_ticks.load(std::memory_order_relaxed);
  const std::atomic<uint64_t>* m = ticks < switch_ticks ? slot.before : slot.after;
  const TickMapping mapping{m[0].load(std::memory_order_relaxed),
                            m[1].load(std::memory_order_relaxed),
                            m[2].load(std::memory_order_relaxed)};
  std::atomic_thread_fence(std::memory_order_acquire);
  if ((version & 1) != 0 || slot.version.load(std::memory_order_relaxed) != version) return false;
  *ns = MapTicks(mapping, ticks);
  return true;
}

}  // namespace trace_clock_detail

// The trace's time now: the one clock of every record.
inline uint64_t TraceNowNs() {
  namespace detail = trace_clock_detail;
  const uint32_t active = detail::g_state.active.load(std::memory_order_acquire);
  if (__builtin_expect(active == 0, 0)) return detail::MonotonicAtOrAboveFloor();
  const uint64_t ticks = ReadTicks();
  uint64_t ns;
  // The slot must still be the one in use once mapped: a reader held up for longer than a
  // switch's lead would otherwise map past the next switch with the old mapping.
  if (__builtin_expect(detail::TryMap(detail::g_state.slots[active - 1], ticks, &ns) &&
                           detail::g_state.active.load(std::memory_order_acquire) == active,
                       1)) {
    return ns;
  }
  return detail::MapRetrying(ticks);
}

// At the recorder's start: whether the TSC may be used at all, said as one line for the trace's
// metadata ("" when it may). Before it, and after an answer other than "", reads are
// clock_gettime.
std::string TraceClockStart(ClockChoice choice);

// The flusher, each pass: reads both clocks and steers. Returns what the trace's metadata should
// say ({"clock": {...}} as JSON text) when the clock changed source, else "". `warning` receives
// the line for stderr and the trace (without the "flopspy: " prefix) when the TSC was given up.
std::string TraceClockTick(std::string* warning);

// The clock's state as JSON text, for the trace's end ({"clock": {...}}).
std::string TraceClockSummary();

// Tests: back to clock_gettime with nothing calibrated.
void ResetTraceClockForTest();

}  // namespace flopspy::interpose
