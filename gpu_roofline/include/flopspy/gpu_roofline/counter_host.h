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

// What counter mode collects on one chip.
struct CounterPlan {
  std::string chip;
  ChipFamily family = ChipFamily::kUnknown;
  std::unique_ptr<HostProfiler> host;  // configured with the plan's metrics (evaluates them)
  size_t passes = 0;
  std::vector<std::string> notes;  // what was left out and why
};

// Metrics for `groups` on `chip` (those the chip has), with the L2 metric kept only when it
// needs no extra replay pass. nullopt and `error` when no configuration can be built.
std::optional<CounterPlan> PlanCounters(const CuptiSymbolLookup& lookup, std::string_view chip,
                                        std::span<const uint8_t> availability, uint32_t groups,
                                        std::string* error);

}  // namespace flopspy::gpuroof
