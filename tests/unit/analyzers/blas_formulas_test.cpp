#include "flopspy/analyzers/blas_formulas.h"

#include <gtest/gtest.h>

#include <vector>

#include "flopspy/analyzers/blas_types.h"

namespace flopspy::analyzers {
namespace {

namespace t = cuda_type;
namespace ct = compute_type;
namespace ep = lt_epilogue;
using trace::FigureSource;

constexpr uint32_t kBetaZero = trace::kLibBetaKnown;
constexpr uint32_t kBetaNonZero = trace::kLibBetaKnown | trace::kLibBetaNonZero;
constexpr uint32_t kBetaUnknown = 0;

// A record as a hook would fill it for `entry`: routine and fixed types from the entry-point
// table, no transposes, batch 1, default epilogue, status success.
trace::LibraryCallRecord Rec(const char* entry, int64_t m, int64_t n, int64_t k,
                             uint32_t flags = kBetaZero) {
  trace::LibraryCallRecord r{};
  r.type_a = r.type_b = r.type_c = r.type_d = kNotApplicable;
  r.compute_type = r.scale_type = kNotApplicable;
  r.side = r.uplo = r.diag = kNotApplicable;
  const BlasEntryPoint* e = FindBlasEntryPoint(entry);
  EXPECT_NE(e, nullptr) << entry;
  if (e != nullptr) ApplyEntryPointDefaults(*e, r);
  r.m = m;
  r.n = n;
  r.k = k;
  r.batch = 1;
  r.trans_a = r.trans_b = blas_op::kN;
  r.epilogue = ep::kDefault;
  r.flags = flags;
  return r;
}

trace::LibraryCallRecord Lt(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t compute, int64_t m,
                            int64_t n, int64_t k, uint32_t epilogue, uint32_t flags = kBetaZero) {
  trace::LibraryCallRecord r = Rec("cublasLtMatmul", m, n, k, flags);
  r.type_a = a;
  r.type_b = b;
  r.type_c = c;
  r.type_d = d;
  r.compute_type = compute;
  r.epilogue = epilogue;
  return r;
}

void ExpectAnalytic(const BlasFigures& f) {
  EXPECT_EQ(f.source, FigureSource::kAnalytic);
}

// --- GEMM family --------------------------------------------------------------------------------

TEST(BlasFormulas, SgemmBetaZeroNonZeroUnknown) {
  // 2mnk = 2*128*256*64 = 4194304.
  // Beta known zero: A 128*64*4 + B 64*256*4 + D 128*256*4 = 32768 + 65536 + 131072 = 229376.
  BlasFigures f = ComputeBlasFigures(Rec("cublasSgemm_v2", 128, 256, 64, kBetaZero));
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 4194304);
  EXPECT_DOUBLE_EQ(f.bytes, 229376);
  EXPECT_DOUBLE_EQ(f.epilogue_flops, 0);
  EXPECT_EQ(f.path, ComputePath::kFp32);
  EXPECT_EQ(f.notes & kBlasNoteBetaUnknown, 0u);
  // Beta non-zero: C is read too, + 128*256*4 = 131072 -> 360448.
  f = ComputeBlasFigures(Rec("cublasSgemm_v2", 128, 256, 64, kBetaNonZero));
  EXPECT_DOUBLE_EQ(f.bytes, 360448);
  EXPECT_EQ(f.notes & kBlasNoteBetaUnknown, 0u);
  // Beta unknown (device pointer mode): counted as read, and said so.
  f = ComputeBlasFigures(Rec("cublasSgemm_v2", 128, 256, 64, kBetaUnknown));
  EXPECT_DOUBLE_EQ(f.bytes, 360448);
  EXPECT_NE(f.notes & kBlasNoteBetaUnknown, 0u);
  ExpectAnalytic(f);
}

TEST(BlasFormulas, TransposesDoNotChangeGemmFigures) {
  for (uint8_t ta : {blas_op::kN, blas_op::kT, blas_op::kC}) {
    for (uint8_t tb : {blas_op::kN, blas_op::kT}) {
      trace::LibraryCallRecord r = Rec("cublasDgemm_v2", 300, 200, 100);
      r.trans_a = ta;
      r.trans_b = tb;
      const BlasFigures f = ComputeBlasFigures(r);
      // 2*300*200*100 = 12e6; bytes 8*(300*100 + 100*200 + 300*200) = 8*110000 = 880000.
      EXPECT_DOUBLE_EQ(f.flops, 12e6);
      EXPECT_DOUBLE_EQ(f.bytes, 880000);
      EXPECT_EQ(f.path, ComputePath::kFp64Tensor);
    }
  }
}

TEST(BlasFormulas, ComplexGemmAnd3m) {
  // Cgemm: 8mnk = 8*2*3*4 = 192; bytes (beta non-zero) 8*(2*4 + 4*3 + 2*3 + 2*3) = 8*32 = 256.
  BlasFigures f = ComputeBlasFigures(Rec("cublasCgemm_v2", 2, 3, 4, kBetaNonZero));
  EXPECT_DOUBLE_EQ(f.flops, 192);
  EXPECT_DOUBLE_EQ(f.bytes, 256);
  EXPECT_EQ(f.path, ComputePath::kFp32);
  EXPECT_EQ(f.notes & kBlasNoteProblemFlops, 0u);
  // Cgemm3m counts the problem's 8mnk as well, with a note that 3M executes fewer.
  f = ComputeBlasFigures(Rec("cublasCgemm3m", 2, 3, 4, kBetaNonZero));
  EXPECT_DOUBLE_EQ(f.flops, 192);
  EXPECT_DOUBLE_EQ(f.bytes, 256);
  EXPECT_NE(f.notes & kBlasNoteProblemFlops, 0u);
  // Zgemm_v2_64, m=n=k=100: 8e6 FLOPs; bytes 16*3*10^4 = 480000; FP64 tensor roof.
  f = ComputeBlasFigures(Rec("cublasZgemm_v2_64", 100, 100, 100));
  EXPECT_DOUBLE_EQ(f.flops, 8e6);
  EXPECT_DOUBLE_EQ(f.bytes, 480000);
  EXPECT_EQ(f.path, ComputePath::kFp64Tensor);
}

TEST(BlasFormulas, HgemmRunsOnHalfAccumulateTensorCores) {
  // 2*64^3 = 524288; bytes 2*3*64*64 = 24576.
  const BlasFigures f = ComputeBlasFigures(Rec("cublasHgemm", 64, 64, 64));
  EXPECT_DOUBLE_EQ(f.flops, 524288);
  EXPECT_DOUBLE_EQ(f.bytes, 24576);
  EXPECT_EQ(f.path, ComputePath::kFp16TensorHalfAcc);
}

TEST(BlasFormulas, GemmExMixedTypes) {
  // BF16 A/B, FP32 C, compute 32F, beta non-zero, 1024x512x256.
  // flops 2*1024*512*256 = 268435456.
  // bytes A 2*1024*256 = 524288, B 2*256*512 = 262144, C read 4*1024*512 = 2097152,
  //       C write 2097152: total 4980736.
  trace::LibraryCallRecord r = Rec("cublasGemmEx", 1024, 512, 256, kBetaNonZero);
  r.type_a = r.type_b = t::kR16BF;
  r.type_c = t::kR32F;
  r.compute_type = ct::k32F;
  BlasFigures f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 268435456);
  EXPECT_DOUBLE_EQ(f.bytes, 4980736);
  EXPECT_EQ(f.path, ComputePath::kBf16Tensor);

