#include "flopspy/cpu_roofline/sampler_config.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "text_util.h"

namespace flopspy::cpuroof {
namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// The whole value in plain decimal digits, as the recorder's own integers are read.
std::optional<uint64_t> StrictUint(std::string_view s) {
  if (!AllDigits(s)) return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Digits with an optional ".digits": no sign, spaces, exponent, hexadecimal, inf or nan.
std::optional<double> StrictDecimal(std::string_view s) {
  const size_t dot = s.find('.');
  if (!AllDigits(s.substr(0, dot))) return std::nullopt;
  if (dot != std::string_view::npos && !AllDigits(s.substr(dot + 1))) return std::nullopt;
  double v = 0;
  const auto [end, ec] =
      std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::string_view BackendModeName(BackendMode mode) {
  switch (mode) {
    case BackendMode::kOff:
      return "off";
    case BackendMode::kAuto:
      return "auto";
    case BackendMode::kPerf:
      return "perf";
    case BackendMode::kPcmHttp:
      return "pcm-http";
    case BackendMode::kPcmCsv:
      return "pcm-csv";
    case BackendMode::kReplay:
      return "replay";
  }
  return "auto";
}

ParsedSamplerConfig ParseSamplerConfig(
    const std::function<std::optional<std::string>(std::string_view)>& lookup) {
  ParsedSamplerConfig out;
  SamplerConfig& c = out.config;
  // The recorder's wording (interpose/src/config.cpp), so every bad FLOPSPY_* value reads alike.
  auto warn = [&](std::string_view var, std::string_view value, std::string_view expected,
                  std::string_view fallback) {
    out.warnings.push_back(std::string(var) + "=\"" + std::string(value) +
                           "\" is not valid (expected " + std::string(expected) + "); using " +
                           std::string(fallback));
  };

  if (auto v = lookup("FLOPSPY_CPU_ROOFLINE")) {
    const std::string_view s = Trim(*v);
    if (s.empty() || s == "auto") {
      c.mode = BackendMode::kAuto;
    } else if (s == "off" || s == "0" || s == "false") {
      c.mode = BackendMode::kOff;
    } else if (s == "perf") {
      c.mode = BackendMode::kPerf;
    } else if (s == "pcm-http") {
      c.mode = BackendMode::kPcmHttp;
    } else if (s == "pcm-csv") {
      c.mode = BackendMode::kPcmCsv;
    } else if (StartsWith(s, "pcm-csv:") && s.size() > 8) {
      c.mode = BackendMode::kPcmCsv;
      c.pcm_csv_path = std::string(s.substr(8));
    } else if (StartsWith(s, "replay:") && s.size() > 7) {
      c.mode = BackendMode::kReplay;
      c.replay_path = std::string(s.substr(7));
    } else {
      warn("FLOPSPY_CPU_ROOFLINE", *v, "off, auto, perf, pcm-http, pcm-csv[:FILE] or replay:FILE",
           "auto");
    }
    c.mode_explicit = c.mode != BackendMode::kAuto && c.mode != BackendMode::kOff;
  }

  auto interval = lookup("FLOPSPY_CPU_INTERVAL_MS");
  const char* interval_var = "FLOPSPY_CPU_INTERVAL_MS";
  if (!interval) {
    if ((interval = lookup("FLOPSPY_CPU_SAMPLE_MS"))) interval_var = "FLOPSPY_CPU_SAMPLE_MS";
  }
  if (interval) {
    auto v = StrictUint(*interval);
    if (v && *v >= 10 && *v <= 60000) {
      c.interval_ms = static_cast<uint32_t>(*v);
    } else {
      warn(interval_var, *interval, "a whole number of milliseconds from 10 to 60000", "100");
    }
  }

  if (auto v = lookup("FLOPSPY_CPU_EVENTS")) c.extra_events = *v;

  if (auto v = lookup("FLOPSPY_CPU_PRECISION")) {
    const std::string s = ToLower(Trim(*v));
    if (s == "all" || s.empty()) {
      c.precision = PrecisionSelect::kAll;
    } else if (s == "dp") {
      c.precision = PrecisionSelect::kDp;
    } else if (s == "sp") {
      c.precision = PrecisionSelect::kSp;
    } else {
      warn("FLOPSPY_CPU_PRECISION", *v, "all, dp or sp", "all");
    }
  }

  auto positive = [&](const char* var, std::optional<double>* dst) {
    if (auto v = lookup(var)) {
      auto d = StrictDecimal(*v);
      if (d && std::isfinite(*d) && *d > 0) {
        *dst = *d;
      } else {
        warn(var, *v, "a positive decimal number such as 850 or 42.5",
             "the measured or theoretical value");
      }
    }
  };
  positive("FLOPSPY_CPU_PEAK_GFLOPS", &c.peak_gflops);
  positive("FLOPSPY_CPU_BW_GBS", &c.bandwidth_gbs);

  if (auto v = lookup("FLOPSPY_CPU_MIN_MS")) {
    auto d = StrictDecimal(*v);
    if (d && *d <= 3.6e6) {
      c.min_trusted_ns = static_cast<uint64_t>(*d * 1e6);
    } else {
      warn("FLOPSPY_CPU_MIN_MS", *v, "a decimal number of milliseconds from 0 to 3600000", "10");
    }
  }

  if (auto v = lookup("FLOPSPY_PCM_URL")) {
    if (StartsWith(Trim(*v), "http://")) {
      c.pcm_url = std::string(Trim(*v));
    } else {
      warn("FLOPSPY_PCM_URL", *v, "an http:// URL", c.pcm_url);
    }
  }
  if (auto v = lookup("FLOPSPY_CPU_RECORD"); v && !v->empty()) c.record_path = *v;
  if (auto v = lookup("FLOPSPY_PCM_CSV")) {
    if (c.pcm_csv_path.empty()) c.pcm_csv_path = *v;
  }
  if (c.mode == BackendMode::kPcmCsv && c.pcm_csv_path.empty()) {
    out.warnings.push_back(
        "FLOPSPY_CPU_ROOFLINE=pcm-csv needs a file (pcm-csv:FILE or FLOPSPY_PCM_CSV); memory "
        "traffic will be unavailable");
  }

  if (auto v = lookup("FLOPSPY_SYSFS_ROOT"); v && !v->empty()) c.paths.sysfs_root = *v;
  if (auto v = lookup("FLOPSPY_PROCFS_ROOT"); v && !v->empty()) c.paths.procfs_root = *v;
  if (auto v = lookup("FLOPSPY_CPUID"); v && !v->empty()) {
    std::string error;
    if (auto id = ParseCpuIdOverride(*v, &error)) {
      c.cpu_override = *id;
    } else {
      warn("FLOPSPY_CPUID", *v, "a CPU description (" + error + ")", "the detected CPU");
    }
  }
  return out;
}

ParsedSamplerConfig ParseSamplerConfig(const std::map<std::string, std::string>& env) {
  return ParseSamplerConfig([&env](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

ParsedSamplerConfig ParseSamplerConfigFromEnvironment() {
  return ParseSamplerConfig([](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  });
}

}  // namespace flopspy::cpuroof
