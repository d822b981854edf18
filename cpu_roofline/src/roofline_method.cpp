#include "flopspy/cpu_roofline/roofline_method.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace flopspy::cpuroof {

using trace::CpuSampleRecord;
using trace::CpuSampleScope;
using trace::kCpuBytesAny;
using trace::kCpuBytesRead;
using trace::kCpuBytesWrite;
using trace::kCpuCycles;
using trace::kCpuExecutedNotRetired;
using trace::kCpuFlopsAny;
using trace::kCpuFlopsDp;
using trace::kCpuFlopsHp;
using trace::kCpuFlopsSp;
using trace::kCpuInstructions;
using trace::kCpuMemoryFromPcm;
using trace::kCpuMultiplexed;
using trace::kCpuNoPrecisionSplit;
using trace::kCpuOverlapsGpuCopies;
using trace::kCpuRefCycles;
using trace::kCpuSpeculative;
using trace::kCpuSystemWideMemory;
using trace::kCpuTaskClock;
using trace::kCpuTooShort;
using trace::MakeHeader;

uint64_t CounterDelta(uint64_t begin, uint64_t end, uint8_t bits) {
  if (bits >= 64 || bits == 0) return end - begin;  // unsigned arithmetic wraps at 2^64
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  return (end - begin) & mask;
}

namespace {

// A channel's scaled delta, or nullopt when it was not read or never on a counter.
struct Scaled {
  bool ok = false;
  double value = 0;
  bool multiplexed = false;
  double fraction = 1;
};

Scaled ScaleChannel(const Channel& c, const ChannelValue& b, const ChannelValue& e) {
  Scaled s;
  if (!b.ok || !e.ok) return s;
  const double raw = static_cast<double>(CounterDelta(b.raw, e.raw, c.wrap_bits));
  const uint64_t enabled = e.enabled - b.enabled;
  const uint64_t running = e.running - b.running;
  if (enabled == 0 || running >= enabled) {
    s.ok = true;
    s.value = raw * c.weight;
    return s;
  }
  s.fraction = static_cast<double>(running) / static_cast<double>(enabled);
  if (!c.scale) {
    s.ok = true;
    s.value = raw * c.weight;
    return s;
  }
  if (running == 0) return s;  // enabled but never counted: nothing to scale
  s.ok = true;
  s.value = raw * c.weight / s.fraction;
  s.multiplexed = true;
  return s;
}

}  // namespace