  // INT8 with 32I compute, 32x32x32, C 32I, beta zero: 2*32768 = 65536 FLOPs (integer ops);
  // bytes 1024 + 1024 + 4*1024 = 6144.
  r = Rec("cublasGemmEx_64", 32, 32, 32);
  r.type_a = r.type_b = t::kR8I;
  r.type_c = t::kR32I;
  r.compute_type = ct::k32I;
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 65536);
  EXPECT_DOUBLE_EQ(f.bytes, 6144);
  EXPECT_EQ(f.path, ComputePath::kInt8Tensor);

  // SgemmEx with FP16 inputs and FP16 output (compute fixed at 32F): FP16 tensor, FP32 accumulate.
  r = Rec("cublasSgemmEx", 64, 64, 64);
  r.type_a = r.type_b = r.type_c = t::kR16F;
  f = ComputeBlasFigures(r);
  EXPECT_EQ(f.path, ComputePath::kFp16Tensor);
  EXPECT_DOUBLE_EQ(f.bytes, 24576);  // 2*3*4096
}

TEST(BlasFormulas, ComputePathRules) {
  const auto gemm = [](uint8_t a, uint8_t b, uint8_t compute) {
    return BlasComputePath(BlasRoutine::kGemm, a, b, compute, kNotApplicable);
  };
  EXPECT_EQ(gemm(t::kR32F, t::kR32F, ct::k32F), ComputePath::kFp32);
  EXPECT_EQ(gemm(t::kR32F, t::kR32F, ct::k32FPedantic), ComputePath::kFp32);
  EXPECT_EQ(gemm(t::kR32F, t::kR32F, ct::k32FFastTF32), ComputePath::kTf32Tensor);
  EXPECT_EQ(gemm(t::kC32F, t::kC32F, ct::k32FFastTF32), ComputePath::kTf32Tensor);
  EXPECT_EQ(gemm(t::kR32F, t::kR32F, ct::k32FFast16F), ComputePath::kFp16Tensor);
  EXPECT_EQ(gemm(t::kR32F, t::kR32F, ct::k32FFast16BF), ComputePath::kBf16Tensor);
  EXPECT_EQ(gemm(t::kR16F, t::kR16F, ct::k32F), ComputePath::kFp16Tensor);
  EXPECT_EQ(gemm(t::kR16F, t::kR16F, ct::k16F), ComputePath::kFp16TensorHalfAcc);
  EXPECT_EQ(gemm(t::kR16BF, t::kR16BF, ct::k32F), ComputePath::kBf16Tensor);
  EXPECT_EQ(gemm(t::kR16BF, t::kR16BF, ct::k32FFastTF32), ComputePath::kBf16Tensor);
  EXPECT_EQ(gemm(t::kR8FE4M3, t::kR8FE5M2, ct::k32F), ComputePath::kFp8Tensor);
  EXPECT_EQ(gemm(t::kR8FE5M2, t::kR8FE4M3, ct::k32F), ComputePath::kFp8Tensor);
  EXPECT_EQ(gemm(t::kR4FE2M1, t::kR4FE2M1, ct::k32F), ComputePath::kFp4Tensor);
  EXPECT_EQ(gemm(t::kR8I, t::kR8I, ct::k32I), ComputePath::kInt8Tensor);
  EXPECT_EQ(gemm(t::kR64F, t::kR64F, ct::k64F), ComputePath::kFp64Tensor);
  EXPECT_EQ(gemm(t::kC64F, t::kC64F, ct::k64FPedantic), ComputePath::kFp64Tensor);
  EXPECT_EQ(gemm(t::kR32F, t::kR32F, ct::k32FEmulated16BFx9), ComputePath::kBf16Tensor);
  EXPECT_EQ(gemm(t::kR64F, t::kR64F, ct::k64FEmulatedFixedPoint), ComputePath::kInt8Tensor);
  EXPECT_EQ(gemm(t::kR32F, t::kR32F, 3), ComputePath::kUnknown);  // no such compute type
  // Level 1 and 2 run on CUDA cores whatever the type.
  EXPECT_EQ(BlasComputePath(BlasRoutine::kGemv, t::kR64F, t::kR64F, ct::k64F, kNotApplicable),
            ComputePath::kFp64);
  EXPECT_EQ(
      BlasComputePath(BlasRoutine::kGemvBatched, t::kR16F, t::kR16F, ct::k32F, kNotApplicable),
      ComputePath::kFp32);
  EXPECT_EQ(BlasComputePath(BlasRoutine::kGer, t::kC32F, t::kC32F, ct::k32F, kNotApplicable),
            ComputePath::kFp32);
  EXPECT_EQ(BlasComputePath(BlasRoutine::kDot, t::kR16BF, t::kR16BF, kNotApplicable, t::kR32F),
            ComputePath::kFp32);
  EXPECT_EQ(BlasComputePath(BlasRoutine::kAxpy, t::kR16F, t::kR16F, kNotApplicable, t::kR16F),
            ComputePath::kFp16);
  EXPECT_EQ(
      BlasComputePath(BlasRoutine::kNrm2, t::kC64F, kNotApplicable, kNotApplicable, kNotApplicable),
      ComputePath::kFp64);
  // Other level 3 follow the compute type: DTRSM on FP64 tensor cores, STRSM on FP32 cores.
  EXPECT_EQ(BlasComputePath(BlasRoutine::kTrsm, t::kR64F, t::kR64F, ct::k64F, kNotApplicable),
            ComputePath::kFp64Tensor);
  EXPECT_EQ(BlasComputePath(BlasRoutine::kSyrk, t::kR32F, kNotApplicable, ct::k32F, kNotApplicable),
            ComputePath::kFp32);
  EXPECT_EQ(BlasComputePath(BlasRoutine::kUnknown, t::kR32F, t::kR32F, ct::k32F, kNotApplicable),
            ComputePath::kUnknown);
}

TEST(BlasFormulas, EmulatedComputeIsNoted) {
  trace::LibraryCallRecord r = Rec("cublasGemmEx", 64, 64, 64);
  r.type_a = r.type_b = r.type_c = t::kR32F;
  r.compute_type = ct::k32FEmulated16BFx9;
  const BlasFigures f = ComputeBlasFigures(r);
  EXPECT_EQ(f.path, ComputePath::kBf16Tensor);
  EXPECT_NE(f.notes & kBlasNoteEmulatedCompute, 0u);
  EXPECT_DOUBLE_EQ(f.flops, 524288);  // the FP32 problem's 2*64^3, not the emulation's work
}

TEST(BlasFormulas, StridedBatchedAndBroadcast) {
  // SgemmStridedBatched 16x16x16, batch 10, beta zero: 2*4096*10 = 81920 FLOPs;
  // bytes 4*(256 + 256 + 256)*10 = 30720.
  trace::LibraryCallRecord r = Rec("cublasSgemmStridedBatched", 16, 16, 16);
  r.batch = 10;
  r.stride_a = r.stride_b = r.stride_c = 256;
  BlasFigures f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 81920);
  EXPECT_DOUBLE_EQ(f.bytes, 30720);
  EXPECT_EQ(f.notes & kBlasNoteBroadcastOperand, 0u);
  // stride_a 0: one A for every problem, read once: 4*256 + 4*256*10 + 4*256*10 = 21504.
  r.stride_a = 0;
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 81920);
  EXPECT_DOUBLE_EQ(f.bytes, 21504);
  EXPECT_NE(f.notes & kBlasNoteBroadcastOperand, 0u);
  // batch 0 does nothing.
  r.batch = 0;
  f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 0);
  EXPECT_DOUBLE_EQ(f.bytes, 0);
}

