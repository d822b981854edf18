#include "flopspy/analyzers/blas_formulas.h"

#include <algorithm>

#include "flopspy/analyzers/blas_types.h"
#include "flopspy/trace/library_groups.h"

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;
using trace::LibraryCallRecord;

// LAWN 41 operation weights: a complex multiply is 6 real FLOPs, a complex add 2.
struct OpWeights {
  double mul;
  double add;
};
constexpr OpWeights kReal{1, 1};
constexpr OpWeights kComplex{6, 2};
// A real scalar times a complex vector (Csscal, Zdscal): 2 real multiplies per element.
constexpr OpWeights kRealTimesComplex{2, 0};

double Flops(OpWeights w, double fmuls, double fadds) {
  return w.mul * fmuls + w.add * fadds;
}

// Element size of a type, or 0 when unknown.
double Size(uint8_t type) {
  return type == kNotApplicable ? 0.0 : DataTypeBytes(type);
}
bool Known(uint8_t type) {
  return Size(type) > 0;
}

// Real-part precision of a type, for CUDA-core paths.
ComputePath CudaCorePath(uint8_t type) {
  switch (type) {
    case cuda_type::kR64F:
    case cuda_type::kC64F:
      return ComputePath::kFp64;
    case cuda_type::kR32F:
    case cuda_type::kC32F:
      return ComputePath::kFp32;
    case cuda_type::kR16F:
    case cuda_type::kC16F:
      return ComputePath::kFp16;
    case cuda_type::kR16BF:
    case cuda_type::kC16BF:
      return ComputePath::kBf16;
    default:
      return ComputePath::kUnknown;
  }
}

bool IsFp16(uint8_t t) {
  return t == cuda_type::kR16F || t == cuda_type::kC16F;
}
bool IsBf16(uint8_t t) {
  return t == cuda_type::kR16BF || t == cuda_type::kC16BF;
}
bool IsFp32(uint8_t t) {
  return t == cuda_type::kR32F || t == cuda_type::kC32F;
}
bool IsFp64(uint8_t t) {
  return t == cuda_type::kR64F || t == cuda_type::kC64F;
}
bool IsInt8(uint8_t t) {
  return t == cuda_type::kR8I || t == cuda_type::kC8I || t == cuda_type::kR8U ||
         t == cuda_type::kC8U;
}
bool IsFp4(uint8_t t) {
  return t == cuda_type::kR4FE2M1;
}

// Tensor path chosen by the inputs alone (for compute types that keep the input precision).
ComputePath TensorPathOfInputs(uint8_t a, uint8_t b) {
  if (IsFp4(a) || IsFp4(b)) return ComputePath::kFp4Tensor;
  if (IsFp8Type(a) || IsFp8Type(b)) return ComputePath::kFp8Tensor;
  if (IsFp16(a)) return ComputePath::kFp16Tensor;
  if (IsBf16(a)) return ComputePath::kBf16Tensor;
  return ComputePath::kUnknown;
}

ComputePath Level3Path(uint8_t a, uint8_t b, uint8_t ct) {
  namespace c = compute_type;
  switch (ct) {
    case c::k16F:
    case c::k16FPedantic:
      return IsFp16(a) ? ComputePath::kFp16TensorHalfAcc : ComputePath::kUnknown;
    case c::k32F:
    case c::k32FPedantic:
      if (IsFp32(a)) return ComputePath::kFp32;
      return TensorPathOfInputs(a, b);
    case c::k32FFast16F:
      if (IsBf16(a)) return ComputePath::kBf16Tensor;
      return IsFp32(a) || IsFp16(a) ? ComputePath::kFp16Tensor : TensorPathOfInputs(a, b);
    case c::k32FFast16BF:
      if (IsFp16(a)) return ComputePath::kFp16Tensor;
      return IsFp32(a) || IsBf16(a) ? ComputePath::kBf16Tensor : TensorPathOfInputs(a, b);
    case c::k32FFastTF32:
      return IsFp32(a) ? ComputePath::kTf32Tensor : TensorPathOfInputs(a, b);
    case c::k32FEmulated16BFx9:
      return ComputePath::kBf16Tensor;
    case c::k64F:
    case c::k64FPedantic:
      return ComputePath::kFp64Tensor;
    case c::k64FEmulatedFixedPoint:
      return ComputePath::kInt8Tensor;
    case c::k32I:
    case c::k32IPedantic:
      return ComputePath::kInt8Tensor;
    case kNotApplicable:
      // No compute type recorded: the input type decides, as for the typed routines.
      if (IsFp64(a)) return ComputePath::kFp64Tensor;
      if (IsFp32(a)) return ComputePath::kFp32;
      if (IsInt8(a)) return ComputePath::kInt8Tensor;
      return TensorPathOfInputs(a, b);
    default:
      return ComputePath::kUnknown;
  }
}

