#include "flopspy/analyzers/gemm_diagnostics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"

namespace flopspy::analyzers {
namespace {

namespace t = cuda_type;
namespace ct = compute_type;
using ::testing::HasSubstr;
using ::testing::Not;

// A GemmEx call with column-major operands and tight leading dimensions (no transposes):
// lda = m, ldb = k, ldc = m.
trace::LibraryCallRecord Gemm(uint8_t type, uint8_t compute, int64_t m, int64_t n, int64_t k) {
  trace::LibraryCallRecord r{};
  r.routine = static_cast<uint16_t>(BlasRoutine::kGemm);
  r.type_a = r.type_b = r.type_c = type;
  r.type_d = kNotApplicable;
  r.compute_type = compute;
  r.scale_type = t::kR32F;
  r.m = m;
  r.n = n;
  r.k = k;
  r.lda = m;
  r.ldb = k;
  r.ldc = m;
  r.batch = 1;
  r.trans_a = r.trans_b = blas_op::kN;
  r.epilogue = lt_epilogue::kDefault;
  r.flags = trace::kLibBetaKnown;
  return r;
}

trace::LibraryCallRecord Fp16(int64_t m, int64_t n, int64_t k) {
  return Gemm(t::kR16F, ct::k32F, m, n, k);
}

const GemmFinding* Find(const std::vector<GemmFinding>& findings, GemmFindingKind kind,
                        int nth = 0) {
  for (const GemmFinding& f : findings) {
    if (f.kind == kind && nth-- == 0) return &f;
  }
  return nullptr;
}

double Number(const GemmFinding& f, std::string_view name) {
  for (const FindingNumber& n : f.numbers) {
    if (n.name == name) return n.value;
  }
  ADD_FAILURE() << "no number " << name;
  return -1;
}

GemmLaunchFacts A100(uint32_t gx, uint32_t gy) {
  GemmLaunchFacts facts;
  facts.grid = std::array<uint32_t, 3>{gx, gy, 1};
  facts.block = std::array<uint32_t, 3>{256, 1, 1};
  facts.sm_count = 108;
  return facts;
}

// --- The seed note's example: 1792 vs 1793 on an A100 (108 SMs) with 128x128 tiles -----------

TEST(GemmDiagnostics, Seed1792FromTheGrid) {
  // 1792/128 = 14 -> grid 14 x 14 = 196 CTAs; 196/108 = 1.8148 waves -> 2 waves, the last with
  // 196 - 108 = 88 CTAs; lost (2 - 1.8148)/2 = 0.0926.
  const auto findings = DiagnoseGemm(Fp16(1792, 1792, 1792), A100(14, 14));
  const GemmFinding* w = Find(findings, GemmFindingKind::kWaveQuantization);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, FindingSeverity::kInfo);
  EXPECT_DOUBLE_EQ(Number(*w, "ctas"), 196);
  EXPECT_NEAR(Number(*w, "waves"), 196.0 / 108.0, 1e-12);
  EXPECT_DOUBLE_EQ(Number(*w, "full_waves"), 2);
  EXPECT_DOUBLE_EQ(Number(*w, "last_wave_ctas"), 88);
  EXPECT_DOUBLE_EQ(Number(*w, "block_threads"), 256);
  ASSERT_TRUE(w->lost_fraction.has_value());
  EXPECT_NEAR(*w->lost_fraction, (2 - 196.0 / 108.0) / 2, 1e-12);
  EXPECT_THAT(w->sentence, HasSubstr("196 CTAs (14 x 14 x 1) on 108 SMs"));
  EXPECT_THAT(w->sentence, HasSubstr("1.81 waves"));
  EXPECT_THAT(w->sentence, HasSubstr("2 waves with the last 88/108 full"));
  EXPECT_THAT(w->sentence, HasSubstr("about 9%"));
  // 1792 is a multiple of 8: no alignment finding for FP16.
  EXPECT_EQ(Find(findings, GemmFindingKind::kDimensionAlignment), nullptr);
}

TEST(GemmDiagnostics, Seed1793FromTheGrid) {
  // ceil(1793/128) = 15 -> 15 x 15 = 225 CTAs; 225/108 = 2.0833 waves -> 3 waves, the last with
  // 225 - 216 = 9 CTAs; lost (3 - 2.0833)/3 = 0.3056; of 100 us that is 30.6 us.
  GemmLaunchFacts facts = A100(15, 15);
  facts.gpu_time_ns = 100e3;
  const auto findings = DiagnoseGemm(Fp16(1793, 1793, 1793), facts);
  const GemmFinding* w = Find(findings, GemmFindingKind::kWaveQuantization);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, FindingSeverity::kWarning);
  EXPECT_DOUBLE_EQ(Number(*w, "ctas"), 225);
  EXPECT_DOUBLE_EQ(Number(*w, "full_waves"), 3);
  EXPECT_DOUBLE_EQ(Number(*w, "last_wave_ctas"), 9);
  EXPECT_NEAR(*w->lost_fraction, (3 - 225.0 / 108.0) / 3, 1e-12);
  ASSERT_TRUE(w->lost_ns.has_value());
  EXPECT_NEAR(*w->lost_ns, 100e3 * (3 - 225.0 / 108.0) / 3, 1e-6);
  EXPECT_THAT(w->sentence, HasSubstr("225 CTAs (15 x 15 x 1) on 108 SMs"));
  EXPECT_THAT(w->sentence, HasSubstr("2.08 waves"));
  EXPECT_THAT(w->sentence, HasSubstr("3 waves with the last 9/108 full"));
  EXPECT_THAT(w->sentence, HasSubstr("about 31%"));
  EXPECT_THAT(w->sentence, HasSubstr("(30.6 us of 100 us)"));
  // 1793 = 8*224 + 1: m, n and k all miss the FP16 multiple of 8; padded to 1800.
  const GemmFinding* d = Find(findings, GemmFindingKind::kDimensionAlignment);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, FindingSeverity::kWarning);
  EXPECT_THAT(d->sentence,
              HasSubstr("m = 1793, n = 1793 and k = 1793 are not multiples of 8 (R_16F)"));
  EXPECT_THAT(d->sentence, HasSubstr("padding to m = 1800, n = 1800 and k = 1800"));
  // lda = ldc = m = 1793 and ldb = k = 1793: 3586 bytes, not a multiple of 16.
  const GemmFinding* ld = Find(findings, GemmFindingKind::kLeadingDimensionAlignment);
  ASSERT_NE(ld, nullptr);
  EXPECT_THAT(ld->sentence, HasSubstr("lda = 1793 (3586 bytes), ldb = 1793 (3586 bytes) and "
                                      "ldc = 1793 (3586 bytes) are not multiples of 16 bytes"));
  // With the grid known, the tile guesses carry padding only, not waves: 1 - 1793^2/1920^2.
  const GemmFinding* tile = Find(findings, GemmFindingKind::kTileQuantization);
  ASSERT_NE(tile, nullptr);
  EXPECT_THAT(tile->sentence, Not(HasSubstr("waves")));
  EXPECT_NEAR(*tile->lost_fraction, 1 - 1793.0 * 1793 / (1920.0 * 1920), 1e-12);
}