TEST(BlasFormulas, PointerArrayBatched) {
  // DgemmBatched 8x8x8, batch 4, beta zero: 2*512*4 = 4096 FLOPs;
  // bytes 8*(64*3)*4 = 6144 plus three pointer arrays 3*8*4 = 96: 6240.
  trace::LibraryCallRecord r = Rec("cublasDgemmBatched_64", 8, 8, 8);
  r.batch = 4;
  r.flags |= trace::kLibBatchedPointers;
  const BlasFigures f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 4096);
  EXPECT_DOUBLE_EQ(f.bytes, 6240);
  EXPECT_EQ(f.path, ComputePath::kFp64Tensor);
}

TEST(BlasFormulas, Gemm3mBatchedAndStridedBatched) {
  // Cgemm3mBatched 2x3x4, batch 3, beta non-zero: 8mnk * 3 = 8*24*3 = 576 FLOPs (the problem's,
  // noted); bytes 8*(2*4 + 4*3 + 2*3 + 2*3)*3 = 8*32*3 = 768 + pointer arrays 3*8*3 = 72: 840.
  trace::LibraryCallRecord r = Rec("cublasCgemm3mBatched", 2, 3, 4, kBetaNonZero);
  r.batch = 3;
  r.flags |= trace::kLibBatchedPointers;
  BlasFigures f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 576);
  EXPECT_DOUBLE_EQ(f.bytes, 840);
  EXPECT_NE(f.notes & kBlasNoteProblemFlops, 0u);
  // Cgemm3mStridedBatched 2x3x4, batch 3, beta zero, stride_a 0 (one A for all, read once):
  // 576 FLOPs; bytes A 8*2*4 = 64, B 8*4*3*3 = 288, D 8*2*3*3 = 144: 496; no pointer arrays.
  r = Rec("cublasCgemm3mStridedBatched_64", 2, 3, 4, kBetaZero);
  r.batch = 3;
  r.stride_a = 0;
  r.stride_b = 12;
  r.stride_c = 6;
  f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 576);
  EXPECT_DOUBLE_EQ(f.bytes, 496);
  EXPECT_NE(f.notes & kBlasNoteProblemFlops, 0u);
  EXPECT_NE(f.notes & kBlasNoteBroadcastOperand, 0u);
}

TEST(BlasFormulas, GroupedBatched) {
  // kLibGrouped: m/n/k describe only the first group; the call's total is not known.
  trace::LibraryCallRecord r = Rec("cublasGemmGroupedBatchedEx", 8, 8, 8);
  r.type_a = r.type_b = r.type_c = t::kR32F;
  r.compute_type = ct::k32F;
  r.batch = 3;  // group count
  r.flags |= trace::kLibGrouped;
  BlasFigures f = ComputeBlasFigures(r);
  EXPECT_EQ(f.source, FigureSource::kUnknown);
  EXPECT_DOUBLE_EQ(f.flops, 0);
  EXPECT_DOUBLE_EQ(f.bytes, 0);
  EXPECT_DOUBLE_EQ(f.lower_bound_flops, 1024);  // one 8x8x8 problem: 2*512
  EXPECT_NE(f.notes & kBlasNoteGroupedFirstOnly, 0u);
  EXPECT_EQ(f.path, ComputePath::kFp32);
  // A record per group (flag clear, batch = problems in the group) is exact:
  // 2*512*3 = 3072 FLOPs; bytes 4*(64*3)*3 = 2304 + pointer arrays 3*8*3 = 72: 2376.
  r.flags &= ~trace::kLibGrouped;
  f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 3072);
  EXPECT_DOUBLE_EQ(f.bytes, 2376);
}

trace::LibraryGroupShape Group(int64_t m, int64_t n, int64_t k, int64_t count, uint8_t beta) {
  trace::LibraryGroupShape g{};
  g.m = m, g.n = n, g.k = k, g.count = count, g.beta = beta;
  g.lda = m, g.ldb = k, g.ldc = m;
  return g;
}

TEST(BlasFormulas, GroupedBatchedWithItsGroups) {
  // Complex single (8 bytes, 8mnk), groups (m, n, k, count, beta): (2, 3, 4, 1, 0), (5, 1, 2, 2,
  // non-zero), (1, 1, 1, 0, 0) (an empty group), and cut groups summed: 3 problems with
  // m*n*k 30, m*k 12, k*n 9, m*n 10, of which m*n 4 read C.
  //   m*n*k  2*3*4 + 2*5*1*2 + 30 = 24 + 20 + 30 = 74   FLOPs 8 * 74 = 592
  //   A  8 * (2*4 + 2*5*2 + 12) = 8 * 40 = 320;  B 8 * (4*3 + 2*2*1 + 9) = 8 * 25 = 200
  //   C  8 * (2*5*1 + 4) = 8 * 14 = 112;          D 8 * (2*3 + 2*5*1 + 10) = 8 * 26 = 208
  //   arrays 24 * (1 + 2 + 0 + 3) = 144;          bytes 320 + 200 + 112 + 208 + 144 = 984
  trace::LibraryCallRecord r = Rec("cublasGemmGroupedBatchedEx", 2, 3, 4);
  r.type_a = r.type_b = r.type_c = t::kC32F;
  r.compute_type = ct::k32F;
  r.batch = 5;  // three listed, two cut
  r.flags = trace::kLibGrouped | trace::kLibGroupsFollow | trace::kLibBatchedPointers |
            trace::kLibBetaKnown | trace::kLibBetaNonZero;
  const trace::LibraryGroupShape groups[] = {Group(2, 3, 4, 1, 0), Group(5, 1, 2, 2, 1),
                                             Group(1, 1, 1, 0, 0)};
  trace::LibraryGroupsCut cut{};
  cut.groups = 2, cut.problems = 3;
  cut.mnk = 30, cut.mk = 12, cut.kn = 9, cut.mn = 10, cut.mn_reads_c = 4;
  BlasFigures f = ComputeBlasFigures(r, groups, cut);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 592);
  EXPECT_DOUBLE_EQ(f.bytes, 984);
  EXPECT_EQ(f.notes & kBlasNoteGroupedFirstOnly, 0u);
  EXPECT_EQ(f.path, ComputePath::kFp32);

  // Groups missing (the count does not add up): the first group only, as without groups.
  f = ComputeBlasFigures(r, std::span(groups, 2), cut);
  EXPECT_EQ(f.source, FigureSource::kUnknown);
  EXPECT_NE(f.notes & kBlasNoteGroupedFirstOnly, 0u);
  EXPECT_DOUBLE_EQ(f.lower_bound_flops, 8 * 24);
  // A negative dimension in a group: no figures.
  trace::LibraryGroupShape bad[] = {groups[0], groups[1], Group(1, -1, 1, 1, 0)};
  f = ComputeBlasFigures(r, bad, cut);
  EXPECT_EQ(f.source, FigureSource::kUnknown);
  EXPECT_NE(f.notes & kBlasNoteInvalidShape, 0u);
  // A failed call did no work, whatever its groups.
  r.status = 7;
  f = ComputeBlasFigures(r, groups, cut);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 0);
  EXPECT_NE(f.notes & kBlasNoteCallFailed, 0u);
  // Any other record ignores groups.
  trace::LibraryCallRecord plain = Rec("cublasSgemm_v2", 2, 3, 4);
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(plain, groups, cut).flops, ComputeBlasFigures(plain).flops);
  // FillBlasFigures writes them into the record.
  r.status = 0;
  FillBlasFigures(r, groups, cut);
  EXPECT_DOUBLE_EQ(r.flops, 592);
  EXPECT_DOUBLE_EQ(r.bytes, 984);
  EXPECT_EQ(r.source, static_cast<uint8_t>(FigureSource::kAnalytic));
}

