#include "config.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace flopspy::interpose {
namespace {

std::string Quote(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

class Parser {
 public:
  Parser(const EnvLookup& lookup, std::vector<std::string>& warnings)
      : lookup_(lookup), warnings_(warnings) {}

  void Bool(std::string_view name, bool& out) {
    const auto v = lookup_(name);
    if (!v) return;
    if (*v == "1" || *v == "on" || *v == "yes" || *v == "true") {
      out = true;
    } else if (*v == "0" || *v == "off" || *v == "no" || *v == "false") {
      out = false;
    } else {
      Bad(name, *v, "expected 1 or 0 (on/off)", out ? "1" : "0");
    }
  }

  void Unsigned(std::string_view name, uint32_t& out, uint32_t min, uint32_t max) {
    const auto v = lookup_(name);
    if (!v) return;
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), value);
    if (ec != std::errc() || end != v->data() + v->size() || value < min || value > max) {
      Bad(name, *v,
          "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max),
          std::to_string(out));
      return;
    }
    out = static_cast<uint32_t>(value);
  }

  void Hex64(std::string_view name, uint64_t& out) {
    const auto v = lookup_(name);
    if (!v) return;
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), value, 16);
    if (ec != std::errc() || end != v->data() + v->size() || v->empty()) {
      Bad(name, *v, "expected a hexadecimal number", "0 (none)");
      return;
    }
    out = value;
  }

  // Seconds ("5", "2.5", "0.25") as nanoseconds, up to a day.
  void Seconds(std::string_view name, uint64_t& out_ns) {
    const auto v = lookup_(name);
    if (!v) return;
    double seconds = -1;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), seconds);
    if (ec != std::errc() || end != v->data() + v->size() || !(seconds >= 0) || seconds > 86400) {
      Bad(name, *v, "expected seconds from 0 to 86400",
          out_ns == 0 ? std::string("0") : std::to_string(out_ns / 1e9));
      return;
    }
    out_ns = static_cast<uint64_t>(seconds * 1e9 + 0.5);
  }

  // A positive finite number such as "1.2e15".
  void Positive(std::string_view name, double& out) {
    const auto v = lookup_(name);
    if (!v) return;
    double value = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), value);
    if (ec != std::errc() || end != v->data() + v->size() || !std::isfinite(value) || value <= 0) {
      Bad(name, *v, "expected a positive number such as 1.2e15", "none");
      return;
    }
    out = value;
  }

  // "OPEN/PERIOD": seconds of GPU timing every PERIOD seconds, 0 < OPEN < PERIOD <= 86400.
  void Windows(std::string_view name, uint64_t& open_ns, uint64_t& period_ns) {
    const auto v = lookup_(name);
    if (!v) return;
    const size_t slash = v->find('/');
    double open = -1, period = -1;
    bool ok = slash != std::string::npos;
    if (ok) {
      const char* first = v->data();
      const auto [end_open, ec_open] = std::from_chars(first, first + slash, open);
      const auto [end_period, ec_period] =
          std::from_chars(first + slash + 1, first + v->size(), period);
      ok = ec_open == std::errc() && end_open == first + slash && ec_period == std::errc() &&
           end_period == first + v->size() && open > 0 && period > open && period <= 86400;
    }
    if (!ok) {
      Bad(name, *v, "expected OPEN/PERIOD in seconds, 0 < OPEN < PERIOD, such as 2/30",
          std::to_string(open_ns / 1e9) + "/" + std::to_string(period_ns / 1e9));
      return;
    }
    open_ns = static_cast<uint64_t>(open * 1e9 + 0.5);
    period_ns = static_cast<uint64_t>(period * 1e9 + 0.5);
  }

  // "region:NAME" or "nvtx:NAME" with a non-empty NAME.
  void CaptureRange(std::string_view name, std::string& out) {
    const auto v = lookup_(name);
    if (!v) return;
    for (std::string_view kind : {"region:", "nvtx:"}) {
      if (v->starts_with(kind) && v->size() > kind.size()) {
        out = *v;
        return;
      }
    }
    Bad(name, *v, "expected region:NAME or nvtx:NAME", "none (the whole run)");
  }

  void Text(std::string_view name, std::string& out, bool allow_empty) {
    const auto v = lookup_(name);
    if (!v) return;
    if (v->empty() && !allow_empty) {
      Bad(name, *v, "must not be empty", out);
      return;
    }
    out = *v;
  }

  void Choice(std::string_view name, std::string& out, const std::vector<std::string_view>& options,
              bool allow_prefix_arg = false) {
    const auto v = lookup_(name);
    if (!v) return;
    for (std::string_view option : options) {
      if (*v == option) {
        out = *v;
        return;
      }
      // Options written "replay:" take an argument after the colon.
      if (allow_prefix_arg && option.ends_with(':') && v->starts_with(option) &&
          v->size() > option.size()) {
        out = *v;
        return;
      }
    }
    std::string list;
    for (std::string_view option : options) {
      list += (list.empty() ? "" : ", ") + std::string(option) +
              (option.ends_with(':') ? "<file>" : "");
    }
    Bad(name, *v, "expected one of " + list, out);
  }

 private:
  void Bad(std::string_view name, std::string_view value, const std::string& expected,
           const std::string& used) {
    warnings_.push_back(std::string(name) + "=" + Quote(value) + " is not valid (" + expected +
                        "); using " + used);
  }

  const EnvLookup& lookup_;
  std::vector<std::string>& warnings_;
};