TEST(GemmDiagnostics, SeedPairFromTilesWithoutAGrid) {
  GemmLaunchFacts facts;
  facts.sm_count = 108;
  // 1792, 128x128: 14 x 14 = 196 tiles, no padding, 1.81 waves -> 2, the last 88/108 full;
  // lost 1 - 1792^2 / (2 * 108 * 128 * 128) = 1 - 3211264/3538944 = 0.0926.
  auto findings = DiagnoseGemm(Fp16(1792, 1792, 1792), facts);
  const GemmFinding* t128 = Find(findings, GemmFindingKind::kTileQuantization, 0);
  ASSERT_NE(t128, nullptr);
  EXPECT_EQ(t128->severity, FindingSeverity::kInfo);
  EXPECT_DOUBLE_EQ(Number(*t128, "tiles"), 196);
  EXPECT_DOUBLE_EQ(Number(*t128, "padding_fraction"), 0);
  EXPECT_NEAR(*t128->lost_fraction, 1 - 3211264.0 / 3538944.0, 1e-12);
  EXPECT_THAT(t128->sentence, HasSubstr("With 128x128 tiles, 1792 x 1792 needs 14 x 14 = 196 "
                                        "tiles, none of it padding"));
  EXPECT_THAT(t128->sentence, HasSubstr("on 108 SMs that is 1.81 waves"));
  EXPECT_THAT(t128->sentence, HasSubstr("2 waves with the last 88/108 full"));
  // 1792, 256x128 (the seed note's own tile): 7 x 14 = 98 tiles, 0.91 of one wave, 98/108 busy;
  // lost 1 - 3211264 / (1 * 108 * 32768) = 0.0926.
  const GemmFinding* t256 = Find(findings, GemmFindingKind::kTileQuantization, 1);
  ASSERT_NE(t256, nullptr);
  EXPECT_DOUBLE_EQ(Number(*t256, "tiles"), 98);
  EXPECT_THAT(t256->sentence, HasSubstr("7 x 14 = 98 tiles"));
  EXPECT_THAT(t256->sentence, HasSubstr("0.91 waves, one wave with 98/108 SMs busy"));

  // 1793, 128x128: 15 x 15 = 225 tiles; padding 1 - 1793^2/1920^2 = 12.8%; 2.08 waves -> 3, the
  // last 9/108 full; lost 1 - 3214849 / (3 * 108 * 16384) = 1 - 3214849/5308416 = 0.394 (a guess
  // of the tile, so at most a warning).
  findings = DiagnoseGemm(Fp16(1793, 1793, 1793), facts);
  t128 = Find(findings, GemmFindingKind::kTileQuantization, 0);
  ASSERT_NE(t128, nullptr);
  EXPECT_EQ(t128->severity, FindingSeverity::kWarning);
  EXPECT_DOUBLE_EQ(Number(*t128, "tiles"), 225);
  EXPECT_DOUBLE_EQ(Number(*t128, "full_waves"), 3);
  EXPECT_DOUBLE_EQ(Number(*t128, "last_wave_ctas"), 9);
  EXPECT_NEAR(*t128->lost_fraction, 1 - 3214849.0 / 5308416.0, 1e-12);
  EXPECT_THAT(t128->sentence, HasSubstr("15 x 15 = 225 tiles, 12.8% of their area padding"));
  EXPECT_THAT(t128->sentence, HasSubstr("2.08 waves, i.e. 3 waves with the last 9/108 full"));
  EXPECT_THAT(t128->sentence, HasSubstr("about 39%"));
  // 1793, 256x128: 8 x 15 = 120 tiles (the seed note's count): padding 1 - 3214849/3932160 =
  // 18.2%; 120/108 = 1.11 waves -> 2, the last 12/108 full.
  t256 = Find(findings, GemmFindingKind::kTileQuantization, 1);
  ASSERT_NE(t256, nullptr);
  EXPECT_THAT(t256->sentence, HasSubstr("8 x 15 = 120 tiles, 18.2% of their area padding"));
  EXPECT_THAT(t256->sentence, HasSubstr("1.11 waves, i.e. 2 waves with the last 12/108 full"));
}