trace::LibraryCallRecord Grouped(const char* entry, int64_t groups) {
  trace::LibraryCallRecord r = Rec(entry, 0, 0, 0);
  r.batch = groups;
  r.flags = trace::kLibGrouped | trace::kLibGroupsFollow | trace::kLibBatchedPointers | kBetaZero;
  return r;
}

TEST(BlasFormulas, GroupedGemmTwoDifferentGroupsByHand) {
  // SgemmGroupedBatched, groups (m, n, k, count) = (64, 32, 16, 3), (8, 8, 8, 1), beta zero:
  //   FLOPs  2*64*32*16*3 + 2*8*8*8*1 = 196608 + 1024         = 197632
  //   A      4 * (3*64*16 + 8*8)   = 4 * 3136                  = 12544
  //   B      4 * (3*16*32 + 8*8)   = 4 * 1600                  = 6400
  //   D      4 * (3*64*32 + 8*8)   = 4 * 6208                  = 24832   (C not read)
  //   arrays 3 pointers * 8 bytes * 4 problems                 = 96
  //   bytes  12544 + 6400 + 24832 + 96                         = 43872
  trace::LibraryCallRecord r = Grouped("cublasSgemmGroupedBatched", 2);
  r.m = 64, r.n = 32, r.k = 16;  // the first group, as the hook writes it
  const trace::LibraryGroupShape groups[] = {Group(64, 32, 16, 3, 0), Group(8, 8, 8, 1, 0)};
  BlasFigures f = ComputeBlasFigures(r, groups, trace::LibraryGroupsCut{});
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 197632);
  EXPECT_DOUBLE_EQ(f.bytes, 43872);
  EXPECT_EQ(f.path, ComputePath::kFp32);
  EXPECT_EQ(f.notes, 0u);
  // The second group reading C (beta non-zero): + 4 * 8*8 = 256 bytes.
  const trace::LibraryGroupShape beta[] = {groups[0], Group(8, 8, 8, 1, 1)};
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r, beta, trace::LibraryGroupsCut{}).bytes, 43872 + 256);

  // Groups of one shape give what the same problems as one pointer-array batch give:
  // DgemmGroupedBatched (8, 8, 8, 2) + (8, 8, 8, 1) = DgemmBatched 8x8x8 batch 3 = 3072 FLOPs,
  // 8*(64*3)*3 + 3*8*3 = 4680 bytes.
  r = Grouped("cublasDgemmGroupedBatched_64", 2);
  const trace::LibraryGroupShape same[] = {Group(8, 8, 8, 2, 0), Group(8, 8, 8, 1, 0)};
  f = ComputeBlasFigures(r, same, trace::LibraryGroupsCut{});
  trace::LibraryCallRecord batched = Rec("cublasDgemmBatched_64", 8, 8, 8);
  batched.batch = 3;
  batched.flags |= trace::kLibBatchedPointers;
  EXPECT_DOUBLE_EQ(f.flops, 3072);
  EXPECT_DOUBLE_EQ(f.bytes, 4680);
  EXPECT_DOUBLE_EQ(f.flops, ComputeBlasFigures(batched).flops);
  EXPECT_DOUBLE_EQ(f.bytes, ComputeBlasFigures(batched).bytes);
}

TEST(BlasFormulas, GroupedGemmBeyondTheListedGroupsIsExact) {
  // GemmGroupedBatchedEx FP32, 70 groups g = 1..70 of (g, 2, 3, 1), beta zero. The writer lists
  // 64 and sums groups 65..70: 6 groups, 6 problems,
  //   m*n*k = 6*(65+...+70) = 6*405 = 2430, m*k = 3*405 = 1215, k*n = 6*6 = 36, m*n = 2*405 = 810.
  // Over every group (sum of m: 1+...+70 = 2485):
  //   FLOPs 2 * 2*3 * 2485 = 29820
  //   A 4*3*2485 = 29820;  B 4*6*70 = 1680;  D 4*2*2485 = 19880;  arrays 24*70 = 1680
  //   bytes 29820 + 1680 + 19880 + 1680 = 53060
  trace::LibraryCallRecord r = Grouped("cublasGemmGroupedBatchedEx_64", 70);
  r.type_a = r.type_b = r.type_c = t::kR32F;
  r.compute_type = ct::k32F;
  std::vector<trace::LibraryGroupShape> listed;
  for (int64_t g = 1; g <= 64; ++g) listed.push_back(Group(g, 2, 3, 1, 0));
  trace::LibraryGroupsCut cut{};
  cut.groups = 6, cut.problems = 6;
  cut.mnk = 2430, cut.mk = 1215, cut.kn = 36, cut.mn = 810, cut.mn_reads_c = 0;
  BlasFigures f = ComputeBlasFigures(r, listed, cut);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 29820);
  EXPECT_DOUBLE_EQ(f.bytes, 53060);
  // A cut whose groups had a negative size (problems < 0, as the hook marks it): no figures.
  cut.problems = -1;
  f = ComputeBlasFigures(r, listed, cut);
  EXPECT_EQ(f.source, FigureSource::kUnknown);
  EXPECT_NE(f.notes & kBlasNoteInvalidShape, 0u);
  // A cut that claims more groups than the call has: the first group only.
  cut.problems = 6;
  cut.groups = 71;
  f = ComputeBlasFigures(r, listed, cut);
  EXPECT_NE(f.notes & kBlasNoteGroupedFirstOnly, 0u);
}

// --- cuBLASLt ------------------------------------------------------------------------------------

TEST(BlasFormulas, LtFp8WithBiasAndGeluAux) {
  // torch._scaled_mm-like: A, B E4M3, C BF16 (not read: beta zero), D E4M3, 4096x2048x1024,
  // epilogue GELU_AUX_BIAS.
  // flops 2*4096*2048*1024 = 17179869184.
  // main bytes A 4096*1024 = 4194304, B 1024*2048 = 2097152, D 4096*2048 = 8388608: 14680064.
  // epilogue flops (bias 1 + GELU 9) * 4096*2048 = 10*8388608 = 83886080.
  // epilogue bytes bias 4096*2 (BF16 assumed for FP8) = 8192, aux 4096*2048*1 (D type) = 8388608:
  //   8396800; total bytes 23076864.
  trace::LibraryCallRecord r = Lt(t::kR8FE4M3, t::kR8FE4M3, t::kR16BF, t::kR8FE4M3, ct::k32F, 4096,
                                  2048, 1024, ep::kGeluAuxBias);
  r.trans_a = blas_op::kT;  // the usual TN layout of FP8 GEMMs; m, n, k are already decoded
  r.flags |= trace::kLibBiasPresent | trace::kLibAuxPresent | trace::kLibScalePointers;
  const BlasFigures f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 17179869184.0);
  EXPECT_DOUBLE_EQ(f.epilogue_flops, 83886080);
  EXPECT_DOUBLE_EQ(f.epilogue_bytes, 8396800);
  EXPECT_DOUBLE_EQ(f.bytes, 23076864);
  EXPECT_EQ(f.path, ComputePath::kFp8Tensor);
  EXPECT_EQ(f.epilogue_path, ComputePath::kFp32);
  EXPECT_NE(f.notes & kBlasNoteAssumedOperandType, 0u);
}

