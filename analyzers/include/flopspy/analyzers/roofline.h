// Roofs and roofline placement: the peaks a device offers per compute path and memory level,
// where a piece of work (a GPU kernel group, a CPU counter sample) sits against them, its regime,
// and run-level HFU/MFU.
//
// Pure functions over plain data. The device peak table, the computed-peak formula and the
// measured-ceilings file live in gpu_roofline/; they fill a DeviceRoofs. docs/gpu-peaks.md
// documents every number, the fallback chain and the thresholds below.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/compute_path.h"

namespace flopspy::analyzers {

inline constexpr size_t kMemoryLevelCount = static_cast<size_t>(MemoryLevel::kCount);

// Where a roof's number comes from. The report prints it beside every roof.
enum class RoofSource : uint8_t {
  kNone = 0,       // no figure: the path or level is not available (or not known) on this device
  kDatasheet = 1,  // vendor datasheet or architecture whitepaper (dense: sparse figures halved)
  kComputed = 2,   // SMs x clock x operations per clock, or memory clock x bus width x 2
  kMeasured = 3,   // a ceilings file written by `flopspy ceilings --gpu` on this very device
};
std::string_view RoofSourceName(RoofSource source);

// Which figure a roof answers with when it has both.
enum class RoofPreference : uint8_t {
  kPreferMeasured = 0,  // measured when present, else nominal (what the report plots)
  kNominalOnly = 1,     // datasheet or computed only (what MFU conventionally divides by)
};

// One roof. The nominal figure (datasheet or computed) is kept when a measured one arrives, so
// the report can show both side by side.
struct Roof {
  double nominal = 0;  // FLOP/s (or op/s for int8) or bytes/s; 0 = no figure
  RoofSource nominal_source = RoofSource::kNone;
  double measured = 0;  // 0 = not measured

  double Value(RoofPreference preference = RoofPreference::kPreferMeasured) const;
  RoofSource Source(RoofPreference preference = RoofPreference::kPreferMeasured) const;
  bool Available(RoofPreference preference = RoofPreference::kPreferMeasured) const {
    return Value(preference) > 0;
  }
};

// The roofs of one device. Peaks are dense (no structured sparsity).
struct DeviceRoofs {
  std::string name;       // the table entry's name, or the runtime name for computed roofs
  std::string table_key;  // device table key ("h100-sxm5"); empty when not from the table
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  double boost_clock_mhz = 0;
  uint64_t l2_bytes = 0;      // 0 = unknown
  uint64_t memory_bytes = 0;  // 0 = unknown
  std::array<Roof, kComputePathCount> flops{};
  std::array<Roof, kMemoryLevelCount> bandwidth{};
  std::vector<std::string> notes;  // caveats the report should print (MIG scaling, assumed rates)

  Roof& Flops(ComputePath path) { return flops[static_cast<size_t>(path)]; }
  const Roof& Flops(ComputePath path) const { return flops[static_cast<size_t>(path)]; }
  Roof& Bandwidth(MemoryLevel level) { return bandwidth[static_cast<size_t>(level)]; }
  const Roof& Bandwidth(MemoryLevel level) const { return bandwidth[static_cast<size_t>(level)]; }
};

// The fallback chain of a path: the path itself, then the paths whose roof bounds the same work
// on a device with no figure for the one before (docs/gpu-peaks.md, "Fallback chain"). It ends on
// a CUDA-core path; kUnknown has an empty chain.
std::span<const ComputePath> PeakFallbackChain(ComputePath path);

// The compute roof a piece of work on `requested` is held against, after the fallback chain.
struct ResolvedPeak {
  ComputePath requested = ComputePath::kUnknown;
  ComputePath path = ComputePath::kUnknown;  // the path whose roof was used
  double flops_per_s = 0;                    // per the preference
  RoofSource source = RoofSource::kNone;
  Roof roof;  // both figures of the roof used

