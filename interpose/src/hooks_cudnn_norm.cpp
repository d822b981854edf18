// cuDNN's batch normalisation: cudnnBatchNormalizationForwardTraining(Ex), ForwardInference and
// Backward(Ex), which PyTorch's BatchNorm calls on CUDA (docs/cudnn-hooks.md §2.1). Each call is
// recorded with the image shape and the parameters' shape its descriptors give, by the counting
// convention of layer norm (analyzers::DescribeBatchNorm).
#include <cudnn.h>

#include "enum_number.h"
#include "flopspy/analyzers/dnn_formulas.h"
#include "hooks_cudnn_common.h"

namespace flopspy::interpose::cudnn {
namespace {

namespace a = flopspy::analyzers;

// Reads the call's descriptors and fills its record. `beta` is the data blend factor (host
// memory, as every legacy scaling factor); without a parameter descriptor the record has no
// figures.
void DecodeNorm(RawLibraryCall& raw, LibraryCopy* copy, cudnnHandle_t handle, a::DnnBatchNorm norm,
                cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t params, const void* beta) {
  ReadStream(raw, copy, handle);
  if (!ReadTensorDescriptor(copy, x, norm.x) || !ReadTensorDescriptor(copy, params, norm.params)) {
    norm.x.rank = 0;  // DescribeBatchNorm refuses it
  }
  norm.beta_known = beta != nullptr;
  norm.beta_non_zero = HostScalarNonZero(beta, norm.x.type);
  a::DescribeBatchNorm(norm, raw.record);
  raw.record.flags |= trace::kLibAlphaKnown;
}

a::DnnBatchNorm Norm(a::NormPass pass, bool ex, int mode, int ops) {
  a::DnnBatchNorm norm;
  norm.pass = pass;
  norm.ex = ex;
  norm.mode = mode;
  norm.ops = ops;
  return norm;
}

}  // namespace
}  // namespace flopspy::interpose::cudnn

namespace fa = ::flopspy::analyzers;
namespace fi = ::flopspy::interpose;
namespace fc = ::flopspy::interpose::cudnn;

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc,
    void* y, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale,
    const void* bnBias, double exponentialAverageFactor, void* resultRunningMean,
    void* resultRunningVariance, double epsilon, void* resultSaveMean,
    void* resultSaveInvVariance) {
  return fc::RunDnnCall<fc::kHook_cudnnBatchNormalizationForwardTraining,
                        decltype(&cudnnBatchNormalizationForwardTraining)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeNorm(raw, copy, handle,
                       fc::Norm(fa::NormPass::kForwardTraining, false, fi::EnumNumber(mode), 0),
                       xDesc, bnScaleBiasMeanVarDesc, beta);
      },
      handle, mode, alpha, beta, xDesc, x, yDesc, y, bnScaleBiasMeanVarDesc, bnScale, bnBias,
      exponentialAverageFactor, resultRunningMean, resultRunningVariance, epsilon, resultSaveMean,
      resultSaveInvVariance);
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t xDesc, const void* xData,
    const cudnnTensorDescriptor_t zDesc, const void* zData, const cudnnTensorDescriptor_t yDesc,
    void* yData, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale,
    const void* bnBias, double exponentialAverageFactor, void* resultRunningMean,
    void* resultRunningVariance, double epsilon, void* resultSaveMean, void* resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, void* workspace, size_t workSpaceSizeInBytes,
    void* reserveSpace, size_t reserveSpaceSizeInBytes) {
  return fc::RunDnnCall<fc::kHook_cudnnBatchNormalizationForwardTrainingEx,
                        decltype(&cudnnBatchNormalizationForwardTrainingEx)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeNorm(raw, copy, handle,
                       fc::Norm(fa::NormPass::kForwardTraining, true, fi::EnumNumber(mode),
                                fi::EnumNumber(bnOps)),
                       xDesc, bnScaleBiasMeanVarDesc, beta);
      },
      handle, mode, bnOps, alpha, beta, xDesc, xData, zDesc, zData, yDesc, yData,
      bnScaleBiasMeanVarDesc, bnScale, bnBias, exponentialAverageFactor, resultRunningMean,
      resultRunningVariance, epsilon, resultSaveMean, resultSaveInvVariance, activationDesc,
      workspace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes);
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc,
    void* y, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale,
    const void* bnBias, const void* estimatedMean, const void* estimatedVariance, double epsilon) {
  return fc::RunDnnCall<fc::kHook_cudnnBatchNormalizationForwardInference,
                        decltype(&cudnnBatchNormalizationForwardInference)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeNorm(raw, copy, handle,
                       fc::Norm(fa::NormPass::kForwardInference, false, fi::EnumNumber(mode), 0),
                       xDesc, bnScaleBiasMeanVarDesc, beta);
      },
      handle, mode, alpha, beta, xDesc, x, yDesc, y, bnScaleBiasMeanVarDesc, bnScale, bnBias,
      estimatedMean, estimatedVariance, epsilon);
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alphaDataDiff,
    const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t dyDesc,
    const void* dy, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void* bnScale, void* dBnScaleResult,
    void* dBnBiasResult, double epsilon, const void* savedMean, const void* savedInvVariance) {
  return fc::RunDnnCall<fc::kHook_cudnnBatchNormalizationBackward,
                        decltype(&cudnnBatchNormalizationBackward)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeNorm(raw, copy, handle,
                       fc::Norm(fa::NormPass::kBackward, false, fi::EnumNumber(mode), 0), xDesc,
                       dBnScaleBiasDesc, betaDataDiff);
      },
      handle, mode, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, x, dyDesc,
      dy, dxDesc, dx, dBnScaleBiasDesc, bnScale, dBnScaleResult, dBnBiasResult, epsilon, savedMean,
      savedInvVariance);
}

FLOPSPY_CUDNN_EXPORT cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const void* alphaDataDiff, const void* betaDataDiff, const void* alphaParamDiff,
    const void* betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void* xData,
    const cudnnTensorDescriptor_t yDesc, const void* yData, const cudnnTensorDescriptor_t dyDesc,
    const void* dyData, const cudnnTensorDescriptor_t dzDesc, void* dzData,
    const cudnnTensorDescriptor_t dxDesc, void* dxData,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void* bnScaleData, const void* bnBiasData,
    void* dBnScaleData, void* dBnBiasData, double epsilon, const void* savedMean,
    const void* savedInvVariance, cudnnActivationDescriptor_t activationDesc, void* workSpace,
    size_t workSpaceSizeInBytes, void* reserveSpace, size_t reserveSpaceSizeInBytes) {
  return fc::RunDnnCall<fc::kHook_cudnnBatchNormalizationBackwardEx,
                        decltype(&cudnnBatchNormalizationBackwardEx)>(
      __builtin_return_address(0),
      [&](auto& raw, fi::LibraryCopy* copy) {
        fc::DecodeNorm(
            raw, copy, handle,
            fc::Norm(fa::NormPass::kBackward, true, fi::EnumNumber(mode), fi::EnumNumber(bnOps)),
            xDesc, dBnScaleBiasDesc, betaDataDiff);
      },
      handle, mode, bnOps, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, xData,
      yDesc, yData, dyDesc, dyData, dzDesc, dzData, dxDesc, dxData, dBnScaleBiasDesc, bnScaleData,
      bnBiasData, dBnScaleData, dBnBiasData, epsilon, savedMean, savedInvVariance, activationDesc,
      workSpace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes);
}