TEST(GemmDiagnostics, BatchedTilesCountEveryProblem) {
  // 1792^2, strided batch of 2, 128x128 tiles: 196 * 2 = 392 tiles = 3.63 waves on 108 SMs ->
  // 4 waves, the last 392 - 324 = 68/108 full.
  trace::LibraryCallRecord r = Fp16(1792, 1792, 1792);
  r.routine = static_cast<uint16_t>(BlasRoutine::kGemmStridedBatched);
  r.batch = 2;
  r.stride_a = r.stride_b = r.stride_c = 1792 * 1792;
  GemmLaunchFacts facts;
  facts.sm_count = 108;
  const auto findings = DiagnoseGemm(r, facts);
  const GemmFinding* t = Find(findings, GemmFindingKind::kTileQuantization);
  ASSERT_NE(t, nullptr);
  EXPECT_DOUBLE_EQ(Number(*t, "tiles"), 392);
  EXPECT_THAT(t->sentence, HasSubstr("196 tiles for each of 2 problems"));
  EXPECT_THAT(t->sentence, HasSubstr("3.63 waves, i.e. 4 waves with the last 68/108 full"));
  // Grouped calls described by their first group: problem count unknown, no wave estimate.
  r.routine = static_cast<uint16_t>(BlasRoutine::kGemmGroupedBatched);
  r.flags |= trace::kLibGrouped;
  for (const GemmFinding& f : DiagnoseGemm(r, facts)) {
    EXPECT_THAT(f.sentence, Not(HasSubstr("waves"))) << f.sentence;
  }
}