// Everything the per-family formulas need, decoded once.
struct Call {
  const LibraryCallRecord& r;
  BlasRoutine routine;
  double m, n, k;
  double batch;  // problems in the call
  bool reads_c;
  BlasFigures f;

  bool Strided() const {
    return routine == BlasRoutine::kGemmStridedBatched ||
           routine == BlasRoutine::kGemm3mStridedBatched ||
           routine == BlasRoutine::kGemvStridedBatched || routine == BlasRoutine::kLtMatmul;
  }
  // Bytes of one operand over the whole call: `elements` per problem, read once when the
  // strided-batched stride is 0 (the same matrix for every problem).
  double Operand(double elements, uint8_t type, int64_t stride) {
    if (Strided() && batch > 1 && stride == 0) {
      f.notes |= kBlasNoteBroadcastOperand;
      return elements * Size(type);
    }
    return elements * Size(type) * batch;
  }
};

OpWeights WeightsOf(uint8_t principal_type) {
  return IsComplexType(principal_type) ? kComplex : kReal;
}

// Bias vector element size: cuBLASLt uses the D type, except FP8 kernels (BF16/FP16 bias) and
// IMMA kernels with 8-bit output (bias in the FP32 scale type). The record does not carry
// CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, so the exceptions are assumed.
double BiasElementBytes(const LibraryCallRecord& r, uint32_t* notes) {
  if (IsFp8Type(r.type_a) || IsFp8Type(r.type_b)) {
    *notes |= kBlasNoteAssumedOperandType;
    return 2;
  }
  const uint8_t d = r.type_d != kNotApplicable ? r.type_d : r.type_c;
  if (IsInt8(d)) {
    *notes |= kBlasNoteAssumedOperandType;
    return 4;
  }
  return Size(d);
}

