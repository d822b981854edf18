// GEMM shape diagnostics: why a GEMM-like cuBLAS/cuBLASLt call may run below its roof, told in
// one plain sentence with the numbers. Alignment for tensor cores, tile and wave quantization,
// tiny K and skinny shapes. docs/blas-formulas.md ("Shape diagnostics") gives the rules and
// their sources.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

enum class GemmFindingKind : uint8_t {
  kDimensionAlignment = 1,         // m, n or k not a multiple of 16 bytes of its operands
  kLeadingDimensionAlignment = 2,  // lda, ldb, ldc or ldd not a multiple of 16 bytes
  kPointerAlignment = 3,           // A, B, C or D not 16-byte aligned
  kTileQuantization = 4,           // output tiles padded past m x n (common tile sizes)
  kWaveQuantization = 5,           // CTAs of the launched grid fill the last wave partly
  kTinyK = 6,                      // K so small the call is bound by writing C, not by math
  kSkinny = 7,                     // one of m, n tiny next to the other: a GEMV in disguise
};
std::string_view GemmFindingKindName(GemmFindingKind kind);

enum class FindingSeverity : uint8_t {
  kInfo = 0,     // worth knowing; little or no time at stake
  kWarning = 1,  // costs a measurable share of the call
  kSevere = 2,   // a third or more of the call's time, or tensor cores likely not used
};
std::string_view FindingSeverityName(FindingSeverity severity);

// One named number of a finding ("ctas", "waves", "lda", ...). Names are stable for JSON.
struct FindingNumber {
  std::string_view name;
  double value;
};

struct GemmFinding {
  GemmFindingKind kind;
  FindingSeverity severity;
  std::vector<FindingNumber> numbers;
  // Share of the call's GPU time lost, where one can be estimated; lost_ns when the time is known.
  std::optional<double> lost_fraction;
  std::optional<double> lost_ns;
  std::string sentence;  // one plain sentence carrying the numbers
};

// Facts beyond the record that sharpen the diagnosis. All optional.
struct GemmLaunchFacts {
  std::optional<std::array<uint32_t, 3>> grid;   // of the main kernel the call launched
  std::optional<std::array<uint32_t, 3>> block;  // reported in numbers only
  int sm_count = 0;                              // 0: unknown
  int ctas_per_sm = 1;                           // resident CTAs per SM; 1 unless told
  std::optional<double> gpu_time_ns;             // the call's GPU time
};

// A tile size the tile-quantization finding tries when the real tile is not known.
struct GemmTile {
  int m;
  int n;
};
inline constexpr std::array<GemmTile, 2> kCommonGemmTiles = {{{128, 128}, {256, 128}}};

// Findings for one call, most severe first. Empty for routines without m, n, k (only the GEMM
// family and cublasLtMatmul are diagnosed) and for calls that did not run.
std::vector<GemmFinding> DiagnoseGemm(const trace::LibraryCallRecord& record,
                                      const GemmLaunchFacts& facts = {});

// Elements per 16 bytes of a cudaDataType: the multiple tensor cores want (FP16/BF16 8, TF32/FP32
// 4, FP8/INT8 16, FP64 2, FP4 32, complex FP32 2); 0 when unknown.
int TensorCoreElementMultiple(uint8_t type);

// Wave arithmetic, shared by the wave finding and the tile finding.
struct WaveFill {
  double ctas = 0;
  double slots = 0;       // SMs x CTAs per SM
  double waves = 0;       // ctas / slots
  double full_waves = 0;  // ceil(waves)
  double last_wave_ctas = 0;
  double lost_fraction = 0;  // (ceil(waves) - waves) / ceil(waves)
};
WaveFill ComputeWaveFill(double ctas, int sm_count, int ctas_per_sm);

}  // namespace flopspy::analyzers