// --- Waves from the grid ---------------------------------------------------------------------

TEST(GemmDiagnostics, WaveArithmetic) {
  WaveFill w = ComputeWaveFill(225, 108, 1);
  EXPECT_DOUBLE_EQ(w.slots, 108);
  EXPECT_DOUBLE_EQ(w.full_waves, 3);
  EXPECT_DOUBLE_EQ(w.last_wave_ctas, 9);
  EXPECT_NEAR(w.lost_fraction, (3 - 225.0 / 108) / 3, 1e-15);
  // Exactly full waves lose nothing.
  w = ComputeWaveFill(216, 108, 1);
  EXPECT_DOUBLE_EQ(w.waves, 2);
  EXPECT_DOUBLE_EQ(w.last_wave_ctas, 108);
  EXPECT_DOUBLE_EQ(w.lost_fraction, 0);
  // Two CTAs per SM: 300 CTAs over 264 slots = 1.136 waves -> 2, the last 36/264.
  w = ComputeWaveFill(300, 132, 2);
  EXPECT_DOUBLE_EQ(w.slots, 264);
  EXPECT_DOUBLE_EQ(w.last_wave_ctas, 36);
  EXPECT_NEAR(w.lost_fraction, (2 - 300.0 / 264) / 2, 1e-15);
  // Unknown SM count: nothing.
  w = ComputeWaveFill(300, 0, 1);
  EXPECT_DOUBLE_EQ(w.waves, 0);
}

TEST(GemmDiagnostics, ResidentCtasAndUnderfilledGrid) {
  // 300 CTAs on an H100 (132 SMs) with 2 resident per SM: lost (2 - 300/264)/2 = 0.432: severe.
  GemmLaunchFacts facts;
  facts.grid = std::array<uint32_t, 3>{20, 15, 1};
  facts.sm_count = 132;
  facts.ctas_per_sm = 2;
  auto findings = DiagnoseGemm(Fp16(4096, 4096, 4096), facts);
  const GemmFinding* w = Find(findings, GemmFindingKind::kWaveQuantization);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, FindingSeverity::kSevere);
  EXPECT_THAT(w->sentence, HasSubstr("132 SMs x 2 CTAs = 264 slots"));
  EXPECT_THAT(w->sentence, HasSubstr("1.14 waves, i.e. 2 waves with the last 36/264 full"));
  EXPECT_THAT(w->sentence, HasSubstr("about 43%"));
  EXPECT_EQ(&findings.front(), w);  // most severe first

  // 16 CTAs on 132 SMs: 0.12 of a wave, (1 - 16/132) = 88% of the GPU idle.
  facts.grid = std::array<uint32_t, 3>{4, 4, 1};
  facts.ctas_per_sm = 1;
  findings = DiagnoseGemm(Fp16(512, 512, 4096), facts);
  w = Find(findings, GemmFindingKind::kWaveQuantization);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, FindingSeverity::kSevere);
  EXPECT_THAT(w->sentence, HasSubstr("16 CTAs (4 x 4 x 1) on 132 SMs: 0.12 of one wave"));
  EXPECT_THAT(w->sentence, HasSubstr("88% of the GPU sits idle"));

  // A persistent kernel with exactly one CTA per SM: no wave finding.
  facts.grid = std::array<uint32_t, 3>{132, 1, 1};
  EXPECT_EQ(Find(DiagnoseGemm(Fp16(4096, 4096, 4096), facts), GemmFindingKind::kWaveQuantization),
            nullptr);
}

