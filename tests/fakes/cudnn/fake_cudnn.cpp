// A fake libcudnn.so.9: the handle and activation functions, the four legacy convolutions, the
// call counters and the test control. The tensor, filter and convolution descriptors are in
// fake_cudnn_legacy.cpp, the backend (graph) API in fake_cudnn_backend.cpp. No GPU is needed: a
// handle is a heap object, its stream a number.
#include "fake_cudnn.h"

#include <atomic>
#include <cstring>

namespace flopspy_fake_cudnn {

const char kThisCopy = 0;

namespace {

constexpr const char* kNames[] = {
#define FLOPSPY_FAKE_CUDNN_NAME(name) #name,
    FLOPSPY_FAKE_CUDNN_ENTRY_POINTS(FLOPSPY_FAKE_CUDNN_NAME)
#undef FLOPSPY_FAKE_CUDNN_NAME
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == kEntryPointCount);

std::atomic<uint64_t> g_calls[kEntryPointCount];
std::atomic<int> g_status{CUDNN_STATUS_SUCCESS};

struct FakeHandle {
  const void* owner = &kThisCopy;
  cudaStream_t stream = nullptr;  // cuDNN's default: the legacy default stream
};

}  // namespace

cudnnStatus_t Count(EntryPoint id, cudnnStatus_t status, bool force) {
  if (force || status == CUDNN_STATUS_SUCCESS) g_calls[id].fetch_add(1);
  return status;
}

cudnnStatus_t ChosenStatus() {
  return static_cast<cudnnStatus_t>(g_status.load());
}

bool IsMyHandle(cudnnHandle_t handle) {
  return Mine<FakeHandle>(handle) != nullptr;
}

}  // namespace flopspy_fake_cudnn

using namespace flopspy_fake_cudnn;

