// cuDNN convolution and graph figures against hand-computed values (docs/cudnn-hooks.md §2, §3).
#include "flopspy/analyzers/dnn_formulas.h"

#include <gtest/gtest.h>

#include <initializer_list>

#include "dnn_tensors.h"
#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/compute_path.h"

namespace flopspy::analyzers {
namespace {

namespace cuda_types = cuda_type;
using trace::FigureSource;
using trace::LibraryCallRecord;

using testing::PackedDnnTensor;

DnnConvolution DnnResNetConv() {  // 8x64x56x56 by 128 3x3 filters, pad 1, stride 1, FP32
  DnnConvolution c;
  c.x = PackedDnnTensor(cuda_types::kR32F, {8, 64, 56, 56});
  c.w = PackedDnnTensor(cuda_types::kR32F, {128, 64, 3, 3});
  c.y = PackedDnnTensor(cuda_types::kR32F, {8, 128, 56, 56});
  c.compute_type = DnnComputeType(cuda_types::kR32F, cuda_types::kR32F, dnn_math::kDefault);
  c.beta_known = true;
  return c;
}

TEST(DnnFormulasTest, ForwardConvolutionIsTwoNKCRSPQ) {
  LibraryCallRecord r{};
  DescribeConvolution(DnnResNetConv(), r);
  EXPECT_EQ(r.routine, static_cast<uint16_t>(BlasRoutine::kDnnConvForward));
  EXPECT_EQ(r.source, static_cast<uint8_t>(FigureSource::kAnalytic));
  // 2 * 8 * 128 * 64 * 3*3 * 56*56 = 3,699,376,128
  EXPECT_DOUBLE_EQ(r.flops, 3699376128.0);
  // x 8*64*56*56 + w 128*64*9 + y 8*128*56*56, four bytes each; beta 0: y not read.
  EXPECT_DOUBLE_EQ(r.bytes, 4.0 * (1605632 + 73728 + 3211264));
  EXPECT_EQ(r.m, 8);
  EXPECT_EQ(r.n, 128);
  EXPECT_EQ(r.k, 64);
  EXPECT_EQ(r.batch, 1);
  EXPECT_EQ(DnnShapeText(r), "N8 C64 56x56 -> K128 56x56, filter 3x3");
  // FP32 data with the default math type runs on TF32 tensor cores; FMA math does not.
  EXPECT_EQ(BlasComputePath(r), ComputePath::kTf32Tensor);
  DnnConvolution fma = DnnResNetConv();
  fma.compute_type = DnnComputeType(cuda_types::kR32F, cuda_types::kR32F, dnn_math::kFma);
  LibraryCallRecord f{};
  DescribeConvolution(fma, f);
  EXPECT_EQ(BlasComputePath(f), ComputePath::kFp32);
}

TEST(DnnFormulasTest, BackwardPassesCountTheSameProductsAndReadWhatTheyAccumulate) {
  DnnConvolution data = DnnResNetConv();
  data.pass = ConvPass::kBackwardData;
  LibraryCallRecord d{};
  DescribeConvolution(data, d);
  EXPECT_EQ(d.routine, static_cast<uint16_t>(BlasRoutine::kDnnConvBackwardData));
  EXPECT_DOUBLE_EQ(d.flops, 3699376128.0);

  DnnConvolution filter = DnnResNetConv();
  filter.pass = ConvPass::kBackwardFilter;
  filter.beta_non_zero = true;  // dw += ...: the old dw is read as well
  LibraryCallRecord w{};
  DescribeConvolution(filter, w);
  EXPECT_DOUBLE_EQ(w.flops, 3699376128.0);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (1605632 + 73728 + 3211264 + 73728));
  EXPECT_TRUE(w.flags & trace::kLibBetaNonZero);
}

TEST(DnnFormulasTest, GroupsStridesAndChannelsLastEnterTheShape) {
  // 16x256x28x28 FP16 channels last, 32 groups of 8 channels, 3x3, stride 2 -> 14x14.
  DnnConvolution c;
  c.x = PackedDnnTensor(cuda_types::kR16F, {16, 256, 28, 28}, true);
  c.w = PackedDnnTensor(cuda_types::kR16F, {256, 8, 3, 3}, true);
  c.y = PackedDnnTensor(cuda_types::kR16F, {16, 256, 14, 14}, true);
  c.groups = 32;
  c.conv_strides = {2, 2, 1};
  c.compute_type = DnnComputeType(cuda_types::kR16F, cuda_types::kR32F, dnn_math::kTensorOp);
  c.beta_known = true;
  LibraryCallRecord r{};
  DescribeConvolution(c, r);
  // 2 * 16 * 256 * 8 * 9 * 14*14 = 115,605,504
  EXPECT_DOUBLE_EQ(r.flops, 115605504.0);
  EXPECT_DOUBLE_EQ(r.bytes, 2.0 * (16 * 256 * 28 * 28 + 256 * 8 * 9 + 16 * 256 * 14 * 14));
  EXPECT_EQ(r.batch, 32);
  EXPECT_EQ(DnnShapeText(r),
            "N16 C256 28x28 -> K256 14x14, filter 3x3, stride 2x2, 32 groups, channels last");
  EXPECT_EQ(BlasComputePath(r), ComputePath::kFp16Tensor);
}

TEST(DnnFormulasTest, ThreeDimensionalConvolution) {
  DnnConvolution c;
  c.x = PackedDnnTensor(cuda_types::kR32F, {2, 16, 8, 32, 32});
  c.w = PackedDnnTensor(cuda_types::kR32F, {32, 16, 3, 3, 3});
  c.y = PackedDnnTensor(cuda_types::kR32F, {2, 32, 8, 32, 32});
  LibraryCallRecord r{};
  DescribeConvolution(c, r);
  // 2 * 2 * 32 * 16 * 27 * 8*32*32 = 452,984,832
  EXPECT_DOUBLE_EQ(r.flops, 452984832.0);
  // beta unknown: the output's old value counts as read.
  EXPECT_DOUBLE_EQ(r.bytes, 4.0 * (2 * 16 * 8192 + 32 * 16 * 27 + 2 * 2 * 32 * 8192));
  EXPECT_EQ(DnnShapeText(r), "N2 C16 8x32x32 -> K32 8x32x32, filter 3x3x3");
}

TEST(DnnFormulasTest, BiasActivationCountsItsEpilogueApart) {
  DnnConvolution c = DnnResNetConv();
  c.pass = ConvPass::kBiasActivation;
  c.activation = 2;  // CUDNN_ACTIVATION_RELU + 1
  c.bias_elements = 128;
  LibraryCallRecord r{};
  DescribeConvolution(c, r);
  EXPECT_DOUBLE_EQ(r.flops, 3699376128.0);
  EXPECT_DOUBLE_EQ(r.epilogue_flops, 2.0 * 3211264);  // bias add and ReLU per output
  EXPECT_DOUBLE_EQ(r.bytes, 4.0 * (1605632 + 73728 + 3211264 + 128));
}

TEST(DnnFormulasTest, InconsistentShapesAreRefusedNotGuessed) {
  DnnConvolution c = DnnResNetConv();
  c.w.dims[1] = 32;  // a filter for 32 channels on a 64-channel input, one group
  LibraryCallRecord r{};
  DescribeConvolution(c, r);
  EXPECT_EQ(r.source, static_cast<uint8_t>(FigureSource::kUnknown));
  EXPECT_EQ(r.flops, 0);
  EXPECT_TRUE(r.flags & trace::kLibDescriptorIncomplete);

  DnnConvolution flat = DnnResNetConv();
  flat.x.rank = 2;
  LibraryCallRecord f{};
  DescribeConvolution(flat, f);
  EXPECT_EQ(f.source, static_cast<uint8_t>(FigureSource::kUnknown));
  EXPECT_EQ(DnnShapeText(f), "shape not read");
}

// 16x64x56x56 FP16 images (3,211,264 elements), FP32 parameters of 64 channels.
DnnBatchNorm DnnResNetNorm(NormPass pass) {
  DnnBatchNorm n;
  n.pass = pass;
  n.x = PackedDnnTensor(cuda_types::kR16F, {16, 64, 56, 56});
  n.params = PackedDnnTensor(cuda_types::kR32F, {1, 64, 1, 1});
  n.beta_known = true;  // beta 0: the output's old value is not read
  return n;
}

TEST(DnnFormulasTest, BatchNormFollowsTheLayerNormConvention) {
  LibraryCallRecord training{};
  DescribeBatchNorm(DnnResNetNorm(NormPass::kForwardTraining), training);
  EXPECT_EQ(training.routine, static_cast<uint16_t>(BlasRoutine::kDnnBatchNormForwardTraining));
  EXPECT_DOUBLE_EQ(training.flops, 3211264.0 * 8 + 64);  // 8 per element, a rsqrt per channel
  // x in and y out (2 bytes each), 8 parameter vectors of 64 floats.
  EXPECT_DOUBLE_EQ(training.bytes, 3211264.0 * 2 * 2 + 64 * 4 * 8);
  EXPECT_EQ(DnnShapeText(training), "N16 C64 56x56, spatial");
  // Vector arithmetic in float on CUDA cores, whatever the data type.
  EXPECT_EQ(BlasComputePath(training), ComputePath::kFp32);

  LibraryCallRecord inference{};
  DescribeBatchNorm(DnnResNetNorm(NormPass::kForwardInference), inference);
  EXPECT_DOUBLE_EQ(inference.flops, 3211264.0 * 4 + 64);
  EXPECT_DOUBLE_EQ(inference.bytes, 3211264.0 * 2 * 2 + 64 * 4 * 4);

  DnnBatchNorm fused = DnnResNetNorm(NormPass::kBackward);
  fused.ex = true;
  fused.ops = 2;  // CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION
  fused.x = PackedDnnTensor(cuda_types::kR16F, {16, 64, 56, 56}, true);
  LibraryCallRecord backward{};
  DescribeBatchNorm(fused, backward);
  EXPECT_EQ(backward.routine, static_cast<uint16_t>(BlasRoutine::kDnnBatchNormBackwardEx));
  EXPECT_DOUBLE_EQ(backward.flops, 3211264.0 * 10 + 64);
  EXPECT_DOUBLE_EQ(backward.epilogue_flops, 3211264.0 * 2);  // the add and the activation
  // x, dy, y in, dx, dz out; scale and saved statistics in, two gradients out.
  EXPECT_DOUBLE_EQ(backward.bytes, 3211264.0 * 2 * 5 + 64 * 4 * 5);
  EXPECT_EQ(DnnShapeText(backward), "N16 C64 56x56, spatial, + add + activation, channels last");

  DnnBatchNorm empty = DnnResNetNorm(NormPass::kForwardTraining);
  empty.params.rank = 0;  // the parameter descriptor could not be read
  LibraryCallRecord refused{};
  DescribeBatchNorm(empty, refused);
  EXPECT_EQ(refused.source, static_cast<uint8_t>(FigureSource::kUnknown));
}

TEST(DnnFormulasTest, GraphSumsItsOpsAndCountsOnlyRealTensorsAsTraffic) {
  // Convolution into a virtual tensor, then ReLU into Z: the fused graph reads X and W and
  // writes Z; Y never reaches DRAM.
  DnnConvolution conv;
  conv.x = PackedDnnTensor(cuda_types::kR16F, {8, 64, 56, 56}, true);
  conv.x.uid = 1;
  conv.w = PackedDnnTensor(cuda_types::kR16F, {128, 64, 3, 3}, true);
  conv.w.uid = 2;
  conv.y = PackedDnnTensor(cuda_types::kR16F, {8, 128, 56, 56}, true);
  conv.y.uid = 3;
  conv.y.is_virtual = true;
  conv.beta_known = true;
  conv.compute_type = DnnComputeType(cuda_types::kR16F, cuda_types::kR32F, -1);
  DnnTensor z = conv.y;
  z.uid = 4;
  z.is_virtual = false;
  DnnGraphSummary graph;
  graph.AddConvolution(conv);
  graph.AddPointwise(z, {&conv.y});
  const LibraryCallRecord r = graph.Record();
  EXPECT_EQ(r.routine, static_cast<uint16_t>(BlasRoutine::kDnnGraph));
  EXPECT_EQ(r.source, static_cast<uint8_t>(FigureSource::kAnalytic));
  EXPECT_DOUBLE_EQ(r.flops, 3699376128.0);
  EXPECT_DOUBLE_EQ(r.epilogue_flops, 3211264.0);
  EXPECT_DOUBLE_EQ(r.bytes, 2.0 * (1605632 + 73728 + 3211264));
  EXPECT_FALSE(r.flags & trace::kLibDescriptorIncomplete);
  EXPECT_EQ(DnnShapeText(r),
            "graph of 2 ops, conv_forward N8 C64 56x56 -> K128 56x56, filter 3x3, channels last");
  EXPECT_EQ(BlasComputePath(r), ComputePath::kFp16Tensor);
}

TEST(DnnFormulasTest, AttentionAsTwoMatmulsIsFourBHSSD) {
  // S = Q K^T, O = P V for 16 (batch x heads), s = 128, d = 64: 4 * 16 * 128 * 128 * 64.
  DnnTensor q = PackedDnnTensor(cuda_types::kR16F, {16, 128, 64});
  q.uid = 1;
  DnnTensor kt = PackedDnnTensor(cuda_types::kR16F, {16, 64, 128});
  kt.uid = 2;
  DnnTensor s = PackedDnnTensor(cuda_types::kR32F, {16, 128, 128});
  s.is_virtual = true;
  DnnTensor p = s;
  DnnTensor v = PackedDnnTensor(cuda_types::kR16F, {16, 128, 64});
  v.uid = 3;
  DnnTensor o = PackedDnnTensor(cuda_types::kR16F, {16, 128, 64});
  o.uid = 4;
  DnnGraphSummary graph;
  graph.AddMatmul(q, kt, s, DnnComputeType(cuda_types::kR16F, cuda_types::kR32F, -1));
  graph.AddPointwise(p, {&s});
  graph.AddMatmul(p, v, o, DnnComputeType(cuda_types::kR16F, cuda_types::kR32F, -1));
  graph.AddUnknown();
  const LibraryCallRecord r = graph.Record();
  EXPECT_DOUBLE_EQ(r.flops, 4.0 * 16 * 128 * 128 * 64);
  EXPECT_DOUBLE_EQ(r.bytes, 2.0 * 4 * 16 * 128 * 64);  // Q, K, V, O once each
  EXPECT_TRUE(r.flags & trace::kLibDescriptorIncomplete);
  EXPECT_EQ(DnnShapeText(r), "graph of 4 ops, matmul 128x128x64 b16, 1 without a model");
}

// cuDNN's own SDPA operation: b 2, h 16 (GQA: h_k 4), s 1024, d 128; the catalog's convention.
TEST(DnnFormulasTest, SdpaOperationFollowsTheAttentionConvention) {
  const DnnTensor q = PackedDnnTensor(cuda_types::kR16BF, {2, 16, 1024, 128});
  const DnnTensor k = PackedDnnTensor(cuda_types::kR16BF, {2, 4, 1024, 128});
  const DnnTensor v = k;
  const DnnTensor o = q;
  DnnTensor stats = PackedDnnTensor(cuda_types::kR32F, {2, 16, 1024, 1});
  DnnGraphSummary forward;
  forward.AddAttention(q, k, v, o, false, {&stats});
  const LibraryCallRecord f = forward.Record();
  EXPECT_DOUBLE_EQ(f.flops, 4.0 * 2 * 16 * 1024 * 1024 * 128);
  // Q and O at 16 heads, K and V at 4, the float statistics; uid -1 tensors each count.
  EXPECT_DOUBLE_EQ(f.bytes,
                   2.0 * (2 * 2 * 16 * 1024 * 128 + 2 * 2 * 4 * 1024 * 128) + 4.0 * 2 * 16 * 1024);
  EXPECT_EQ(DnnShapeText(f), "graph of 1 op, sdpa_forward b2 h16 h_k4 s_q1024 s_k1024 d128");
  EXPECT_EQ(BlasComputePath(f), ComputePath::kBf16Tensor);

  DnnGraphSummary backward;
  backward.AddAttention(q, k, v, o, true, {});
  EXPECT_DOUBLE_EQ(backward.Record().flops, 2.5 * f.flops);  // 2·P·(3d + 2d) against 2·P·2d
}

TEST(DnnFormulasTest, GraphOfUnknownOpsHasNoFigures) {
  DnnGraphSummary graph;
  graph.AddUnknown();
  const LibraryCallRecord r = graph.Record();
  EXPECT_EQ(r.source, static_cast<uint8_t>(FigureSource::kUnknown));
  EXPECT_EQ(r.flops, 0);
  EXPECT_EQ(DnnShapeText(r), "graph of 1 op, 1 without a model");
}

TEST(DnnFormulasTest, DataTypesMapToTheRecordsCudaTypes) {
  EXPECT_EQ(CudaTypeOfDnnType(0), cuda_types::kR32F);
  EXPECT_EQ(CudaTypeOfDnnType(2), cuda_types::kR16F);
  EXPECT_EQ(CudaTypeOfDnnType(9), cuda_types::kR16BF);
  EXPECT_EQ(CudaTypeOfDnnType(12), cuda_types::kR8FE4M3);
  EXPECT_EQ(CudaTypeOfDnnType(5), kNotApplicable);  // INT8x4: packed, no equivalent
  EXPECT_EQ(BlasRoutineName(BlasRoutine::kDnnGraph), "dnn_graph");
  EXPECT_EQ(DnnEntryPointName(BlasRoutine::kDnnConvBackwardFilter),
            "cudnnConvolutionBackwardFilter");
  EXPECT_FALSE(IsDnnRoutine(BlasRoutine::kGemm));
}

}  // namespace
}  // namespace flopspy::analyzers