// cuBLASLt epilogue: FLOPs per output element and extra operands (docs: "Epilogues").
void AddEpilogue(Call& c) {
  const LibraryCallRecord& r = c.r;
  const uint32_t e = r.epilogue;
  if (e == lt_epilogue::kDefault || e == 0) {
    if (e == 0) c.f.notes |= kBlasNoteUnknownEpilogue;  // 0 is how a hook says "unread"
    return;
  }
  const double outputs = c.m * c.n * c.batch;
  const uint8_t d = r.type_d != kNotApplicable ? r.type_d : r.type_c;
  const double aux_bytes = Size(d);  // GELU aux holds the pre-activation in the D type
  double per_output = 0;
  double extra_flops = 0;
  double extra_bytes = 0;
  bool bias_read = false;
  bool relu_mask_write = false, relu_mask_read = false;
  bool gelu_aux_write = false, gelu_aux_read = false;
  bool bgrad_rows = false;  // bias gradient of length m written
  namespace ep = lt_epilogue;
  switch (e) {
    case ep::kRelu:
      per_output = kEpilogueReluFlops;
      break;
    case ep::kReluAux:
      per_output = kEpilogueReluFlops;
      relu_mask_write = true;
      break;
    case ep::kBias:
      per_output = kEpilogueBiasFlops;
      bias_read = true;
      break;
    case ep::kReluBias:
      per_output = kEpilogueBiasFlops + kEpilogueReluFlops;
      bias_read = true;
      break;
    case ep::kReluAuxBias:
      per_output = kEpilogueBiasFlops + kEpilogueReluFlops;
      bias_read = relu_mask_write = true;
      break;
    case ep::kGelu:
      per_output = kEpilogueGeluFlops;
      break;
    case ep::kGeluAux:
      per_output = kEpilogueGeluFlops;
      gelu_aux_write = true;
      break;
    case ep::kGeluBias:
      per_output = kEpilogueBiasFlops + kEpilogueGeluFlops;
      bias_read = true;
      break;
    case ep::kGeluAuxBias:
      per_output = kEpilogueBiasFlops + kEpilogueGeluFlops;
      bias_read = gelu_aux_write = true;
      break;
    case ep::kDrelu:
      per_output = kEpilogueDreluFlops;
      relu_mask_read = true;
      break;
    case ep::kDreluBgrad:
      per_output = kEpilogueDreluFlops + kEpilogueBgradFlops;
      relu_mask_read = bgrad_rows = true;
      break;
    case ep::kDgelu:
      per_output = kEpilogueDgeluFlops;
      gelu_aux_read = true;
      break;
    case ep::kDgeluBgrad:
      per_output = kEpilogueDgeluFlops + kEpilogueBgradFlops;
      gelu_aux_read = bgrad_rows = true;
      break;
    case ep::kBgradA:
      // Reduce A (m x k) over k: one add per element of A; gradient of length m.
      extra_flops = kEpilogueBgradFlops * c.m * c.k * c.batch;
      extra_bytes = c.m * Size(r.type_c != kNotApplicable ? r.type_c : d);
      break;
    case ep::kBgradB:
      extra_flops = kEpilogueBgradFlops * c.k * c.n * c.batch;
      extra_bytes = c.n * Size(r.type_c != kNotApplicable ? r.type_c : d);
      break;
    default:
      c.f.notes |= kBlasNoteUnknownEpilogue;
      return;
  }
  double flops = per_output * outputs + extra_flops;
  double bytes = extra_bytes;
  // The bias is one vector of length m broadcast over columns and batches: read once.
  if (bias_read) bytes += c.m * BiasElementBytes(r, &c.f.notes);
  // Bias gradients are written in the C type (cublasLt.h, BIAS_POINTER), once.
  if (bgrad_rows) bytes += c.m * Size(r.type_c != kNotApplicable ? r.type_c : d);
  // ReLU aux is a bit mask: one bit per output element.
  if (relu_mask_write || relu_mask_read) bytes += outputs / 8;
  if (gelu_aux_write || gelu_aux_read) {
    bytes += outputs * aux_bytes;
    c.f.notes |= kBlasNoteAssumedOperandType;
  }
  c.f.epilogue_flops = flops;
  c.f.epilogue_bytes = bytes;
  c.f.bytes += bytes;
  if (flops > 0) c.f.epilogue_path = ComputePath::kFp32;
}

// GEMM family and cublasLtMatmul.
void GemmFigures(Call& c) {
  const LibraryCallRecord& r = c.r;
  const double mnk = c.m * c.n * c.k;
  c.f.flops = Flops(WeightsOf(r.type_a), mnk, mnk) * c.batch;
  if (c.routine == BlasRoutine::kGemm3m || c.routine == BlasRoutine::kGemm3mBatched ||
      c.routine == BlasRoutine::kGemm3mStridedBatched) {
    c.f.notes |= kBlasNoteProblemFlops;
  }
  const uint8_t d = r.type_d != kNotApplicable ? r.type_d : r.type_c;
  double bytes =
      c.Operand(c.m * c.k, r.type_a, r.stride_a) + c.Operand(c.k * c.n, r.type_b, r.stride_b);
  if (c.reads_c) bytes += c.Operand(c.m * c.n, r.type_c, r.stride_c);
  bytes += c.m * c.n * Size(d) * c.batch;
  c.f.bytes = bytes;
  if (c.routine == BlasRoutine::kLtMatmul) AddEpilogue(c);
}

