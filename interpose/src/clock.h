// The one clock of a trace: CLOCK_MONOTONIC in nanoseconds (about 20 ns through the vDSO).
// CUPTI is given the same function as its timestamp source, so CPU and GPU times need no mapping.
#pragma once

#include <time.h>

#include <cstdint>

namespace flopspy::interpose {

inline uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace flopspy::interpose