TEST(BlasFormulas, LtBf16Bias) {
  // PyTorch addmm through gemm_and_bias: BF16 everywhere, 768x512x256, epilogue BIAS.
  // flops 2*768*512*256 = 201326592; main bytes 2*(768*256 + 256*512 + 768*512) = 1441792;
  // epilogue 768*512 = 393216 adds; bias 768*2 = 1536 bytes; total 1443328.
  const BlasFigures f = ComputeBlasFigures(
      Lt(t::kR16BF, t::kR16BF, t::kR16BF, t::kR16BF, ct::k32F, 768, 512, 256, ep::kBias));
  EXPECT_DOUBLE_EQ(f.flops, 201326592);
  EXPECT_DOUBLE_EQ(f.epilogue_flops, 393216);
  EXPECT_DOUBLE_EQ(f.epilogue_bytes, 1536);
  EXPECT_DOUBLE_EQ(f.bytes, 1443328);
  EXPECT_EQ(f.path, ComputePath::kBf16Tensor);
  EXPECT_EQ(f.notes & kBlasNoteAssumedOperandType, 0u);
}

TEST(BlasFormulas, LtEpilogueTable) {
  // FP16 in/out, 64x32x16, beta zero. mn = 2048. Main: 2*64*32*16 = 65536 FLOPs;
  // bytes 2*(64*16 + 16*32 + 64*32) = 2*3584 = 7168.
  struct Case {
    uint32_t epilogue;
    double flops;  // epilogue FLOPs
    double bytes;  // epilogue bytes
  };
  const Case cases[] = {
      {ep::kDefault, 0, 0},
      {ep::kRelu, 2048, 0},                       // 1*mn
      {ep::kReluAux, 2048, 256},                  // mask mn/8 = 256
      {ep::kReluBias, 4096, 128},                 // 2*mn; bias 64*2
      {ep::kReluAuxBias, 4096, 128 + 256},        //
      {ep::kGelu, 9 * 2048, 0},                   // 18432
      {ep::kGeluAux, 9 * 2048, 4096},             // aux mn*2
      {ep::kGeluBias, 10 * 2048, 128},            //
      {ep::kGeluAuxBias, 10 * 2048, 128 + 4096},  //
      {ep::kDrelu, 2048, 256},                    // reads the mask
      {ep::kDreluBgrad, 2 * 2048, 256 + 128},     // + bias gradient (m in C type) written
      {ep::kDgelu, 18 * 2048, 4096},              // reads the aux pre-activation
      {ep::kDgeluBgrad, 19 * 2048, 4096 + 128},   //
      {ep::kBgradA, 64 * 16, 128},                // reduce A (m x k): 1024 adds, m outputs
      {ep::kBgradB, 16 * 32, 64},                 // reduce B (k x n): 512 adds, n outputs
  };
  for (const Case& c : cases) {
    const BlasFigures f = ComputeBlasFigures(
        Lt(t::kR16F, t::kR16F, t::kR16F, t::kR16F, ct::k32F, 64, 32, 16, c.epilogue));
    EXPECT_DOUBLE_EQ(f.flops, 65536) << EpilogueName(c.epilogue);
    EXPECT_DOUBLE_EQ(f.epilogue_flops, c.flops) << EpilogueName(c.epilogue);
    EXPECT_DOUBLE_EQ(f.epilogue_bytes, c.bytes) << EpilogueName(c.epilogue);
    EXPECT_DOUBLE_EQ(f.bytes, 7168 + c.bytes) << EpilogueName(c.epilogue);
    EXPECT_EQ(f.notes & kBlasNoteUnknownEpilogue, 0u) << EpilogueName(c.epilogue);
  }
  // A value cuBLAS does not define: main figures stay, epilogue not counted, noted.
  const BlasFigures f =
      ComputeBlasFigures(Lt(t::kR16F, t::kR16F, t::kR16F, t::kR16F, ct::k32F, 64, 32, 16, 3));
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.epilogue_flops, 0);
  EXPECT_DOUBLE_EQ(f.bytes, 7168);
  EXPECT_NE(f.notes & kBlasNoteUnknownEpilogue, 0u);
}

TEST(BlasFormulas, LtBatchedAndIncompleteDescriptor) {
  // FP32 with TF32 compute, 128x128x128, batch 3 strided, C read (beta non-zero), RELU.
  // flops 2*128^3*3 = 12582912; bytes 4*16384*(A + B + C + D)*3 = 4*16384*4*3 = 786432;
  // epilogue 128*128*3 = 49152.
  trace::LibraryCallRecord r = Lt(t::kR32F, t::kR32F, t::kR32F, t::kR32F, ct::k32FFastTF32, 128,
                                  128, 128, ep::kRelu, kBetaNonZero);
  r.batch = 3;
  r.stride_a = r.stride_b = r.stride_c = r.stride_d = 16384;
  r.flags |= trace::kLibDescriptorIncomplete;
  const BlasFigures f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 12582912);
  EXPECT_DOUBLE_EQ(f.bytes, 786432 + 0);
  EXPECT_DOUBLE_EQ(f.epilogue_flops, 49152);
  EXPECT_EQ(f.path, ComputePath::kTf32Tensor);
  EXPECT_NE(f.notes & kBlasNoteDescriptorIncomplete, 0u);
}

// --- Level 2
// ---------------------------------------------------------------------------------------

TEST(BlasFormulas, GemvBothTransposes) {
  // Sgemv 1000x500: 2mn = 1e6 FLOPs either way.
  // Beta zero: A 4*500000 + x + y write: N: x 500, y 1000 -> 4*(500000+1500) = 2006000;
  //            T: x 1000, y 500 -> the same 2006000.
  // Beta non-zero adds the y read: N 4*1000 -> 2010000; T 4*500 -> 2008000.
  trace::LibraryCallRecord r = Rec("cublasSgemv_v2", 1000, 500, 0);
  BlasFigures f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 1e6);
  EXPECT_DOUBLE_EQ(f.bytes, 2006000);
  EXPECT_EQ(f.path, ComputePath::kFp32);
  r.trans_a = blas_op::kT;
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).bytes, 2006000);
  r.flags = kBetaNonZero;
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).bytes, 2008000);
  r.trans_a = blas_op::kN;
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).bytes, 2010000);
  // Zgemv 10x20: 8*200 = 1600 FLOPs; bytes 16*(200 + 20 + 10) = 3680 (beta zero); FP64 cores.
  f = ComputeBlasFigures(Rec("cublasZgemv_v2_64", 10, 20, 0));
  EXPECT_DOUBLE_EQ(f.flops, 1600);
  EXPECT_DOUBLE_EQ(f.bytes, 3680);
  EXPECT_EQ(f.path, ComputePath::kFp64);
}