void GemvFigures(Call& c) {
  const LibraryCallRecord& r = c.r;
  c.f.flops = Flops(WeightsOf(r.type_a), c.m * c.n, c.m * c.n) * c.batch;
  const bool no_trans = r.trans_a == blas_op::kN || r.trans_a == kNotApplicable;
  const double x_len = no_trans ? c.n : c.m;
  const double y_len = no_trans ? c.m : c.n;
  double bytes =
      c.Operand(c.m * c.n, r.type_a, r.stride_a) + c.Operand(x_len, r.type_b, r.stride_b);
  if (c.reads_c) bytes += c.Operand(y_len, r.type_c, r.stride_c);
  bytes += y_len * Size(r.type_c) * c.batch;
  c.f.bytes = bytes;
}

void GerFigures(Call& c) {
  const LibraryCallRecord& r = c.r;
  c.f.flops = Flops(WeightsOf(r.type_a), c.m * c.n, c.m * c.n);
  // Read x (m), y (n), read and write A.
  c.f.bytes = c.m * Size(r.type_b) + c.n * Size(r.type_c) + 2 * c.m * c.n * Size(r.type_a);
}

// trsm, trsm batched, trmm: A triangular (m x m on the left, n x n on the right), B m x n.
void TriangularFigures(Call& c) {
  const LibraryCallRecord& r = c.r;
  const bool left = r.side != blas_side::kRight;
  const double fmuls = left ? 0.5 * c.n * c.m * (c.m + 1) : 0.5 * c.m * c.n * (c.n + 1);
  const double fadds = left ? 0.5 * c.n * c.m * (c.m - 1) : 0.5 * c.m * c.n * (c.n - 1);
  c.f.flops = Flops(WeightsOf(r.type_a), fmuls, fadds) * c.batch;
  const double tri = left ? 0.5 * c.m * (c.m + 1) : 0.5 * c.n * (c.n + 1);
  // trsm solves in place (writes B); trmm writes C (out of place since cuBLAS v2).
  const uint8_t out = c.routine == BlasRoutine::kTrmm && Known(r.type_c) ? r.type_c : r.type_b;
  c.f.bytes = (tri * Size(r.type_a) + c.m * c.n * Size(r.type_b) + c.m * c.n * Size(out)) * c.batch;
}

void SymmFigures(Call& c) {
  const LibraryCallRecord& r = c.r;
  const bool left = r.side != blas_side::kRight;
  const double f = left ? c.m * c.m * c.n : c.m * c.n * c.n;
  c.f.flops = Flops(WeightsOf(r.type_a), f, f);
  const double tri = left ? 0.5 * c.m * (c.m + 1) : 0.5 * c.n * (c.n + 1);
  const double mn = c.m * c.n;
  c.f.bytes = tri * Size(r.type_a) + mn * Size(r.type_b) + (c.reads_c ? mn * Size(r.type_c) : 0) +
              mn * Size(r.type_c);
}

// syrk, herk, syr2k, her2k, syrkx, herkx: C is n x n (one triangle), A (and B) n x k.
void RankKFigures(Call& c) {
  const LibraryCallRecord& r = c.r;
  const bool two = c.routine == BlasRoutine::kSyr2k || c.routine == BlasRoutine::kHer2k;
  const bool has_b = two || c.routine == BlasRoutine::kSyrkx || c.routine == BlasRoutine::kHerkx;
  const double f = two ? c.k * c.n * c.n : 0.5 * c.k * c.n * (c.n + 1);
  c.f.flops = Flops(WeightsOf(r.type_a), f, f);
  const double tri = 0.5 * c.n * (c.n + 1);
  c.f.bytes = c.n * c.k * Size(r.type_a) + (has_b ? c.n * c.k * Size(r.type_b) : 0) +
              (c.reads_c ? tri * Size(r.type_c) : 0) + tri * Size(r.type_c);
}

