// cuDNN operations as LibraryCallRecords, and their FLOPs and bytes (docs/cudnn-hooks.md §2).
//
// A convolution is recorded as the GEMM it is equivalent to, per group: m = N (images), n = K
// (output channels), k = C (input channels), batch = groups, with the spatial sizes beside them.
// FLOPs are 2·N·K·(C/groups)·R·S·P·Q for every pass (forward, backward data, backward filter);
// bytes are the least traffic: each tensor read or written once. A graph run through the backend
// API (cudnnBackendExecute) sums its operations; its tensors that are not virtual are its traffic.
//
// The hooks (interpose/src/hooks_cudnn_*.cpp) read the descriptors, which die with the call, so
// they fill the record through these functions at once; the flusher leaves the figures alone.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/trace/schema.h"

namespace flopspy::analyzers {

// cudnnDataType_t (cudnn_graph.h, cuDNN 9) to the cudaDataType byte the record stores;
// kNotApplicable for a type with no equivalent (packed INT8x4, BOOLEAN, ...).
uint8_t CudaTypeOfDnnType(int dnn_type);

// cudnnMathType_t (cuDNN 9) values that matter to the compute path.
namespace dnn_math {
inline constexpr int kDefault = 0;             // CUDNN_DEFAULT_MATH: TF32 allowed on FP32 data
inline constexpr int kTensorOp = 1;            // CUDNN_TENSOR_OP_MATH
inline constexpr int kTensorOpConversion = 2;  // CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION
inline constexpr int kFma = 3;                 // CUDNN_FMA_MATH: no tensor cores
}  // namespace dnn_math

// The stored compute type (cublasComputeType_t - 64) that says on which unit a convolution or a
// matmul of cuDNN runs, from its data type, its compute (accumulator) type and its math type
// (-1: not given, the default). FP32 data runs on TF32 tensor cores unless the math type is FMA,
// as cuDNN does on Ampere and later (NVIDIA_TF32_OVERRIDE=0 is the caller's to apply).
uint8_t DnnComputeType(uint8_t data_type, uint8_t accumulate_type, int math_type);

inline constexpr int kMaxDnnRank = 8;

// One tensor as a descriptor gives it: dims in cuDNN's order (N, C, spatial... for images; any
// leading batch dims, then rows and columns for matmuls), element strides, the element type.
struct DnnTensor {
  uint8_t type = kNotApplicable;  // cudaDataType byte
  int rank = 0;
  std::array<int64_t, kMaxDnnRank> dims{};
  std::array<int64_t, kMaxDnnRank> strides{};
  bool is_virtual = false;  // a backend graph's intermediate: never in DRAM
  int64_t uid = -1;         // backend unique id; -1 for the legacy API

