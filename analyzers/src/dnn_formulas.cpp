#include "flopspy/analyzers/dnn_formulas.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "flopspy/analyzers/blas_types.h"

namespace flopspy::analyzers {

using trace::LibraryCallRecord;

namespace {

// cudnnDataType_t values (cudnn_graph.h, cuDNN 9.x).
namespace dnn_type {
constexpr int kFloat = 0;
constexpr int kDouble = 1;
constexpr int kHalf = 2;
constexpr int kInt8 = 3;
constexpr int kInt32 = 4;
constexpr int kUint8 = 6;
constexpr int kBfloat16 = 9;
constexpr int kInt64 = 10;
constexpr int kFp8E4M3 = 12;
constexpr int kFp8E5M2 = 13;
}  // namespace dnn_type

// Spatial dims packed for display: three fields of 21 bits, the first spatial dim highest; a dim
// over 2^21 - 1 shows as that (the products beside it stay exact).
constexpr int kPackBits = 21;
constexpr int64_t kPackMax = (int64_t{1} << kPackBits) - 1;

int64_t Pack(const int64_t* dims, int count) {
  int64_t packed = 0;
  for (int i = 0; i < 3; ++i) {
    const int64_t d = i < count ? std::clamp<int64_t>(dims[i], 0, kPackMax) : 0;
    packed = packed << kPackBits | d;
  }
  return packed;
}

std::string Unpack(int64_t packed, int count) {
  std::string text;
  for (int i = 0; i < count && i < 3; ++i) {
    const int64_t d = packed >> (kPackBits * (2 - i)) & kPackMax;
    text += (i == 0 ? "" : "x") + std::to_string(d);
  }
  return text;
}

double Product(const DnnTensor& t, int from, int to) {
  double p = 1;
  for (int i = from; i < to; ++i) p *= static_cast<double>(t.dims[i]);
  return p;
}

double Bytes(const DnnTensor& t) {
  return t.Elements() * DataTypeBytes(t.type);
}

void GiveUp(LibraryCallRecord& r) {
  r.flops = r.epilogue_flops = r.bytes = 0;
  r.source = static_cast<uint8_t>(trace::FigureSource::kUnknown);
  r.flags |= trace::kLibDescriptorIncomplete;
}

}  // namespace

uint8_t CudaTypeOfDnnType(int dnn) {
  namespace c = cuda_type;
  switch (dnn) {
    case dnn_type::kFloat:
      return c::kR32F;
    case dnn_type::kDouble:
      return c::kR64F;
    case dnn_type::kHalf:
      return c::kR16F;
    case dnn_type::kInt8:
      return c::kR8I;
    case dnn_type::kInt32:
      return c::kR32I;
    case dnn_type::kUint8:
      return c::kR8U;
    case dnn_type::kBfloat16:
      return c::kR16BF;
    case dnn_type::kInt64:
      return c::kR64I;
    case dnn_type::kFp8E4M3:
      return c::kR8FE4M3;
    case dnn_type::kFp8E5M2:
      return c::kR8FE5M2;
    default:
      return kNotApplicable;
  }
}

uint8_t DnnComputeType(uint8_t data, uint8_t accumulate, int math) {
  namespace c = cuda_type;
  namespace ct = compute_type;
  if (data == c::kR64F) return ct::k64F;
  if (data == c::kR8I || data == c::kR8U) return ct::k32I;
  if (data == c::kR32F) return math == dnn_math::kFma ? ct::k32F : ct::k32FFastTF32;
  if (data == c::kR16F && accumulate == c::kR16F) return ct::k16F;
  if (data == c::kR16F || data == c::kR16BF || data == c::kR8FE4M3 || data == c::kR8FE5M2) {
    return ct::k32F;  // tensor cores on the inputs' type, FP32 accumulation
  }
  return kNotApplicable;
}

double DnnTensor::Elements() const {
  if (rank <= 0 || rank > kMaxDnnRank) return 0;
  double p = 1;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] <= 0) return 0;
    p *= static_cast<double>(dims[i]);
  }
  return std::isfinite(p) ? p : 0;
}

