// Opens the counter backend a SamplerConfig asks for and says what it can measure. Each of time,
// cycles, W and Q degrades on its own: perf for core events, perf uncore or Intel PCM for Q,
// recorded readings for replay.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/cpu_roofline/perf_backend.h"
#include "flopspy/cpu_roofline/sampler_config.h"

namespace flopspy::cpuroof {

// Core counters and a separate memory-traffic source read as one backend. Reads of the memory
// source on application threads (fast) use its latest cached values.
class CompositeBackend : public CounterBackend {
 public:
  CompositeBackend(std::unique_ptr<CounterBackend> core, std::unique_ptr<CounterBackend> memory);
  std::string_view name() const override { return name_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  bool Read(uint64_t now_ns, bool fast, Snapshot* out) override;
  bool ReopenInChild(std::string* why) override;
  std::string LostReason() const override;

 private:
  std::unique_ptr<CounterBackend> core_, memory_;
  std::string name_;
  std::vector<Channel> channels_;
};

struct BackendDeps {
  PerfSyscalls perf = RealPerfSyscalls();
  std::function<uint64_t()> clock;  // CLOCK_MONOTONIC ns when empty
};

struct OpenedBackend {
  std::unique_ptr<CounterBackend> backend;  // null when off or nothing at all could be opened
  Capabilities capabilities;
};

OpenedBackend OpenBackend(const SamplerConfig& config, const BackendDeps& deps = {});

uint64_t MonotonicNowNs();

}  // namespace flopspy::cpuroof