void Level1Figures(Call& c) {
  const LibraryCallRecord& r = c.r;
  const OpWeights w = WeightsOf(r.type_a);
  const double n = c.n;
  const double n_minus_1 = std::max(n - 1, 0.0);
  switch (c.routine) {
    case BlasRoutine::kDot:
      c.f.flops = Flops(w, n, n_minus_1);
      c.f.bytes = n * (Size(r.type_a) + Size(r.type_b));
      break;
    case BlasRoutine::kAxpy:
      c.f.flops = Flops(w, n, n);
      c.f.bytes = n * (Size(r.type_a) + 2 * Size(r.type_b));
      break;
    case BlasRoutine::kScal: {
      const bool real_alpha = r.scale_type != kNotApplicable && !IsComplexType(r.scale_type);
      const OpWeights ws = IsComplexType(r.type_a) && real_alpha ? kRealTimesComplex : w;
      c.f.flops = Flops(ws, n, 0);
      c.f.bytes = 2 * n * Size(r.type_a);
      break;
    }
    case BlasRoutine::kNrm2:
      c.f.flops = Flops(w, n, n_minus_1);
      if (IsComplexType(r.type_a)) c.f.notes |= kBlasNoteProblemFlops;
      c.f.bytes = n * Size(r.type_a);
      break;
    default:
      break;
  }
}

// The operand types a family needs to have known sizes.
bool TypesKnown(const Call& c) {
  const LibraryCallRecord& r = c.r;
  switch (c.routine) {
    case BlasRoutine::kGemm:
    case BlasRoutine::kGemm3m:
    case BlasRoutine::kGemmBatched:
    case BlasRoutine::kGemmStridedBatched:
    case BlasRoutine::kGemmGroupedBatched:
    case BlasRoutine::kGemm3mBatched:
    case BlasRoutine::kGemm3mStridedBatched:
    case BlasRoutine::kLtMatmul:
      return Known(r.type_a) && Known(r.type_b) && Known(r.type_c) &&
             (r.type_d == kNotApplicable || Known(r.type_d));
    case BlasRoutine::kGemv:
    case BlasRoutine::kGemvBatched:
    case BlasRoutine::kGemvStridedBatched:
    case BlasRoutine::kGer:
    case BlasRoutine::kTrmm:
    case BlasRoutine::kSymm:
    case BlasRoutine::kHemm:
    case BlasRoutine::kSyr2k:
    case BlasRoutine::kHer2k:
    case BlasRoutine::kSyrkx:
    case BlasRoutine::kHerkx:
      return Known(r.type_a) && Known(r.type_b) && Known(r.type_c);
    // cuDNN records carry their own figures (ComputeBlasFigures returns them first).
    case BlasRoutine::kDnnConvForward:
    case BlasRoutine::kDnnConvBackwardData:
    case BlasRoutine::kDnnConvBackwardFilter:
    case BlasRoutine::kDnnConvBiasActivation:
    case BlasRoutine::kDnnBatchNormForwardTraining:
    case BlasRoutine::kDnnBatchNormForwardInference:
    case BlasRoutine::kDnnBatchNormBackward:
    case BlasRoutine::kDnnBatchNormForwardTrainingEx:
    case BlasRoutine::kDnnBatchNormBackwardEx:
    case BlasRoutine::kDnnGraph:
    case BlasRoutine::kNcclAllReduce:
    case BlasRoutine::kNcclBroadcast:
    case BlasRoutine::kNcclReduce:
    case BlasRoutine::kNcclAllGather:
    case BlasRoutine::kNcclReduceScatter:
    case BlasRoutine::kNcclAllToAll:
    case BlasRoutine::kNcclGather:
    case BlasRoutine::kNcclScatter:
    case BlasRoutine::kNcclSend:
    case BlasRoutine::kNcclRecv:
    case BlasRoutine::kNcclGroupEnd:
      return false;
    case BlasRoutine::kTrsm:
    case BlasRoutine::kTrsmBatched:
      return Known(r.type_a) && Known(r.type_b);
    case BlasRoutine::kSyrk:
    case BlasRoutine::kHerk:
      return Known(r.type_a) && Known(r.type_c);
    case BlasRoutine::kDot:
    case BlasRoutine::kAxpy:
      return Known(r.type_a) && Known(r.type_b);
    case BlasRoutine::kScal:
    case BlasRoutine::kNrm2:
      return Known(r.type_a);
    case BlasRoutine::kUnknown:
      break;
  }
  return false;
}