bool DnnTensor::ChannelsLast() const {
  if (rank < 3) return false;
  for (int i = 2; i < rank; ++i) {
    if (dims[i] > 1 && strides[i] < strides[1]) return false;
  }
  return strides[1] == 1 && dims[1] > 1;
}

void DescribeConvolution(const DnnConvolution& conv, LibraryCallRecord& r) {
  switch (conv.pass) {
    case ConvPass::kForward:
      r.routine = static_cast<uint16_t>(BlasRoutine::kDnnConvForward);
      break;
    case ConvPass::kBackwardData:
      r.routine = static_cast<uint16_t>(BlasRoutine::kDnnConvBackwardData);
      break;
    case ConvPass::kBackwardFilter:
      r.routine = static_cast<uint16_t>(BlasRoutine::kDnnConvBackwardFilter);
      break;
    case ConvPass::kBiasActivation:
      r.routine = static_cast<uint16_t>(BlasRoutine::kDnnConvBiasActivation);
      break;
  }
  const DnnTensor& x = conv.x;
  const DnnTensor& w = conv.w;
  const DnnTensor& y = conv.y;
  r.type_a = x.type;
  r.type_b = w.type;
  r.type_c = y.type;
  r.compute_type = conv.compute_type;
  r.side = x.ChannelsLast() ? 1 : 0;
  r.diag = static_cast<uint8_t>(std::min<uint32_t>(conv.activation, 0xFE));
  const int spatial = x.rank - 2;
  if (spatial < 1 || spatial > 3 || w.rank != x.rank || y.rank != x.rank) {
    GiveUp(r);
    return;
  }
  r.m = x.dims[0];
  r.n = y.dims[1];
  r.k = x.dims[1];
  r.batch = conv.groups;
  r.lda = static_cast<int64_t>(Product(x, 2, x.rank));
  r.ldb = static_cast<int64_t>(Product(w, 2, w.rank));
  r.ldc = static_cast<int64_t>(Product(y, 2, y.rank));
  r.ldd = spatial;
  r.stride_a = Pack(&x.dims[2], spatial);
  r.stride_b = Pack(&w.dims[2], spatial);
  r.stride_c = Pack(&y.dims[2], spatial);
  r.stride_d = Pack(conv.conv_strides.data(), spatial);

  const bool consistent = conv.groups >= 1 && x.dims[1] % conv.groups == 0 &&
                          w.dims[0] == y.dims[1] && w.dims[1] * conv.groups == x.dims[1] &&
                          y.dims[0] == x.dims[0] && x.Elements() > 0 && w.Elements() > 0 &&
                          y.Elements() > 0;
  if (!consistent) {
    GiveUp(r);
    return;
  }
  // 2·N·K·(C/groups)·R·S·P·Q: one multiply-add per filter tap, output element and input
  // channel of its group; the same products in each backward pass.
  r.flops = 2.0 * static_cast<double>(w.dims[0]) * static_cast<double>(w.dims[1]) *
            Product(w, 2, w.rank) * static_cast<double>(y.dims[0]) * Product(y, 2, y.rank);
  const bool reads_old = !conv.beta_known || conv.beta_non_zero;
  // Which tensor the pass writes: y forward, x (dx) backward data, w (dw) backward filter.
  const double written = conv.pass == ConvPass::kBackwardData     ? Bytes(x)
                         : conv.pass == ConvPass::kBackwardFilter ? Bytes(w)
                                                                  : Bytes(y);
  r.bytes = Bytes(x) + Bytes(w) + Bytes(y) + (reads_old ? written : 0);
  r.epilogue_flops = 0;
  if (conv.pass == ConvPass::kBiasActivation) {
    const double outputs = y.Elements();
    r.epilogue_flops = outputs * ((conv.activation != 0 ? 2 : 1) + (conv.adds_z ? 2 : 0));
    r.bytes = Bytes(x) + Bytes(w) + Bytes(y) + (conv.adds_z ? Bytes(y) : 0) +
              conv.bias_elements * DataTypeBytes(y.type);
  }
  if (!(r.flags & trace::kLibBetaKnown) && conv.beta_known) {
    r.flags |= trace::kLibBetaKnown | (conv.beta_non_zero ? trace::kLibBetaNonZero : 0u);
  }
  r.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
}

