// cuDNN's legacy convolution API: cudnnConvolutionForward, BackwardData, BackwardFilter and
// BiasActivationForward (docs/cudnn-hooks.md §2). Each call is recorded with the shapes its
// descriptors give, read after the call from the copy of libcudnn it went to (host-side reads of
// the program's own descriptors: cudnnGetTensorNdDescriptor and the like).
#include <cudnn.h>

#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/dnn_formulas.h"
#include "hooks_cudnn_common.h"

namespace flopspy::interpose::cudnn {
namespace {

namespace a = flopspy::analyzers;

// The getters' types, written out: the header marks some deprecated, and only calls through
// these pointers are made.
using GetFilterNd = cudnnStatus_t (*)(cudnnFilterDescriptor_t, int, cudnnDataType_t*,
                                      cudnnTensorFormat_t*, int*, int*);
using GetConvolutionNd = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t, int, int*, int*, int*,
                                           int*, cudnnConvolutionMode_t*, cudnnDataType_t*);
using GetGroupCount = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t, int*);
using GetMathType = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t, cudnnMathType_t*);
using GetActivation = cudnnStatus_t (*)(cudnnActivationDescriptor_t, cudnnActivationMode_t*,
                                        cudnnNanPropagation_t*, double*);

// A filter has no strides, only a format: packed K, C, spatial (NCHW) or K, spatial, C (NHWC).
bool ReadFilter(LibraryCopy* copy, cudnnFilterDescriptor_t desc, a::DnnTensor& t) {
  const auto get = BesideAs<GetFilterNd>(copy, kSlotGetFilterNd);
  if (get == nullptr || desc == nullptr) return false;
  cudnnDataType_t type{};
  cudnnTensorFormat_t format{};
  int rank = 0;
  int dims[a::kMaxDnnRank] = {};
  if (get(desc, a::kMaxDnnRank, &type, &format, &rank, dims) != CUDNN_STATUS_SUCCESS || rank < 3 ||
      rank > a::kMaxDnnRank) {
    return false;
  }
  t.type = a::CudaTypeOfDnnType(type);
  t.rank = rank;
  for (int i = 0; i < rank; ++i) t.dims[i] = dims[i];
  int64_t stride = 1;
  if (format == CUDNN_TENSOR_NHWC) {
    t.strides[1] = 1;
    stride = dims[1];
    for (int i = rank - 1; i >= 2; --i) {
      t.strides[i] = stride;
      stride *= dims[i];
    }
    t.strides[0] = stride;
  } else {
    for (int i = rank - 1; i >= 0; --i) {
      t.strides[i] = stride;
      stride *= dims[i];
    }
  }
  return true;
}

bool ReadConvolution(LibraryCopy* copy, cudnnConvolutionDescriptor_t desc, a::DnnConvolution& c) {
  const auto get = BesideAs<GetConvolutionNd>(copy, kSlotGetConvolutionNd);
  if (get == nullptr || desc == nullptr) return false;
  int length = 0;
  int pads[3] = {}, strides[3] = {}, dilations[3] = {};
  cudnnConvolutionMode_t mode{};
  cudnnDataType_t compute{};
  if (get(desc, 3, &length, pads, strides, dilations, &mode, &compute) != CUDNN_STATUS_SUCCESS) {
    return false;
  }
  for (int i = 0; i < 3; ++i) c.conv_strides[i] = i < length ? strides[i] : 1;
  int groups = 1;
  const auto get_groups = BesideAs<GetGroupCount>(copy, kSlotGetGroupCount);
  if (get_groups == nullptr || get_groups(desc, &groups) != CUDNN_STATUS_SUCCESS) groups = 1;
  c.groups = groups;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  const auto get_math = BesideAs<GetMathType>(copy, kSlotGetMathType);
  if (get_math == nullptr || get_math(desc, &math) != CUDNN_STATUS_SUCCESS) {
    math = CUDNN_DEFAULT_MATH;
  }
  c.compute_type = a::DnnComputeType(c.x.type, a::CudaTypeOfDnnType(compute), math);
  return true;
}

// The tensor a pass writes, whose old value beta scales: y forward, dx backward data, dw
// backward filter.
const a::DnnTensor& Written(const a::DnnConvolution& conv) {
  switch (conv.pass) {
    case a::ConvPass::kBackwardData:
      return conv.x;
    case a::ConvPass::kBackwardFilter:
      return conv.w;
    case a::ConvPass::kForward:
    case a::ConvPass::kBiasActivation:
      break;
  }
  return conv.y;
}