// --- Alignment -------------------------------------------------------------------------------

TEST(GemmDiagnostics, ElementMultiples) {
  EXPECT_EQ(TensorCoreElementMultiple(t::kR16F), 8);
  EXPECT_EQ(TensorCoreElementMultiple(t::kR16BF), 8);
  EXPECT_EQ(TensorCoreElementMultiple(t::kR32F), 4);  // TF32
  EXPECT_EQ(TensorCoreElementMultiple(t::kR8FE4M3), 16);
  EXPECT_EQ(TensorCoreElementMultiple(t::kR8I), 16);
  EXPECT_EQ(TensorCoreElementMultiple(t::kR64F), 2);
  EXPECT_EQ(TensorCoreElementMultiple(t::kR4FE2M1), 32);
  EXPECT_EQ(TensorCoreElementMultiple(t::kC32F), 2);
  EXPECT_EQ(TensorCoreElementMultiple(t::kC64F), 1);
  EXPECT_EQ(TensorCoreElementMultiple(t::kR6FE2M3), 0);  // 16 bytes is not whole FP6 elements
  EXPECT_EQ(TensorCoreElementMultiple(kNotApplicable), 0);
}

TEST(GemmDiagnostics, AlignmentPerDataType) {
  // FP16 4096 x 4096 x 1001: k misses 8 -> pad to 1008; ldb = k = 1001 is 2002 bytes.
  auto findings = DiagnoseGemm(Fp16(4096, 4096, 1001));
  const GemmFinding* d = Find(findings, GemmFindingKind::kDimensionAlignment);
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(Number(*d, "k"), 1001);
  EXPECT_DOUBLE_EQ(Number(*d, "k_multiple"), 8);
  EXPECT_THAT(d->sentence, HasSubstr("k = 1001 is not a multiple of 8 (R_16F)"));
  EXPECT_THAT(d->sentence, HasSubstr("padding to k = 1008"));
  EXPECT_THAT(d->sentence, Not(HasSubstr("m = ")));
  const GemmFinding* ld = Find(findings, GemmFindingKind::kLeadingDimensionAlignment);
  ASSERT_NE(ld, nullptr);
  EXPECT_THAT(ld->sentence, HasSubstr("ldb = 1001 (2002 bytes) is not a multiple of 16 bytes"));
  EXPECT_THAT(ld->sentence, HasSubstr("padding to ldb = 1008"));

  // TF32 (FP32 data, 32F_FAST_TF32): multiple of 4; k = 1002 -> 1004. Tensor path: a warning.
  findings = DiagnoseGemm(Gemm(t::kR32F, ct::k32FFastTF32, 4096, 4096, 1002));
  d = Find(findings, GemmFindingKind::kDimensionAlignment);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, FindingSeverity::kWarning);
  EXPECT_THAT(d->sentence, HasSubstr("k = 1002 is not a multiple of 4 (R_32F)"));
  EXPECT_THAT(d->sentence, HasSubstr("k = 1004"));
  // Plain FP32 on CUDA cores: same numbers, only worth knowing.
  findings = DiagnoseGemm(Gemm(t::kR32F, ct::k32F, 4096, 4096, 1002));
  d = Find(findings, GemmFindingKind::kDimensionAlignment);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, FindingSeverity::kInfo);
  EXPECT_THAT(d->sentence, HasSubstr("CUDA cores, fp32"));

  // FP64 DGEMM: multiple of 2; k = 1001 -> 1002.
  findings = DiagnoseGemm(Gemm(t::kR64F, ct::k64F, 512, 512, 1001));
  d = Find(findings, GemmFindingKind::kDimensionAlignment);
  ASSERT_NE(d, nullptr);
  EXPECT_THAT(d->sentence, HasSubstr("k = 1001 is not a multiple of 2 (R_64F)"));
  // ZGEMM: 16-byte elements are always aligned.
  EXPECT_EQ(Find(DiagnoseGemm(Gemm(t::kC64F, ct::k64F, 511, 513, 1001)),
                 GemmFindingKind::kDimensionAlignment),
            nullptr);

  // FP8 cublasLtMatmul (A, B E4M3, D BF16): m and k need 16 (the FP8 operand), n needs 16 (B).
  trace::LibraryCallRecord lt = Gemm(t::kR8FE4M3, ct::k32F, 4104, 4096, 1000);
  lt.routine = static_cast<uint16_t>(BlasRoutine::kLtMatmul);
  lt.type_c = lt.type_d = t::kR16BF;
  lt.trans_a = blas_op::kT;
  lt.lda = 1008;  // stored A is k x m under TRANSA = T, padded
  lt.ldb = 1008;
  lt.ldc = lt.ldd = 4104;  // 8208 bytes of BF16: aligned
  findings = DiagnoseGemm(lt);
  d = Find(findings, GemmFindingKind::kDimensionAlignment);
  ASSERT_NE(d, nullptr);
  // 4104 = 16*256 + 8; 1000 = 16*62 + 8.
  EXPECT_THAT(d->sentence, HasSubstr("m = 4104 and k = 1000 are not multiples of 16 (R_8F_E4M3)"));
  EXPECT_THAT(d->sentence, HasSubstr("padding to m = 4112 and k = 1008"));
  EXPECT_EQ(Find(findings, GemmFindingKind::kLeadingDimensionAlignment), nullptr);

  // All aligned: no alignment finding at all.
  findings = DiagnoseGemm(Fp16(4096, 4096, 4096));
  EXPECT_EQ(Find(findings, GemmFindingKind::kDimensionAlignment), nullptr);
  EXPECT_EQ(Find(findings, GemmFindingKind::kLeadingDimensionAlignment), nullptr);
}