CpuSampleRecord ComputeSample(const std::vector<Channel>& channels, const Snapshot& begin,
                              const Snapshot& end, const Capabilities& caps, CpuSampleScope scope,
                              const MethodOptions& options) {
  CpuSampleRecord r{};
  r.h = MakeHeader<CpuSampleRecord>();
  r.scope = static_cast<uint8_t>(scope);
  r.begin_ns = begin.t_ns;
  r.end_ns = end.t_ns;
  r.running_fraction = 1;
  const uint32_t mask = caps.valid_mask;
  if (begin.values.size() != channels.size() || end.values.size() != channels.size()) {
    if (end.t_ns - begin.t_ns < options.min_trusted_ns) r.flags |= kCpuTooShort;
    return r;
  }

  // Sums and "all contributing channels fine" per value.
  struct Acc {
    double sum = 0;
    bool ok = true;
    bool any = false;
  };
  Acc flops[4], bytes[3], cycles, ref_cycles, instructions, task_clock, flops_total, bytes_total;
  bool multiplexed_w = false, multiplexed_q = false, multiplexed_other = false;
  double fraction = 1;

  auto add = [](Acc* a, const Scaled& s) {
    a->any = true;
    if (!s.ok) a->ok = false;
    a->sum += s.value;
  };
  static const uint32_t kPrecisionBit[4] = {kCpuFlopsAny, kCpuFlopsDp, kCpuFlopsSp, kCpuFlopsHp};

  for (size_t i = 0; i < channels.size(); ++i) {
    const Channel& c = channels[i];
    if (!c.counted) continue;
    const Scaled s = ScaleChannel(c, begin.values[i], end.values[i]);
    switch (c.quantity) {
      case Quantity::kFlops: {
        const int p = static_cast<int>(c.precision);
        // Precisions whose set of events is incomplete are left out of every sum.
        if (!(mask & kPrecisionBit[p])) continue;
        add(&flops[p], s);
        add(&flops_total, s);
        multiplexed_w |= s.multiplexed;
        break;
      }
      case Quantity::kBytes:
        if (!(mask & kCpuBytesAny)) continue;
        add(&bytes[static_cast<int>(c.direction)], s);
        add(&bytes_total, s);
        multiplexed_q |= s.multiplexed;
        break;
      case Quantity::kCycles:
        add(&cycles, s);
        multiplexed_other |= s.multiplexed;
        break;
      case Quantity::kRefCycles:
        add(&ref_cycles, s);
        multiplexed_other |= s.multiplexed;
        break;
      case Quantity::kInstructions:
        add(&instructions, s);
        multiplexed_other |= s.multiplexed;
        break;
      case Quantity::kTaskClock:
        add(&task_clock, s);
        break;
    }
    if (s.ok) fraction = std::min(fraction, s.fraction);
  }

  auto valid = [&](const Acc& a, uint32_t bit) { return (mask & bit) && a.any && a.ok; };
  if (valid(flops[1], kCpuFlopsDp)) {
    r.flops_dp = flops[1].sum;
    r.valid |= kCpuFlopsDp;
  }
  if (valid(flops[2], kCpuFlopsSp)) {
    r.flops_sp = flops[2].sum;
    r.valid |= kCpuFlopsSp;
  }
  if (valid(flops[3], kCpuFlopsHp)) {
    r.flops_hp = flops[3].sum;
    r.valid |= kCpuFlopsHp;
  }
  const bool w_ok = valid(flops_total, kCpuFlopsAny);
  if (w_ok) {
    r.flops_any = flops_total.sum;
    r.valid |= kCpuFlopsAny;
    r.flags |= caps.work_flags;
    if (!(r.valid & (kCpuFlopsDp | kCpuFlopsSp | kCpuFlopsHp))) r.flags |= kCpuNoPrecisionSplit;
    if (multiplexed_w) r.flags |= kCpuMultiplexed;
  }
  const bool q_ok = valid(bytes_total, kCpuBytesAny);
  if (q_ok) {
    r.bytes_any = bytes_total.sum;
    r.valid |= kCpuBytesAny;
    if (valid(bytes[1], kCpuBytesRead) && !bytes[0].any) {
      r.bytes_read = bytes[1].sum;
      r.valid |= kCpuBytesRead;
    }
    if (valid(bytes[2], kCpuBytesWrite) && !bytes[0].any) {
      r.bytes_write = bytes[2].sum;
      r.valid |= kCpuBytesWrite;
    }
    r.flags |= caps.traffic_flags;
    if (multiplexed_q) r.flags |= kCpuMultiplexed;
  }
  if (valid(cycles, kCpuCycles)) {
    r.cycles = cycles.sum;
    r.valid |= kCpuCycles;
  }
  if (valid(ref_cycles, kCpuRefCycles)) {
    r.ref_cycles = ref_cycles.sum;
    r.valid |= kCpuRefCycles;
  }
  if (valid(instructions, kCpuInstructions)) {
    r.instructions = instructions.sum;
    r.valid |= kCpuInstructions;
  }
  if (multiplexed_other && (r.valid & (kCpuCycles | kCpuRefCycles | kCpuInstructions))) {
    r.flags |= kCpuMultiplexed;
  }
  if (valid(task_clock, kCpuTaskClock)) {
    r.task_clock_ns = task_clock.sum;
    r.valid |= kCpuTaskClock;
  }
  r.running_fraction = fraction;
  if (end.t_ns - begin.t_ns < options.min_trusted_ns) r.flags |= kCpuTooShort;
  return r;
}