void DescribeBatchNorm(const DnnBatchNorm& norm, LibraryCallRecord& r) {
  const bool training = norm.pass == NormPass::kForwardTraining;
  const bool backward = norm.pass == NormPass::kBackward;
  const bool ex = norm.ex && !(norm.pass == NormPass::kForwardInference);
  r.routine = static_cast<uint16_t>(
      training   ? (ex ? BlasRoutine::kDnnBatchNormForwardTrainingEx
                       : BlasRoutine::kDnnBatchNormForwardTraining)
      : backward ? (ex ? BlasRoutine::kDnnBatchNormBackwardEx : BlasRoutine::kDnnBatchNormBackward)
                 : BlasRoutine::kDnnBatchNormForwardInference);
  const DnnTensor& x = norm.x;
  r.type_a = x.type;
  r.type_b = norm.params.type;
  r.type_c = x.type;
  r.type_d = cuda_type::kR32F;  // cuDNN computes in float (double for double data)
  if (x.type == cuda_type::kR64F) r.type_d = cuda_type::kR64F;
  r.side = x.ChannelsLast() ? 1 : 0;
  r.trans_b = static_cast<uint8_t>(std::clamp(norm.mode, 0, 0xFE));
  r.uplo = ex ? static_cast<uint8_t>(std::clamp(norm.ops, 0, 0xFE)) : kNotApplicable;
  const int spatial = x.rank - 2;
  const double elements = x.Elements();
  const double params = norm.params.Elements();
  if (spatial < 0 || spatial > 3 || elements <= 0 || params <= 0) {
    GiveUp(r);
    return;
  }
  r.m = x.dims[0];
  r.n = x.dims[1];
  r.k = x.dims[1];
  r.lda = static_cast<int64_t>(Product(x, 2, x.rank));
  r.ldd = spatial;
  r.stride_a = Pack(&x.dims[2], spatial);
  const double per_element = training ? 8 : backward ? 10 : 4;
  const double fused = ex ? (norm.ops >= 1 ? 1 : 0) + (norm.ops >= 2 ? 1 : 0) : 0;
  r.flops = elements * per_element + params;  // one rsqrt per parameter element
  r.epilogue_flops = elements * fused;
  const double data = DataTypeBytes(x.type);
  const double param = DataTypeBytes(norm.params.type);
  const bool reads_old = !norm.beta_known || norm.beta_non_zero;
  if (training) {
    // x in, y out (z in for the add); scale and bias in, running mean and variance in and out,
    // saved mean and inverse variance out.
    r.bytes = elements * data * (2 + (ex && norm.ops >= 2 ? 1 : 0) + (reads_old ? 1 : 0)) +
              params * param * 8;
  } else if (backward) {
    // x and dy in, dx out (y in for an activation, dz out for the add); scale and the saved
    // statistics in, the scale and bias gradients out.
    r.bytes = elements * data *
                  (3 + (ex && norm.ops >= 1 ? 1 : 0) + (ex && norm.ops >= 2 ? 1 : 0) +
                   (reads_old ? 1 : 0)) +
              params * param * 5;
  } else {
    r.bytes = elements * data * (2 + (reads_old ? 1 : 0)) + params * param * 4;
  }
  if (norm.beta_known) {
    r.flags |= trace::kLibBetaKnown | (norm.beta_non_zero ? trace::kLibBetaNonZero : 0u);
  }
  r.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
}