// Reads a call's descriptors and fills its record. x is the image tensor of every pass (dx in
// backward data), w the filter (dw), y the output (dy). A descriptor that cannot be read leaves
// the record without figures (descriptor incomplete). Legacy scaling factors are host pointers
// (cuDNN documents no device mode for them).
void DecodeConvolution(RawLibraryCall& raw, LibraryCopy* copy, cudnnHandle_t handle,
                       a::ConvPass pass, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                       cudnnTensorDescriptor_t y, cudnnConvolutionDescriptor_t conv_desc,
                       const void* beta, a::DnnConvolution conv = {}) {
  ReadStream(raw, copy, handle);
  conv.pass = pass;
  const bool read = ReadTensorDescriptor(copy, x, conv.x) && ReadFilter(copy, w, conv.w) &&
                    ReadTensorDescriptor(copy, y, conv.y) && ReadConvolution(copy, conv_desc, conv);
  if (!read) conv.x.rank = 0;  // DescribeConvolution refuses it
  if (pass != a::ConvPass::kBiasActivation) {
    conv.beta_known = beta != nullptr;
    conv.beta_non_zero = HostScalarNonZero(beta, Written(conv).type);
  }
  a::DescribeConvolution(conv, raw.record);
  raw.record.flags |= trace::kLibAlphaKnown;
}

// Bias-activation's own arguments: whether alpha2 · z is added, the bias, the activation.
a::DnnConvolution BiasActivation(LibraryCopy* copy, const void* alpha2,
                                 cudnnTensorDescriptor_t z_desc, cudnnTensorDescriptor_t bias_desc,
                                 cudnnActivationDescriptor_t activation_desc) {
  a::DnnConvolution conv;
  conv.beta_known = true;  // y is written, not accumulated: alpha2 · z plays beta's part
  a::DnnTensor z;          // alpha2's type follows z's (double for double tensors, else float)
  ReadTensorDescriptor(copy, z_desc, z);
  conv.adds_z = alpha2 == nullptr || HostScalarNonZero(alpha2, z.type);
  a::DnnTensor bias;
  if (ReadTensorDescriptor(copy, bias_desc, bias)) conv.bias_elements = bias.Elements();
  const auto get = BesideAs<GetActivation>(copy, kSlotGetActivation);
  cudnnActivationMode_t mode{};
  cudnnNanPropagation_t nan{};
  double coef = 0;
  if (activation_desc != nullptr && get != nullptr &&
      get(activation_desc, &mode, &nan, &coef) == CUDNN_STATUS_SUCCESS &&
      mode != CUDNN_ACTIVATION_IDENTITY) {
    conv.activation = static_cast<uint32_t>(mode) + 1;
  }
  return conv;
}

}  // namespace
}  // namespace flopspy::interpose::cudnn

namespace fa = ::flopspy::analyzers;
namespace fi = ::flopspy::interpose;
namespace fc = ::flopspy::interpose::cudnn;

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
    const cudnnTensorDescriptor_t yDesc, void* y) {
  return fc::RunDnnCall<fc::kHook_cudnnConvolutionForward, decltype(&cudnnConvolutionForward)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeConvolution(raw, copy, handle, fa::ConvPass::kForward, xDesc, wDesc, yDesc,
                              convDesc, beta);
      },
      handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
      yDesc, y);
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void* alpha, const cudnnFilterDescriptor_t wDesc, const void* w,
    const cudnnTensorDescriptor_t dyDesc, const void* dy,
    const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdDataAlgo_t algo,
    void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
    const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return fc::RunDnnCall<fc::kHook_cudnnConvolutionBackwardData,
                        decltype(&cudnnConvolutionBackwardData)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeConvolution(raw, copy, handle, fa::ConvPass::kBackwardData, dxDesc, wDesc, dyDesc,
                              convDesc, beta);
      },
      handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
      dxDesc, dx);
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnConvolutionBackwardFilter(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* dy,
    const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdFilterAlgo_t algo,
    void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
    const cudnnFilterDescriptor_t dwDesc, void* dw) {
  return fc::RunDnnCall<fc::kHook_cudnnConvolutionBackwardFilter,
                        decltype(&cudnnConvolutionBackwardFilter)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeConvolution(raw, copy, handle, fa::ConvPass::kBackwardFilter, xDesc, dwDesc,
                              dyDesc, convDesc, beta);
      },
      handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
      dwDesc, dw);
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void* alpha1, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes,
    const void* alpha2, const cudnnTensorDescriptor_t zDesc, const void* z,
    const cudnnTensorDescriptor_t biasDesc, const void* bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc,
    void* y) {
  return fc::RunDnnCall<fc::kHook_cudnnConvolutionBiasActivationForward,
                        decltype(&cudnnConvolutionBiasActivationForward)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeConvolution(raw, copy, handle, fa::ConvPass::kBiasActivation, xDesc, wDesc, yDesc,
                              convDesc, nullptr,
                              fc::BiasActivation(copy, alpha2, zDesc, biasDesc, activationDesc));
      },
      handle, alpha1, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, alpha2,
      zDesc, z, biasDesc, bias, activationDesc, yDesc, y);
}