uint32_t RoundUpToPowerOfTwo(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

const std::vector<ConfigVariable>& ConfigVariables() {
  static const std::vector<ConfigVariable> kVariables = {
      {"FLOPSPY_ENABLE", "1", "0 turns flopspy off: every call passes straight through"},
      {"FLOPSPY_OUT", "flopspy-out", "folder for trace files (created if missing)"},
      {"FLOPSPY_BUFFER_KB", "2048",
       "record buffer per thread in KiB (64 to 1048576, rounded up to a power of two); a full "
       "buffer drops records and counts them"},
      {"FLOPSPY_FLUSH_MS", "50",
       "how often the flusher thread writes buffered records (1 to 10000)"},
      {"FLOPSPY_CLOCK", "auto",
       "where timestamps come from: tsc (the CPU's counter, steered to CLOCK_MONOTONIC), "
       "monotonic (clock_gettime), auto (tsc where the kernel's clock is built on it)"},
      {"FLOPSPY_FOLLOW_FORK", "1", "0: a child process made by fork() writes no trace"},
      {"FLOPSPY_SIGNALS", "1",
       "0: install no signal handlers (a crash then loses the records of the last flush period)"},
      {"FLOPSPY_RUN_ID", "(none)", "hexadecimal id shared by the processes of one `flopspy run`"},
      {"FLOPSPY_QUIET", "0", "1: print only errors on stderr, not notices"},
      {"FLOPSPY_PARAM_BYTES", "20",
       "leading kernel parameter bytes kept per launch (0 to 255; the kernel catalog raises it "
       "per kernel to what its model reads; more than 20 costs a second record per launch)"},
      {"FLOPSPY_GPU_TIMING", "auto",
       "off: no CUPTI, no GPU times (launches are still recorded); sampled: GPU times only in "
       "windows (FLOPSPY_GPU_WINDOWS), per-kernel times estimated from them"},
      {"FLOPSPY_GPU_WINDOWS", "2/30",
       "sampled GPU timing: seconds timed / period in seconds (the first window opens when GPU "
       "timing starts)"},
      {"FLOPSPY_GPU_JOIN", "correlation",
       "how a kernel's GPU time finds its launch: correlation (CUPTI's external correlation "
       "around every launch), stream (the order of the launch's stream: no CUPTI call and no "
       "API record per launch; not with FLOPSPY_COUNTERS)"},
      {"FLOPSPY_COMPRESS", "zstd",
       "zstd: trace chunks compressed by the flusher (a reader of trace format 6 or newer is "
       "needed); off: stored as they are"},
      {"FLOPSPY_CUPTI_PATH", "(search)", "libcupti.so to use when the program has not loaded one"},
      {"FLOPSPY_CUPTI_API_RECORDS", "all",
       "selected: CUPTI keeps API records of launches, copies and sets only (all the others "
       "disabled one by one); all: of every driver and runtime call"},
      {"FLOPSPY_COUNTERS", "0", "1: measure FLOPs and bytes of kernels with GPU hardware counters"},
      {"FLOPSPY_NVTX", "1",
       "0: record no NVTX ranges, marks or names (and leave NVTX_INJECTION64_PATH unset)"},
      {"FLOPSPY_COUNTERS_SAMPLES", "3",
       "samples measured per distinct kernel signature in counter mode (1 to 1000)"},
      {"FLOPSPY_COUNTERS_REPLAY", "kernel",
       "kernel: CUPTI replays a measured launch once per pass of the metrics; launches "
       "(experimental): a measured launch runs once and measures one group of metrics that fits "
       "in one pass, a sample spans several launches"},
      {"FLOPSPY_COUNTERS_METRICS", "all",
       "what counter mode measures: all, or a list of fp32, fp64, fp16, tensor, dram, l2, time "
       "(fewer metrics, fewer replay passes)"},
      {"FLOPSPY_DELAY", "0",
       "seconds after start before anything is recorded (flopspy run --delay)"},
      {"FLOPSPY_DURATION", "0",
       "seconds recorded from the window's start, 0 to the end (flopspy run --duration)"},
      {"FLOPSPY_CAPTURE_RANGE", "(none)",
       "record only inside the first region:NAME (flopspy_region_begin/end) or nvtx:NAME "
       "range (flopspy run --capture-range)"},
      {"FLOPSPY_MODEL_FLOPS", "(none)",
       "the model's FLOPs per training step, kept in the trace for the report's MFU"},
      {"FLOPSPY_STACKS", "auto",
       "off, python, native or both: which stacks sampled launches carry (auto: python in a "
       "Python process, else native)"},
      {"FLOPSPY_STACK_SAMPLE", "32",
       "stacks for the first launch of each kernel signature per thread, then one in N "
       "(1 to 1000000)"},
      {"FLOPSPY_CPU_ROOFLINE", "auto",
       "CPU counter source: off, auto, perf, pcm-http, pcm-csv or replay:<file>"},
      {"FLOPSPY_CPU_INTERVAL_MS", "100", "CPU roofline sampling period (10 to 60000)"},
      {"FLOPSPY_CPU_EVENTS", "(none)", "extra CPU events for libpfm4, comma separated"},
      {"FLOPSPY_CPU_PRECISION", "all", "which FP precisions count as CPU work: all, dp or sp"},
      {"FLOPSPY_CPU_PEAK_GFLOPS", "(measured)", "CPU compute roof to use instead of the ceilings"},
      {"FLOPSPY_CPU_BW_GBS", "(measured)",
       "CPU DRAM bandwidth roof to use instead of the ceilings"},
      {"FLOPSPY_CPU_MIN_MS", "10", "CPU points shorter than this are flagged too short to trust"},
      {"FLOPSPY_CPU_RECORD", "(none)",
       "write raw CPU counter readings to this new file (%p: pid; mode 0600, an existing file or "
       "link is never overwritten), for replay:<file>"},
      {"FLOPSPY_PCM_URL", "http://127.0.0.1:9738/",
       "Intel pcm-sensor-server to read memory traffic from"},
      {"FLOPSPY_PCM_CSV", "(none)", "pcm-memory CSV file to read memory traffic from"},
  };
  return kVariables;
}

ConfigResult ParseConfig(const EnvLookup& lookup) {
  ConfigResult r;
  Config& c = r.config;
  Parser p(lookup, r.warnings);
  p.Bool("FLOPSPY_ENABLE", c.enabled);
  p.Text("FLOPSPY_OUT", c.out_dir, /*allow_empty=*/false);
  p.Unsigned("FLOPSPY_BUFFER_KB", c.buffer_kib, 64, 1u << 20);
  c.buffer_kib = RoundUpToPowerOfTwo(c.buffer_kib);
  p.Unsigned("FLOPSPY_FLUSH_MS", c.flush_ms, 1, 10000);
  std::string clock = "auto";
  p.Choice("FLOPSPY_CLOCK", clock, {"auto", "tsc", "monotonic"});
  c.clock = clock == "tsc"         ? ClockChoice::kTsc
            : clock == "monotonic" ? ClockChoice::kMonotonic
                                   : ClockChoice::kAuto;
  p.Bool("FLOPSPY_FOLLOW_FORK", c.follow_fork);
  p.Bool("FLOPSPY_SIGNALS", c.handle_signals);
  p.Hex64("FLOPSPY_RUN_ID", c.run_id);
  p.Bool("FLOPSPY_QUIET", c.quiet);
  p.Unsigned("FLOPSPY_PARAM_BYTES", c.param_bytes, 0, 255);
  std::string timing(GpuTimingName(c.gpu_timing));
  p.Choice("FLOPSPY_GPU_TIMING", timing, {"auto", "on", "off", "sampled"});
  c.gpu_timing = timing == "off"       ? GpuTiming::kOff
                 : timing == "sampled" ? GpuTiming::kSampled
                                       : GpuTiming::kAuto;
  p.Windows("FLOPSPY_GPU_WINDOWS", c.gpu_window_ns, c.gpu_period_ns);
  std::string join = c.gpu_join == GpuJoin::kStream ? "stream" : "correlation";
  p.Choice("FLOPSPY_GPU_JOIN", join, {"correlation", "stream"});
  c.gpu_join = join == "stream" ? GpuJoin::kStream : GpuJoin::kCorrelation;
  std::string compress = c.compress ? "zstd" : "off";
  p.Choice("FLOPSPY_COMPRESS", compress, {"zstd", "off"});
  c.compress = compress == "zstd";
  p.Text("FLOPSPY_CUPTI_PATH", c.cupti_path, /*allow_empty=*/true);
  std::string api_records = c.cupti_api_records == CuptiApiRecords::kSelected ? "selected" : "all";
  p.Choice("FLOPSPY_CUPTI_API_RECORDS", api_records, {"selected", "all"});
  c.cupti_api_records =
      api_records == "selected" ? CuptiApiRecords::kSelected : CuptiApiRecords::kAll;
  p.Bool("FLOPSPY_COUNTERS", c.counters);
  p.Bool("FLOPSPY_NVTX", c.nvtx);
  p.Unsigned("FLOPSPY_COUNTERS_SAMPLES", c.counters_samples, 1, 1000);
  std::string replay = c.counters_replay == CountersReplay::kLaunches ? "launches" : "kernel";
  p.Choice("FLOPSPY_COUNTERS_REPLAY", replay, {"kernel", "launches"});
  c.counters_replay = replay == "launches" ? CountersReplay::kLaunches : CountersReplay::kKernel;
  p.Seconds("FLOPSPY_DELAY", c.delay_ns);
  p.Seconds("FLOPSPY_DURATION", c.duration_ns);
  p.CaptureRange("FLOPSPY_CAPTURE_RANGE", c.capture_range);
  p.Positive("FLOPSPY_MODEL_FLOPS", c.model_flops);
  // --- call sites (docs/call-sites.md)
  if (lookup("FLOPSPY_STACKS")) {
    std::string stacks = "auto";
    p.Choice("FLOPSPY_STACKS", stacks, {"auto", "off", "python", "native", "both"});
    c.stacks_explicit = stacks != "auto";
    c.stacks = stacks == "off"      ? StackPolicy::kOff
               : stacks == "native" ? StackPolicy::kNative
               : stacks == "both"   ? StackPolicy::kBoth
                                    : StackPolicy::kPython;
  }
  p.Unsigned("FLOPSPY_STACK_SAMPLE", c.stack_sample, 1, 1000000);
  // --- counter mode's metric groups (docs/gpu-counters.md)
  if (const auto groups = lookup("FLOPSPY_COUNTERS_METRICS")) {
    const gpuroof::CounterGroupsParse parsed = gpuroof::ParseCounterGroups(*groups);
    if (parsed.error.empty()) {
      c.counters_groups = parsed.groups;
    } else {
      r.warnings.push_back("FLOPSPY_COUNTERS_METRICS=" + Quote(*groups) + " is not valid (" +
                           parsed.error + "); using all");
    }
  }
  return r;
}

ConfigResult ParseConfigFromEnvironment() {
  return ParseConfig([](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
}

std::string_view GpuTimingName(GpuTiming timing) {
  switch (timing) {
    case GpuTiming::kOff:
      return "off";
    case GpuTiming::kSampled:
      return "sampled";
    case GpuTiming::kAuto:
      break;
  }
  return "auto";
}

std::string_view StackPolicyName(const Config& c) {
  if (!c.stacks_explicit) return "auto";
  switch (c.stacks) {
    case StackPolicy::kOff:
      return "off";
    case StackPolicy::kNative:
      return "native";
    case StackPolicy::kBoth:
      return "both";
    case StackPolicy::kPython:
      break;
  }
  return "python";
}

std::string ConfigToJson(const Config& c) {
  nlohmann::json j = {
      {"enabled", c.enabled},
      {"out_dir", c.out_dir},
      {"buffer_kib", c.buffer_kib},
      {"flush_ms", c.flush_ms},
      {"clock", c.clock == ClockChoice::kTsc         ? "tsc"
                : c.clock == ClockChoice::kMonotonic ? "monotonic"
                                                     : "auto"},
      {"follow_fork", c.follow_fork},
      {"handle_signals", c.handle_signals},
      {"run_id", c.run_id},
      {"param_bytes", c.param_bytes},
      {"gpu_timing", GpuTimingName(c.gpu_timing)},
      {"gpu_window_ns", c.gpu_window_ns},
      {"gpu_period_ns", c.gpu_period_ns},
      {"gpu_join", c.gpu_join == GpuJoin::kStream ? "stream" : "correlation"},
      {"compress", c.compress ? "zstd" : "off"},
      {"cupti_path", c.cupti_path},
      {"cupti_api_records", c.cupti_api_records == CuptiApiRecords::kAll ? "all" : "selected"},
      {"counters", c.counters},
      {"delay_ns", c.delay_ns},
      {"duration_ns", c.duration_ns},
      {"capture_range", c.capture_range},
      {"model_flops", c.model_flops > 0 ? nlohmann::json(c.model_flops) : nlohmann::json(nullptr)},
      {"nvtx", c.nvtx},
      {"counters_samples", c.counters_samples},
      {"counters_replay", c.counters_replay == CountersReplay::kLaunches ? "launches" : "kernel"},
      {"counters_metrics", gpuroof::CounterGroupsText(c.counters_groups)},
      {"stacks", StackPolicyName(c)},
      {"stack_sample", c.stack_sample},
  };
  return j.dump();
}

}  // namespace flopspy::interpose