std::string_view DnnOpKindName(DnnOpKind kind) {
  switch (kind) {
    case DnnOpKind::kConvForward:
      return "conv_forward";
    case DnnOpKind::kConvBackwardData:
      return "conv_backward_data";
    case DnnOpKind::kConvBackwardFilter:
      return "conv_backward_filter";
    case DnnOpKind::kMatmul:
      return "matmul";
    case DnnOpKind::kPointwise:
      return "pointwise";
    case DnnOpKind::kReduction:
      return "reduction";
    case DnnOpKind::kAttentionForward:
      return "sdpa_forward";
    case DnnOpKind::kAttentionBackward:
      return "sdpa_backward";
    case DnnOpKind::kNone:
      break;
  }
  return "none";
}

void DnnGraphSummary::NoteTensor(const DnnTensor& t) {
  if (t.is_virtual) return;
  if (t.uid >= 0) {
    for (int i = 0; i < seen_; ++i) {
      if (seen_uids_[i] == t.uid) return;
    }
    if (seen_ < kMaxTensors) seen_uids_[seen_++] = t.uid;
  }
  bytes_ += Bytes(t);
}

void DnnGraphSummary::AddConvolution(const DnnConvolution& conv) {
  ++ops_;
  LibraryCallRecord r{};
  DescribeConvolution(conv, r);
  if (r.source != static_cast<uint8_t>(trace::FigureSource::kAnalytic)) {
    invalid_ = true;
    return;
  }
  for (const DnnTensor* t : {&conv.x, &conv.w, &conv.y}) NoteTensor(*t);
  flops_ += r.flops;
  if (r.flops > main_flops_) {
    main_flops_ = r.flops;
    main_ = r;
    main_kind_ = conv.pass == ConvPass::kBackwardData     ? DnnOpKind::kConvBackwardData
                 : conv.pass == ConvPass::kBackwardFilter ? DnnOpKind::kConvBackwardFilter
                                                          : DnnOpKind::kConvForward;
  }
}

void DnnGraphSummary::AddMatmul(const DnnTensor& a, const DnnTensor& b, const DnnTensor& c,
                                uint8_t compute_type) {
  ++ops_;
  if (a.rank < 2 || b.rank < 2 || c.rank < 2 || c.Elements() <= 0 || a.Elements() <= 0 ||
      b.Elements() <= 0) {
    invalid_ = true;
    return;
  }
  const int64_t m = c.dims[c.rank - 2];
  const int64_t n = c.dims[c.rank - 1];
  const int64_t k = a.dims[a.rank - 1];
  if (a.dims[a.rank - 2] != m || b.dims[b.rank - 2] != k || b.dims[b.rank - 1] != n) {
    invalid_ = true;
    return;
  }
  const double batch = Product(c, 0, c.rank - 2);
  const double flops =
      2.0 * batch * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  for (const DnnTensor* t : {&a, &b, &c}) NoteTensor(*t);
  flops_ += flops;
  if (flops > main_flops_) {
    main_flops_ = flops;
    main_kind_ = DnnOpKind::kMatmul;
    main_ = LibraryCallRecord{};
    main_.m = m;
    main_.n = n;
    main_.k = k;
    main_.batch = static_cast<int64_t>(batch);
    main_.type_a = a.type;
    main_.type_b = b.type;
    main_.type_c = c.type;
    main_.compute_type = compute_type;
    main_.side = kNotApplicable;
    main_.diag = kNotApplicable;
  }
}