TEST(BlasFormulas, GemvBatchedMixed) {
  // HSHgemvBatched 64x64, batch 8, beta zero: 2*4096*8 = 65536 FLOPs;
  // bytes (2*4096 + 2*64 + 2*64)*8 = 67584 + pointer arrays 3*8*8 = 192: 67776; FP32 cores.
  trace::LibraryCallRecord r = Rec("cublasHSHgemvBatched", 64, 64, 0);
  r.batch = 8;
  BlasFigures f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 65536);
  EXPECT_DOUBLE_EQ(f.bytes, 67776);
  EXPECT_EQ(f.path, ComputePath::kFp32);
  // TSSgemvStridedBatched 64x32 (y FP32), batch 2, beta non-zero: 2*2048*2 = 8192 FLOPs;
  // bytes per problem 2*2048 + 2*32 (x) + 4*64 (y read) + 4*64 (y write) = 4672; x2 = 9344.
  r = Rec("cublasTSSgemvStridedBatched_64", 64, 32, 0, kBetaNonZero);
  r.batch = 2;
  r.stride_a = 2048;
  r.stride_b = 32;
  r.stride_c = 64;
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 8192);
  EXPECT_DOUBLE_EQ(f.bytes, 9344);
}

TEST(BlasFormulas, Ger) {
  // Dger 300x200: 2mn = 120000; bytes 8*(300 + 200 + 2*60000) = 964000.
  BlasFigures f = ComputeBlasFigures(Rec("cublasDger_v2", 300, 200, 0, kBetaUnknown));
  EXPECT_DOUBLE_EQ(f.flops, 120000);
  EXPECT_DOUBLE_EQ(f.bytes, 964000);
  EXPECT_EQ(f.path, ComputePath::kFp64);
  EXPECT_EQ(f.notes & kBlasNoteBetaUnknown, 0u);  // ger has no beta
  // Cgerc and Cgeru: 8mn = 480000; bytes 8*120500 = 964000.
  for (const char* name : {"cublasCgerc_v2", "cublasCgeru_v2_64"}) {
    f = ComputeBlasFigures(Rec(name, 300, 200, 0));
    EXPECT_DOUBLE_EQ(f.flops, 480000) << name;
    EXPECT_DOUBLE_EQ(f.bytes, 964000) << name;
  }
}

// --- Level 3 other than GEMM -------------------------------------------------------------------

TEST(BlasFormulas, TrsmSidesUplosAndComplex) {
  // Strsm left, m=100, n=50: fmuls 0.5*50*100*101 = 252500, fadds 0.5*50*100*99 = 247500,
  // total 500000 = m^2 n. Bytes 4*(0.5*100*101 + 2*100*50) = 4*(5050 + 10000) = 60200.
  for (uint8_t uplo : {blas_fill::kLower, blas_fill::kUpper}) {
    trace::LibraryCallRecord r = Rec("cublasStrsm_v2", 100, 50, 0);
    r.side = blas_side::kLeft;
    r.uplo = uplo;
    BlasFigures f = ComputeBlasFigures(r);
    EXPECT_DOUBLE_EQ(f.flops, 500000);
    EXPECT_DOUBLE_EQ(f.bytes, 60200);
    EXPECT_EQ(f.path, ComputePath::kFp32);
    // Right: fmuls 0.5*100*50*51 = 127500, fadds 0.5*100*50*49 = 122500: 250000 = m n^2.
    // Bytes 4*(0.5*50*51 + 10000) = 4*11275 = 45100.
    r.side = blas_side::kRight;
    f = ComputeBlasFigures(r);
    EXPECT_DOUBLE_EQ(f.flops, 250000);
    EXPECT_DOUBLE_EQ(f.bytes, 45100);
  }
  // Ctrsm left 100x50: 6*252500 + 2*247500 = 2010000 (= 4 m^2 n + 2 m n);
  // bytes 8*(5050 + 10000) = 120400.
  trace::LibraryCallRecord r = Rec("cublasCtrsm_v2_64", 100, 50, 0);
  r.side = blas_side::kLeft;
  BlasFigures f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 2010000);
  EXPECT_DOUBLE_EQ(f.bytes, 120400);
  // Dtrsm: FP64 level 3 -> FP64 tensor roof.
  r = Rec("cublasDtrsm", 100, 50, 0);
  r.side = blas_side::kLeft;
  EXPECT_EQ(ComputeBlasFigures(r).path, ComputePath::kFp64Tensor);
}

TEST(BlasFormulas, TrsmBatchedAndTrmm) {
  // DtrsmBatched left 10x10, batch 5: (0.5*10*10*11 + 0.5*10*10*9)*5 = (550 + 450)*5 = 5000;
  // bytes (55*8 + 2*100*8)*5 = 10200 + pointer arrays 2*8*5 = 80: 10280.
  trace::LibraryCallRecord r = Rec("cublasDtrsmBatched", 10, 10, 0);
  r.side = blas_side::kLeft;
  r.batch = 5;
  BlasFigures f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 5000);
  EXPECT_DOUBLE_EQ(f.bytes, 10280);
  // Strmm right 100x50: 250000 FLOPs; bytes 4*(1275 + 5000 read B + 5000 write C) = 45100.
  r = Rec("cublasStrmm_v2", 100, 50, 0);
  r.side = blas_side::kRight;
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 250000);
  EXPECT_DOUBLE_EQ(f.bytes, 45100);
  // Ztrmm right 100x50: 6*127500 + 2*122500 = 1010000.
  r = Rec("cublasZtrmm_v2", 100, 50, 0);
  r.side = blas_side::kRight;
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).flops, 1010000);
}

TEST(BlasFormulas, SymmHemm) {
  // Ssymm left 100x50: 2 m^2 n = 1e6; bytes 4*(5050 + 5000 + 5000) = 60200 (beta zero).
  trace::LibraryCallRecord r = Rec("cublasSsymm_v2", 100, 50, 0);
  r.side = blas_side::kLeft;
  r.uplo = blas_fill::kUpper;
  BlasFigures f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 1e6);
  EXPECT_DOUBLE_EQ(f.bytes, 60200);
  // Beta non-zero reads C: + 4*5000 = 80200.
  r.flags = kBetaNonZero;
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).bytes, 80200);
  // Right: 2 m n^2 = 500000; bytes 4*(1275 + 5000 + 5000 + 5000) = 65100 (beta non-zero).
  r.side = blas_side::kRight;
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 500000);
  EXPECT_DOUBLE_EQ(f.bytes, 65100);
  // Zhemm left 10x20: 8 m^2 n = 16000; bytes 16*(55 + 200 + 200) = 7280 (beta zero).
  r = Rec("cublasZhemm_v2_64", 10, 20, 0);
  r.side = blas_side::kLeft;
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 16000);
  EXPECT_DOUBLE_EQ(f.bytes, 7280);
  EXPECT_EQ(f.path, ComputePath::kFp64Tensor);
}

