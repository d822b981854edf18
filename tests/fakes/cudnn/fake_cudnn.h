// Control functions of the fake libcudnn.so.9. The fake keeps what a client sets (legacy
// descriptors, backend attributes) as cuDNN keeps it, checks that every handle and descriptor is
// one this copy made (anything else gets CUDNN_STATUS_BAD_PARAM), computes nothing and never
// touches a device pointer: the compute entry points (cudnnConvolutionForward, ...BackwardData,
// ...BackwardFilter, cudnnConvolutionBiasActivationForward, cudnnBackendExecute) return the
// status the test chose. Each loaded copy has its own counters.
#pragma once

#include <cstdint>

extern "C" {
// Status the compute entry points return once their arguments pass (default 0 = success).
void flopspy_fake_cudnn_set_status(int status);
// Calls of one entry point ("cudnnConvolutionForward") that the fake accepted: the arguments
// passed its checks (nullptr: all entry points together). A rejected call does not count.
uint64_t flopspy_fake_cudnn_calls(const char* name);
}

#ifdef FLOPSPY_FAKE_CUDNN_INTERNAL
// Shared by the fake's own sources only.
#include <cudnn.h>

#include <cstring>
#include <new>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace flopspy_fake_cudnn {

// Every entry point, in one list: the index of each in the call counters.
// clang-format off
#define FLOPSPY_FAKE_CUDNN_ENTRY_POINTS(X)                                                      \
  X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream) X(cudnnGetStream) X(cudnnGetVersion)         \
  X(cudnnGetErrorString)                                                                        \
  X(cudnnCreateTensorDescriptor) X(cudnnDestroyTensorDescriptor) X(cudnnSetTensor4dDescriptor)  \
  X(cudnnSetTensor4dDescriptorEx) X(cudnnSetTensorNdDescriptor) X(cudnnSetTensorNdDescriptorEx) \
  X(cudnnGetTensorNdDescriptor)                                                                 \
  X(cudnnCreateFilterDescriptor) X(cudnnDestroyFilterDescriptor) X(cudnnSetFilter4dDescriptor)  \
  X(cudnnSetFilterNdDescriptor) X(cudnnGetFilterNdDescriptor)                                   \
  X(cudnnCreateConvolutionDescriptor) X(cudnnDestroyConvolutionDescriptor)                      \
  X(cudnnSetConvolution2dDescriptor) X(cudnnSetConvolutionNdDescriptor)                         \
  X(cudnnGetConvolutionNdDescriptor) X(cudnnSetConvolutionGroupCount)                           \
  X(cudnnGetConvolutionGroupCount) X(cudnnSetConvolutionMathType)                               \
  X(cudnnGetConvolutionMathType) X(cudnnGetConvolution2dForwardOutputDim)                       \
  X(cudnnCreateActivationDescriptor) X(cudnnDestroyActivationDescriptor)                        \
  X(cudnnSetActivationDescriptor) X(cudnnGetActivationDescriptor)                               \
  X(cudnnConvolutionForward) X(cudnnConvolutionBackwardData) X(cudnnConvolutionBackwardFilter)  \
  X(cudnnConvolutionBiasActivationForward)                                                      \
  X(cudnnBatchNormalizationForwardTraining) X(cudnnBatchNormalizationForwardTrainingEx)         \
  X(cudnnBatchNormalizationForwardInference) X(cudnnBatchNormalizationBackward)                 \
  X(cudnnBatchNormalizationBackwardEx)                                                          \
  X(cudnnBackendCreateDescriptor) X(cudnnBackendDestroyDescriptor) X(cudnnBackendSetAttribute)  \
  X(cudnnBackendGetAttribute) X(cudnnBackendFinalize) X(cudnnBackendExecute)
// clang-format on

enum EntryPoint : int {
#define FLOPSPY_FAKE_CUDNN_ID(name) k_##name,
  FLOPSPY_FAKE_CUDNN_ENTRY_POINTS(FLOPSPY_FAKE_CUDNN_ID)
#undef FLOPSPY_FAKE_CUDNN_ID
      kEntryPointCount
};

// An enum argument's number, read without loading it as the enum: a caller's garbage value is
// not a valid enumerator, and UBSan flags such a load.
template <class Enum>
int Raw(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof(v));
  return v;
}

// Counts an accepted call of `id` when `status` is success (or always, for `force`); returns it.
cudnnStatus_t Count(EntryPoint id, cudnnStatus_t status, bool force = false);
// The status a compute entry point returns after its checks.
cudnnStatus_t ChosenStatus();
// Whether this copy made the handle (a handle of another copy is refused).
bool IsMyHandle(cudnnHandle_t handle);

// This copy's mark, the first member of everything it makes (handles, descriptors): a hidden
// object, so each loaded copy has its own address and can tell another copy's objects apart.
extern const char kThisCopy;

// The legacy descriptors as the fake keeps them.
struct FakeTensor {
  const void* owner = &kThisCopy;
  int nb = 0;  // 0: never set, as cuDNN reads it back
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int dims[CUDNN_DIM_MAX] = {};
  int strides[CUDNN_DIM_MAX] = {};
};
struct FakeFilter {
  const void* owner = &kThisCopy;
  int nb = 0;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  int dims[CUDNN_DIM_MAX] = {};  // K, C, spatial, whatever the format
};
struct FakeConv {
  const void* owner = &kThisCopy;
  int len = 0;  // spatial dimensions; 0: never set
  int pad[CUDNN_DIM_MAX - 2] = {};
  int stride[CUDNN_DIM_MAX - 2] = {};
  int dilation[CUDNN_DIM_MAX - 2] = {};
  cudnnConvolutionMode_t mode = CUDNN_CONVOLUTION;  // what an unset one reads back
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};
struct FakeActivation {
  const void* owner = &kThisCopy;
  bool set = false;
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_SIGMOID;  // what an unset one reads back
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
  double coef = 0.0;
};

// The object if this copy made it, else nullptr (null included).
template <class Fake, class Opaque>
Fake* Mine(Opaque object) {
  auto* f = reinterpret_cast<Fake*>(object);
  return f != nullptr && f->owner == &kThisCopy ? f : nullptr;
}

// A new descriptor of this copy's, or why not.
template <class Fake, class Opaque>
cudnnStatus_t Create(Opaque* out) {
  if (out == nullptr) return CUDNN_STATUS_BAD_PARAM;
  auto* f = new (std::nothrow) Fake;
  if (f == nullptr) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
  *out = reinterpret_cast<Opaque>(f);
  return CUDNN_STATUS_SUCCESS;
}

// cuDNN accepts a null descriptor to destroy and refuses one it did not make.
template <class Fake, class Opaque>
cudnnStatus_t Destroy(Opaque object) {
  if (object == nullptr) return CUDNN_STATUS_SUCCESS;
  Fake* f = Mine<Fake>(object);
  if (f == nullptr) return CUDNN_STATUS_BAD_PARAM;
  delete f;
  return CUDNN_STATUS_SUCCESS;
}

// The output dims of convolving x with w (cudnnGetConvolutionNdForwardOutputDim's formula), or
// false when the three do not fit together (null, unset, channels or ranks that disagree).
bool ForwardOutput(const FakeConv* c, const FakeTensor* x, const FakeFilter* w, int* out);
// Whether y has exactly the dims the convolution of x with w gives.
bool Fits(const FakeConv* c, const FakeTensor* x, const FakeFilter* w, const FakeTensor* y);

}  // namespace flopspy_fake_cudnn
#endif