void DnnGraphSummary::AddAttention(const DnnTensor& q, const DnnTensor& k, const DnnTensor& v,
                                   const DnnTensor& o, bool backward,
                                   std::initializer_list<const DnnTensor*> more) {
  ++ops_;
  if (q.rank != 4 || k.rank != 4 || v.rank != 4 || o.rank != 4 || q.Elements() <= 0 ||
      k.Elements() <= 0 || v.Elements() <= 0 || o.Elements() <= 0 || k.dims[2] != v.dims[2] ||
      q.dims[3] != k.dims[3]) {
    invalid_ = true;
    return;
  }
  const double b = static_cast<double>(q.dims[0]);
  const double h = static_cast<double>(q.dims[1]);
  const double s_q = static_cast<double>(q.dims[2]);
  const double s_k = static_cast<double>(k.dims[2]);
  const double d = static_cast<double>(q.dims[3]);
  const double d_v = static_cast<double>(v.dims[3]);
  const double pairs = b * h * s_q * s_k;
  const double flops = backward ? 2 * pairs * (3 * d + 2 * d_v) : 2 * pairs * (d + d_v);
  for (const DnnTensor* t : {&q, &k, &v, &o}) NoteTensor(*t);
  for (const DnnTensor* t : more) {
    if (t != nullptr && t->rank > 0) NoteTensor(*t);
  }
  flops_ += flops;
  if (flops > main_flops_) {
    main_flops_ = flops;
    main_kind_ = backward ? DnnOpKind::kAttentionBackward : DnnOpKind::kAttentionForward;
    main_ = LibraryCallRecord{};
    main_.m = q.dims[2];
    main_.n = k.dims[2];
    main_.k = q.dims[3];
    main_.batch = q.dims[0] * q.dims[1];
    main_.lda = q.dims[1];
    main_.ldb = k.dims[1];
    main_.ldc = v.dims[3];
    main_.type_a = q.type;
    main_.type_b = k.type;
    main_.type_c = o.type;
    main_.compute_type = DnnComputeType(q.type, cuda_type::kR32F, -1);
    main_.side = kNotApplicable;
    main_.diag = kNotApplicable;
  }
}

void DnnGraphSummary::AddPointwise(const DnnTensor& output,
                                   std::initializer_list<const DnnTensor*> inputs) {
  ++ops_;
  for (const DnnTensor* t : inputs) {
    if (t != nullptr) NoteTensor(*t);
  }
  NoteTensor(output);
  epilogue_flops_ += output.Elements();
  if (main_kind_ == DnnOpKind::kNone) main_kind_ = DnnOpKind::kPointwise;
}

void DnnGraphSummary::AddReduction(const DnnTensor& input, const DnnTensor& output) {
  ++ops_;
  NoteTensor(input);
  NoteTensor(output);
  epilogue_flops_ += input.Elements();
  if (main_kind_ == DnnOpKind::kNone || main_kind_ == DnnOpKind::kPointwise) {
    main_kind_ = DnnOpKind::kReduction;
  }
}

LibraryCallRecord DnnGraphSummary::Record() const {
  LibraryCallRecord r = main_;
  if (main_flops_ < 0) {
    r.type_a = r.type_b = r.type_c = r.compute_type = kNotApplicable;
    r.side = kNotApplicable;
    r.batch = 1;
  }
  r.routine = static_cast<uint16_t>(BlasRoutine::kDnnGraph);
  r.type_d = r.scale_type = r.trans_a = kNotApplicable;
  r.trans_b = static_cast<uint8_t>(main_kind_);
  r.uplo = static_cast<uint8_t>(std::min(ops(), 255));
  r.flops = flops_;
  r.epilogue_flops = epilogue_flops_;
  r.bytes = bytes_;
  r.flags = main_.flags & (trace::kLibBetaKnown | trace::kLibBetaNonZero);
  if (unknown_ops_ > 0 || invalid_) r.flags |= trace::kLibDescriptorIncomplete;
  const bool known = ops_ > 0 && !(invalid_ && flops_ == 0 && epilogue_flops_ == 0);
  r.source =
      static_cast<uint8_t>(known ? trace::FigureSource::kAnalytic : trace::FigureSource::kUnknown);
  if (!known) r.flops = r.epilogue_flops = r.bytes = 0;
  // Operations without figures, for the shape text (docs/cudnn-hooks.md §3).
  r.diag = static_cast<uint8_t>(std::min(unknown_ops_ + (invalid_ ? 1 : 0), 255));
  return r;
}