TEST(GemmDiagnostics, PointerAlignment) {
  // ptr_align: log2 bytes, A in bits 0-7, B 8-15, C 16-23, D 24-31.
  trace::LibraryCallRecord r = Fp16(4096, 4096, 4096);
  r.ptr_align = 4u | (1u << 8) | (8u << 16);  // A 16 B, B 2 B, C 256 B; D not applicable
  auto findings = DiagnoseGemm(r);
  const GemmFinding* p = Find(findings, GemmFindingKind::kPointerAlignment);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->severity, FindingSeverity::kWarning);
  EXPECT_DOUBLE_EQ(Number(*p, "align_b"), 2);
  EXPECT_THAT(p->sentence, HasSubstr("B is aligned to only 2 bytes where 16 are wanted"));
  EXPECT_THAT(p->sentence, Not(HasSubstr("A is")));
  // Not recorded, or pointer arrays (alignment of each matrix unknown): no finding.
  r.ptr_align = 0;
  EXPECT_EQ(Find(DiagnoseGemm(r), GemmFindingKind::kPointerAlignment), nullptr);
  r.ptr_align = 1u << 8;
  r.flags |= trace::kLibBatchedPointers;
  EXPECT_EQ(Find(DiagnoseGemm(r), GemmFindingKind::kPointerAlignment), nullptr);
}

