#include "trace_clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

namespace flopspy::interpose {

namespace trace_clock_detail {

State g_state;

uint64_t MonotonicAtOrAboveFloor() {
  const uint64_t now = MonotonicNs();
  const uint64_t floor = g_state.floor_ns.load(std::memory_order_relaxed);
  return now > floor ? now : floor;
}

uint64_t MapRetrying(uint64_t ticks) {
  // A publication writes the slot not in use, one per flusher pass: a retry finds a whole one.
  for (int attempt = 0; attempt < 64; ++attempt) {
    const uint32_t active = g_state.active.load(std::memory_order_acquire);
    if (active == 0) return MonotonicAtOrAboveFloor();
    uint64_t ns;
    if (TryMap(g_state.slots[active - 1], ticks, &ns) &&
        g_state.active.load(std::memory_order_acquire) == active) {
      return ns;
    }
  }
  return MonotonicAtOrAboveFloor();
}

}  // namespace trace_clock_detail

// --- Steering -----------------------------------------------------------------------------------

namespace {

constexpr double kTwoTo32 = 4294967296.0;
// Given up: readers are held at the last TSC time plus this (a brief frozen clock is harmless;
// a step back is not).
constexpr uint64_t kFloorMarginNs = 1'000'000;

int64_t SignedDifference(uint64_t a, uint64_t b) {
  return a >= b ? static_cast<int64_t>(a - b) : -static_cast<int64_t>(b - a);
}

uint64_t AbsoluteDifference(uint64_t a, uint64_t b) {
  return a >= b ? a - b : b - a;
}

std::string Microseconds(double ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f us", ns / 1000.0);
  return text;
}

}  // namespace

uint64_t ClockSteering::Rate(const ClockPair& from, const ClockPair& to) {
  using Wide = unsigned __int128;
  return static_cast<uint64_t>((Wide{to.ns - from.ns} << 32) / (to.ticks - from.ticks));
}

double ClockSteering::NsPerTick() const {
  return published_ ? static_cast<double>(published_->after.mult) / kTwoTo32 : 0.0;
}

ClockSteering::Decision ClockSteering::GiveUp(std::string reason, uint64_t now_ticks) {
  Decision d;
  d.kind = Decision::Kind::kGiveUp;
  d.reason = std::move(reason);
  // Readers may have mapped up to now (and a little beyond, on other CPUs): held until passed.
  if (published_) {
    d.mapping = *published_;
    d.floor_ns = published_->Map(now_ticks) + kFloorMarginNs;
  }
  given_up_ = true;
  published_.reset();
  return d;
}

void ClockSteering::Abandon(const PiecewiseMapping& previous) {
  published_ = previous;
  --publications_;
}

ClockSteering::Decision ClockSteering::Calibrate(const ClockPair& pair, uint64_t now_ticks) {
  constexpr int kMaxDisagreements = 5;
  if (!origin_) {
    origin_ = pair;
    last_ = pair;
    return {};
  }
  if (pair.ns <= last_->ns || pair.ticks <= last_->ticks) {
    return GiveUp("the TSC did not advance with CLOCK_MONOTONIC", now_ticks);
  }
  last_ = pair;
  if (!candidate_) {
    if (pair.ns - origin_->ns >= kCalibrationNs) candidate_ = pair;
    return {};
  }
  if (pair.ns - candidate_->ns < kCalibrationNs) return {};
  // The rate of origin..candidate must predict this pair: a TSC that changes rate or differs
  // between the CPUs the flusher ran on does not.
  const uint64_t rate = Rate(*origin_, *candidate_);
  const uint64_t predicted = MapTicks({candidate_->ticks, candidate_->ns, rate}, pair.ticks);
  const uint64_t spread_ns = MapTicks({0, 0, rate}, pair.spread_ticks + candidate_->spread_ticks);
  const uint64_t disagreement = AbsoluteDifference(predicted, pair.ns);
  if (disagreement > kAgreeNs + spread_ns) {
    if (++disagreements_ >= kMaxDisagreements) {
      return GiveUp(
          "TSC calibrations disagreed by up to " + Microseconds(static_cast<double>(disagreement)) +
              " with CLOCK_MONOTONIC over " + std::to_string(kMaxDisagreements) + " tries",
          now_ticks);
    }
    origin_ = candidate_;
    candidate_ = pair;
    return {};
  }
  const uint64_t full_rate = Rate(*origin_, pair);
  // At or a little above CLOCK_MONOTONIC: a read right after it was clock_gettime.
  const TickMapping first{pair.ticks, pair.ns + MapTicks({0, 0, full_rate}, pair.spread_ticks),
                          full_rate};
  published_ = PiecewiseMapping{first, first, 0};
  baseline_ = origin_;
  ++publications_;
  Decision d;
  d.kind = Decision::Kind::kPublish;
  d.mapping = *published_;
  return d;
}

ClockSteering::Decision ClockSteering::Observe(const ClockPair& pair, uint64_t now_ticks) {
  if (given_up_) return {};
  if (!published_) return Calibrate(pair, now_ticks);
  const PiecewiseMapping current = *published_;
  if (pair.ns <= last_->ns) return {};  // two passes within one clock tick
  if (pair.ticks <= last_->ticks) {
    return GiveUp("the TSC went backwards between two reads (CPUs with different counters)",
                  now_ticks);
  }
  const int64_t error = SignedDifference(current.Map(pair.ticks), pair.ns);  // > 0: ahead
  const uint64_t since_ns = pair.ns - last_->ns;
  last_ = pair;
  max_abs_error_ns_ = std::max<int64_t>(max_abs_error_ns_, std::llabs(error));
  const uint64_t tolerance = kToleranceNs + since_ns / 1'000'000 * kTolerancePpm;
  if (static_cast<uint64_t>(std::llabs(error)) > tolerance) {
    return GiveUp(std::string("the TSC drifted ") + Microseconds(static_cast<double>(error)) +
                      " from CLOCK_MONOTONIC within " + Microseconds(static_cast<double>(since_ns)),
                  now_ticks);
  }
  // Readers may still be before the last switch: never move it.
  if (now_ticks < current.switch_ticks) return {};

  // The rate of the last one to two seconds, slewing the error away over kSlewHorizonNs.
  if (!next_baseline_ && pair.ns - baseline_->ns >= kRateBaselineNs) next_baseline_ = pair;
  if (next_baseline_ && pair.ns - next_baseline_->ns >= kRateBaselineNs) {
    baseline_ = next_baseline_;
    next_baseline_ = pair;
  }
  const double rate = static_cast<double>(Rate(*baseline_, pair));
  const double max_slew = static_cast<double>(kMaxSlewPpm) * 1e-6;
  const double slew = std::clamp(static_cast<double>(error) / kSlewHorizonNs, -max_slew, max_slew);
  const auto mult = static_cast<uint64_t>(std::llround(rate * (1.0 - slew)));

  const auto ahead_ticks =
      static_cast<uint64_t>(static_cast<double>(kSwitchAheadNs) * kTwoTo32 / rate);
  PiecewiseMapping next;
  next.before = current.after;
  next.switch_ticks = now_ticks + ahead_ticks;
  next.after = {next.switch_ticks, MapTicks(current.after, next.switch_ticks), mult};
  published_ = next;
  ++publications_;
  Decision d;
  d.kind = Decision::Kind::kPublish;
  d.mapping = next;
  return d;
}

// --- The process's clock ------------------------------------------------------------------------

namespace {

struct ProcessClock {
  bool allowed = false;
  std::string kernel_source;
  std::string refusal;  // why the TSC is not used at start
  std::string given_up;
  ClockSteering steering;
};

// Never destroyed: the flusher may tick while the process exits.
ProcessClock* g_clock = nullptr;

bool InvariantTsc() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;  // "Invariant TSC": constant rate, runs in every C-state
#else
  return false;
#endif
}

std::string KernelClockSource() {
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  std::getline(in, source);
  return source;
}

// Kernel clock sources that are the TSC, scaled: CLOCK_MONOTONIC is then linear in it.
bool BuiltOnTsc(const std::string& source) {
  return source == "tsc" || source == "kvm-clock" || source == "hyperv_clocksource_tsc_page";
}

ClockPair ReadClockPair() {
  ClockPair best;
  best.spread_ticks = UINT64_MAX;
  for (int i = 0; i < 3; ++i) {
    const uint64_t before = ReadTicks();
    const uint64_t ns = MonotonicNs();
    const uint64_t after = ReadTicks();
    if (after < before || after - before >= best.spread_ticks) continue;
    best = {before + (after - before) / 2, ns, after - before};
  }
  if (best.spread_ticks == UINT64_MAX) best = {ReadTicks(), MonotonicNs(), 0};
  return best;
}

// Makes `mapping` the one readers use; false (nothing changed for readers) when its switch tick
// has come already: readers still on the old mapping past it would disagree with the new one.
bool Publish(const PiecewiseMapping& mapping, bool first) {
  using trace_clock_detail::g_state;
  const uint32_t active = g_state.active.load(std::memory_order_relaxed);
  const uint32_t index = active == 1 ? 1 : 0;  // the slot not in use
  trace_clock_detail::Slot& slot = g_state.slots[index];
  // Even, whatever a fork() in the middle of a publication left in the child.
  const uint32_t version = slot.version.load(std::memory_order_relaxed) & ~1u;
  slot.version.store(version + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  slot.switch_ticks.store(mapping.switch_ticks, std::memory_order_relaxed);
  const TickMapping* parts[2] = {&mapping.before, &mapping.after};
  std::atomic<uint64_t>* fields[2] = {slot.before, slot.after};
  for (int p = 0; p < 2; ++p) {
    fields[p][0].store(parts[p]->tick_base, std::memory_order_relaxed);
    fields[p][1].store(parts[p]->ns_base, std::memory_order_relaxed);
    fields[p][2].store(parts[p]->mult, std::memory_order_relaxed);
  }
  slot.version.store(version + 2, std::memory_order_release);
  constexpr uint64_t kMarginNs = 1'000'000;
  const auto margin = static_cast<uint64_t>(static_cast<double>(kMarginNs) * kTwoTo32 /
                                            static_cast<double>(mapping.after.mult));
  if (!first && ReadTicks() + margin >= mapping.switch_ticks) return false;
  g_state.active.store(index + 1, std::memory_order_release);
  return true;
}

std::string ClockJson(const ProcessClock& c) {
  nlohmann::json clock = {{"kernel_clock_source", c.kernel_source}};
  if (c.steering.on_tsc()) {
    clock["source"] = "tsc";
    clock["ns_per_tick"] = c.steering.NsPerTick();
  } else {
    clock["source"] = "CLOCK_MONOTONIC";
    const std::string& why = c.given_up.empty() ? c.refusal : c.given_up;
    if (!why.empty()) clock["why_not_tsc"] = why;
  }
  clock["tsc_mappings"] = c.steering.publications();
  clock["tsc_max_error_ns"] = c.steering.max_abs_error_ns();
  return nlohmann::json{{"clock", clock}}.dump();
}

}  // namespace

std::string TraceClockStart(ClockChoice choice) {
  if (g_clock != nullptr) return g_clock->refusal;  // a fork child keeps its parent's clock
  auto* c = new ProcessClock;
  c->kernel_source = KernelClockSource();
  if (choice == ClockChoice::kMonotonic) {
    c->refusal = "FLOPSPY_CLOCK=monotonic";
  } else if (!InvariantTsc()) {
    c->refusal = "the CPU has no invariant TSC";
  } else if (choice == ClockChoice::kAuto && !BuiltOnTsc(c->kernel_source)) {
    c->refusal = "the kernel's clock source (" + c->kernel_source + ") is not built on the TSC";
  }
  c->allowed = c->refusal.empty();
  g_clock = c;
  return c->refusal;
}

std::string TraceClockTick(std::string* warning) {
  ProcessClock* c = g_clock;
  if (c == nullptr || !c->allowed || c->steering.given_up()) return "";
  const ClockPair pair = ReadClockPair();
  const std::optional<PiecewiseMapping> before = c->steering.published();
  const bool was_on = before.has_value();
  const ClockSteering::Decision d = c->steering.Observe(pair, ReadTicks());
  switch (d.kind) {
    case ClockSteering::Decision::Kind::kNothing:
      return "";
    case ClockSteering::Decision::Kind::kPublish:
      if (!Publish(d.mapping, !was_on) && before) c->steering.Abandon(*before);
      return was_on ? "" : ClockJson(*c);
    case ClockSteering::Decision::Kind::kGiveUp:
      break;
  }
  using trace_clock_detail::g_state;
  // Readers map the TSC until they see the store below: the floor is taken now, with room.
  const uint64_t floor =
      d.floor_ns == 0 ? 0 : std::max(d.floor_ns, d.mapping.Map(ReadTicks()) + kFloorMarginNs);
  g_state.floor_ns.store(floor, std::memory_order_relaxed);
  g_state.active.store(0, std::memory_order_release);
  c->given_up = d.reason;
  if (warning != nullptr) {
    *warning = d.reason + "; timestamps come from CLOCK_MONOTONIC from now on";
  }
  return ClockJson(*c);
}

std::string TraceClockSummary() {
  return g_clock != nullptr ? ClockJson(*g_clock) : "";
}

void ResetTraceClockForTest() {
  using trace_clock_detail::g_state;
  g_state.active.store(0, std::memory_order_release);
  g_state.floor_ns.store(0, std::memory_order_relaxed);
  delete g_clock;
  g_clock = nullptr;
}

}  // namespace flopspy::interpose