TEST(BlasFormulas, RankK) {
  // Dsyrk n=100, k=50: k n (n+1) = 505000; bytes 8*(5000 + 5050) = 80400 (beta zero),
  // + 8*5050 = 120800 with beta non-zero. m is not used by syrk (left at garbage on purpose).
  trace::LibraryCallRecord r = Rec("cublasDsyrk_v2", -7, 100, 50);
  r.uplo = blas_fill::kLower;
  BlasFigures f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 505000);
  EXPECT_DOUBLE_EQ(f.bytes, 80400);
  r.flags = kBetaNonZero;
  r.trans_a = blas_op::kT;  // A is k x n instead of n x k: same figures
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).bytes, 120800);
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).flops, 505000);
  // Zherk: 4 k n (n+1) = 2020000; bytes 16*(5000 + 5050) = 160800.
  f = ComputeBlasFigures(Rec("cublasZherk_v2", 0, 100, 50));
  EXPECT_DOUBLE_EQ(f.flops, 2020000);
  EXPECT_DOUBLE_EQ(f.bytes, 160800);
  // Ssyr2k: 2 k n^2 = 1e6; bytes 4*(5000 + 5000 + 5050) = 60200.
  f = ComputeBlasFigures(Rec("cublasSsyr2k_v2", 0, 100, 50));
  EXPECT_DOUBLE_EQ(f.flops, 1e6);
  EXPECT_DOUBLE_EQ(f.bytes, 60200);
  // Zher2k: 8 k n^2 = 4e6.
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(Rec("cublasZher2k_v2_64", 0, 100, 50)).flops, 4e6);
  // Ssyrkx: one triangle of A B^T like syrk, k n (n+1) = 505000; reads A and B: 60200.
  f = ComputeBlasFigures(Rec("cublasSsyrkx", 0, 100, 50));
  EXPECT_DOUBLE_EQ(f.flops, 505000);
  EXPECT_DOUBLE_EQ(f.bytes, 60200);
  // CherkEx with C_8I input: still complex, 4 k n (n+1); bytes 2*5000 + 8*5050 = 50400.
  r = Rec("cublasCherkEx", 0, 100, 50);
  r.type_a = t::kC8I;
  r.type_c = t::kC32F;
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 2020000);
  EXPECT_DOUBLE_EQ(f.bytes, 50400);
}

TEST(BlasFormulas, ComplexRankKWithTwoOperands) {
  // n = 100, k = 50; one triangle of C: n(n+1)/2 = 5050 elements, A and B n x k = 5000 each.
  // Cherkx: like herk, 4 k n (n+1) = 2020000 FLOPs; bytes (beta zero) 8*(5000 + 5000 + 5050)
  // = 120400.
  BlasFigures f = ComputeBlasFigures(Rec("cublasCherkx", 0, 100, 50));
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 2020000);
  EXPECT_DOUBLE_EQ(f.bytes, 120400);
  // Zherkx_64, beta non-zero: same FLOPs; 16*(5000 + 5000 + 5050 + 5050) = 321600 bytes.
  f = ComputeBlasFigures(Rec("cublasZherkx_64", 0, 100, 50, kBetaNonZero));
  EXPECT_DOUBLE_EQ(f.flops, 2020000);
  EXPECT_DOUBLE_EQ(f.bytes, 321600);
  EXPECT_EQ(f.path, ComputePath::kFp64Tensor);
  // Dsyrkx: real, k n (n+1)/2 * 2 = 505000; 8*(5000 + 5000 + 5050) = 120400.
  f = ComputeBlasFigures(Rec("cublasDsyrkx", 0, 100, 50));
  EXPECT_DOUBLE_EQ(f.flops, 505000);
  EXPECT_DOUBLE_EQ(f.bytes, 120400);
  // Csyr2k: 8 k n^2 = 8*500000 = 4e6; bytes (beta zero) 8*(5000 + 5000 + 5050) = 120400.
  f = ComputeBlasFigures(Rec("cublasCsyr2k_v2", 0, 100, 50));
  EXPECT_DOUBLE_EQ(f.flops, 4e6);
  EXPECT_DOUBLE_EQ(f.bytes, 120400);
  // Zsyr2k, beta non-zero: 4e6; 16*(5000 + 5000 + 5050 + 5050) = 321600.
  f = ComputeBlasFigures(Rec("cublasZsyr2k_v2_64", 0, 100, 50, kBetaNonZero));
  EXPECT_DOUBLE_EQ(f.flops, 4e6);
  EXPECT_DOUBLE_EQ(f.bytes, 321600);
  // Cher2k, beta zero: 4e6; 120400. Zher2k bytes, beta non-zero: 321600.
  f = ComputeBlasFigures(Rec("cublasCher2k_v2", 0, 100, 50));
  EXPECT_DOUBLE_EQ(f.flops, 4e6);
  EXPECT_DOUBLE_EQ(f.bytes, 120400);
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(Rec("cublasZher2k", 0, 100, 50, kBetaNonZero)).bytes, 321600);
}

TEST(BlasFormulas, DotcAxpyAndNrm2ExForms) {
  // DotcEx, complex single vectors, n = 1000: 6n + 2(n-1) = 7998 FLOPs; 8*2000 = 16000 bytes.
  trace::LibraryCallRecord r = Rec("cublasDotcEx", 0, 1000, 0);
  r.type_a = r.type_b = r.type_c = r.type_d = t::kC32F;
  BlasFigures f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 7998);
  EXPECT_DOUBLE_EQ(f.bytes, 16000);
  // AxpyEx, FP16 x and y, FP32 alpha and execution, n = 1000: 2n = 2000 FLOPs;
  // x read, y read and written: 2*1000 + 2*2*1000 = 6000 bytes.
  r = Rec("cublasAxpyEx_64", 0, 1000, 0);
  r.scale_type = t::kR32F;
  r.type_a = r.type_b = t::kR16F;
  r.type_d = t::kR32F;
  f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 2000);
  EXPECT_DOUBLE_EQ(f.bytes, 6000);
  // Nrm2Ex, BF16 x, FP32 result and execution: 2n - 1 = 1999 FLOPs; 2*1000 = 2000 bytes.
  r = Rec("cublasNrm2Ex", 0, 1000, 0);
  r.type_a = t::kR16BF;
  r.type_c = r.type_d = t::kR32F;
  f = ComputeBlasFigures(r);
  ExpectAnalytic(f);
  EXPECT_DOUBLE_EQ(f.flops, 1999);
  EXPECT_DOUBLE_EQ(f.bytes, 2000);
  EXPECT_EQ(f.notes & kBlasNoteProblemFlops, 0u);
  // Nrm2Ex of a complex double vector: 6n + 2(n-1) = 7998 (noted); 16*1000 = 16000 bytes.
  r.type_a = t::kC64F;
  r.type_c = r.type_d = t::kR64F;
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 7998);
  EXPECT_DOUBLE_EQ(f.bytes, 16000);
  EXPECT_NE(f.notes & kBlasNoteProblemFlops, 0u);
}

// --- Level 1
// ---------------------------------------------------------------------------------------