DerivedPoint Derive(const CpuSampleRecord& r) {
  DerivedPoint d;
  d.seconds = r.end_ns > r.begin_ns ? static_cast<double>(r.end_ns - r.begin_ns) * 1e-9 : 0;
  if (r.valid & kCpuFlopsAny) d.flops = r.flops_any;
  if (r.valid & kCpuBytesAny) d.bytes = r.bytes_any;
  if (r.valid & kCpuBytesRead) d.bytes_read = r.bytes_read;
  if (r.valid & kCpuBytesWrite) d.bytes_write = r.bytes_write;
  auto ratio = [](std::optional<double> num, std::optional<double> den) -> std::optional<double> {
    if (!num || !den) return std::nullopt;
    if (*den > 0) return *num / *den;
    if (*num > 0) return std::numeric_limits<double>::infinity();
    return std::nullopt;
  };
  if (d.seconds > 0) {
    if (d.flops) d.flops_per_s = *d.flops / d.seconds;
    if (d.bytes) d.bytes_per_s = *d.bytes / d.seconds;
    if (r.valid & kCpuTaskClock) d.cpu_utilisation = r.task_clock_ns * 1e-9 / d.seconds;
  }
  d.intensity = ratio(d.flops, d.bytes);
  d.intensity_read = ratio(d.flops, d.bytes_read);
  d.intensity_write = ratio(d.flops, d.bytes_write);
  if ((r.valid & kCpuCycles) && r.cycles > 0 && d.flops) d.flops_per_cycle = *d.flops / r.cycles;
  if ((r.valid & kCpuCycles) && (r.valid & kCpuTaskClock) && r.task_clock_ns > 0) {
    d.ghz = r.cycles / r.task_clock_ns;
  }
  return d;
}

namespace {
const std::pair<uint32_t, const char*> kFlagNames[] = {
    {kCpuMultiplexed, "multiplexed"},
    {kCpuSpeculative, "speculative"},
    {kCpuExecutedNotRetired, "executed_not_retired"},
    {kCpuNoPrecisionSplit, "no_precision_split"},
    {kCpuSystemWideMemory, "system_wide_memory"},
    {kCpuOverlapsGpuCopies, "overlaps_gpu_copies"},
    {kCpuTooShort, "too_short"},
    {kCpuMemoryFromPcm, "memory_from_pcm"},
};
const std::pair<uint32_t, const char*> kValidNames[] = {
    {kCpuFlopsDp, "flops_dp"},     {kCpuFlopsSp, "flops_sp"},
    {kCpuFlopsHp, "flops_hp"},     {kCpuFlopsAny, "flops_any"},
    {kCpuBytesRead, "bytes_read"}, {kCpuBytesWrite, "bytes_write"},
    {kCpuBytesAny, "bytes_any"},   {kCpuCycles, "cycles"},
    {kCpuRefCycles, "ref_cycles"}, {kCpuInstructions, "instructions"},
    {kCpuTaskClock, "task_clock"},
};
}  // namespace

std::vector<std::string> FlagNameList(uint32_t flags) {
  std::vector<std::string> out;
  for (const auto& [bit, name] : kFlagNames) {
    if (flags & bit) out.emplace_back(name);
  }
  return out;
}

std::vector<std::string> ValidNameList(uint32_t valid) {
  std::vector<std::string> out;
  for (const auto& [bit, name] : kValidNames) {
    if (valid & bit) out.emplace_back(name);
  }
  return out;
}

uint32_t FlagFromName(std::string_view name) {
  for (const auto& [bit, n] : kFlagNames) {
    if (name == n) return bit;
  }
  return 0;
}

}  // namespace flopspy::cpuroof
