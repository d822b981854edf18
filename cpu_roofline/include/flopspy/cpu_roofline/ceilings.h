// CPU ceilings (`flopspy ceilings --cpu`): peak FP64/FP32 FLOP/s per core and for all cores per
// instruction set (independent FMA chains, latency x pipes of them), and load/store/copy/triad
// bandwidth over a working-set sweep, reduced to L1, L2, L3 and DRAM roofs; the theoretical peak
// from the CPU's features and frequency beside the measured one. Saved as JSON keyed by CPU model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/cpu_roofline/cpu_identity.h"
#include "flopspy/platform/safe_file.h"

namespace flopspy::cpuroof {

enum class Isa : uint8_t { kScalar = 0, kSse = 1, kAvx2 = 2, kAvx512 = 3, kNeon = 4 };
std::string_view IsaName(Isa isa);
std::optional<Isa> IsaFromName(std::string_view name);
int IsaBits(Isa isa);
// The instruction sets this binary can run here (checked at run time).
std::vector<Isa> SupportedIsas();

struct TheoreticalIsaPeak {
  Isa isa = Isa::kScalar;
  double dp_flops_per_cycle = 0;  // per core
  double sp_flops_per_cycle = 0;
  double dp_gflops_core = 0;  // at the nominal frequency
  double sp_gflops_core = 0;
  double dp_gflops_all = 0;  // all physical cores
  double sp_gflops_all = 0;
};

struct TheoreticalPeak {
  std::string basis;  // "AMD Zen 4: 2 FMA pipes x 256-bit datapath, FMA latency 4"
  int fma_pipes = 2;
  int datapath_bits = 128;
  int fma_latency = 4;
  bool fma = true;
  double nominal_ghz = 0;
  double max_ghz = 0;  // 0: not published by this host
  int cores = 1;
  std::vector<TheoreticalIsaPeak> isas;
  // Accumulators needed to keep the FMA pipes busy: latency x pipes (x 2 for 512-bit ops on
  // cores whose datapath is narrower, which issue them on fewer pipes).
  int AccumulatorsFor(Isa isa) const;
  const TheoreticalIsaPeak* Find(Isa isa) const;
};
TheoreticalPeak ComputeTheoreticalPeak(const CpuIdentity& cpu);

struct FlopsCeiling {
  Isa isa = Isa::kScalar;
  Precision precision = Precision::kDp;
  int threads = 1;
  int accumulators = 0;
  double gflops = 0;
  double theoretical_gflops = 0;  // at nominal frequency, same ISA/precision/threads
};

struct BandwidthSample {
  std::string kernel;              // load, store, copy, triad
  uint64_t working_set_bytes = 0;  // per thread
  int threads = 1;
  double gbytes_per_s = 0;  // STREAM accounting: bytes the kernel loads and stores
};

struct BandwidthCeiling {
  std::string level;  // L1, L2, L3, DRAM
  std::string kernel;
  int threads = 1;
  double gbytes_per_s = 0;
  uint64_t working_set_bytes = 0;  // of the best sample
};

struct CacheSizes {
  uint64_t l1d = 0, l2 = 0, l3 = 0;  // bytes; l2/l3 per cache instance
};
CacheSizes DetectCacheSizes(const HostPaths& paths = {});

struct CpuCeilings {
  int version = 1;
  std::string cpu_key;  // CpuModelKey
  std::string cpu_model;
  std::string cpu;      // DescribeCpu
  std::string created;  // UTC, ISO 8601
  bool quick = false;
  double seconds = 0;   // time the measurement took
  int threads_all = 1;  // threads of the all-core runs
  CacheSizes caches;
  TheoreticalPeak theoretical;
  std::vector<FlopsCeiling> flops;
  std::vector<BandwidthSample> sweep;
  std::vector<BandwidthCeiling> bandwidth;
  std::vector<std::string> notes;

  // Best measured FLOP/s for a precision over all ISAs; threads 0: the all-core runs.
  std::optional<double> PeakGflops(Precision precision, int threads) const;
  // A level's roof: `kernel` ("" = the best kernel); threads 0: the all-core runs.
  std::optional<double> Bandwidth(std::string_view level, std::string_view kernel,
                                  int threads) const;
};

struct CeilingsOptions {
  bool quick = false;            // a few tenths of a second per kind: for tests and first runs
  double seconds_per_point = 0;  // 0: 0.01 s quick, 0.1 s full
  int repeats = 0;               // 0: 1 quick, 3 full (the maximum is kept)
  int max_threads = 0;           // 0: one per physical core the process may run on
  bool flops = true;
  bool bandwidth = true;
  // 0: 4 x L3 (at least 64 MiB), capped by memory, and at 256 MiB per thread when quick
  uint64_t max_working_set = 0;
};

// Runs the microbenchmarks (bounded time: a few seconds quick, under a minute full).
CpuCeilings RunCpuCeilings(const CeilingsOptions& options);
CpuCeilings RunCpuCeilings(const CeilingsOptions& options, const CpuIdentity& cpu,
                           const CacheSizes& caches);

// ~/.cache/flopspy/ceilings-cpu-<key>.json ($XDG_CACHE_HOME honoured); the key is
// CpuModelKey, also in the trace metadata (Capabilities::cpu_key) for the report.
std::string DefaultCeilingsPath(const CpuIdentity& cpu);
std::string CeilingsPathForKey(const std::string& cpu_key);
std::string CeilingsToJson(const CpuCeilings& ceilings);
std::optional<CpuCeilings> CeilingsFromJson(std::string_view json, std::string* error);

// Writes the ceilings to `path` without ever following a link or truncating a file in place:
// the cache (DefaultCeilingsPath) or a file the user named (-o), as platform::SaveFile says.
bool SaveCeilings(const CpuCeilings& ceilings, const std::string& path, std::string* error,
                  platform::Destination destination = platform::Destination::kPrivateCache);
// Reads a regular file of at most platform::kMaxSettingsFileBytes; FIFOs and devices are
// refused unopened.
std::optional<CpuCeilings> LoadCeilings(const std::string& path, std::string* error);

}  // namespace flopspy::cpuroof