  bool FellBack() const { return path != requested; }
};
std::optional<ResolvedPeak> ResolvePeak(
    const DeviceRoofs& roofs, ComputePath requested,
    RoofPreference preference = RoofPreference::kPreferMeasured);

// Ridge point in FLOP per byte: the resolved peak of `path` over the bandwidth of `level`.
// nullopt when either roof is missing.
std::optional<double> RidgePoint(const DeviceRoofs& roofs, ComputePath path,
                                 MemoryLevel level = MemoryLevel::kDram,
                                 RoofPreference preference = RoofPreference::kPreferMeasured);

// Lower bound on the seconds needed to move `bytes` through `level` at its roof.
std::optional<double> MinSecondsToMove(const DeviceRoofs& roofs, double bytes,
                                       MemoryLevel level = MemoryLevel::kDram,
                                       RoofPreference preference = RoofPreference::kPreferMeasured);

// ---------------------------------------------------------------------------------------------
// Placement and regime

enum class Regime : uint8_t {
  kUnknown = 0,        // no FLOPs/bytes to place, no roof to place against, or no GPU time
  kComputeBound = 1,   // arithmetic intensity at or above the ridge point
  kMemoryBound = 2,    // arithmetic intensity below the ridge point (or no FLOPs, only bytes)
  kOverheadBound = 3,  // shorter than its launch, or tiny (RegimeThresholds)
};
std::string_view RegimeName(Regime regime);

// How close achieved work is to the roof that binds it (the attainable FLOP/s at its intensity).
enum class RoofProximity : uint8_t {
  kUnknown = 0,
  kNear = 1,      // >= near_roof_fraction of attainable
  kModerate = 2,  // between the two thresholds
  kFar = 3,       // < far_from_roof_fraction of attainable
};
std::string_view RoofProximityName(RoofProximity proximity);

enum class OverheadReason : uint8_t {
  kNone = 0,
  kShorterThanLaunch = 1,  // mean GPU time per call < launch_ratio x mean CPU launch cost
  kTinyKernel = 2,         // mean GPU time per call < tiny_kernel_ns
};
std::string_view OverheadReasonName(OverheadReason reason);

// Thresholds of the regime classification; docs/gpu-peaks.md says where each comes from.
struct RegimeThresholds {
  // Nsight Compute's speed-of-light rules: above 80% of a unit's peak the unit is the limiter;
  // below 60% of peak on both compute and memory "typically indicate[s] latency issues".
  double near_roof_fraction = 0.80;
  double far_from_roof_fraction = 0.60;
  // A kernel whose mean duration is under one launch's CPU cost (a few microseconds per launch,
  // docs/gpu-peaks.md) cannot be fed back to back from an eager host loop. 0 disables the rule
  // (for kernels replayed from CUDA graphs, say).
  double tiny_kernel_ns = 5000;
  // Overhead bound when the mean GPU time per call is below this multiple of the mean CPU launch
  // cost measured for the same kernel.
  double launch_ratio = 1.0;
};

// One kernel signature or library call, aggregated over its calls. FLOPs and bytes are totals;
// nullopt means unknown (a known zero is a value: a copy kernel has 0 FLOPs).
struct WorkSample {
  std::optional<double> flops;
  std::optional<double> bytes;  // DRAM bytes
  ComputePath path = ComputePath::kUnknown;
  double gpu_time_ns = 0;  // total GPU duration of all calls
  uint64_t calls = 1;
  std::optional<double> mean_launch_ns;  // mean CPU launch cost per call, when measured
  // When only some calls have a FLOP (byte) figure, those calls and their GPU time (0: all
  // `calls`, over `gpu_time_ns`): `flops` and `bytes` are theirs. Rates, intensity and the share
  // of the roof are taken over them alone, so calls without figures neither dilute a rate nor
  // count as placed (docs/flopspy-report.md, "Kernels").
  uint64_t calls_with_flops = 0;
  double flops_time_ns = 0;
  uint64_t calls_with_bytes = 0;
  double bytes_time_ns = 0;
};

// Why a placement has no regime (Regime::kUnknown); every output says it beside the "?".
enum class UnplacedReason : uint8_t {
  kNone = 0,             // placed (or overhead bound, which needs no figures)
  kNoGpuTime = 1,        // no call has a GPU time
  kNoFlops = 2,          // no call has a FLOP figure (no library call, catalog entry or counters)
  kNoBytes = 3,          // FLOPs known, DRAM bytes not: no intensity
  kNoPath = 4,           // the data types are unknown, so no compute roof can be chosen
  kNoComputeRoof = 5,    // the device has no roof for the path (nor down its fallback chain)
  kNoBandwidthRoof = 6,  // the device has no DRAM roof
  kNoRoofs = 7,          // the device's roofs are unknown (set by the caller: nothing to place on)
};
// "no_gpu_time", "no_flops", ...: the JSON's words.
std::string_view UnplacedReasonName(UnplacedReason reason);

struct Placement {
  Regime regime = Regime::kUnknown;
  OverheadReason overhead_reason = OverheadReason::kNone;
  RoofProximity proximity = RoofProximity::kUnknown;
  UnplacedReason unplaced_reason = UnplacedReason::kNone;  // set when regime is kUnknown

