// The roofs model: roof values, the fallback chain and ridge points.
#include "flopspy/analyzers/roofline.h"

#include <array>
#include <cmath>

#include "helpers_internal.h"

namespace flopspy::analyzers {
namespace {

using P = ComputePath;

// docs/gpu-peaks.md, "Fallback chain", says why each step holds.
constexpr std::array<P, 1> kFp64Chain = {P::kFp64};
constexpr std::array<P, 1> kFp32Chain = {P::kFp32};
constexpr std::array<P, 2> kFp16Chain = {P::kFp16, P::kFp32};
constexpr std::array<P, 2> kBf16Chain = {P::kBf16, P::kFp32};
constexpr std::array<P, 2> kFp64TensorChain = {P::kFp64Tensor, P::kFp64};
constexpr std::array<P, 2> kTf32TensorChain = {P::kTf32Tensor, P::kFp32};
constexpr std::array<P, 3> kFp16TensorChain = {P::kFp16Tensor, P::kFp16, P::kFp32};
constexpr std::array<P, 4> kFp16HalfAccChain = {P::kFp16TensorHalfAcc, P::kFp16Tensor, P::kFp16,
                                                P::kFp32};
constexpr std::array<P, 3> kBf16TensorChain = {P::kBf16Tensor, P::kBf16, P::kFp32};
constexpr std::array<P, 4> kFp8TensorChain = {P::kFp8Tensor, P::kFp16Tensor, P::kFp16, P::kFp32};
constexpr std::array<P, 2> kInt8TensorChain = {P::kInt8Tensor, P::kFp32};
constexpr std::array<P, 5> kFp4TensorChain = {P::kFp4Tensor, P::kFp8Tensor, P::kFp16Tensor,
                                              P::kFp16, P::kFp32};

}  // namespace

std::string_view RoofSourceName(RoofSource source) {
  switch (source) {
    case RoofSource::kNone:
      return "none";
    case RoofSource::kDatasheet:
      return "datasheet";
    case RoofSource::kComputed:
      return "computed";
    case RoofSource::kMeasured:
      return "measured";
  }
  return "none";
}

double Roof::Value(RoofPreference preference) const {
  if (preference == RoofPreference::kPreferMeasured && helpers::PositiveFinite(measured))
    return measured;
  return helpers::PositiveFinite(nominal) ? nominal : 0;
}

RoofSource Roof::Source(RoofPreference preference) const {
  if (preference == RoofPreference::kPreferMeasured && helpers::PositiveFinite(measured)) {
    return RoofSource::kMeasured;
  }
  return helpers::PositiveFinite(nominal) ? nominal_source : RoofSource::kNone;
}

std::span<const ComputePath> PeakFallbackChain(ComputePath path) {
  switch (path) {
    case P::kFp64:
      return kFp64Chain;
    case P::kFp32:
      return kFp32Chain;
    case P::kFp16:
      return kFp16Chain;
    case P::kBf16:
      return kBf16Chain;
    case P::kFp64Tensor:
      return kFp64TensorChain;
    case P::kTf32Tensor:
      return kTf32TensorChain;
    case P::kFp16Tensor:
      return kFp16TensorChain;
    case P::kFp16TensorHalfAcc:
      return kFp16HalfAccChain;
    case P::kBf16Tensor:
      return kBf16TensorChain;
    case P::kFp8Tensor:
      return kFp8TensorChain;
    case P::kInt8Tensor:
      return kInt8TensorChain;
    case P::kFp4Tensor:
      return kFp4TensorChain;
    case P::kUnknown:
    case P::kCount:
      break;
  }
  return {};
}

std::optional<ResolvedPeak> ResolvePeak(const DeviceRoofs& roofs, ComputePath requested,
                                        RoofPreference preference) {
  for (ComputePath candidate : PeakFallbackChain(requested)) {
    const Roof& roof = roofs.Flops(candidate);
    if (!roof.Available(preference)) continue;
    ResolvedPeak out;
    out.requested = requested;
    out.path = candidate;
    out.flops_per_s = roof.Value(preference);
    out.source = roof.Source(preference);
    out.roof = roof;
    return out;
  }
  return std::nullopt;
}

std::optional<double> RidgePoint(const DeviceRoofs& roofs, ComputePath path, MemoryLevel level,
                                 RoofPreference preference) {
  if (level == MemoryLevel::kCount) return std::nullopt;
  const auto peak = ResolvePeak(roofs, path, preference);
  const double bandwidth = roofs.Bandwidth(level).Value(preference);
  if (!peak || !helpers::PositiveFinite(bandwidth)) return std::nullopt;
  return peak->flops_per_s / bandwidth;
}

std::optional<double> MinSecondsToMove(const DeviceRoofs& roofs, double bytes, MemoryLevel level,
                                       RoofPreference preference) {
  if (level == MemoryLevel::kCount || !std::isfinite(bytes) || bytes < 0) return std::nullopt;
  const double bandwidth = roofs.Bandwidth(level).Value(preference);
  if (!helpers::PositiveFinite(bandwidth)) return std::nullopt;
  return bytes / bandwidth;
}

}  // namespace flopspy::analyzers
