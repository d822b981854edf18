// A scripted counter backend for sampler tests: counts grow with the clock (1 flop and 1
// byte-count per ns, task-clock = wall), and reads can be made to fail.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/trace/schema.h"

namespace flopspy::cpuroof::testing {

class ClockBackend : public CounterBackend {
 public:
  ClockBackend() {
    Channel f;
    f.name = "flops";
    f.quantity = Quantity::kFlops;
    f.precision = Precision::kDp;
    Channel b;
    b.name = "bytes";
    b.quantity = Quantity::kBytes;
    b.direction = Direction::kRead;
    b.weight = 64;
    Channel t;
    t.name = "task-clock";
    t.quantity = Quantity::kTaskClock;
    channels_ = {f, b, t};
  }
  std::string_view name() const override { return "clock"; }
  const std::vector<Channel>& channels() const override { return channels_; }
  bool Read(uint64_t now_ns, bool fast, Snapshot* out) override {
    ++reads;
    if (fast) ++fast_reads;
    if (fail) return false;
    out->t_ns = now_ns;
    out->values = {ChannelValue{now_ns, now_ns, now_ns, true},
                   ChannelValue{now_ns / 64, now_ns, now_ns, true},
                   ChannelValue{now_ns, now_ns, now_ns, true}};
    return true;
  }
  bool ReopenInChild(std::string*) override {
    ++reopened;
    return true;
  }
  std::atomic<int> reads{0}, fast_reads{0}, reopened{0};
  std::atomic<bool> fail{false};

 private:
  std::vector<Channel> channels_;
};

inline Capabilities AllCaps() {
  Capabilities c;
  c.backend = "test";
  c.valid_mask = trace::kCpuFlopsDp | trace::kCpuFlopsAny | trace::kCpuBytesRead |
                 trace::kCpuBytesAny | trace::kCpuTaskClock;
  c.traffic_flags = trace::kCpuSystemWideMemory;
  return c;
}

}  // namespace flopspy::cpuroof::testing