  // The basis of the rates: all calls, and those whose FLOPs are known (equal unless FLOPs came
  // for some calls only; 0 when none).
  uint64_t calls = 0;
  uint64_t calls_with_flops = 0;
  double flops_time_ns = 0;  // their GPU time

  // The roofs used.
  ComputePath requested_path = ComputePath::kUnknown;
  ComputePath roof_path = ComputePath::kUnknown;  // after the fallback chain
  double peak_flops = 0;                          // 0 when no compute roof was found
  RoofSource peak_source = RoofSource::kNone;
  double bandwidth = 0;  // DRAM roof, bytes/s; 0 when none
  RoofSource bandwidth_source = RoofSource::kNone;

  // The position.
  double mean_gpu_ns = 0;                    // per call
  std::optional<double> intensity;           // FLOP per DRAM byte; nullopt if unknown or bytes == 0
  std::optional<double> ridge;               // FLOP per byte
  std::optional<double> attainable_flops;    // min(peak, intensity x bandwidth)
  std::optional<double> achieved_flops;      // FLOP/s
  std::optional<double> achieved_bandwidth;  // bytes/s
  std::optional<double> pct_of_attainable;   // 100 x achieved / attainable (FLOPs, or bytes when
                                             // the work has no FLOPs)
  std::optional<double> pct_of_peak;         // 100 x achieved FLOP/s / compute roof
  std::optional<double> pct_of_bandwidth;    // 100 x achieved bytes/s / bandwidth roof
  std::optional<double> roof_time_ns;        // max(flops / peak, bytes / bandwidth) per call,
                                             // times the calls: the least GPU time the roofs
                                             // allow for all calls
};

Placement PlaceOnRoofline(const DeviceRoofs& roofs, const WorkSample& work,
                          const RegimeThresholds& thresholds = {},
                          RoofPreference preference = RoofPreference::kPreferMeasured);

// The one placement rule: work at `intensity` FLOP per byte attains min(peak, intensity x
// bandwidth) and is memory bound below the ridge (peak / bandwidth), compute bound at or above
// it. An unknown or infinite intensity, or no bandwidth roof, leaves the compute roof binding.
// `peak` must be positive.
struct BindingRoof {
  double attainable_flops = 0;
  Regime regime = Regime::kComputeBound;
};
BindingRoof BindRoof(double peak, double bandwidth, std::optional<double> intensity);

// A rate measured over a span (a CPU counter sample) placed under one compute roof and one DRAM
// roof (0 = none) by BindRoof: fills the roofs, ridge, intensity, achieved and attainable FLOP/s,
// the % of attainable and of peak, the proximity and the regime. Roof sources stay kNone: the
// caller names its own roofs. Nothing is placed without a FLOP rate or a compute roof.
Placement PlaceRate(double peak, double bandwidth, std::optional<double> flops_per_s,
                    std::optional<double> intensity, const RegimeThresholds& thresholds = {});

// ---------------------------------------------------------------------------------------------
// Run level: HFU and MFU of one device (docs/architecture.md, "Words the code uses"). Both are
// fractions of the peak of `path` over the wall time. HFU counts the FLOPs the hardware executed
// (recomputation included); MFU counts the FLOPs the model needs (analytic GEMM/attention FLOPs).

struct Utilization {
  ComputePath requested_path = ComputePath::kUnknown;
  ComputePath roof_path = ComputePath::kUnknown;
  double nominal_peak = 0;  // datasheet or computed: the conventional MFU denominator
  RoofSource nominal_source = RoofSource::kNone;
  double measured_peak = 0;  // 0 when the roof was not measured
  std::optional<double> hardware_flops_per_s;
  std::optional<double> model_flops_per_s;
  std::optional<double> hfu;           // fraction of the nominal peak
  std::optional<double> mfu;           // fraction of the nominal peak
  std::optional<double> hfu_measured;  // fraction of the measured roof, when there is one
  std::optional<double> mfu_measured;
};

// nullopt when the wall time is not positive or the device has no roof on the path's chain.
std::optional<Utilization> ComputeUtilization(const DeviceRoofs& roofs, ComputePath path,
                                              std::optional<double> hardware_flops,
                                              std::optional<double> model_flops,
                                              double wall_seconds);

}  // namespace flopspy::analyzers