bool IsBatchedForm(BlasRoutine routine) {
  switch (routine) {
    case BlasRoutine::kGemmBatched:
    case BlasRoutine::kGemmStridedBatched:
    case BlasRoutine::kGemmGroupedBatched:
    case BlasRoutine::kGemm3mBatched:
    case BlasRoutine::kGemm3mStridedBatched:
    case BlasRoutine::kGemvBatched:
    case BlasRoutine::kGemvStridedBatched:
    case BlasRoutine::kTrsmBatched:
    case BlasRoutine::kLtMatmul:
      return true;
    default:
      return false;
  }
}

// Pointer arrays live in device memory and are read once per problem.
double PointerArrayBytes(const Call& c) {
  int arrays = 0;
  switch (c.routine) {
    case BlasRoutine::kGemmBatched:
    case BlasRoutine::kGemm3mBatched:
    case BlasRoutine::kGemmGroupedBatched:
    case BlasRoutine::kGemvBatched:
      arrays = 3;  // A, B, C (gemv: A, x, y)
      break;
    case BlasRoutine::kTrsmBatched:
      arrays = 2;  // A, B
      break;
    case BlasRoutine::kLtMatmul:
      arrays = (c.r.flags & trace::kLibBatchedPointers) ? 4 : 0;  // A, B, C, D
      break;
    default:
      break;
  }
  return arrays * 8.0 * c.batch;
}

}  // namespace

ComputePath BlasComputePath(BlasRoutine routine, uint8_t type_a, uint8_t type_b,
                            uint8_t stored_compute_type, uint8_t type_d) {
  switch (LevelOf(routine)) {
    case BlasLevel::kLevel1:
      // The execution type (type_d for level 1) sets the arithmetic; else the vector type.
      return CudaCorePath(Known(type_d) ? type_d : type_a);
    case BlasLevel::kLevel2:
      switch (stored_compute_type) {
        case compute_type::k16F:
        case compute_type::k16FPedantic:
          return ComputePath::kFp16;
        case compute_type::k32F:
        case compute_type::k32FPedantic:
          return ComputePath::kFp32;
        case compute_type::k64F:
        case compute_type::k64FPedantic:
          return ComputePath::kFp64;
        default:
          return CudaCorePath(type_a);
      }
    case BlasLevel::kLevel3:
      return Level3Path(type_a, type_b, stored_compute_type);
    case BlasLevel::kUnknown:
      break;
  }
  return ComputePath::kUnknown;
}

bool BlasReadsC(const LibraryCallRecord& r) {
  return !(r.flags & trace::kLibBetaKnown) || (r.flags & trace::kLibBetaNonZero);
}

