// The one clock of a trace: CLOCK_MONOTONIC in nanoseconds, read from the TSC once calibrated
// (trace_clock.h). CUPTI is given the same function as its timestamp source, so CPU and GPU times
// need no mapping.
#pragma once

#include <time.h>

#include <cstdint>

#include "trace_clock.h"

namespace flopspy::interpose {

inline uint64_t NowNs() {
  return TraceNowNs();
}

inline uint64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace flopspy::interpose
