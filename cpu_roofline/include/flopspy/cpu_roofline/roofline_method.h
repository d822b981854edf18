// The method of Ofenbeck et al., "Applying the Roofline Model" (ISPASS 2014), on counter deltas:
//   W = sum_i weight_i * raw_i * enabled_i / running_i   (FP counters, vector-width weights)
//   Q = 64 B x (reads + writes)                          (memory-controller counters)
//   T = end - begin (CLOCK_MONOTONIC)
//   P = W / T, I = W / Q, Ir = W / Qr, Iw = W / Qw.
// Every point carries the quality flags of trace::CpuSampleFlags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/trace/schema.h"

namespace flopspy::cpuroof {

struct MethodOptions {
  // Points shorter than this carry kCpuTooShort: counter start/stop skew, write-back lag and
  // the uncore's background traffic dominate (Ofenbeck et al. use intervals of > 1e8 cycles).
  uint64_t min_trusted_ns = 10'000'000;
};

// Difference of two cumulative readings of a counter `bits` wide (wraps once at most).
uint64_t CounterDelta(uint64_t begin, uint64_t end, uint8_t bits);

// One roofline point from two snapshots of the same backend. `caps.valid_mask` says which
// values can be valid at all; `caps.work_flags`/`traffic_flags` are added when W/Q are valid.
// flops_any holds all counted FP work (the sum over precisions where split); bytes_any holds
// Q = reads + writes (+ undirected traffic).
trace::CpuSampleRecord ComputeSample(const std::vector<Channel>& channels, const Snapshot& begin,
                                     const Snapshot& end, const Capabilities& caps,
                                     trace::CpuSampleScope scope, const MethodOptions& options);

// Figures derived from one record; nullopt where an input is missing.
struct DerivedPoint {
  double seconds = 0;
  std::optional<double> flops;            // W
  std::optional<double> bytes;            // Q
  std::optional<double> bytes_read;       // Qr
  std::optional<double> bytes_write;      // Qw
  std::optional<double> flops_per_s;      // P
  std::optional<double> bytes_per_s;      // Q / T
  std::optional<double> intensity;        // I = W / Q (+inf when Q == 0 < W)
  std::optional<double> intensity_read;   // Ir
  std::optional<double> intensity_write;  // Iw
  std::optional<double> flops_per_cycle;  // W / cycles (cycles summed over threads)
  std::optional<double> ghz;              // cycles / task-clock: mean clock while running
  std::optional<double> cpu_utilisation;  // task-clock / T: busy cores on average
};
DerivedPoint Derive(const trace::CpuSampleRecord& record);

// Stable lower-case names ("multiplexed", "too_short", ...; "flops_dp", "bytes_read", ...).
std::vector<std::string> FlagNameList(uint32_t flags);
std::vector<std::string> ValidNameList(uint32_t valid);
uint32_t FlagFromName(std::string_view name);  // 0 if unknown

}  // namespace flopspy::cpuroof