BlasFigures ComputeBlasFigures(const LibraryCallRecord& r) {
  const BlasRoutine routine = BlasRoutineFromId(r.routine);
  BlasFigures zero;
  if ((r.flags & trace::kLibUnknownRoutine) || routine == BlasRoutine::kUnknown) {
    zero.notes = kBlasNoteUnknownRoutine;
    return zero;
  }
  if (IsDnnRoutine(routine) || IsCommRoutine(routine)) {
    // The hook computed them from descriptors that are gone now (dnn_formulas.h), or from the
    // call's communicator (comm_formulas.h).
    BlasFigures own;
    own.flops = r.flops;
    own.epilogue_flops = r.epilogue_flops;
    own.bytes = r.bytes;
    own.source = static_cast<FigureSource>(r.source);
    own.path = BlasComputePath(r);
    if (r.flags & trace::kLibDescriptorIncomplete) own.notes |= kBlasNoteDescriptorIncomplete;
    return own;
  }
  const bool batched = IsBatchedForm(routine);
  Call c{r,
         routine,
         static_cast<double>(r.m),
         static_cast<double>(r.n),
         static_cast<double>(r.k),
         batched ? static_cast<double>(r.batch) : 1.0,
         BlasReadsC(r),
         BlasFigures{}};
  c.f.path = BlasComputePath(r);
  if (r.flags & trace::kLibDescriptorIncomplete) c.f.notes |= kBlasNoteDescriptorIncomplete;
  if (r.compute_type == compute_type::k32FEmulated16BFx9 ||
      r.compute_type == compute_type::k64FEmulatedFixedPoint) {
    c.f.notes |= kBlasNoteEmulatedCompute;
  }

  const auto give_up = [&](uint32_t note) {
    BlasFigures f;
    f.path = c.f.path;
    f.notes = c.f.notes | note;
    return f;
  };
  // Which dimensions a family uses (the others may hold anything).
  const BlasLevel level = LevelOf(routine);
  const bool rank_k = routine == BlasRoutine::kSyrk || routine == BlasRoutine::kHerk ||
                      routine == BlasRoutine::kSyr2k || routine == BlasRoutine::kHer2k ||
                      routine == BlasRoutine::kSyrkx || routine == BlasRoutine::kHerkx;
  const bool uses_m = level != BlasLevel::kLevel1 && !rank_k;
  const bool uses_k = IsGemmLike(routine) || rank_k;
  if ((uses_m && r.m < 0) || r.n < 0 || (uses_k && r.k < 0) || (batched && r.batch < 0)) {
    return give_up(kBlasNoteInvalidShape);
  }
  if (!TypesKnown(c)) return give_up(kBlasNoteUnknownType);
  if (routine == BlasRoutine::kGemmGroupedBatched && (r.flags & trace::kLibGrouped)) {
    BlasFigures f = give_up(kBlasNoteGroupedFirstOnly);
    const double mnk = c.m * c.n * c.k;
    f.lower_bound_flops = Flops(WeightsOf(r.type_a), mnk, mnk);
    return f;
  }
  if (r.status != 0) {
    BlasFigures f = give_up(kBlasNoteCallFailed);
    f.source = FigureSource::kAnalytic;
    return f;
  }
  if (!(r.flags & trace::kLibBetaKnown)) {
    // Only routines that have a beta can be unsure about it.
    switch (routine) {
      case BlasRoutine::kGer:
      case BlasRoutine::kTrsm:
      case BlasRoutine::kTrsmBatched:
      case BlasRoutine::kTrmm:
      case BlasRoutine::kDot:
      case BlasRoutine::kAxpy:
      case BlasRoutine::kScal:
      case BlasRoutine::kNrm2:
        break;
      default:
        c.f.notes |= kBlasNoteBetaUnknown;
    }
  }

  switch (routine) {
    case BlasRoutine::kGemm:
    case BlasRoutine::kGemm3m:
    case BlasRoutine::kGemmBatched:
    case BlasRoutine::kGemmStridedBatched:
    case BlasRoutine::kGemmGroupedBatched:
    case BlasRoutine::kGemm3mBatched:
    case BlasRoutine::kGemm3mStridedBatched:
    case BlasRoutine::kLtMatmul:
      GemmFigures(c);
      break;
    case BlasRoutine::kGemv:
    case BlasRoutine::kGemvBatched:
    case BlasRoutine::kGemvStridedBatched:
      GemvFigures(c);
      break;
    case BlasRoutine::kGer:
      GerFigures(c);
      break;
    case BlasRoutine::kTrsm:
    case BlasRoutine::kTrsmBatched:
    case BlasRoutine::kTrmm:
      TriangularFigures(c);
      break;
    case BlasRoutine::kSymm:
    case BlasRoutine::kHemm:
      SymmFigures(c);
      break;
    case BlasRoutine::kSyrk:
    case BlasRoutine::kHerk:
    case BlasRoutine::kSyr2k:
    case BlasRoutine::kHer2k:
    case BlasRoutine::kSyrkx:
    case BlasRoutine::kHerkx:
      RankKFigures(c);
      break;
    case BlasRoutine::kDot:
    case BlasRoutine::kAxpy:
    case BlasRoutine::kScal:
    case BlasRoutine::kNrm2:
      Level1Figures(c);
      break;
    case BlasRoutine::kDnnConvForward:
    case BlasRoutine::kDnnConvBackwardData:
    case BlasRoutine::kDnnConvBackwardFilter:
    case BlasRoutine::kDnnConvBiasActivation:
    case BlasRoutine::kDnnBatchNormForwardTraining:
    case BlasRoutine::kDnnBatchNormForwardInference:
    case BlasRoutine::kDnnBatchNormBackward:
    case BlasRoutine::kDnnBatchNormForwardTrainingEx:
    case BlasRoutine::kDnnBatchNormBackwardEx:
    case BlasRoutine::kDnnGraph:
    case BlasRoutine::kNcclAllReduce:
    case BlasRoutine::kNcclBroadcast:
    case BlasRoutine::kNcclReduce:
    case BlasRoutine::kNcclAllGather:
    case BlasRoutine::kNcclReduceScatter:
    case BlasRoutine::kNcclAllToAll:
    case BlasRoutine::kNcclGather:
    case BlasRoutine::kNcclScatter:
    case BlasRoutine::kNcclSend:
    case BlasRoutine::kNcclRecv:
    case BlasRoutine::kNcclGroupEnd:
    case BlasRoutine::kUnknown:
      break;
  }
  c.f.bytes += PointerArrayBytes(c);
  c.f.source = FigureSource::kAnalytic;
  return c.f;
}