  // Every dimension positive and the product finite in a double; 0 otherwise.
  double Elements() const;
  // Channels last: the channel dimension (1) has the smallest stride of an image tensor.
  bool ChannelsLast() const;
};

enum class ConvPass : uint8_t { kForward, kBackwardData, kBackwardFilter, kBiasActivation };

// One convolution call. For every pass x is the image tensor (dx in backward data), w the filter
// (dw in backward filter), y the output (dy in the backward passes).
struct DnnConvolution {
  ConvPass pass = ConvPass::kForward;
  DnnTensor x, w, y;
  int64_t groups = 1;
  std::array<int64_t, 3> conv_strides{1, 1, 1};
  uint8_t compute_type = kNotApplicable;  // stored compute type (DnnComputeType)
  bool beta_known = false;                // the output's old value: read when beta is non-zero
  bool beta_non_zero = false;
  bool adds_z = false;       // bias-activation: alpha2 · z is added (z is read)
  double bias_elements = 0;  // bias-activation: the bias tensor
  uint32_t activation = 0;   // bias-activation: cudnnActivationMode_t + 1; 0 none
};

// Fills a record's routine, shape fields, types and figures from a convolution (the other fields
// are left as they are). An inconsistent shape (channels not divisible by the groups, a filter
// whose channels disagree, a non-positive dimension) gives figures 0, source unknown and
// kLibDescriptorIncomplete.
void DescribeConvolution(const DnnConvolution& conv, trace::LibraryCallRecord& record);

// One batch-normalisation call (docs/cudnn-hooks.md §2.1). x has the image's shape (dx in the
// backward pass has the same); the parameters (scale, bias, means, variances) share one shape:
// 1xCx1x1 (spatial modes) or 1xCxHxW (per activation).
enum class NormPass : uint8_t { kForwardTraining, kForwardInference, kBackward };
struct DnnBatchNorm {
  NormPass pass = NormPass::kForwardTraining;
  bool ex = false;  // the Ex form (bnOps, z, activation)
  DnnTensor x;
  DnnTensor params;
  int mode = 1;             // cudnnBatchNormMode_t: 0 per activation, 1 spatial, 2 persistent
  int ops = 0;              // Ex: cudnnBatchNormOps_t: 0 BN, 1 + activation, 2 + add + activation
  bool beta_known = false;  // the data blend factor: the output's old value is read when non-zero
  bool beta_non_zero = false;
};

// Fills a record from a batch-normalisation call, by the counting convention of layer norm
// (docs/kernel-catalog.md): forward training 8 FLOPs per element, inference 4, backward 10,
// plus one reciprocal square root per parameter element; the Ex forms add 1 per element for the
// add and 1 for the activation. Bytes: x and the output once each, the parameters as each pass
// reads and writes them.
void DescribeBatchNorm(const DnnBatchNorm& norm, trace::LibraryCallRecord& record);

// Operation kinds of a backend graph, as the graph record stores its main one (record.epilogue).
enum class DnnOpKind : uint8_t {
  kNone = 0,
  kConvForward = 1,
  kConvBackwardData = 2,
  kConvBackwardFilter = 3,
  kMatmul = 4,
  kPointwise = 5,
  kReduction = 6,
  kAttentionForward = 7,  // cuDNN's SDPA operation (cuDNN 9.13 and later)
  kAttentionBackward = 8,
};
std::string_view DnnOpKindName(DnnOpKind kind);

// Sums the operations of a backend graph into one kDnnGraph record (docs/cudnn-hooks.md §3):
// FLOPs of its convolutions and matmuls, pointwise and reduction arithmetic as epilogue FLOPs,
// bytes of its tensors that are not virtual (each unique id once). An operation it has no model
// for counts as unknown: the record says so (kLibDescriptorIncomplete), and its figures are those
// of the known operations.
class DnnGraphSummary {
 public:
  void AddConvolution(const DnnConvolution& conv);
  // C = A·B over the leading (batch) dims of C: A [..., M, K], B [..., K, N], C [..., M, N].
  void AddMatmul(const DnnTensor& a, const DnnTensor& b, const DnnTensor& c, uint8_t compute_type);
  // One FLOP per output element.
  void AddPointwise(const DnnTensor& output, std::initializer_list<const DnnTensor*> inputs);
  // One FLOP per input element.
  void AddReduction(const DnnTensor& input, const DnnTensor& output);
  // cuDNN's SDPA operation: Q [b, h, s_q, d], K [b, h_k, s_k, d], V [b, h_k, s_k, d_v], O
  // [b, h, s_q, d_v]; the catalog's attention convention (docs/kernel-catalog.md, "Attention")
  // without a mask: forward 2·b·h·s_q·s_k·(d + d_v), backward 2·b·h·s_q·s_k·(3d + 2d_v).
  // `more`: the other tensors it reads or writes (statistics; dO, dQ, dK, dV backward).
  void AddAttention(const DnnTensor& q, const DnnTensor& k, const DnnTensor& v, const DnnTensor& o,
                    bool backward, std::initializer_list<const DnnTensor*> more);
  void AddUnknown() { ++unknown_ops_; }

  int ops() const { return ops_ + unknown_ops_; }
  int unknown_ops() const { return unknown_ops_; }
  // The record of one run of the graph: the main operation's shape (the one with most FLOPs),
  // the sums, routine kDnnGraph. Source analytic when an operation was known, else unknown.
  trace::LibraryCallRecord Record() const;

 private:
  void NoteTensor(const DnnTensor& t);
  static constexpr int kMaxTensors = 32;

  int ops_ = 0;
  int unknown_ops_ = 0;
  bool invalid_ = false;
  double flops_ = 0;
  double epilogue_flops_ = 0;
  double bytes_ = 0;
  double main_flops_ = -1;
  DnnOpKind main_kind_ = DnnOpKind::kNone;
  trace::LibraryCallRecord main_{};
  std::array<int64_t, kMaxTensors> seen_uids_{};
  int seen_ = 0;
};

// "N8 C64 56x56 → K128 56x56, filter 3x3, stride 2, 4 groups, channels last" for a convolution
// record; "graph of 3 ops: conv_forward N8 ..., 1 unknown" for a graph; the GEMM-like m x n x k
// of a graph whose main operation is a matmul.
std::string DnnShapeText(const trace::LibraryCallRecord& record);

}  // namespace flopspy::analyzers
