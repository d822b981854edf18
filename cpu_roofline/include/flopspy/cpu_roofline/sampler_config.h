// Configuration of the CPU roofline sampler from FLOPSPY_* environment variables, parsed by a
// pure function: a bad value gives one warning line and the default (docs/architecture.md, decision
// 9). Numbers are read as the recorder reads its own (interpose/src/config.cpp): the whole value,
// plain decimal digits (and for the fractional ones an optional ".digits"); no spaces, signs,
// hexadecimal or exponents.
//
//   FLOPSPY_CPU_ROOFLINE     off | auto (default) | perf | pcm-http | pcm-csv[:FILE] | replay:FILE
//   FLOPSPY_CPU_INTERVAL_MS  sampler period, 10..60000, default 100
//   FLOPSPY_CPU_EVENTS       extra events, see extra_events.h
//   FLOPSPY_CPU_PRECISION    all (default) | dp | sp: which FP events to open
//   FLOPSPY_CPU_PEAK_GFLOPS  compute roof override (GFLOP/s, all cores)
//   FLOPSPY_CPU_BW_GBS       DRAM bandwidth roof override (GB/s)
//   FLOPSPY_CPU_MIN_MS       points shorter than this are flagged too short (default 10)
//   FLOPSPY_PCM_URL          pcm-sensor-server, default http://127.0.0.1:9738/
//   FLOPSPY_PCM_CSV          pcm-memory CSV file for pcm-csv
//   FLOPSPY_CPU_RECORD       write every counter reading to FILE (replay format; %p = pid)
//   FLOPSPY_SYSFS_ROOT, FLOPSPY_PROCFS_ROOT, FLOPSPY_CPUID   test overrides
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/cpu_roofline/cpu_identity.h"
#include "flopspy/cpu_roofline/event_catalog.h"

namespace flopspy::cpuroof {

enum class BackendMode : uint8_t { kOff, kAuto, kPerf, kPcmHttp, kPcmCsv, kReplay };
std::string_view BackendModeName(BackendMode mode);

struct SamplerConfig {
  BackendMode mode = BackendMode::kAuto;
  // FLOPSPY_CPU_ROOFLINE named a valid source other than auto: what that source cannot measure
  // is then said on stderr (auto, the default, only records it in the trace).
  bool mode_explicit = false;
  std::string replay_path;
  std::string pcm_url = "http://127.0.0.1:9738/";
  std::string pcm_csv_path;
  std::string record_path;  // FLOPSPY_CPU_RECORD
  uint32_t interval_ms = 100;
  std::string extra_events;
  PrecisionSelect precision = PrecisionSelect::kAll;
  std::optional<double> peak_gflops;
  std::optional<double> bandwidth_gbs;
  uint64_t min_trusted_ns = 10'000'000;
  HostPaths paths;
  std::optional<CpuIdentity> cpu_override;
  int pcm_timeout_ms = 200;
};

struct ParsedSamplerConfig {
  SamplerConfig config;
  std::vector<std::string> warnings;  // one line each, without the "flopspy: " prefix
};

// `lookup(name)` returns the variable's value, or nullopt when unset.
ParsedSamplerConfig ParseSamplerConfig(
    const std::function<std::optional<std::string>(std::string_view)>& lookup);
ParsedSamplerConfig ParseSamplerConfig(const std::map<std::string, std::string>& env);
ParsedSamplerConfig ParseSamplerConfigFromEnvironment();

}  // namespace flopspy::cpuroof