namespace {

std::string ConvText(const LibraryCallRecord& r) {
  const int spatial = static_cast<int>(r.ldd);
  if (spatial < 1 || spatial > 3) return "shape not read";
  std::string text = "N" + std::to_string(r.m) + " C" + std::to_string(r.k) + " " +
                     Unpack(r.stride_a, spatial) + " -> K" + std::to_string(r.n) + " " +
                     Unpack(r.stride_c, spatial) + ", filter " + Unpack(r.stride_b, spatial);
  const std::string strides = Unpack(r.stride_d, spatial);
  const std::string unit = spatial == 1 ? "1" : spatial == 2 ? "1x1" : "1x1x1";
  if (strides != unit) text += ", stride " + strides;
  if (r.batch > 1) text += ", " + std::to_string(r.batch) + " groups";
  if (r.side == 1) text += ", channels last";
  return text;
}

std::string NormText(const LibraryCallRecord& r) {
  const int spatial = static_cast<int>(r.ldd);
  if (spatial < 0 || spatial > 3) return "shape not read";
  std::string text = "N" + std::to_string(r.m) + " C" + std::to_string(r.n);
  if (spatial > 0) text += " " + Unpack(r.stride_a, spatial);
  text += r.trans_b == 0 ? ", per activation" : ", spatial";
  if (r.uplo == 1) text += ", + activation";
  if (r.uplo == 2) text += ", + add + activation";
  if (r.side == 1) text += ", channels last";
  return text;
}

}  // namespace

std::string DnnShapeText(const LibraryCallRecord& r) {
  const BlasRoutine routine = BlasRoutineFromId(r.routine);
  switch (routine) {
    case BlasRoutine::kDnnBatchNormForwardTraining:
    case BlasRoutine::kDnnBatchNormForwardInference:
    case BlasRoutine::kDnnBatchNormBackward:
    case BlasRoutine::kDnnBatchNormForwardTrainingEx:
    case BlasRoutine::kDnnBatchNormBackwardEx:
      return NormText(r);
    default:
      break;
  }
  if (routine != BlasRoutine::kDnnGraph) return ConvText(r);
  const auto kind = static_cast<DnnOpKind>(r.trans_b);
  if (r.uplo == 0 || r.uplo == kNotApplicable) return "plan not seen built: no shapes";
  std::string text = "graph of " + std::to_string(r.uplo) + (r.uplo == 1 ? " op" : " ops");
  switch (kind) {
    case DnnOpKind::kConvForward:
    case DnnOpKind::kConvBackwardData:
    case DnnOpKind::kConvBackwardFilter:
      text += ", " + std::string(DnnOpKindName(kind)) + " " + ConvText(r);
      break;
    case DnnOpKind::kMatmul:
      text +=
          ", matmul " + std::to_string(r.m) + "x" + std::to_string(r.n) + "x" + std::to_string(r.k);
      if (r.batch > 1) text += " b" + std::to_string(r.batch);
      break;
    case DnnOpKind::kPointwise:
    case DnnOpKind::kReduction:
      text += ", " + std::string(DnnOpKindName(kind)) + " only";
      break;
    case DnnOpKind::kAttentionForward:
    case DnnOpKind::kAttentionBackward:
      // m s_q, n s_k, k d, batch b·h, lda h, ldb h_k, ldc d_v.
      text += ", " + std::string(DnnOpKindName(kind)) + " b" +
              std::to_string(r.lda > 0 ? r.batch / r.lda : r.batch) + " h" + std::to_string(r.lda) +
              (r.ldb != r.lda ? " h_k" + std::to_string(r.ldb) : "") + " s_q" +
              std::to_string(r.m) + " s_k" + std::to_string(r.n) + " d" + std::to_string(r.k) +
              (r.ldc != r.k ? " d_v" + std::to_string(r.ldc) : "");
      break;
    case DnnOpKind::kNone:
      break;
  }
  if (r.diag > 0 && r.diag != kNotApplicable) {
    text += ", " + std::to_string(r.diag) + " without a model";
  }
  return text;
}

}  // namespace flopspy::analyzers
