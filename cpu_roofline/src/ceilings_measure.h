// The ceilings' measurements (private): FMA throughput and STREAM-style bandwidth on pinned
// threads, one per CPU given.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "flopspy/cpu_roofline/ceilings.h"

namespace flopspy::cpuroof {

// Largest working set per thread in quick mode: a DRAM roof wherever L3 is at most 64 MiB.
constexpr uint64_t kQuickMaxWorkingSet = 256ull << 20;

inline double Seconds(std::chrono::steady_clock::time_point a,
                      std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// GFLOP/s of one kernel on `cpus` threads at once: iterations calibrated on thread 0 first.
double MeasureFma(Isa isa, bool dp, int acc, const std::vector<int>& cpus, double seconds,
                  int repeats);

// Measures all four kernels (load, store, copy, triad) at one working-set size (bytes per
// thread) on `cpus`; empty when a buffer cannot be allocated.
std::vector<BandwidthSample> MeasureBandwidth(uint64_t ws, const std::vector<int>& cpus,
                                              double seconds, int repeats);

}  // namespace flopspy::cpuroof