TEST(BlasFormulas, Level1) {
  // Sdot n=1000: 2n-1 = 1999; bytes 4*2000 = 8000.
  BlasFigures f = ComputeBlasFigures(Rec("cublasSdot_v2", 0, 1000, 0, kBetaUnknown));
  EXPECT_DOUBLE_EQ(f.flops, 1999);
  EXPECT_DOUBLE_EQ(f.bytes, 8000);
  EXPECT_EQ(f.path, ComputePath::kFp32);
  EXPECT_EQ(f.notes & kBlasNoteBetaUnknown, 0u);
  // Cdotc: 6n + 2(n-1) = 7998; bytes 8*2000 = 16000.
  f = ComputeBlasFigures(Rec("cublasCdotc_v2", 0, 1000, 0));
  EXPECT_DOUBLE_EQ(f.flops, 7998);
  EXPECT_DOUBLE_EQ(f.bytes, 16000);
  // DotEx, FP16 vectors, FP32 execution: 1999 FLOPs on FP32 cores; bytes 2*2000 = 4000.
  trace::LibraryCallRecord r = Rec("cublasDotEx", 0, 1000, 0);
  r.type_a = r.type_b = r.type_c = t::kR16F;
  r.type_d = t::kR32F;  // execution type
  f = ComputeBlasFigures(r);
  EXPECT_DOUBLE_EQ(f.flops, 1999);
  EXPECT_DOUBLE_EQ(f.bytes, 4000);
  EXPECT_EQ(f.path, ComputePath::kFp32);
  // n = 0 does nothing (not -1 FLOPs).
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(Rec("cublasDdot_v2", 0, 0, 0)).flops, 0);
  // Daxpy: 2n = 2000; bytes 8*3000 = 24000. Zaxpy: 8n = 8000; 16*3000 = 48000.
  f = ComputeBlasFigures(Rec("cublasDaxpy_v2", 0, 1000, 0));
  EXPECT_DOUBLE_EQ(f.flops, 2000);
  EXPECT_DOUBLE_EQ(f.bytes, 24000);
  EXPECT_EQ(f.path, ComputePath::kFp64);
  f = ComputeBlasFigures(Rec("cublasZaxpy", 0, 1000, 0));
  EXPECT_DOUBLE_EQ(f.flops, 8000);
  EXPECT_DOUBLE_EQ(f.bytes, 48000);
  // Sscal n: 1000, bytes 8000. Cscal 6n: 6000, 16000. Csscal (real alpha) 2n: 2000, 16000.
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(Rec("cublasSscal_v2", 0, 1000, 0)).flops, 1000);
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(Rec("cublasSscal_v2", 0, 1000, 0)).bytes, 8000);
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(Rec("cublasCscal_v2", 0, 1000, 0)).flops, 6000);
  f = ComputeBlasFigures(Rec("cublasCsscal_v2", 0, 1000, 0));
  EXPECT_DOUBLE_EQ(f.flops, 2000);
  EXPECT_DOUBLE_EQ(f.bytes, 16000);
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(Rec("cublasZdscal", 0, 1000, 0)).flops, 2000);
  // ScalEx with a complex vector and a real alpha type behaves like Csscal.
  r = Rec("cublasScalEx", 0, 1000, 0);
  r.type_a = t::kC32F;
  r.scale_type = t::kR32F;
  r.type_d = t::kC32F;
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).flops, 2000);
  r.scale_type = t::kC32F;
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).flops, 6000);
  // Snrm2: 2n-1 = 1999, bytes 4000. Scnrm2: 6n + 2(n-1) = 7998 (blaspp's problem count), 8000.
  f = ComputeBlasFigures(Rec("cublasSnrm2_v2", 0, 1000, 0));
  EXPECT_DOUBLE_EQ(f.flops, 1999);
  EXPECT_DOUBLE_EQ(f.bytes, 4000);
  f = ComputeBlasFigures(Rec("cublasScnrm2_v2", 0, 1000, 0));
  EXPECT_DOUBLE_EQ(f.flops, 7998);
  EXPECT_DOUBLE_EQ(f.bytes, 8000);
  EXPECT_NE(f.notes & kBlasNoteProblemFlops, 0u);
  EXPECT_EQ(f.path, ComputePath::kFp32);
}

TEST(BlasFormulas, Int64FormsBeyondInt32) {
  // Daxpy_v2_64 with n = 3 * 2^31 = 6442450944: 2n = 12884901888 FLOPs,
  // bytes 3 * 8 * n = 154618822656.
  const int64_t n = int64_t{3} << 31;
  const BlasFigures f = ComputeBlasFigures(Rec("cublasDaxpy_v2_64", 0, n, 0));
  EXPECT_DOUBLE_EQ(f.flops, 12884901888.0);
  EXPECT_DOUBLE_EQ(f.bytes, 154618822656.0);
  // SgemmStridedBatched_64 with batch 2^32: 2*2*2*2 * 2^32 = 16 * 4294967296 = 68719476736.
  trace::LibraryCallRecord r = Rec("cublasSgemmStridedBatched_64", 2, 2, 2);
  r.batch = int64_t{1} << 32;
  r.stride_a = r.stride_b = r.stride_c = 4;
  EXPECT_DOUBLE_EQ(ComputeBlasFigures(r).flops, 68719476736.0);
}

// --- What cannot be known ---------------------------------------------------------------------

TEST(BlasFormulas, UnknownRoutineFailedCallBadShapeUnknownType) {
  trace::LibraryCallRecord r = Rec("cublasSgemm_v2", 10, 10, 10);
  r.flags |= trace::kLibUnknownRoutine;
  BlasFigures f = ComputeBlasFigures(r);
  EXPECT_EQ(f.source, FigureSource::kUnknown);
  EXPECT_DOUBLE_EQ(f.flops, 0);
  EXPECT_DOUBLE_EQ(f.bytes, 0);
  EXPECT_NE(f.notes & kBlasNoteUnknownRoutine, 0u);

  r = Rec("cublasSgemm_v2", 10, 10, 10);
  r.routine = 999;
  f = ComputeBlasFigures(r);
  EXPECT_EQ(f.source, FigureSource::kUnknown);
  EXPECT_DOUBLE_EQ(f.flops, 0);

  // A failed call did nothing: exactly zero, which is analytic.
  r = Rec("cublasSgemm_v2", 10, 10, 10);
  r.status = 7;  // CUBLAS_STATUS_INVALID_VALUE
  f = ComputeBlasFigures(r);
  EXPECT_EQ(f.source, FigureSource::kAnalytic);
  EXPECT_DOUBLE_EQ(f.flops, 0);
  EXPECT_NE(f.notes & kBlasNoteCallFailed, 0u);

  r = Rec("cublasSgemm_v2", -1, 10, 10);
  f = ComputeBlasFigures(r);
  EXPECT_EQ(f.source, FigureSource::kUnknown);
  EXPECT_NE(f.notes & kBlasNoteInvalidShape, 0u);

  r = Rec("cublasGemmEx", 10, 10, 10);  // types from the arguments never filled
  f = ComputeBlasFigures(r);
  EXPECT_EQ(f.source, FigureSource::kUnknown);
  EXPECT_DOUBLE_EQ(f.flops, 0);
  EXPECT_NE(f.notes & kBlasNoteUnknownType, 0u);
}

TEST(BlasFormulas, FillWritesTheRecord) {
  trace::LibraryCallRecord r =
      Lt(t::kR16F, t::kR16F, t::kR16F, t::kR16F, ct::k32F, 64, 32, 16, ep::kGelu);
  FillBlasFigures(r);
  EXPECT_DOUBLE_EQ(r.flops, 65536);
  EXPECT_DOUBLE_EQ(r.epilogue_flops, 18432);
  EXPECT_DOUBLE_EQ(r.bytes, 7168);
  EXPECT_EQ(r.source, static_cast<uint8_t>(FigureSource::kAnalytic));
}

}  // namespace
}  // namespace flopspy::analyzers
