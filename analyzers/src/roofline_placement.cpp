// Roofline placement, regime classification and run-level HFU/MFU.
#include <algorithm>
#include <cmath>

#include "flopspy/analyzers/roofline.h"
#include "helpers_internal.h"

namespace flopspy::analyzers {
namespace {

bool Known(const std::optional<double>& v) {
  return v && std::isfinite(*v) && *v >= 0;
}

RoofProximity Classify(double fraction, const RegimeThresholds& t) {
  if (!std::isfinite(fraction) || fraction < 0) return RoofProximity::kUnknown;
  if (fraction >= t.near_roof_fraction) return RoofProximity::kNear;
  if (fraction < t.far_from_roof_fraction) return RoofProximity::kFar;
  return RoofProximity::kModerate;
}

// The overhead rules need only durations, so they apply even to work with no FLOPs or bytes.
OverheadReason OverheadTest(double mean_gpu_ns, const std::optional<double>& mean_launch_ns,
                            const RegimeThresholds& t) {
  if (mean_launch_ns && helpers::PositiveFinite(*mean_launch_ns) &&
      helpers::PositiveFinite(t.launch_ratio) && mean_gpu_ns < t.launch_ratio * *mean_launch_ns) {
    return OverheadReason::kShorterThanLaunch;
  }
  if (helpers::PositiveFinite(t.tiny_kernel_ns) && mean_gpu_ns < t.tiny_kernel_ns) {
    return OverheadReason::kTinyKernel;
  }
  return OverheadReason::kNone;
}

}  // namespace

std::string_view RegimeName(Regime regime) {
  switch (regime) {
    case Regime::kUnknown:
      return "unknown";
    case Regime::kComputeBound:
      return "compute_bound";
    case Regime::kMemoryBound:
      return "memory_bound";
    case Regime::kOverheadBound:
      return "overhead_bound";
  }
  return "unknown";
}

std::string_view RoofProximityName(RoofProximity proximity) {
  switch (proximity) {
    case RoofProximity::kUnknown:
      return "unknown";
    case RoofProximity::kNear:
      return "near";
    case RoofProximity::kModerate:
      return "moderate";
    case RoofProximity::kFar:
      return "far";
  }
  return "unknown";
}

std::string_view UnplacedReasonName(UnplacedReason reason) {
  switch (reason) {
    case UnplacedReason::kNone:
      return "none";
    case UnplacedReason::kNoGpuTime:
      return "no_gpu_time";
    case UnplacedReason::kNoFlops:
      return "no_flops";
    case UnplacedReason::kNoBytes:
      return "no_bytes";
    case UnplacedReason::kNoPath:
      return "no_path";
    case UnplacedReason::kNoComputeRoof:
      return "no_compute_roof";
    case UnplacedReason::kNoBandwidthRoof:
      return "no_bandwidth_roof";
    case UnplacedReason::kNoRoofs:
      return "no_roofs";
  }
  return "none";
}

std::string_view OverheadReasonName(OverheadReason reason) {
  switch (reason) {
    case OverheadReason::kNone:
      return "none";
    case OverheadReason::kShorterThanLaunch:
      return "shorter_than_launch";
    case OverheadReason::kTinyKernel:
      return "tiny_kernel";
  }
  return "none";
}

Placement PlaceOnRoofline(const DeviceRoofs& roofs, const WorkSample& work,
                          const RegimeThresholds& thresholds, RoofPreference preference) {
  Placement out;
  out.requested_path = work.path;
  if (const auto peak = ResolvePeak(roofs, work.path, preference)) {
    out.roof_path = peak->path;
    out.peak_flops = peak->flops_per_s;
    out.peak_source = peak->source;
  }
  const Roof& dram = roofs.Bandwidth(MemoryLevel::kDram);
  out.bandwidth = dram.Value(preference);
  out.bandwidth_source = dram.Source(preference);
  if (helpers::PositiveFinite(out.peak_flops) && helpers::PositiveFinite(out.bandwidth)) {
    out.ridge = out.peak_flops / out.bandwidth;
  }

  out.calls = work.calls;
  if (!helpers::PositiveFinite(work.gpu_time_ns) || work.calls == 0) {
    out.unplaced_reason = UnplacedReason::kNoGpuTime;
    return out;
  }
  out.mean_gpu_ns = work.gpu_time_ns / static_cast<double>(work.calls);

  const bool flops_known = Known(work.flops);
  const bool bytes_known = Known(work.bytes);
  const double flops = flops_known ? *work.flops : 0;
  const double bytes = bytes_known ? *work.bytes : 0;
  // The calls each figure covers, and their time: figures per call and rates over them alone.
  const bool flops_part = work.calls_with_flops > 0 && work.calls_with_flops < work.calls;
  const bool bytes_part = work.calls_with_bytes > 0 && work.calls_with_bytes < work.calls;
  const auto flops_calls = static_cast<double>(flops_part ? work.calls_with_flops : work.calls);
  const auto bytes_calls = static_cast<double>(bytes_part ? work.calls_with_bytes : work.calls);
  const double flops_ns = flops_part ? work.flops_time_ns : work.gpu_time_ns;
  const double bytes_ns = bytes_part ? work.bytes_time_ns : work.gpu_time_ns;
  if (flops_known) {
    out.calls_with_flops = static_cast<uint64_t>(flops_calls);
    out.flops_time_ns = flops_ns;
  }
  const double call_flops = flops / flops_calls;
  const double call_bytes = bytes / bytes_calls;

  if (flops_known && helpers::PositiveFinite(flops_ns))
    out.achieved_flops = flops / (flops_ns * 1e-9);
  if (bytes_known && helpers::PositiveFinite(bytes_ns))
    out.achieved_bandwidth = bytes / (bytes_ns * 1e-9);
  if (out.achieved_flops && helpers::PositiveFinite(out.peak_flops)) {
    out.pct_of_peak = 100.0 * *out.achieved_flops / out.peak_flops;
  }
  if (out.achieved_bandwidth && helpers::PositiveFinite(out.bandwidth)) {
    out.pct_of_bandwidth = 100.0 * *out.achieved_bandwidth / out.bandwidth;
  }
  if (flops_known && bytes_known && bytes > 0) out.intensity = call_flops / call_bytes;

  // Work with bytes == 0 has infinite intensity: only the compute roof binds.
  std::optional<BindingRoof> binding;
  if (flops_known && flops > 0 && helpers::PositiveFinite(out.peak_flops) && bytes_known &&
      (bytes == 0 || helpers::PositiveFinite(out.bandwidth))) {
    binding = BindRoof(out.peak_flops, out.bandwidth, out.intensity);
    out.attainable_flops = binding->attainable_flops;
  }
  if (out.attainable_flops && helpers::PositiveFinite(*out.attainable_flops) &&
      out.achieved_flops) {
    out.pct_of_attainable = 100.0 * *out.achieved_flops / *out.attainable_flops;
  } else if (flops_known && flops == 0 && out.pct_of_bandwidth) {
    out.pct_of_attainable = out.pct_of_bandwidth;  // bytes only: the bandwidth roof binds
  }

  // The least time the roofs allow: each known quantity per call at its roof, for every call
  // (the calls of one kernel signature or library shape do the same work).
  {
    double t = 0;
    bool any = false;
    if (flops_known && helpers::PositiveFinite(out.peak_flops)) {
      t = std::max(t, call_flops / out.peak_flops);
      any = true;
    }
    if (bytes_known && helpers::PositiveFinite(out.bandwidth)) {
      t = std::max(t, call_bytes / out.bandwidth);
      any = true;
    }
    if (any) out.roof_time_ns = t * static_cast<double>(work.calls) * 1e9;
  }

  if (out.pct_of_attainable) {
    out.proximity = Classify(*out.pct_of_attainable / 100.0, thresholds);
  }

  out.overhead_reason = OverheadTest(out.mean_gpu_ns, work.mean_launch_ns, thresholds);
  if (out.overhead_reason != OverheadReason::kNone) {
    out.regime = Regime::kOverheadBound;
    return out;
  }
  if (flops_known && flops == 0) {
    if (bytes_known && bytes > 0) {
      out.regime = Regime::kMemoryBound;
    } else {
      out.unplaced_reason = UnplacedReason::kNoBytes;
    }
    return out;
  }
  // No intensity: no honest regime.
  if (!flops_known) {
    out.unplaced_reason = UnplacedReason::kNoFlops;
    return out;
  }
  if (!bytes_known) {
    out.unplaced_reason = UnplacedReason::kNoBytes;
    return out;
  }
  if (bytes == 0) {
    out.regime = Regime::kComputeBound;
    return out;
  }
  if (!binding || !out.ridge) {  // a roof is missing
    out.unplaced_reason =
        !helpers::PositiveFinite(out.peak_flops)
            ? (work.path == ComputePath::kUnknown ? UnplacedReason::kNoPath
                                                  : UnplacedReason::kNoComputeRoof)
            : UnplacedReason::kNoBandwidthRoof;
    return out;
  }
  out.regime = binding->regime;
  return out;
}

BindingRoof BindRoof(double peak, double bandwidth, std::optional<double> intensity) {
  BindingRoof out;
  out.attainable_flops = peak;
  if (!helpers::PositiveFinite(bandwidth) || !intensity || !std::isfinite(*intensity)) return out;
  out.attainable_flops = std::min(peak, *intensity * bandwidth);
  if (*intensity < peak / bandwidth) out.regime = Regime::kMemoryBound;
  return out;
}

Placement PlaceRate(double peak, double bandwidth, std::optional<double> flops_per_s,
                    std::optional<double> intensity, const RegimeThresholds& thresholds) {
  Placement out;
  out.peak_flops = helpers::PositiveFinite(peak) ? peak : 0;
  out.bandwidth = helpers::PositiveFinite(bandwidth) ? bandwidth : 0;
  if (out.peak_flops > 0 && out.bandwidth > 0) out.ridge = out.peak_flops / out.bandwidth;
  out.intensity = intensity;
  out.achieved_flops = flops_per_s;
  if (!flops_per_s || out.peak_flops == 0) {
    out.unplaced_reason = !flops_per_s ? UnplacedReason::kNoFlops : UnplacedReason::kNoComputeRoof;
    return out;
  }
  const BindingRoof binding = BindRoof(out.peak_flops, out.bandwidth, intensity);
  out.regime = binding.regime;
  out.attainable_flops = binding.attainable_flops;
  out.pct_of_peak = 100.0 * *flops_per_s / out.peak_flops;
  if (binding.attainable_flops > 0) {
    out.pct_of_attainable = 100.0 * *flops_per_s / binding.attainable_flops;
    out.proximity = Classify(*out.pct_of_attainable / 100.0, thresholds);
  }
  return out;
}

std::optional<Utilization> ComputeUtilization(const DeviceRoofs& roofs, ComputePath path,
                                              std::optional<double> hardware_flops,
                                              std::optional<double> model_flops,
                                              double wall_seconds) {
  if (!helpers::PositiveFinite(wall_seconds)) return std::nullopt;
  const auto nominal = ResolvePeak(roofs, path, RoofPreference::kNominalOnly);
  const auto preferred = ResolvePeak(roofs, path, RoofPreference::kPreferMeasured);
  if (!nominal && !preferred) return std::nullopt;

  Utilization out;
  out.requested_path = path;
  out.roof_path = nominal ? nominal->path : preferred->path;
  if (nominal) {
    out.nominal_peak = nominal->flops_per_s;
    out.nominal_source = nominal->source;
  }
  // The measured roof may sit earlier on the chain than the nominal one (a path measured on a
  // device whose datasheet gives no figure for it).
  if (preferred && preferred->source == RoofSource::kMeasured) {
    out.measured_peak = preferred->flops_per_s;
  }

  auto rate = [&](const std::optional<double>& flops) -> std::optional<double> {
    if (!Known(flops)) return std::nullopt;
    return *flops / wall_seconds;
  };
  out.hardware_flops_per_s = rate(hardware_flops);
  out.model_flops_per_s = rate(model_flops);
  auto fraction = [](const std::optional<double>& r, double peak) -> std::optional<double> {
    if (!r || !helpers::PositiveFinite(peak)) return std::nullopt;
    return *r / peak;
  };
  out.hfu = fraction(out.hardware_flops_per_s, out.nominal_peak);
  out.mfu = fraction(out.model_flops_per_s, out.nominal_peak);
  out.hfu_measured = fraction(out.hardware_flops_per_s, out.measured_peak);
  out.mfu_measured = fraction(out.model_flops_per_s, out.measured_peak);
  return out;
}

}  // namespace flopspy::analyzers