// --- Shapes ---------------------------------------------------------------------------------

TEST(GemmDiagnostics, TinyK) {
  // FP16 4096 x 4096 x 16, beta zero: 2*4096*4096*16 = 536870912 FLOPs over
  // 2*(4096*16 + 16*4096 + 4096*4096) = 33816576 bytes = 15.9 FLOP/byte.
  const auto findings = DiagnoseGemm(Fp16(4096, 4096, 16));
  const GemmFinding* f = Find(findings, GemmFindingKind::kTinyK);
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(Number(*f, "flop_per_byte"), 536870912.0 / 33816576.0, 1e-9);
  EXPECT_THAT(f->sentence, HasSubstr("K = 16 is tiny next to M = 4096 and N = 4096"));
  EXPECT_THAT(f->sentence, HasSubstr("only 16 multiply-adds, an intensity of 15.9 FLOP/byte"));
  EXPECT_EQ(Find(DiagnoseGemm(Fp16(4096, 4096, 64)), GemmFindingKind::kTinyK), nullptr);
}

TEST(GemmDiagnostics, Skinny) {
  // FP16 m = 8, n = k = 4096: 2*8*4096*4096 = 268435456 FLOPs over
  // 2*(8*4096 + 4096*4096 + 8*4096) = 33685504 bytes = 7.97 FLOP/byte.
  const auto findings = DiagnoseGemm(Fp16(8, 4096, 4096));
  const GemmFinding* f = Find(findings, GemmFindingKind::kSkinny);
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->sentence, HasSubstr("m = 8 is tiny next to n = 4096 (k = 4096)"));
  EXPECT_THAT(f->sentence, HasSubstr("8 matrix-vector products in one, at 8.0 FLOP/byte"));
  EXPECT_THAT(f->sentence, HasSubstr("4096 x 4096 operand"));
  // No tile guess for such shapes: cuBLAS does not use 128-row tiles there.
  EXPECT_EQ(Find(findings, GemmFindingKind::kTileQuantization), nullptr);
  // The other way round names n.
  const auto other = DiagnoseGemm(Fp16(4096, 16, 4096));
  ASSERT_NE(Find(other, GemmFindingKind::kSkinny), nullptr);
  EXPECT_THAT(Find(other, GemmFindingKind::kSkinny)->sentence, HasSubstr("n = 16 is tiny"));
}

TEST(GemmDiagnostics, OnlyGemmCallsThatRan) {
  trace::LibraryCallRecord r = Fp16(1793, 1793, 1793);
  r.routine = static_cast<uint16_t>(BlasRoutine::kTrsm);
  EXPECT_TRUE(DiagnoseGemm(r, A100(15, 15)).empty());
  r = Fp16(1793, 1793, 1793);
  r.status = 7;
  EXPECT_TRUE(DiagnoseGemm(r, A100(15, 15)).empty());
  r = Fp16(1793, 1793, 1793);
  r.routine = static_cast<uint16_t>(BlasRoutine::kGemmStridedBatched);
  r.batch = 0;
  EXPECT_TRUE(DiagnoseGemm(r, A100(15, 15)).empty());
  // A well-shaped GEMM on full waves says nothing.
  EXPECT_TRUE(DiagnoseGemm(Fp16(4096, 4096, 4096), A100(32, 27)).empty());  // 864 = 8 * 108
}

TEST(GemmDiagnostics, Names) {
  EXPECT_EQ(GemmFindingKindName(GemmFindingKind::kWaveQuantization), "wave_quantization");
  EXPECT_EQ(GemmFindingKindName(GemmFindingKind::kSkinny), "skinny_gemm");
  EXPECT_EQ(FindingSeverityName(FindingSeverity::kSevere), "severe");
}

}  // namespace
}  // namespace flopspy::analyzers
