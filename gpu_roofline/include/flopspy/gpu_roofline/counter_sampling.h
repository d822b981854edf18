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
#include <string>

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

class CounterSampler {
 public:
  // `wanted`: samples per signature (FLOPSPY_COUNTERS_SAMPLES). `tolerance`: spread above which
  // samples disagree. `max_signatures`: distinct signatures tracked; launches of any further
  // signature are not measured (bounds memory when shapes never repeat).
  explicit CounterSampler(uint32_t wanted, double tolerance = 0.01,
                          size_t max_signatures = 100'000);

  // Reserves the next sample of `signature`: its number (1, 2, ...) while fewer than `wanted`
  // are measured or being measured, else 0 (the launch runs untouched).
  uint32_t Claim(const CounterSignature& signature);
  // A claimed sample could not be measured: its slot goes to a later launch.
  void Abandon(const CounterSignature& signature);

  struct Recorded {
    uint32_t samples = 0;   // measured now, this one included
    bool complete = false;  // this was the last wanted sample
    // Set once per signature, on the sample that first made them disagree.
    bool disagree = false;
    std::string what;  // "FLOPs" or "DRAM bytes" (or both), when disagreeing
    double spread = 0;
  };
  // Adds a measured sample (of a slot taken by Claim).
  Recorded Record(const CounterSignature& signature, const CounterValues& values);

  // The measured values that later launches of `signature` reuse; nullopt before any sample.
  std::optional<CounterSummary> Summary(const CounterSignature& signature) const;

  uint32_t wanted() const { return wanted_; }
  size_t signatures() const;
  uint64_t untracked_launches() const;  // claims refused because the table was full

 private:
  struct Entry {
    uint32_t measured = 0;
    uint32_t in_flight = 0;
    CounterValues sum;
    double flops_min = 0, flops_max = 0, dram_min = 0, dram_max = 0;
    bool warned = false;
  };
  static CounterSummary Summarize(const Entry& e);

  const uint32_t wanted_;
  const double tolerance_;
  const size_t max_signatures_;
  mutable std::mutex mutex_;
  std::map<CounterSignature, Entry> entries_;
  uint64_t untracked_ = 0;
};

// Relative spread (max - min) / |mean|; 0 when all are 0, 1 when the mean is 0 but not all are.
double RelativeSpread(double min, double max, double mean);

}  // namespace flopspy::gpuroof
