// The fake libcudnn.so.9's batch normalisation: the five entry points flopspy hooks check what
// cuDNN checks of their arguments (this copy's handle, set tensors of one rank, a parameter
// tensor of the mode's shape, host scaling factors) and return the chosen status.
#include "fake_cudnn.h"

using namespace flopspy_fake_cudnn;

namespace {

// x (and every data tensor, which has x's dims) and the parameters: 1xCx1x1 for the spatial
// modes, 1xCxHxW per activation.
cudnnStatus_t Normalize(EntryPoint id, cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                        const void* alpha, const void* beta, cudnnTensorDescriptor_t x_desc,
                        cudnnTensorDescriptor_t y_desc, cudnnTensorDescriptor_t params_desc) {
  const FakeTensor* x = Mine<FakeTensor>(x_desc);
  const FakeTensor* y = Mine<FakeTensor>(y_desc);
  const FakeTensor* p = Mine<FakeTensor>(params_desc);
  const int m = Raw(mode);
  if (!IsMyHandle(handle) || alpha == nullptr || beta == nullptr || x == nullptr || y == nullptr ||
      p == nullptr || x->nb < 4 || x->nb != y->nb || p->nb != x->nb || m < 0 || m > 2) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  for (int i = 0; i < x->nb; ++i) {
    const bool spatial_param = i == 0 || (m != 0 && i >= 2);
    if (x->dims[i] != y->dims[i] || p->dims[i] != (spatial_param ? 1 : x->dims[i])) {
      return CUDNN_STATUS_BAD_PARAM;
    }
  }
  return Count(id, ChosenStatus(), true);
}

}  // namespace

FAKE_EXPORT cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc,
    void* y, const cudnnTensorDescriptor_t params_desc, const void* scale, const void* bias,
    double factor, void* running_mean, void* running_variance, double epsilon, void* save_mean,
    void* save_inv_variance) {
  (void)x, (void)y, (void)scale, (void)bias, (void)factor, (void)running_mean;
  (void)running_variance, (void)epsilon, (void)save_mean, (void)save_inv_variance;
  return Normalize(k_cudnnBatchNormalizationForwardTraining, handle, mode, alpha, beta, x_desc,
                   y_desc, params_desc);
}

FAKE_EXPORT cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t ops, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnTensorDescriptor_t z_desc, const void* z, const cudnnTensorDescriptor_t y_desc,
    void* y, const cudnnTensorDescriptor_t params_desc, const void* scale, const void* bias,
    double factor, void* running_mean, void* running_variance, double epsilon, void* save_mean,
    void* save_inv_variance, cudnnActivationDescriptor_t activation, void* workspace,
    size_t workspace_bytes, void* reserve, size_t reserve_bytes) {
  (void)x, (void)z, (void)y, (void)scale, (void)bias, (void)factor, (void)running_mean;
  (void)running_variance, (void)epsilon, (void)save_mean, (void)save_inv_variance;
  (void)workspace, (void)workspace_bytes, (void)reserve, (void)reserve_bytes;
  // The add needs z, an activation its descriptor.
  const int o = Raw(ops);
  if (o < 0 || o > 2 || (o == 2 && Mine<FakeTensor>(z_desc) == nullptr) ||
      (o >= 1 && Mine<FakeActivation>(activation) == nullptr)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  return Normalize(k_cudnnBatchNormalizationForwardTrainingEx, handle, mode, alpha, beta, x_desc,
                   y_desc, params_desc);
}

FAKE_EXPORT cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc,
    void* y, const cudnnTensorDescriptor_t params_desc, const void* scale, const void* bias,
    const void* mean, const void* variance, double epsilon) {
  (void)x, (void)y, (void)scale, (void)bias, (void)mean, (void)variance, (void)epsilon;
  return Normalize(k_cudnnBatchNormalizationForwardInference, handle, mode, alpha, beta, x_desc,
                   y_desc, params_desc);
}

FAKE_EXPORT cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha_data, const void* beta_data,
    const void* alpha_param, const void* beta_param, const cudnnTensorDescriptor_t x_desc,
    const void* x, const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const cudnnTensorDescriptor_t dx_desc, void* dx, const cudnnTensorDescriptor_t params_desc,
    const void* scale, void* dscale, void* dbias, double epsilon, const void* saved_mean,
    const void* saved_inv_variance) {
  (void)x, (void)dy, (void)dx, (void)scale, (void)dscale, (void)dbias, (void)epsilon;
  (void)saved_mean, (void)saved_inv_variance;
  if (alpha_param == nullptr || beta_param == nullptr || Mine<FakeTensor>(dy_desc) == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  return Normalize(k_cudnnBatchNormalizationBackward, handle, mode, alpha_data, beta_data, x_desc,
                   dx_desc, params_desc);
}

FAKE_EXPORT cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t ops,
    const void* alpha_data, const void* beta_data, const void* alpha_param, const void* beta_param,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc,
    const void* y, const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const cudnnTensorDescriptor_t dz_desc, void* dz, const cudnnTensorDescriptor_t dx_desc,
    void* dx, const cudnnTensorDescriptor_t params_desc, const void* scale, const void* bias,
    void* dscale, void* dbias, double epsilon, const void* saved_mean,
    const void* saved_inv_variance, cudnnActivationDescriptor_t activation, void* workspace,
    size_t workspace_bytes, void* reserve, size_t reserve_bytes) {
  (void)x, (void)y, (void)dy, (void)dz, (void)dx, (void)scale, (void)bias, (void)dscale;
  (void)dbias, (void)epsilon, (void)saved_mean, (void)saved_inv_variance, (void)workspace;
  (void)workspace_bytes, (void)reserve, (void)reserve_bytes, (void)y_desc;
  const int o = Raw(ops);
  if (o < 0 || o > 2 || alpha_param == nullptr || beta_param == nullptr ||
      Mine<FakeTensor>(dy_desc) == nullptr || (o == 2 && Mine<FakeTensor>(dz_desc) == nullptr) ||
      (o >= 1 && Mine<FakeActivation>(activation) == nullptr)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  return Normalize(k_cudnnBatchNormalizationBackwardEx, handle, mode, alpha_data, beta_data, x_desc,
                   dx_desc, params_desc);
}
