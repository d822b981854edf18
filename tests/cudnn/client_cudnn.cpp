// A cuDNN 9 client for flopspy's cuDNN hooks, linked against the fake libcudnn.so.9: `client_cudnn
// SCENARIO` exits 0 when every cuDNN call returned what the scenario expects, else prints "client:
// <what failed>" and exits 1; `client_cudnn list` prints the names. The shapes are fixed (tests
// compute FLOPs from them by hand); device pointers are made-up numbers the fake never reads.
#include <cudnn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "fake_cudnn.h"

namespace {

void Fail(const char* what, int got, int want) {
  std::printf("client: %s returned %d, expected %d\n", what, got, want);
  std::exit(1);
}

void Expect(cudnnStatus_t got, const char* what, cudnnStatus_t want = CUDNN_STATUS_SUCCESS) {
  if (got != want) Fail(what, got, want);
}
// A call that must succeed, named by its function in the failure message.
#define CUDNN(fn, ...) Expect(fn(__VA_ARGS__), #fn)

// Made-up device pointers of x, w, y, z, bias and the workspace.
void* const kX = reinterpret_cast<void*>(0x10000);
void* const kW = reinterpret_cast<void*>(0x20000);
void* const kY = reinterpret_cast<void*>(0x30000);
void* const kZ = reinterpret_cast<void*>(0x40000);
void* const kBias = reinterpret_cast<void*>(0x50000);
void* const kWorkspace = reinterpret_cast<void*>(0x60000);
const float kOne = 1.0f, kZero = 0.0f;
constexpr size_t kWorkspaceBytes = 1 << 20;

// A handle on stream 0x5000, destroyed after what the scenario made with it.
struct Session {
  cudnnHandle_t handle = nullptr;
  Session() {
    CUDNN(cudnnCreate, &handle);
    CUDNN(cudnnSetStream, handle, reinterpret_cast<cudaStream_t>(0x5000));
  }
  ~Session() { CUDNN(cudnnDestroy, handle); }
};

// One convolution's legacy descriptors (x, w, conv, y), destroyed at the end.
struct Legacy : Session {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