FAKE_EXPORT cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  if (handle == nullptr) return CUDNN_STATUS_BAD_PARAM;
  auto* h = new (std::nothrow) FakeHandle;
  if (h == nullptr) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
  *handle = reinterpret_cast<cudnnHandle_t>(h);
  return Count(k_cudnnCreate, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  FakeHandle* h = Mine<FakeHandle>(handle);
  if (h == nullptr) return CUDNN_STATUS_BAD_PARAM;
  delete h;
  return Count(k_cudnnDestroy, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  FakeHandle* h = Mine<FakeHandle>(handle);
  if (h == nullptr) return CUDNN_STATUS_BAD_PARAM;
  h->stream = stream;
  return Count(k_cudnnSetStream, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t* stream) {
  const FakeHandle* h = Mine<FakeHandle>(handle);
  if (h == nullptr || stream == nullptr) return CUDNN_STATUS_BAD_PARAM;
  *stream = h->stream;
  return Count(k_cudnnGetStream, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT size_t cudnnGetVersion(void) {
  Count(k_cudnnGetVersion, CUDNN_STATUS_SUCCESS);
  return CUDNN_VERSION;  // 91900 with the CUDA 13 toolkit's headers
}

FAKE_EXPORT const char* cudnnGetErrorString(cudnnStatus_t status) {
  Count(k_cudnnGetErrorString, CUDNN_STATUS_SUCCESS);
  switch (Raw(status)) {
#define FAKE_STATUS(s) \
  case s:              \
    return #s;
    FAKE_STATUS(CUDNN_STATUS_SUCCESS)
    FAKE_STATUS(CUDNN_STATUS_NOT_INITIALIZED)
    FAKE_STATUS(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
    FAKE_STATUS(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH)
    FAKE_STATUS(CUDNN_STATUS_DEPRECATED)
    FAKE_STATUS(CUDNN_STATUS_LICENSE_ERROR)
    FAKE_STATUS(CUDNN_STATUS_RUNTIME_IN_PROGRESS)
    FAKE_STATUS(CUDNN_STATUS_RUNTIME_FP_OVERFLOW)
    FAKE_STATUS(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM)
    FAKE_STATUS(CUDNN_STATUS_INVALID_VALUE)  // deprecated, still named
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH)
    FAKE_STATUS(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_PADDING)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
    FAKE_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE)
    FAKE_STATUS(CUDNN_STATUS_INTERNAL_ERROR)
    FAKE_STATUS(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
    FAKE_STATUS(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE)
    FAKE_STATUS(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    FAKE_STATUS(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    FAKE_STATUS(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM)
    FAKE_STATUS(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
    FAKE_STATUS(CUDNN_STATUS_EXECUTION_FAILED)
    FAKE_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
    FAKE_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS)
    FAKE_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
    FAKE_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CURAND)
#undef FAKE_STATUS
    default:
      return "CUDNN_UNKNOWN_STATUS";  // what libcudnn.so.9 (9.19) says for a number it lacks
  }
}

// --- Activations ----------------------------------------------------------------------------

FAKE_EXPORT cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t* desc) {
  return Count(k_cudnnCreateActivationDescriptor, Create<FakeActivation>(desc));
}

FAKE_EXPORT cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t desc) {
  return Count(k_cudnnDestroyActivationDescriptor, Destroy<FakeActivation>(desc));
}

FAKE_EXPORT cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t desc,
                                                       cudnnActivationMode_t mode,
                                                       cudnnNanPropagation_t nan, double coef) {
  FakeActivation* a = Mine<FakeActivation>(desc);
  if (a == nullptr || Raw(mode) < CUDNN_ACTIVATION_SIGMOID || Raw(mode) > CUDNN_ACTIVATION_SWISH ||
      (Raw(nan) != CUDNN_NOT_PROPAGATE_NAN && Raw(nan) != CUDNN_PROPAGATE_NAN)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  a->set = true;
  a->mode = mode;
  a->nan = nan;
  a->coef = coef;
  return Count(k_cudnnSetActivationDescriptor, CUDNN_STATUS_SUCCESS);
}

// flopspy's hook of cudnnConvolutionBiasActivationForward reads the activation back with it.
FAKE_EXPORT cudnnStatus_t cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t desc,
                                                       cudnnActivationMode_t* mode,
                                                       cudnnNanPropagation_t* nan, double* coef) {
  const FakeActivation* a = Mine<FakeActivation>(desc);
  if (a == nullptr || mode == nullptr || nan == nullptr || coef == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  *mode = a->mode;
  *nan = a->nan;
  *coef = a->coef;
  return Count(k_cudnnGetActivationDescriptor, CUDNN_STATUS_SUCCESS);
}

// --- Compute: checked, counted, never run ---------------------------------------------------

// What every convolution checks: this copy's handle and set descriptors whose shapes agree, and
// host scaling factors to read. The chosen status once they pass.
static cudnnStatus_t Convolve(EntryPoint id, cudnnHandle_t handle, const void* alpha,
                              const void* beta, cudnnTensorDescriptor_t x_desc,
                              cudnnFilterDescriptor_t w_desc,
                              cudnnConvolutionDescriptor_t conv_desc,
                              cudnnTensorDescriptor_t y_desc) {
  const FakeTensor* x = Mine<FakeTensor>(x_desc);
  const FakeTensor* y = Mine<FakeTensor>(y_desc);
  if (!IsMyHandle(handle) || alpha == nullptr || beta == nullptr || x == nullptr || y == nullptr ||
      !Fits(Mine<FakeConv>(conv_desc), x, Mine<FakeFilter>(w_desc), y)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  return Count(id, ChosenStatus(), true);
}

FAKE_EXPORT cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnFilterDescriptor_t w_desc, const void* w,
    const cudnnConvolutionDescriptor_t conv_desc, cudnnConvolutionFwdAlgo_t algo, void* workspace,
    size_t workspace_bytes, const void* beta, const cudnnTensorDescriptor_t y_desc, void* y) {
  (void)x, (void)w, (void)algo, (void)workspace, (void)workspace_bytes, (void)y;
  return Convolve(k_cudnnConvolutionForward, handle, alpha, beta, x_desc, w_desc, conv_desc,
                  y_desc);
}

FAKE_EXPORT cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void* alpha, const cudnnFilterDescriptor_t w_desc, const void* w,
    const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const cudnnConvolutionDescriptor_t conv_desc, cudnnConvolutionBwdDataAlgo_t algo,
    void* workspace, size_t workspace_bytes, const void* beta,
    const cudnnTensorDescriptor_t dx_desc, void* dx) {
  (void)w, (void)dy, (void)algo, (void)workspace, (void)workspace_bytes, (void)dx;
  return Convolve(k_cudnnConvolutionBackwardData, handle, alpha, beta, dx_desc, w_desc, conv_desc,
                  dy_desc);
}

FAKE_EXPORT cudnnStatus_t cudnnConvolutionBackwardFilter(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const cudnnConvolutionDescriptor_t conv_desc, cudnnConvolutionBwdFilterAlgo_t algo,
    void* workspace, size_t workspace_bytes, const void* beta,
    const cudnnFilterDescriptor_t dw_desc, void* dw) {
  (void)x, (void)dy, (void)algo, (void)workspace, (void)workspace_bytes, (void)dw;
  return Convolve(k_cudnnConvolutionBackwardFilter, handle, alpha, beta, x_desc, dw_desc, conv_desc,
                  dy_desc);
}

FAKE_EXPORT cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void* alpha1, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnFilterDescriptor_t w_desc, const void* w,
    const cudnnConvolutionDescriptor_t conv_desc, cudnnConvolutionFwdAlgo_t algo, void* workspace,
    size_t workspace_bytes, const void* alpha2, const cudnnTensorDescriptor_t z_desc, const void* z,
    const cudnnTensorDescriptor_t bias_desc, const void* bias,
    const cudnnActivationDescriptor_t activation_desc, const cudnnTensorDescriptor_t y_desc,
    void* y) {
  (void)x, (void)w, (void)algo, (void)workspace, (void)workspace_bytes, (void)z, (void)bias;
  (void)y;
  const FakeTensor* zt = Mine<FakeTensor>(z_desc);
  const FakeTensor* yt = Mine<FakeTensor>(y_desc);
  const FakeTensor* b = Mine<FakeTensor>(bias_desc);
  const FakeActivation* act = Mine<FakeActivation>(activation_desc);
  if (zt == nullptr || yt == nullptr || b == nullptr || act == nullptr || !act->set ||
      zt->nb != yt->nb || b->nb != yt->nb) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  // z has y's dims; the bias one value per output channel (1xKx1x1).
  for (int i = 0; i < yt->nb; ++i) {
    if (zt->dims[i] != yt->dims[i] || b->dims[i] != (i == 1 ? yt->dims[1] : 1)) {
      return CUDNN_STATUS_BAD_PARAM;
    }
  }
  return Convolve(k_cudnnConvolutionBiasActivationForward, handle, alpha1, alpha2, x_desc, w_desc,
                  conv_desc, y_desc);
}

// --- Test control ---------------------------------------------------------------------------

FAKE_EXPORT void flopspy_fake_cudnn_set_status(int status) {
  g_status.store(status);
}

FAKE_EXPORT uint64_t flopspy_fake_cudnn_calls(const char* name) {
  uint64_t total = 0;
  for (int i = 0; i < kEntryPointCount; ++i) {
    if (name == nullptr) {
      total += g_calls[i].load();
    } else if (std::strcmp(name, kNames[i]) == 0) {
      return g_calls[i].load();
    }
  }
  return total;  // an unknown name: 0
}