BlasFigures ComputeBlasFigures(const LibraryCallRecord& r,
                               std::span<const trace::LibraryGroupShape> groups,
                               const trace::LibraryGroupsCut& cut) {
  const bool grouped = BlasRoutineFromId(r.routine) == BlasRoutine::kGemmGroupedBatched &&
                       (r.flags & trace::kLibGrouped) && (r.flags & trace::kLibGroupsFollow);
  if (!grouped || cut.groups < 0 || cut.groups > r.batch ||
      r.batch - cut.groups != static_cast<int64_t>(groups.size())) {
    return ComputeBlasFigures(r);
  }
  // Everything but the shapes (types, path, status, beta notes) as for one problem of the call.
  LibraryCallRecord one = r;
  one.flags &= ~(trace::kLibGrouped | trace::kLibGroupsFollow);
  one.m = one.n = one.k = 1;
  one.batch = 1;
  BlasFigures f = ComputeBlasFigures(one);
  if (f.source != FigureSource::kAnalytic || r.status != 0) return f;

  // GemmFigures summed over the groups: each term is linear in the problems' m*n*k, m*k, k*n and
  // m*n, so the listed groups and the cut ones' sums add up (grouped calls are not strided). A
  // writer marks cut groups with a negative size or dimension by problems < 0.
  trace::LibraryGroupsCut sum = cut;
  bool valid = cut.problems >= 0 && cut.mnk >= 0 && cut.mk >= 0 && cut.kn >= 0 && cut.mn >= 0 &&
               cut.mn_reads_c >= 0;
  for (const trace::LibraryGroupShape& g : groups) {
    valid = valid && g.m >= 0 && g.n >= 0 && g.k >= 0 && g.count >= 0;
    trace::AddGroup(sum, g);
  }
  if (!valid) {
    BlasFigures invalid;
    invalid.path = f.path;
    invalid.notes = f.notes | kBlasNoteInvalidShape;
    return invalid;
  }
  const uint8_t d = r.type_d != kNotApplicable ? r.type_d : r.type_c;
  f.flops = Flops(WeightsOf(r.type_a), sum.mnk, sum.mnk);
  f.bytes = sum.mk * Size(r.type_a) + sum.kn * Size(r.type_b) + sum.mn_reads_c * Size(r.type_c) +
            sum.mn * Size(d) + 3 * 8.0 * static_cast<double>(sum.problems);  // pointer arrays
  return f;
}

static void WriteFigures(LibraryCallRecord& record, const BlasFigures& f) {
  record.flops = f.flops;
  record.epilogue_flops = f.epilogue_flops;
  record.bytes = f.bytes;
  record.source = static_cast<uint8_t>(f.source);
}

void FillBlasFigures(LibraryCallRecord& record) {
  WriteFigures(record, ComputeBlasFigures(record));
}

void FillBlasFigures(LibraryCallRecord& record, std::span<const trace::LibraryGroupShape> groups,
                     const trace::LibraryGroupsCut& cut) {
  WriteFigures(record, ComputeBlasFigures(record, groups, cut));
}

}  // namespace flopspy::analyzers