  Legacy() {
    CUDNN(cudnnCreateTensorDescriptor, &x);
    CUDNN(cudnnCreateTensorDescriptor, &y);
    CUDNN(cudnnCreateFilterDescriptor, &w);
    CUDNN(cudnnCreateConvolutionDescriptor, &conv);
  }
  ~Legacy() {
    CUDNN(cudnnDestroyConvolutionDescriptor, conv);
    CUDNN(cudnnDestroyFilterDescriptor, w);
    CUDNN(cudnnDestroyTensorDescriptor, y);
    CUDNN(cudnnDestroyTensorDescriptor, x);
  }
  // y from cudnnGetConvolution2dForwardOutputDim, checked against the shape expected.
  void SetOutput2d(cudnnTensorFormat_t format, cudnnDataType_t type, const int (&want)[4]) {
    int n = 0, c = 0, h = 0, ww = 0;
    CUDNN(cudnnGetConvolution2dForwardOutputDim, conv, x, w, &n, &c, &h, &ww);
    const int got[] = {n, c, h, ww};
    for (int i = 0; i < 4; ++i) {
      if (got[i] != want[i]) Fail("cudnnGetConvolution2dForwardOutputDim", got[i], want[i]);
    }
    CUDNN(cudnnSetTensor4dDescriptor, y, format, type, n, c, h, ww);
  }
  cudnnStatus_t Forward(cudnnTensorDescriptor_t x_desc) {
    return cudnnConvolutionForward(handle, &kOne, x_desc, kX, w, kW, conv,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, kWorkspace,
                                   kWorkspaceBytes, &kZero, y, kY);
  }
};

// x float NCHW 8x64x56x56, w 128x64x3x3, pad 1 stride 1 dilation 1, y 8x128x56x56.
void SetResNetLayer(Legacy& l) {
  CUDNN(cudnnSetTensor4dDescriptor, l.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 8, 64, 56, 56);
  CUDNN(cudnnSetFilter4dDescriptor, l.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 128, 64, 3, 3);
  CUDNN(cudnnSetConvolution2dDescriptor, l.conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
        CUDNN_DATA_FLOAT);
  l.SetOutput2d(CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, {8, 128, 56, 56});
}

void LegacyBackward() {
  Legacy l;
  SetResNetLayer(l);
  CUDNN(cudnnConvolutionBackwardData, l.handle, &kOne, l.w, kW, l.y, kY, l.conv,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, kWorkspace, kWorkspaceBytes, &kZero, l.x, kX);
  CUDNN(cudnnConvolutionBackwardFilter, l.handle, &kOne, l.x, kX, l.y, kY, l.conv,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, kWorkspace, kWorkspaceBytes, &kOne, l.w, kW);
}

// The ResNet layer forward once, the fake returning `chosen`; with a null x descriptor, which
// cuDNN refuses.
void ResNetForward(cudnnStatus_t chosen, bool null_x) {
  Legacy l;
  SetResNetLayer(l);
  flopspy_fake_cudnn_set_status(chosen);
  const cudnnStatus_t want = null_x ? CUDNN_STATUS_BAD_PARAM : chosen;
  Expect(l.Forward(null_x ? nullptr : l.x), "cudnnConvolutionForward", want);
}

// Half NHWC x 16x256x28x28, 32 groups of w 256x8x3x3, stride 2 pad 1: y 16x256x14x14.
void LegacyGroupedNhwc() {
  Legacy l;
  CUDNN(cudnnSetTensor4dDescriptor, l.x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 16, 256, 28, 28);
  CUDNN(cudnnSetFilter4dDescriptor, l.w, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 256, 8, 3, 3);
  CUDNN(cudnnSetConvolution2dDescriptor, l.conv, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION,
        CUDNN_DATA_FLOAT);
  CUDNN(cudnnSetConvolutionGroupCount, l.conv, 32);
  CUDNN(cudnnSetConvolutionMathType, l.conv, CUDNN_TENSOR_OP_MATH);
  l.SetOutput2d(CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, {16, 256, 14, 14});
  for (int i = 0; i < 2; ++i) Expect(l.Forward(l.x), "cudnnConvolutionForward");
}

// Nd descriptors: x float 2x16x8x32x32, w 32x16x3x3x3, pad 1 stride 1: y 2x32x8x32x32.
void Legacy3d() {
  Legacy l;
  const int x_dims[] = {2, 16, 8, 32, 32},
            x_strides[] = {16 * 8 * 32 * 32, 8 * 32 * 32, 32 * 32, 32, 1};
  const int w_dims[] = {32, 16, 3, 3, 3}, y_dims[] = {2, 32, 8, 32, 32};
  const int pad[] = {1, 1, 1}, stride[] = {1, 1, 1}, dilation[] = {1, 1, 1};
  CUDNN(cudnnSetTensorNdDescriptor, l.x, CUDNN_DATA_FLOAT, 5, x_dims, x_strides);
  CUDNN(cudnnSetFilterNdDescriptor, l.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 5, w_dims);
  CUDNN(cudnnSetConvolutionNdDescriptor, l.conv, 3, pad, stride, dilation, CUDNN_CROSS_CORRELATION,
        CUDNN_DATA_FLOAT);
  CUDNN(cudnnSetTensorNdDescriptorEx, l.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 5, y_dims);
  Expect(l.Forward(l.x), "cudnnConvolutionForward");
}

// The ResNet layer fused with a per-channel bias (1x128x1x1) and a ReLU, z = y.
void LegacyBiasActivation() {
  Legacy l;
  SetResNetLayer(l);
  cudnnTensorDescriptor_t bias = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  CUDNN(cudnnCreateTensorDescriptor, &bias);
  CUDNN(cudnnSetTensor4dDescriptor, bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 128, 1, 1);
  CUDNN(cudnnCreateActivationDescriptor, &relu);
  CUDNN(cudnnSetActivationDescriptor, relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
  CUDNN(cudnnConvolutionBiasActivationForward, l.handle, &kOne, l.x, kX, l.w, kW, l.conv,
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, kWorkspace, kWorkspaceBytes, &kZero, l.y,
        kZ, bias, kBias, relu, l.y, kY);
  CUDNN(cudnnDestroyActivationDescriptor, relu);
  CUDNN(cudnnDestroyTensorDescriptor, bias);
}

// Batch normalisation of half NHWC images 16x64x56x56 with float parameters 1x64x1x1 (spatial):
// forward training, inference and backward; with `ex`, the Ex forms with an add (z) and a ReLU.
void LegacyBatchNorm(bool ex) {
  Session s;
  cudnnTensorDescriptor_t x = nullptr, params = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  CUDNN(cudnnCreateTensorDescriptor, &x);
  CUDNN(cudnnCreateTensorDescriptor, &params);
  CUDNN(cudnnCreateActivationDescriptor, &relu);
  CUDNN(cudnnSetTensor4dDescriptor, x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 16, 64, 56, 56);
  CUDNN(cudnnSetTensor4dDescriptor, params, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 64, 1, 1);
  CUDNN(cudnnSetActivationDescriptor, relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
  void* const stats = kBias;  // scale, bias, means and variances: device pointers never read
  const auto mode = CUDNN_BATCHNORM_SPATIAL;
  if (!ex) {
    CUDNN(cudnnBatchNormalizationForwardTraining, s.handle, mode, &kOne, &kZero, x, kX, x, kY,
          params, stats, stats, 0.1, stats, stats, 1e-5, stats, stats);
    CUDNN(cudnnBatchNormalizationForwardInference, s.handle, mode, &kOne, &kZero, x, kX, x, kY,
          params, stats, stats, stats, stats, 1e-5);
    CUDNN(cudnnBatchNormalizationBackward, s.handle, mode, &kOne, &kZero, &kOne, &kZero, x, kX, x,
          kY, x, kZ, params, stats, stats, stats, 1e-5, stats, stats);
  } else {
    const auto ops = CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    CUDNN(cudnnBatchNormalizationForwardTrainingEx, s.handle, mode, ops, &kOne, &kZero, x, kX, x,
          kZ, x, kY, params, stats, stats, 0.1, stats, stats, 1e-5, stats, stats, relu, kWorkspace,
          kWorkspaceBytes, kWorkspace, kWorkspaceBytes);
    CUDNN(cudnnBatchNormalizationBackwardEx, s.handle, mode, ops, &kOne, &kZero, &kOne, &kZero, x,
          kX, x, kY, x, kY, x, kZ, x, kX, params, stats, stats, stats, stats, 1e-5, stats, stats,
          relu, kWorkspace, kWorkspaceBytes, kWorkspace, kWorkspaceBytes);
  }
  CUDNN(cudnnDestroyActivationDescriptor, relu);
  CUDNN(cudnnDestroyTensorDescriptor, params);
  CUDNN(cudnnDestroyTensorDescriptor, x);
}

using Desc = cudnnBackendDescriptor_t;

// The backend API as cudnn_frontend drives it; every descriptor made is destroyed at the end.
struct Backend : Session {
  std::vector<Desc> made;

  ~Backend() {
    for (Desc d : made) CUDNN(cudnnBackendDestroyDescriptor, d);
  }
  Desc Make(cudnnBackendDescriptorType_t type) {
    Desc d = nullptr;
    CUDNN(cudnnBackendCreateDescriptor, type, &d);
    made.push_back(d);
    return d;
  }
  static void Set(Desc d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                  int64_t count, const void* values) {
    CUDNN(cudnnBackendSetAttribute, d, name, type, count, values);
  }
  static void Ints(Desc d, cudnnBackendAttributeName_t name, std::initializer_list<int64_t> v) {
    Set(d, name, CUDNN_TYPE_INT64, static_cast<int64_t>(v.size()), v.begin());
  }
  static void Descs(Desc d, cudnnBackendAttributeName_t name, std::initializer_list<Desc> v) {
    Set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(v.size()), v.begin());
  }
  template <class T>
  static void One(Desc d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                  T value) {
    Set(d, name, type, 1, &value);
  }
  static void Finalize(Desc d) { CUDNN(cudnnBackendFinalize, d); }

  // A finalized tensor; strides as given (elements), 16-byte aligned.
  Desc Tensor(int64_t uid, cudnnDataType_t type, std::initializer_list<int64_t> dims,
              std::initializer_list<int64_t> strides, bool is_virtual, bool by_value = false) {
    Desc t = Make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    One(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, type);
    Ints(t, CUDNN_ATTR_TENSOR_DIMENSIONS, dims);
    Ints(t, CUDNN_ATTR_TENSOR_STRIDES, strides);
    Ints(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, {uid});
    Ints(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {16});
    One(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual);
    if (by_value) One(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, true);
    Finalize(t);
    return t;
  }
  // y = mode(x[, b]) computed in float.
  Desc Pointwise(cudnnPointwiseMode_t mode, Desc x, Desc b, Desc y) {
    Desc pw = Make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    One(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode);
    One(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    Finalize(pw);
    Desc op = Make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    Descs(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, {pw});
    Descs(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, {x});
    if (b != nullptr) Descs(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, {b});
    Descs(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, {y});
    Finalize(op);
    return op;
  }
  Desc Graph(std::initializer_list<Desc> ops) {
    Desc g = Make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    Set(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    Descs(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, ops);
    Finalize(g);
    return g;
  }
  // The heuristics' first engine config (mode A), as the frontend takes it.
  Desc HeuristicConfig(Desc graph) {
    Desc heur = Make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    Descs(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, {graph});
    One(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_A);
    Finalize(heur);
    int64_t count = 0;  // how many configs there are, then the first
    CUDNN(cudnnBackendGetAttribute, heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
    Desc cfg = Make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    CUDNN(cudnnBackendGetAttribute, heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &cfg);
    return cfg;
  }
  // The engine chosen by hand: global index 0 on the graph, no knobs.
  Desc HandConfig(Desc graph) {
    Desc engine = Make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    Descs(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, {graph});
    Ints(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, {0});
    Finalize(engine);
    Desc cfg = Make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    Descs(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, {engine});
    Finalize(cfg);
    return cfg;
  }
  Desc Plan(Desc cfg, bool finalize = true) {
    Desc plan = Make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    Set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    Descs(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, {cfg});
    if (finalize) Finalize(plan);
    return plan;
  }
  Desc VariantPack(std::initializer_list<int64_t> uids, std::initializer_list<void*> pointers) {
    Desc pack = Make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    Ints(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, uids);
    Set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
        static_cast<int64_t>(pointers.size()), pointers.begin());
    Set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &kWorkspace);
    Finalize(pack);
    return pack;
  }
  void Execute(Desc plan, Desc pack, int times, cudnnStatus_t want = CUDNN_STATUS_SUCCESS) {
    for (int i = 0; i < times; ++i) {
      Expect(cudnnBackendExecute(handle, plan, pack), "cudnnBackendExecute", want);
    }
  }
};

// Half NHWC X 8x64x56x56 (uid 1) conv W 128x64x3x3 (uid 2), pad 1 stride 1 dilation 1, into a
// virtual float Y 8x128x56x56 (uid 3), then ReLU into half Z 8x128x56x56 (uid 4).
Desc ConvReluGraph(Backend& b) {
  Desc x = b.Tensor(1, CUDNN_DATA_HALF, {8, 64, 56, 56}, {64 * 56 * 56, 1, 56 * 64, 64}, false);
  Desc w = b.Tensor(2, CUDNN_DATA_HALF, {128, 64, 3, 3}, {64 * 3 * 3, 1, 3 * 64, 64}, false);
  const std::initializer_list<int64_t> out = {8, 128, 56, 56};
  const std::initializer_list<int64_t> out_strides = {128 * 56 * 56, 1, 56 * 128, 128};
  Desc y = b.Tensor(3, CUDNN_DATA_FLOAT, out, out_strides, true);
  Desc z = b.Tensor(4, CUDNN_DATA_HALF, out, out_strides, false);
  Desc conv = b.Make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  b.Ints(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, {2});
  b.One(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
  b.One(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
        CUDNN_CROSS_CORRELATION);
  b.Ints(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, {1, 1});
  b.Ints(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, {1, 1});
  b.Ints(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, {1, 1});
  b.Ints(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, {1, 1});
  b.Finalize(conv);
  Desc conv_op = b.Make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  b.Descs(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, {x});
  b.Descs(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, {w});
  b.Descs(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, {y});
  b.Descs(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, {conv});
  b.Set(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &kOne);
  b.Set(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &kZero);
  b.Finalize(conv_op);
  return b.Graph({conv_op, b.Pointwise(CUDNN_POINTWISE_RELU_FWD, y, nullptr, z)});
}

// The conv + ReLU graph's plan, from the heuristics or by hand, finalized or not (then cuDNN
// refuses to run it), executed `times` times.
void ConvRelu(bool by_hand, bool finalize, int times) {
  Backend b;
  Desc graph = ConvReluGraph(b);
  Desc plan = b.Plan(by_hand ? b.HandConfig(graph) : b.HeuristicConfig(graph), finalize);
  b.Execute(plan, b.VariantPack({1, 2, 4}, {kX, kW, kZ}), times,
            finalize ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM);
}

// SDPA's two matmuls, batch x heads = 16, s = 128, d = 64: S = Q K^T (virtual float), P = S *
// scale (virtual float), O = P V (half). Uids: Q 1, K^T 2, S 3, scale 4, P 5, V 6, O 7.
void BackendMatmul() {
  Backend b;
  Desc q = b.Tensor(1, CUDNN_DATA_HALF, {16, 128, 64}, {128 * 64, 64, 1}, false);
  Desc kt = b.Tensor(2, CUDNN_DATA_HALF, {16, 64, 128}, {128 * 64, 1, 64}, false);
  Desc s = b.Tensor(3, CUDNN_DATA_FLOAT, {16, 128, 128}, {128 * 128, 128, 1}, true);
  Desc scale = b.Tensor(4, CUDNN_DATA_FLOAT, {1, 1, 1}, {1, 1, 1}, false, true);
  Desc p = b.Tensor(5, CUDNN_DATA_FLOAT, {16, 128, 128}, {128 * 128, 128, 1}, true);
  Desc v = b.Tensor(6, CUDNN_DATA_HALF, {16, 128, 64}, {128 * 64, 64, 1}, false);
  Desc o = b.Tensor(7, CUDNN_DATA_HALF, {16, 128, 64}, {128 * 64, 64, 1}, false);
  Desc matmul = b.Make(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  b.One(matmul, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
  b.Finalize(matmul);
  auto matmul_op = [&](Desc a, Desc bb, Desc c) {
    Desc op = b.Make(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    b.Descs(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, {a});
    b.Descs(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, {bb});
    b.Descs(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, {c});
    b.Descs(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, {matmul});
    b.Finalize(op);
    return op;
  };
  Desc mul_op = b.Pointwise(CUDNN_POINTWISE_MUL, s, scale, p);
  Desc graph = b.Graph({matmul_op(q, kt, s), mul_op, matmul_op(p, v, o)});
  Desc plan = b.Plan(b.HeuristicConfig(graph));
  float scale_value = 0.125f;  // 1/sqrt(64), passed by value (a host pointer)
  Desc pack = b.VariantPack({1, 2, 4, 6, 7}, {kX, kW, &scale_value, kY, kZ});
  b.Execute(plan, pack, 1);
}

// A layer norm (an operation flopspy has no FLOP formula for): X 32x768x1x1 float, scale and
// bias 1x768x1x1, epsilon by value; inference, so no statistics out.
void BackendUnknownOp() {
  Backend b;
  Desc x = b.Tensor(1, CUDNN_DATA_FLOAT, {32, 768, 1, 1}, {768, 1, 768, 768}, false);
  Desc scale = b.Tensor(2, CUDNN_DATA_FLOAT, {1, 768, 1, 1}, {768, 1, 768, 768}, false);
  Desc bias = b.Tensor(3, CUDNN_DATA_FLOAT, {1, 768, 1, 1}, {768, 1, 768, 768}, false);
  Desc epsilon = b.Tensor(4, CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, false, true);
  Desc y = b.Tensor(5, CUDNN_DATA_FLOAT, {32, 768, 1, 1}, {768, 1, 768, 768}, false);
  Desc norm = b.Make(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  b.One(norm, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_LAYER_NORM);
  b.One(norm, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE,
        CUDNN_NORM_FWD_INFERENCE);
  b.Descs(norm, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, {x});
  b.Descs(norm, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, {scale});
  b.Descs(norm, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, {bias});
  b.Descs(norm, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, {epsilon});
  b.Descs(norm, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, {y});
  b.Finalize(norm);
  Desc plan = b.Plan(b.HeuristicConfig(b.Graph({norm})));
  double epsilon_value = 1e-5;
  Desc pack = b.VariantPack({1, 2, 3, 4, 5}, {kX, kW, kY, &epsilon_value, kZ});
  b.Execute(plan, pack, 1);
}

// cuDNN's SDPA operation (cuDNN 9.13+): b 2, h 16, h_k 4 (GQA), s 1024, d 128, BF16, with the
// float softmax statistics; executed once.
void BackendSdpa() {
  Backend b;
  const int64_t s = 1024, d = 128;
  Desc q = b.Tensor(1, CUDNN_DATA_BFLOAT16, {2, 16, s, d}, {16 * s * d, s * d, d, 1}, false);
  Desc k = b.Tensor(2, CUDNN_DATA_BFLOAT16, {2, 4, s, d}, {4 * s * d, s * d, d, 1}, false);
  Desc v = b.Tensor(3, CUDNN_DATA_BFLOAT16, {2, 4, s, d}, {4 * s * d, s * d, d, 1}, false);
  Desc o = b.Tensor(4, CUDNN_DATA_BFLOAT16, {2, 16, s, d}, {16 * s * d, s * d, d, 1}, false);
  Desc stats = b.Tensor(5, CUDNN_DATA_FLOAT, {2, 16, s, 1}, {16 * s, s, 1, 1}, false);
  Desc sdpa = b.Make(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
  b.Descs(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, {q});
  b.Descs(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, {k});
  b.Descs(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, {v});
  b.Descs(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, {o});
  b.Descs(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, {stats});
  b.Finalize(sdpa);
  Desc plan = b.Plan(b.HeuristicConfig(b.Graph({sdpa})));
  Desc pack = b.VariantPack({1, 2, 3, 4, 5}, {kX, kW, kY, kZ, kBias});
  b.Execute(plan, pack, 1);
}

struct Scenario {
  const char* name;
  void (*run)();
};

constexpr Scenario kScenarios[] = {
    {"legacy-forward", [] { ResNetForward(CUDNN_STATUS_SUCCESS, false); }},
    {"legacy-backward", LegacyBackward},
    {"legacy-grouped-nhwc", LegacyGroupedNhwc},
    {"legacy-3d", Legacy3d},
    {"legacy-bias-activation", LegacyBiasActivation},
    {"legacy-failing", [] { ResNetForward(CUDNN_STATUS_EXECUTION_FAILED, false); }},
    {"legacy-bad-descriptor", [] { ResNetForward(CUDNN_STATUS_SUCCESS, true); }},
    {"legacy-batch-norm", [] { LegacyBatchNorm(false); }},
    {"legacy-batch-norm-ex", [] { LegacyBatchNorm(true); }},
    {"backend-conv", [] { ConvRelu(false, true, 3); }},
    {"backend-matmul", BackendMatmul},
    {"backend-unknown-op", BackendUnknownOp},
    {"backend-sdpa", BackendSdpa},
    {"backend-plan-built-by-hand", [] { ConvRelu(true, true, 2); }},
    {"backend-unfinalized", [] { ConvRelu(false, false, 1); }},
};

}  // namespace

int main(int argc, char** argv) {
  const char* name = argc == 2 ? argv[1] : "";
  const bool list = std::strcmp(name, "list") == 0;
  for (const Scenario& s : kScenarios) {
    if (list) std::printf("%s\n", s.name);
    if (std::strcmp(name, s.name) == 0) return s.run(), 0;
  }
  if (!list) std::printf("client: usage: client_cudnn SCENARIO|list (not '%s')\n", name);
  return list ? 0 : 1;
}
