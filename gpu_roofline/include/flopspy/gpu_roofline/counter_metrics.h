// Counter-measured FLOPs and bytes (docs/gpu-counters.md): which CUPTI range-profiler metrics to
// collect on which GPU, and how their values become FLOPs and bytes with Nsight Compute's
// weights. Pure functions: no CUDA header, no device.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::gpuroof {

// What one metric measures.
enum class CounterQuantity : uint8_t {
  kFp32,       // FP32 thread instructions (weighted into FLOPs)
  kFp64,       // FP64 thread instructions
  kFp16,       // FP16 thread instructions (half2: weighted x2)
  kTensor,     // floating-point math ops in the tensor path
  kDramRead,   // bytes
  kDramWrite,  // bytes
  kL2,         // bytes through the L2 (lts__t_bytes)
  kDuration,   // nanoseconds
};

// The trace::KernelMetricsValid bit a quantity sets (DRAM read and write share one).
uint32_t ValidBitOf(CounterQuantity quantity);

// Groups of metrics a user can choose (FLOPSPY_COUNTERS_METRICS).
enum CounterGroup : uint32_t {
  kCounterFp32 = 1u << 0,
  kCounterFp64 = 1u << 1,
  kCounterFp16 = 1u << 2,
  kCounterTensor = 1u << 3,
  kCounterDram = 1u << 4,
  kCounterL2 = 1u << 5,  // kept only when it needs no extra replay pass
  kCounterTime = 1u << 6,
};
inline constexpr uint32_t kAllCounterGroups = 0x7F;

struct CounterGroupsParse {
  uint32_t groups = kAllCounterGroups;
  std::string error;  // empty when the list was valid
};
// "fp32,fp64,fp16,tensor,dram,l2,time" in any order and subset, or "all". Names are
// case-insensitive; spaces around commas are allowed.
CounterGroupsParse ParseCounterGroups(std::string_view list);
std::string CounterGroupsText(uint32_t groups);  // "fp32,fp64,dram"

// GPU generations, from CUPTI's chip names ("GH100", "GA102", "GB202").
enum class ChipFamily : uint8_t {
  kUnknown,
  kVolta,         // GV100, GV11B
  kTuring,        // TU10x, TU11x
  kAmpere,        // GA100, GA10x
  kAda,           // AD10x
  kHopper,        // GH100
  kBlackwell,     // GB10x, GB11x (data centre and Tegra)
  kBlackwellRtx,  // GB20x
};
ChipFamily ChipFamilyOf(std::string_view chip);

// One value to collect: the first of `names` the chip has is used (newer chips renamed some
// metrics). Names are base metrics; the collected metric is the name plus ".sum".
struct MetricCandidate {
  std::vector<std::string> names;
  CounterQuantity quantity;
  double weight;          // contribution per counted unit (2 for an FMA instruction)
  bool optional = false;  // only some chips of the family have it: not missed when absent
};
std::vector<MetricCandidate> CounterCandidates(ChipFamily family, uint32_t groups);

// A metric as collected: "sm__sass_thread_inst_executed_op_ffma_pred_on.sum".
struct MetricTerm {
  std::string name;
  CounterQuantity quantity;
  double weight;
};

struct MetricSelection {
  std::vector<MetricTerm> terms;
  std::vector<std::string> missing;  // required candidates the chip has under none of their names
};
// Resolves candidates against a chip's base metrics (`has` answers for a base name).
MetricSelection SelectMetrics(std::span<const MetricCandidate> candidates,
                              const std::function<bool(std::string_view)>& has);

// The names of `terms`, in order, as CUPTI wants them.
std::vector<const char*> MetricNames(std::span<const MetricTerm> terms);

// Figures of one measured launch.
struct CounterValues {
  double fp32 = 0, fp64 = 0, fp16 = 0, tensor = 0;  // FLOPs (tensor: math ops)
  double dram_read = 0, dram_write = 0, l2 = 0;     // bytes
  double duration_ns = 0;
  uint32_t valid = 0;  // trace::KernelMetricsValid bits

  double Flops() const { return fp32 + fp64 + fp16 + tensor; }
  double DramBytes() const { return dram_read + dram_write; }
};

// Weighted sums of the metric values (`values[i]` belongs to `terms[i]`). A quantity is valid
// when at least one of its metrics was collected; non-finite or negative values are treated as 0.
CounterValues EvaluateCounters(std::span<const MetricTerm> terms, std::span<const double> values);

// The trace record of a measured launch (header, correlation and signature left to the caller).
trace::KernelMetricsRecord ToMetricsRecord(const CounterValues& values, uint16_t sample,
                                           uint16_t passes);
CounterValues FromMetricsRecord(const trace::KernelMetricsRecord& record);

}  // namespace flopspy::gpuroof
