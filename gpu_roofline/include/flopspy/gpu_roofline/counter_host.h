// The host side of the CUPTI range profiler (cupti_profiler_host.h): a chip's metrics, the
// configuration image for a set of metrics with its replay pass count, and the evaluation of a
// counter data image into metric values. It never touches a device, so it works for any chip
// CUPTI knows ("GH100", "GA100"), with or without a GPU. CUPTI's functions come from the
// caller's lookup (libflopspy.so: the libcupti the program loaded; tests: the toolkit's).
// Built only with CUDA headers (FLOPSPY_HAVE_CUDA_HEADERS).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/gpu_roofline/counter_metrics.h"

namespace flopspy::gpuroof {

// Returns the address of a CUPTI function by name, or nullptr.
using CuptiSymbolLookup = std::function<void*(const char* name)>;

// One CUPTI profiler host object for one chip (range-profiler type).
class HostProfiler {
 public:
  // nullptr and `error` when a host function is missing or CUPTI refuses the chip.
  // `availability`: the counter availability image of the device, or empty.
  static std::unique_ptr<HostProfiler> Create(const CuptiSymbolLookup& lookup,
                                              std::string_view chip,
                                              std::span<const uint8_t> availability,
                                              std::string* error);
  ~HostProfiler();
  HostProfiler(const HostProfiler&) = delete;
  HostProfiler& operator=(const HostProfiler&) = delete;

  const std::string& chip() const;
  // The chip's base metrics of counter type ("dram__bytes_read", ...).
  std::vector<std::string> CounterMetrics(std::string* error) const;
  // Adds `terms` and builds the configuration image (once per object: CUPTI adds cumulatively).
  bool Configure(std::span<const MetricTerm> terms, std::string* error);
  const std::vector<uint8_t>& config_image() const;
  size_t passes() const;  // replay passes the configuration needs
  const std::vector<MetricTerm>& terms() const;

  // The values of the configured terms in range `range` of a counter data image.
  bool Evaluate(std::span<const uint8_t> counter_data, size_t range, std::vector<double>* values,
                std::string* error) const;
  // How many ranges a counter data image holds.
  bool RangeCount(std::span<const uint8_t> counter_data, size_t* ranges, std::string* error) const;

 private:
  struct Impl;
  explicit HostProfiler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Metrics collected together from one launch. With PassGrouping::kOnePass a group fits in one
// pass (but a metric that alone needs more), so that measuring a launch does not replay it;
// with kReplayed the plan's one group holds every metric and is replayed.
struct PassGroup {
  std::unique_ptr<HostProfiler> host;  // configured with the group's metrics (evaluates them)
  size_t passes = 0;                   // passes the group's configuration needs
  uint32_t quantities = 0;             // trace::KernelMetricsValid bits of its metrics
  bool tensor = false;                 // tensor-path metrics: only for kernels that may use them
};

// What counter mode collects on one chip: the chosen metrics split into pass groups, the
// groups without tensor metrics first (docs/gpu-counters.md, "How a launch is measured").
struct CounterPlan {
  std::string chip;
  ChipFamily family = ChipFamily::kUnknown;
  std::vector<PassGroup> groups;
  size_t non_tensor_groups = 0;    // groups[0, non_tensor_groups) have no tensor metrics
  size_t passes = 0;               // sum over the groups
  std::vector<std::string> notes;  // what was left out and why

  size_t GroupsFor(bool tensor_capable) const {
    return tensor_capable ? groups.size() : non_tensor_groups;
  }
};

// How a plan splits its metrics (FLOPSPY_COUNTERS_REPLAY).
enum class PassGrouping : uint8_t {
  kReplayed,  // one group of every metric: CUPTI replays a measured launch once per pass
  kOnePass,   // groups that each fit in one pass: a measured launch runs once, one group
};

// Metrics for `groups` on `chip` (those the chip has), in one group or packed into one-pass
// groups; the L2 metric is kept only when it adds no pass. nullopt and `error` when no
// configuration can be built.
std::optional<CounterPlan> PlanCounters(const CuptiSymbolLookup& lookup, std::string_view chip,
                                        std::span<const uint8_t> availability, uint32_t groups,
                                        PassGrouping grouping, std::string* error);

}  // namespace flopspy::gpuroof
