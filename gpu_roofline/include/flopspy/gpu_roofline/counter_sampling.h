// Which launches counter mode measures (docs/gpu-counters.md): the first N launches of each
// distinct signature (kernel, grid, block, cluster, dynamic shared memory and the kernel catalog's
// shape parameters: the report's kernel groups); later
// identical launches run untouched and take the mean of those samples. Thread-safe; pure logic,
// no CUDA.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flopspy/gpu_roofline/counter_metrics.h"

namespace flopspy::gpuroof {

struct CounterSignature {
  uint64_t function = 0;  // a stable id of the kernel function (the recorder's function id)
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  std::array<uint32_t, 3> cluster{};
  uint32_t dynamic_smem = 0;
  std::string shape_key;  // analyzers::KernelEstimate::shape_key ("n=1048576"), "" if none

  auto operator<=>(const CounterSignature&) const = default;
};

// What the samples of one signature say.
struct CounterSummary {
  uint32_t samples = 0;     // measured so far
  CounterValues mean;       // of every value over the samples
  double flops_spread = 0;  // (max - min) / mean of the samples' FLOPs; 0 with one sample
  double dram_spread = 0;   // the same for DRAM bytes
};

// DRAM byte samples closer than this never disagree, whatever their relative spread (measured on
// an H200: an FMA kernel's few KB of DRAM traffic differed by 100% between launches).
inline constexpr double kDramSpreadFloorBytes = 1 << 20;

// A launch's part in a sample: which sample of its signature (1, 2, ...) and which pass group
// of the counter plan it measures. A sample is complete when each of its groups was measured,
// each on its own launch (docs/gpu-counters.md, "How a launch is measured").
struct SampleSlot {
  uint32_t sample = 0;  // 0: not measured
  uint32_t group = 0;
  explicit operator bool() const { return sample != 0; }
};

class CounterSampler {
 public:
  // `wanted`: samples per signature (FLOPSPY_COUNTERS_SAMPLES). `tolerance`: spread above which
  // samples disagree. `max_signatures`: distinct signatures tracked; launches of any further
  // signature are not measured (bounds memory when shapes never repeat).
  explicit CounterSampler(uint32_t wanted, double tolerance = 0.01,
                          size_t max_signatures = 100'000);

  static constexpr size_t kMaxGroups = 32;

  // Reserves a slot of `signature` while fewer than `wanted` samples of some group are measured
  // or being measured; else an empty slot (the launch runs untouched). A slot of `preferred`
  // (the group the profiler is configured for: switching costs) when that group still needs
  // one, else the group with the fewest slots taken; abandoned slots are taken again first.
  // `groups`: the KernelMetricsValid bits each pass group measures, fixed by a signature's
  // first claim (at most kMaxGroups; empty counts as one group).
  SampleSlot Claim(const CounterSignature& signature, std::span<const uint32_t> groups,
                   uint32_t preferred = 0);
  // Every slot of `signature` is taken (its launches run untouched); false before its first
  // claim, unless the table is full and it can never be claimed (counted as untracked).
  bool Finished(const CounterSignature& signature) const;
  // A claimed slot could not be measured: it goes to a later launch.
  void Abandon(const CounterSignature& signature, SampleSlot slot);

  struct Recorded {
    // The slot's sample so far: the sum of its measured groups, valid where every group that
    // measures a quantity is in.
    CounterValues sample;
    uint32_t groups_done = 0;      // of the sample, this one included
    bool sample_complete = false;  // this was the sample's last group
    uint32_t samples = 0;          // complete samples of the signature now
    bool complete = false;         // the last wanted sample is complete
    // Set once per signature, on the sample that first made them disagree.
    bool disagree = false;
    std::string what;  // "FLOPs" or "DRAM bytes" (or both), when disagreeing
    double spread = 0;
  };
  // Adds the values a claimed slot measured (its group's quantities).
  Recorded Record(const CounterSignature& signature, SampleSlot slot, const CounterValues& values);

  // Over the complete samples; nullopt before the first.
  std::optional<CounterSummary> Summary(const CounterSignature& signature) const;
  uint32_t wanted() const { return wanted_; }
  size_t signatures() const;
  uint64_t untracked_launches() const;  // claims refused because the table was full

 private:
  struct Partial {
    CounterValues sum;
    uint32_t done = 0;  // bit g: group g measured
  };
  struct Entry {
    std::vector<uint32_t> groups;         // quantities per group
    std::vector<uint32_t> taken;          // per group: samples claimed (sample numbers 1 to taken)
    std::vector<uint32_t> returned;       // abandoned slots, (sample - 1) * G + group: taken again
    std::map<uint32_t, Partial> partial;  // incomplete samples, by number
    uint32_t measured = 0;                // complete samples
    CounterValues sum;                    // of the complete samples
    double flops_min = 0, flops_max = 0, dram_min = 0, dram_max = 0;
    bool warned = false;
  };
  static CounterSummary Summarize(const Entry& e);
  void Commit(Entry& e, const CounterValues& v, Recorded* r);

  const uint32_t wanted_;
  const double tolerance_;
  const size_t max_signatures_;
  mutable std::mutex mutex_;
  std::map<CounterSignature, Entry> entries_;
  mutable uint64_t untracked_ = 0;  // counted by Claim and Finished, under the mutex
};

// Relative spread (max - min) / |mean|; 0 when all are 0, 1 when the mean is 0 but not all are.
double RelativeSpread(double min, double max, double mean);

}  // namespace flopspy::gpuroof
