// Configuration: FLOPSPY_* environment variables, read once at start into one struct.
// A bad value is reported (one line each) and the default is used instead.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/gpu_roofline/counter_metrics.h"

namespace flopspy::interpose {

// kSampled: CUPTI collects only in windows (FLOPSPY_GPU_WINDOWS, docs/gpu-timing.md).
enum class GpuTiming { kAuto, kOff, kSampled };
// Where timestamps come from (FLOPSPY_CLOCK, trace_clock.h).
enum class ClockChoice { kAuto, kTsc, kMonotonic };
// How a kernel's GPU record finds its launch (FLOPSPY_GPU_JOIN, docs/gpu-timing.md):
// kCorrelation, CUPTI's external correlation pushed around every launch; kStream, the order of
// the launch's stream (stream_order_join.h), with no push and no API record per launch.
enum class GpuJoin { kCorrelation, kStream };
// Which API activity records CUPTI keeps so that it emits flopspy's external correlations.
enum class CuptiApiRecords { kSelected, kAll };
// How counter mode gets every metric of a sample (FLOPSPY_COUNTERS_REPLAY, docs/gpu-counters.md).
// Which stacks a sampled launch takes (FLOPSPY_STACKS, docs/call-sites.md).
enum class StackPolicy : uint8_t { kOff, kPython, kNative, kBoth };

enum class CountersReplay {
  kKernel,    // CUPTI replays each measured launch once per pass
  kLaunches,  // one one-pass metric group per measured launch; a sample spans several launches
};

struct Config {
  bool enabled = true;                      // FLOPSPY_ENABLE
  std::string out_dir = "flopspy-out";      // FLOPSPY_OUT
  uint32_t buffer_kib = 2048;               // FLOPSPY_BUFFER_KB (per thread, power of two)
  uint32_t flush_ms = 50;                   // FLOPSPY_FLUSH_MS
  ClockChoice clock = ClockChoice::kAuto;   // FLOPSPY_CLOCK
  bool follow_fork = true;                  // FLOPSPY_FOLLOW_FORK
  bool handle_signals = true;               // FLOPSPY_SIGNALS
  uint64_t run_id = 0;                      // FLOPSPY_RUN_ID (hex), set by `flopspy run`
  bool quiet = false;                       // FLOPSPY_QUIET: only errors on stderr
  uint32_t param_bytes = 20;                // FLOPSPY_PARAM_BYTES: kernel parameter bytes kept
  GpuTiming gpu_timing = GpuTiming::kAuto;  // FLOPSPY_GPU_TIMING
  // FLOPSPY_GPU_WINDOWS (sampled GPU timing): each window's length, and the period.
  uint64_t gpu_window_ns = 2'000'000'000;
  uint64_t gpu_period_ns = 30'000'000'000;
  GpuJoin gpu_join = GpuJoin::kCorrelation;  // FLOPSPY_GPU_JOIN
  bool compress = true;                      // FLOPSPY_COMPRESS: zstd chunks (docs/trace-format.md)
  std::string cupti_path;                    // FLOPSPY_CUPTI_PATH
  CuptiApiRecords cupti_api_records = CuptiApiRecords::kAll;  // FLOPSPY_CUPTI_API_RECORDS
  bool counters = false;                                      // FLOPSPY_COUNTERS
  bool nvtx = true;                                           // FLOPSPY_NVTX (docs/nvtx.md)
  uint32_t counters_samples = 3;                              // FLOPSPY_COUNTERS_SAMPLES
  CountersReplay counters_replay = CountersReplay::kKernel;   // FLOPSPY_COUNTERS_REPLAY
  std::string cpu_roofline = "auto";                          // FLOPSPY_CPU_ROOFLINE
  uint32_t cpu_interval_ms = 100;                             // FLOPSPY_CPU_INTERVAL_MS
  std::string cpu_events;                                     // FLOPSPY_CPU_EVENTS
  // FLOPSPY_COUNTERS_METRICS: gpuroof::CounterGroup bits.
  uint32_t counters_groups = gpuroof::kAllCounterGroups;
  // The capture window (flopspy run --delay, --duration, --capture-range; capture_window.h):
  // records only after `delay_ns` from start, for `duration_ns` (0: to the end), or inside the
  // first range named `capture_range` ("region:NAME" or "nvtx:NAME"; "" none).
  uint64_t delay_ns = 0;      // FLOPSPY_DELAY (seconds)
  uint64_t duration_ns = 0;   // FLOPSPY_DURATION (seconds)
  std::string capture_range;  // FLOPSPY_CAPTURE_RANGE
  // FLOPSPY_MODEL_FLOPS: the model's FLOPs per training step, kept in the trace for the report's
  // MFU (docs/flopspy-report.md, "Steps"); 0 when not given.
  double model_flops = 0;
  // Call sites (docs/call-sites.md): FLOPSPY_STACKS, unset or auto means python in a Python
  // process and native otherwise (stacks_explicit false); FLOPSPY_STACK_SAMPLE: one in N
  // launches of a signature after its first.
  StackPolicy stacks = StackPolicy::kPython;
  bool stacks_explicit = false;
  uint32_t stack_sample = 32;
};

// One documented variable: its name, default and meaning (the README table is checked against
// this list by a test).
struct ConfigVariable {
  std::string_view name;
  std::string_view default_value;
  std::string_view meaning;
};
const std::vector<ConfigVariable>& ConfigVariables();

struct ConfigResult {
  Config config;
  std::vector<std::string> warnings;  // one sentence per bad value: what was wrong, what is used
};

// `lookup(name)` returns the variable's value or nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;
ConfigResult ParseConfig(const EnvLookup& lookup);
ConfigResult ParseConfigFromEnvironment();

// FLOPSPY_STACKS as the metadata says it: off, python, native, both, or "auto" when unset.
std::string_view StackPolicyName(const Config& config);
// "auto", "off" or "sampled": FLOPSPY_GPU_TIMING's words.
std::string_view GpuTimingName(GpuTiming timing);

// The configuration as JSON (for the trace metadata).
std::string ConfigToJson(const Config& config);

}  // namespace flopspy::interpose
