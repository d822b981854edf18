#include "flopspy/analyzers/gemm_diagnostics.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/display_text.h"

namespace flopspy::analyzers {
namespace {

using trace::LibraryCallRecord;

// Below this share of lost time a quantization finding is not worth a line.
constexpr double kMinWaveLoss = 0.01;
constexpr double kMinTileWaveLoss = 0.05;
constexpr double kMinPadding = 0.01;
// K below this leaves each output element too few multiply-adds to hide the C traffic.
constexpr int64_t kTinyK = 64;
// The short side of a skinny GEMM, and how much longer the long side must be.
constexpr int64_t kSkinnyShortSide = 64;
constexpr int64_t kSkinnyRatio = 16;

[[gnu::format(printf, 1, 2)]] std::string Format(const char* format, ...) {
  char buffer[768];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  if (n < 0) return {};
  return std::string(buffer, std::min<size_t>(static_cast<size_t>(n), sizeof buffer - 1));
}

FindingSeverity SeverityOfLoss(double lost) {
  if (lost >= 1.0 / 3.0) return FindingSeverity::kSevere;
  if (lost >= 0.10) return FindingSeverity::kWarning;
  return FindingSeverity::kInfo;
}

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

bool IsBatchedRoutine(BlasRoutine r) {
  return r == BlasRoutine::kGemmBatched || r == BlasRoutine::kGemmStridedBatched ||
         r == BlasRoutine::kGemmGroupedBatched || r == BlasRoutine::kGemm3mBatched ||
         r == BlasRoutine::kGemm3mStridedBatched || r == BlasRoutine::kLtMatmul;
}

uint8_t OutputType(const LibraryCallRecord& r) {
  return r.type_d != kNotApplicable ? r.type_d : r.type_c;
}

// "a", "a and b", "a, b and c".
std::string JoinList(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

// "on CUDA cores (fp32), where it matters less" for paths that do not use tensor cores.
std::string UnitClause(ComputePath path) {
  if (IsTensorPath(path)) return "";
  return Format(" (this call runs on CUDA cores, %.*s, where it matters less)",
                static_cast<int>(ComputePathName(path).size()), ComputePathName(path).data());
}

struct Dim {
  const char* name;
  int64_t value;
  int multiple;
  uint8_t type;  // the operand whose element size set the multiple
};

void CheckDimensions(const LibraryCallRecord& r, ComputePath path, std::vector<GemmFinding>& out) {
  const auto strictest = [](std::initializer_list<uint8_t> types, uint8_t* which) {
    int best = 0;
    for (uint8_t t : types) {
      const int m = TensorCoreElementMultiple(t);
      if (m > best) {
        best = m;
        *which = t;
      }
    }
    return best;
  };
  const uint8_t out_type = OutputType(r);
  Dim dims[3] = {
      {"m", r.m, 0, kNotApplicable}, {"n", r.n, 0, kNotApplicable}, {"k", r.k, 0, kNotApplicable}};
  dims[0].multiple = strictest({r.type_a, out_type}, &dims[0].type);
  dims[1].multiple = strictest({r.type_b, out_type}, &dims[1].type);
  dims[2].multiple = strictest({r.type_a, r.type_b}, &dims[2].type);

  GemmFinding f{GemmFindingKind::kDimensionAlignment,
                IsTensorPath(path) ? FindingSeverity::kWarning : FindingSeverity::kInfo,
                {},
                std::nullopt,
                std::nullopt,
                {}};
  // Dimensions that miss the same multiple of the same type are told together.
  std::vector<std::string> groups, padded;
  std::vector<std::string> names;
  int group_multiple = 0;
  uint8_t group_type = kNotApplicable;
  const auto close_group = [&] {
    if (names.empty()) return;
    const std::string_view type = DataTypeName(group_type);
    groups.push_back(JoinList(names) + Format(names.size() == 1 ? " is not a multiple of %d (%.*s)"
                                                                : " are not multiples of %d (%.*s)",
                                              group_multiple, static_cast<int>(type.size()),
                                              type.data()));
    names.clear();
  };
  for (const Dim& d : dims) {
    if (d.multiple <= 1 || d.value <= 0 || d.value % d.multiple == 0) continue;
    if (d.multiple != group_multiple || d.type != group_type) close_group();
    group_multiple = d.multiple;
    group_type = d.type;
    names.push_back(Format("%s = %lld", d.name, static_cast<long long>(d.value)));
    padded.push_back(
        Format("%s = %lld", d.name, static_cast<long long>(RoundUp(d.value, d.multiple))));
    f.numbers.push_back({d.name, static_cast<double>(d.value)});
    f.numbers.push_back({d.name[0] == 'm'   ? "m_multiple"
                         : d.name[0] == 'n' ? "n_multiple"
                                            : "k_multiple",
                         static_cast<double>(d.multiple)});
  }
  close_group();
  const std::vector<std::string>& bad = groups;
  if (bad.empty()) return;
  f.sentence = "Tensor cores want every GEMM dimension to span a multiple of 16 bytes, but " +
               JoinList(bad) + "; padding to " + JoinList(padded) +
               " lets cuBLAS pick its fastest kernels" + UnitClause(path) + ".";
  out.push_back(std::move(f));
}

void CheckLeadingDimensions(const LibraryCallRecord& r, BlasRoutine routine, ComputePath path,
                            std::vector<GemmFinding>& out) {
  struct Ld {
    const char* name;
    int64_t value;
    uint8_t type;
  };
  const bool strided =
      (routine == BlasRoutine::kGemmStridedBatched ||
       routine == BlasRoutine::kGemm3mStridedBatched || routine == BlasRoutine::kLtMatmul) &&
      r.batch > 1;
  std::vector<Ld> lds = {
      {"lda", r.lda, r.type_a}, {"ldb", r.ldb, r.type_b}, {"ldc", r.ldc, r.type_c}};
  if (r.type_d != kNotApplicable) lds.push_back({"ldd", r.ldd, r.type_d});
  if (strided) {
    lds.push_back({"strideA", r.stride_a, r.type_a});
    lds.push_back({"strideB", r.stride_b, r.type_b});
    lds.push_back({"strideC", r.stride_c, r.type_c});
  }
  GemmFinding f{GemmFindingKind::kLeadingDimensionAlignment,
                IsTensorPath(path) ? FindingSeverity::kWarning : FindingSeverity::kInfo,
                {},
                std::nullopt,
                std::nullopt,
                {}};
  std::vector<std::string> bad, padded;
  for (const Ld& ld : lds) {
    const int multiple = TensorCoreElementMultiple(ld.type);
    if (multiple <= 1 || ld.value <= 0 || ld.value % multiple == 0) continue;
    const double bytes = static_cast<double>(ld.value) * DataTypeBytes(ld.type);
    bad.push_back(
        Format("%s = %lld (%.0f bytes)", ld.name, static_cast<long long>(ld.value), bytes));
    padded.push_back(
        Format("%s = %lld", ld.name, static_cast<long long>(RoundUp(ld.value, multiple))));
    f.numbers.push_back({ld.name, static_cast<double>(ld.value)});
  }
  if (bad.empty()) return;
  f.sentence = JoinList(bad) + (bad.size() == 1 ? " is not a multiple" : " are not multiples") +
               " of 16 bytes, so columns start misaligned and tensor-core kernels lose their "
               "16-byte loads; padding to " +
               JoinList(padded) + " fixes it" + UnitClause(path) + ".";
  out.push_back(std::move(f));
}

void CheckPointers(const LibraryCallRecord& r, ComputePath path, std::vector<GemmFinding>& out) {
  if (r.ptr_align == 0 || (r.flags & trace::kLibBatchedPointers)) return;  // not recorded
  const char* const names[4] = {"A", "B", "C", "D"};
  const uint8_t types[4] = {r.type_a, r.type_b, r.type_c, r.type_d};
  GemmFinding f{GemmFindingKind::kPointerAlignment,
                IsTensorPath(path) ? FindingSeverity::kWarning : FindingSeverity::kInfo,
                {},
                std::nullopt,
                std::nullopt,
                {}};
  std::vector<std::string> bad;
  for (int i = 0; i < 4; ++i) {
    if (types[i] == kNotApplicable) continue;
    const unsigned log2 = (r.ptr_align >> (8 * i)) & 0xFFu;
    if (log2 >= 4) continue;
    const unsigned bytes = 1u << log2;
    bad.push_back(
        Format("%s is aligned to only %u byte%s", names[i], bytes, bytes == 1 ? "" : "s"));
    f.numbers.push_back({i == 0   ? "align_a"
                         : i == 1 ? "align_b"
                         : i == 2 ? "align_c"
                                  : "align_d",
                         static_cast<double>(bytes)});
  }
  if (bad.empty()) return;
  f.sentence = JoinList(bad) +
               " where 16 are wanted, which keeps cuBLAS off its vectorized tensor-core "
               "kernels; such pointers usually come from a tensor view at an odd offset, and "
               "a contiguous copy fixes it" +
               UnitClause(path) + ".";
  out.push_back(std::move(f));
}

void CheckTiles(const LibraryCallRecord& r, double batch, const GemmLaunchFacts& facts,
                std::vector<GemmFinding>& out) {
  if (std::min(r.m, r.n) < 64) return;  // cuBLAS uses small tiles or GEMV kernels there
  const bool waves = !facts.grid && facts.sm_count > 0 && batch >= 0;
  for (const GemmTile& tile : kCommonGemmTiles) {
    const int64_t tiles_m = (r.m + tile.m - 1) / tile.m;
    const int64_t tiles_n = (r.n + tile.n - 1) / tile.n;
    const double per_problem = static_cast<double>(tiles_m) * static_cast<double>(tiles_n);
    const double padded_area = per_problem * tile.m * tile.n;
    const double area = static_cast<double>(r.m) * static_cast<double>(r.n);
    const double padding = 1.0 - area / padded_area;
    GemmFinding f{GemmFindingKind::kTileQuantization,
                  FindingSeverity::kInfo,
                  {},
                  std::nullopt,
                  std::nullopt,
                  {}};
    f.numbers = {{"tile_m", static_cast<double>(tile.m)},
                 {"tile_n", static_cast<double>(tile.n)},
                 {"tiles_m", static_cast<double>(tiles_m)},
                 {"tiles_n", static_cast<double>(tiles_n)},
                 {"padding_fraction", padding}};
    const std::string batch_text =
        batch > 1 ? Format(" for each of %.0f problems", batch) : std::string();
    std::string sentence = Format(
        "With %dx%d tiles, %lld x %lld needs %lld x %lld = %.0f tiles%s, ", tile.m, tile.n,
        static_cast<long long>(r.m), static_cast<long long>(r.n), static_cast<long long>(tiles_m),
        static_cast<long long>(tiles_n), per_problem, batch_text.c_str());
    sentence += padding > 0 ? Format("%.1f%% of their area padding", 100 * padding)
                            : std::string("none of it padding");
    double lost = padding;
    if (waves) {
      const double tiles = per_problem * batch;
      const WaveFill w = ComputeWaveFill(tiles, facts.sm_count, facts.ctas_per_sm);
      lost = 1.0 - area * batch / (w.full_waves * w.slots * tile.m * tile.n);
      f.numbers.push_back({"tiles", tiles});
      f.numbers.push_back({"sm_count", static_cast<double>(facts.sm_count)});
      f.numbers.push_back({"waves", w.waves});
      f.numbers.push_back({"full_waves", w.full_waves});
      f.numbers.push_back({"last_wave_ctas", w.last_wave_ctas});
      const double slots = w.slots;
      if (w.waves <= 1) {
        sentence += Format("; on %d SMs that is %.2f waves, one wave with %.0f/%.0f SMs busy",
                           facts.sm_count, w.waves, w.last_wave_ctas, slots);
      } else {
        sentence += Format(
            "; on %d SMs that is %.2f waves, i.e. %.0f waves with the last %.0f/%.0f "
            "full",
            facts.sm_count, w.waves, w.full_waves, w.last_wave_ctas, slots);
      }
      if (padding < kMinPadding && w.lost_fraction < kMinTileWaveLoss) continue;
    } else if (padding < kMinPadding) {
      continue;
    }
    sentence += Format(", so about %.0f%% of the work slots are wasted if cuBLAS picks this tile.",
                       100 * lost);
    f.sentence = std::move(sentence);
    f.lost_fraction = lost;
    if (facts.gpu_time_ns) f.lost_ns = lost * *facts.gpu_time_ns;
    // The tile is a guess: never more than a warning.
    f.severity = std::min(SeverityOfLoss(lost), FindingSeverity::kWarning);
    out.push_back(std::move(f));
  }
}

void CheckWaves(const GemmLaunchFacts& facts, std::vector<GemmFinding>& out) {
  if (!facts.grid || facts.sm_count <= 0) return;
  const auto& g = *facts.grid;
  const double ctas = static_cast<double>(g[0]) * g[1] * g[2];
  if (ctas <= 0) return;
  const WaveFill w = ComputeWaveFill(ctas, facts.sm_count, facts.ctas_per_sm);
  if (w.lost_fraction < kMinWaveLoss) return;
  GemmFinding f{GemmFindingKind::kWaveQuantization,
                SeverityOfLoss(w.lost_fraction),
                {},
                w.lost_fraction,
                std::nullopt,
                {}};
  f.numbers = {{"grid_x", static_cast<double>(g[0])},
               {"grid_y", static_cast<double>(g[1])},
               {"grid_z", static_cast<double>(g[2])},
               {"ctas", ctas},
               {"sm_count", static_cast<double>(facts.sm_count)},
               {"ctas_per_sm", static_cast<double>(facts.ctas_per_sm)},
               {"waves", w.waves},
               {"full_waves", w.full_waves},
               {"last_wave_ctas", w.last_wave_ctas}};
  if (facts.block) {
    const auto& b = *facts.block;
    f.numbers.push_back({"block_threads", static_cast<double>(b[0]) * b[1] * b[2]});
  }
  const std::string slots =
      facts.ctas_per_sm > 1
          ? Format("%d SMs x %d CTAs = %.0f slots", facts.sm_count, facts.ctas_per_sm, w.slots)
          : Format("%d SMs", facts.sm_count);
  std::string time;
  if (facts.gpu_time_ns) {
    f.lost_ns = w.lost_fraction * *facts.gpu_time_ns;
    time = " (" + DurationText(*f.lost_ns) + " of " + DurationText(*facts.gpu_time_ns) + ")";
  }
  if (w.waves < 1) {
    f.sentence = Format(
        "The kernel launched %.0f CTAs (%u x %u x %u) on %s: %.2f of one wave, so "
        "%.0f%% of the GPU sits idle for the whole call%s.",
        ctas, g[0], g[1], g[2], slots.c_str(), w.waves, 100 * w.lost_fraction, time.c_str());
  } else {
    f.sentence = Format(
        "The kernel launched %.0f CTAs (%u x %u x %u) on %s: %.2f waves, i.e. "
        "%.0f waves with the last %.0f/%.0f full, so about %.0f%% of the call's "
        "time is lost to the partial wave%s.",
        ctas, g[0], g[1], g[2], slots.c_str(), w.waves, w.full_waves, w.last_wave_ctas, w.slots,
        100 * w.lost_fraction, time.c_str());
  }
  out.push_back(std::move(f));
}

void CheckShape(const LibraryCallRecord& r, std::vector<GemmFinding>& out) {
  // Intensity of one problem: the same for every problem of a batched or grouped call.
  LibraryCallRecord one = r;
  if (BlasRoutineFromId(r.routine) != BlasRoutine::kLtMatmul) {
    one.routine = static_cast<uint16_t>(BlasRoutine::kGemm);
  }
  one.batch = 1;
  one.flags &= ~static_cast<uint32_t>(trace::kLibGrouped);
  const BlasFigures fig = ComputeBlasFigures(one);
  const double intensity = fig.bytes > 0 ? fig.flops / fig.bytes : 0;
  if (r.k > 0 && r.k < kTinyK && static_cast<double>(r.m) * static_cast<double>(r.n) >= 4096) {
    GemmFinding f{
        GemmFindingKind::kTinyK, FindingSeverity::kInfo, {}, std::nullopt, std::nullopt, {}};
    f.numbers = {{"m", static_cast<double>(r.m)},
                 {"n", static_cast<double>(r.n)},
                 {"k", static_cast<double>(r.k)},
                 {"flop_per_byte", intensity}};
    f.sentence = Format(
        "K = %lld is tiny next to M = %lld and N = %lld: each output element gets "
        "only %lld multiply-adds, an intensity of %.1f FLOP/byte, so the call is "
        "bound by moving C, not by the math units.",
        static_cast<long long>(r.k), static_cast<long long>(r.m), static_cast<long long>(r.n),
        static_cast<long long>(r.k), intensity);
    out.push_back(std::move(f));
  }
  const int64_t shorter = std::min(r.m, r.n);
  const int64_t longer = std::max(r.m, r.n);
  if (shorter > 0 && shorter < kSkinnyShortSide && longer >= kSkinnyRatio * shorter &&
      r.k >= kTinyK) {
    const bool m_short = r.m <= r.n;
    GemmFinding f{
        GemmFindingKind::kSkinny, FindingSeverity::kInfo, {}, std::nullopt, std::nullopt, {}};
    f.numbers = {{"m", static_cast<double>(r.m)},
                 {"n", static_cast<double>(r.n)},
                 {"k", static_cast<double>(r.k)},
                 {"flop_per_byte", intensity}};
    f.sentence = Format(
        "%s = %lld is tiny next to %s = %lld (k = %lld): the GEMM is %lld "
        "matrix-vector products in one, at %.1f FLOP/byte, so it is bound by "
        "reading the %lld x %lld operand, not by tensor cores; more rows per "
        "call (a larger batch) raise the intensity.",
        m_short ? "m" : "n", static_cast<long long>(shorter), m_short ? "n" : "m",
        static_cast<long long>(longer), static_cast<long long>(r.k),
        static_cast<long long>(shorter), intensity, static_cast<long long>(r.k),
        static_cast<long long>(longer));
    out.push_back(std::move(f));
  }
}

}  // namespace

std::string_view GemmFindingKindName(GemmFindingKind kind) {
  switch (kind) {
    case GemmFindingKind::kDimensionAlignment:
      return "dimension_alignment";
    case GemmFindingKind::kLeadingDimensionAlignment:
      return "leading_dimension_alignment";
    case GemmFindingKind::kPointerAlignment:
      return "pointer_alignment";
    case GemmFindingKind::kTileQuantization:
      return "tile_quantization";
    case GemmFindingKind::kWaveQuantization:
      return "wave_quantization";
    case GemmFindingKind::kTinyK:
      return "tiny_k";
    case GemmFindingKind::kSkinny:
      return "skinny_gemm";
  }
  return "unknown";
}

std::string_view FindingSeverityName(FindingSeverity severity) {
  switch (severity) {
    case FindingSeverity::kInfo:
      return "info";
    case FindingSeverity::kWarning:
      return "warning";
    case FindingSeverity::kSevere:
      return "severe";
  }
  return "unknown";
}

int TensorCoreElementMultiple(uint8_t type) {
  const double bytes = type == kNotApplicable ? 0.0 : DataTypeBytes(type);
  if (bytes <= 0) return 0;
  const double multiple = 16.0 / bytes;
  return multiple == std::floor(multiple) ? static_cast<int>(multiple) : 0;
}

WaveFill ComputeWaveFill(double ctas, int sm_count, int ctas_per_sm) {
  WaveFill w;
  w.ctas = ctas;
  w.slots = static_cast<double>(sm_count) * std::max(ctas_per_sm, 1);
  if (w.slots <= 0 || ctas <= 0) return w;
  w.waves = ctas / w.slots;
  w.full_waves = std::ceil(w.waves);
  w.last_wave_ctas = ctas - (w.full_waves - 1) * w.slots;
  w.lost_fraction = (w.full_waves - w.waves) / w.full_waves;
  return w;
}

std::vector<GemmFinding> DiagnoseGemm(const LibraryCallRecord& r, const GemmLaunchFacts& facts) {
  std::vector<GemmFinding> out;
  const BlasRoutine routine = BlasRoutineFromId(r.routine);
  if (!IsGemmLike(routine) || (r.flags & trace::kLibUnknownRoutine) || r.status != 0) return out;
  if (r.m < 0 || r.n < 0 || r.k < 0) return out;
  const ComputePath path = BlasComputePath(r);
  // The problems the tiles cover; unknown for grouped calls described by their first group.
  // A negative batch says the problem count is unknown.
  double batch = 1.0;
  if (IsBatchedRoutine(routine)) batch = static_cast<double>(std::max<int64_t>(r.batch, 0));
  if (routine == BlasRoutine::kGemmGroupedBatched && (r.flags & trace::kLibGrouped)) {
    batch = -1;
  }
  if (batch == 0) return out;  // nothing ran

  CheckDimensions(r, path, out);
  CheckLeadingDimensions(r, routine, path, out);
  CheckPointers(r, path, out);
  CheckWaves(facts, out);
  CheckTiles(r, batch, facts, out);
  CheckShape(r, out);
  std::stable_sort(out.begin(), out.end(), [](const GemmFinding& a, const GemmFinding& b) {
    return a.severity > b.severity;
  });
  return out;
}

}  // namespace flopspy::analyzers
