// The fake libcudnn.so.9's legacy tensor, filter and convolution descriptors, kept and checked as
// libcudnn.so.9 (9.19) keeps and checks them: dims in N, C, spatial order, the strides a format
// implies, the same statuses for what it refuses. Activations and convolutions: fake_cudnn.cpp.
#include "fake_cudnn.h"

using namespace flopspy_fake_cudnn;

namespace {

// The data types a legacy tensor (FLOAT to BFLOAT16) or filter (those but INT32) takes and the
// compute types of a convolution, as libcudnn.so.9 (9.19) accepts them.
bool TensorType(const cudnnDataType_t& t) {
  return Raw(t) >= CUDNN_DATA_FLOAT && Raw(t) <= CUDNN_DATA_BFLOAT16;
}
bool FilterType(const cudnnDataType_t& t) {
  return TensorType(t) && Raw(t) != CUDNN_DATA_INT32;
}
bool ComputeType(const cudnnDataType_t& t) {
  const int v = Raw(t);
  return v == CUDNN_DATA_FLOAT || v == CUDNN_DATA_DOUBLE || v == CUDNN_DATA_HALF ||
         v == CUDNN_DATA_INT32;
}
bool ValidFormat(const cudnnTensorFormat_t& f) {
  return Raw(f) == CUDNN_TENSOR_NCHW || Raw(f) == CUDNN_TENSOR_NHWC;
}

bool PositiveDims(int nb, const int* dims) {
  if (nb > 0 && dims == nullptr) return false;
  for (int i = 0; i < nb; ++i) {
    if (dims[i] <= 0) return false;
  }
  return true;
}

// cuDNN's limits on a rank: below `least` is wrong, above the maximum unsupported.
cudnnStatus_t Rank(int nb, int least, int most) {
  if (nb < least) return CUDNN_STATUS_BAD_PARAM;
  return nb > most ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_SUCCESS;
}

// The packed strides of N, C, spatial dims in `format`: NCHW row-major, NHWC with C innermost.
// In 64 bits: a tensor too large for cuDNN is refused after, by its element count.
void PackedStrides(const cudnnTensorFormat_t& format, int nb, const int* dims, int* strides) {
  const bool nhwc = Raw(format) == CUDNN_TENSOR_NHWC;
  int64_t s = nhwc ? dims[1] : 1;
  for (int i = nb - 1; i >= (nhwc ? 2 : 0); --i) {
    strides[i] = static_cast<int>(s);
    s *= dims[i];
  }
  if (nhwc) strides[1] = 1, strides[0] = static_cast<int>(s);
}

cudnnStatus_t SetTensor(cudnnTensorDescriptor_t desc, const cudnnDataType_t& type, int nb,
                        const int* dims, const int* strides) {
  FakeTensor* t = Mine<FakeTensor>(desc);
  const cudnnStatus_t rank = Rank(nb, 2, CUDNN_DIM_MAX);
  if (t == nullptr || !TensorType(type) || rank == CUDNN_STATUS_BAD_PARAM ||
      (rank == CUDNN_STATUS_SUCCESS && (!PositiveDims(nb, dims) || !PositiveDims(nb, strides)))) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (rank != CUDNN_STATUS_SUCCESS) return rank;
  int64_t elements = 1;  // at most 2^31 - 1, cuDNN's limit
  for (int i = 0; i < nb; ++i) {
    elements *= dims[i];
    if (elements > INT32_MAX) return CUDNN_STATUS_NOT_SUPPORTED;
  }
  t->nb = nb;
  t->type = type;
  for (int i = 0; i < nb; ++i) t->dims[i] = dims[i], t->strides[i] = strides[i];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t SetPackedTensor(cudnnTensorDescriptor_t desc, const cudnnTensorFormat_t& format,
                              const cudnnDataType_t& type, int nb, const int* dims) {
  if (!ValidFormat(format)) return CUDNN_STATUS_BAD_PARAM;
  if (Rank(nb, 2, CUDNN_DIM_MAX) != CUDNN_STATUS_SUCCESS || !PositiveDims(nb, dims)) {
    return SetTensor(desc, type, nb, dims, dims);  // its status for a rank or dims it refuses
  }
  int strides[CUDNN_DIM_MAX];
  PackedStrides(format, nb, dims, strides);
  return SetTensor(desc, type, nb, dims, strides);
}

cudnnStatus_t SetFilter(cudnnFilterDescriptor_t desc, const cudnnDataType_t& type,
                        const cudnnTensorFormat_t& format, int nb, const int* dims) {
  FakeFilter* f = Mine<FakeFilter>(desc);
  const cudnnStatus_t rank = Rank(nb, 3, CUDNN_DIM_MAX);
  if (f == nullptr || !FilterType(type) || !ValidFormat(format) || rank == CUDNN_STATUS_BAD_PARAM ||
      (rank == CUDNN_STATUS_SUCCESS && !PositiveDims(nb, dims))) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (rank != CUDNN_STATUS_SUCCESS) return rank;
  f->nb = nb;
  f->type = type;
  f->format = format;
  for (int i = 0; i < nb; ++i) f->dims[i] = dims[i];
  return CUDNN_STATUS_SUCCESS;
}

// Spatial dims 0 to 6, as cuDNN takes them (0 included; a convolution then fits nothing).
cudnnStatus_t SetConv(cudnnConvolutionDescriptor_t desc, int len, const int* pad, const int* stride,
                      const int* dilation, const cudnnConvolutionMode_t& mode,
                      const cudnnDataType_t& compute) {
  FakeConv* c = Mine<FakeConv>(desc);
  const cudnnStatus_t rank = Rank(len, 0, CUDNN_DIM_MAX - 2);
  if (c == nullptr || !ComputeType(compute) || rank == CUDNN_STATUS_BAD_PARAM ||
      (Raw(mode) != CUDNN_CONVOLUTION && Raw(mode) != CUDNN_CROSS_CORRELATION)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (rank != CUDNN_STATUS_SUCCESS) return rank;
  if ((len > 0 && pad == nullptr) || !PositiveDims(len, stride) || !PositiveDims(len, dilation)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  for (int i = 0; i < len; ++i) {
    if (pad[i] < 0) return CUDNN_STATUS_BAD_PARAM;
  }
  c->len = len;
  for (int i = 0; i < len; ++i) c->pad[i] = pad[i], c->stride[i] = stride[i];
  for (int i = 0; i < len; ++i) c->dilation[i] = dilation[i];
  c->mode = mode;
  c->compute = compute;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

namespace flopspy_fake_cudnn {

// The output dims of convolving x with w (cudnnGetConvolutionNdForwardOutputDim's formula), or
// false when the three do not fit together. In 64 bits: any int the client set is safe.
bool ForwardOutput(const FakeConv* c, const FakeTensor* x, const FakeFilter* w, int* out) {
  if (c == nullptr || x == nullptr || w == nullptr || c->len == 0 || x->nb != c->len + 2 ||
      w->nb != x->nb || x->dims[1] != int64_t{w->dims[1]} * c->groups ||
      w->dims[0] % c->groups != 0) {
    return false;
  }
  out[0] = x->dims[0];
  out[1] = w->dims[0];
  for (int i = 0; i < c->len; ++i) {
    const int64_t extent = (int64_t{w->dims[i + 2]} - 1) * c->dilation[i] + 1;
    const int64_t room = int64_t{x->dims[i + 2]} + 2 * int64_t{c->pad[i]} - extent;
    if (room < 0) return false;
    out[i + 2] = static_cast<int>(1 + room / c->stride[i]);
  }
  return true;
}

// Whether y has exactly the dims the convolution of x with w gives.
bool Fits(const FakeConv* c, const FakeTensor* x, const FakeFilter* w, const FakeTensor* y) {
  int out[CUDNN_DIM_MAX];
  if (y == nullptr || !ForwardOutput(c, x, w, out) || y->nb != x->nb) return false;
  for (int i = 0; i < y->nb; ++i) {
    if (y->dims[i] != out[i]) return false;
  }
  return true;
}

}  // namespace flopspy_fake_cudnn

// --- Tensors --------------------------------------------------------------------------------

FAKE_EXPORT cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* desc) {
  return Count(k_cudnnCreateTensorDescriptor, Create<FakeTensor>(desc));
}

FAKE_EXPORT cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t desc) {
  return Count(k_cudnnDestroyTensorDescriptor, Destroy<FakeTensor>(desc));
}

FAKE_EXPORT cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t desc,
                                                     cudnnTensorFormat_t format,
                                                     cudnnDataType_t type, int n, int c, int h,
                                                     int w) {
  const int dims[] = {n, c, h, w};
  return Count(k_cudnnSetTensor4dDescriptor, SetPackedTensor(desc, format, type, 4, dims));
}

FAKE_EXPORT cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t desc,
                                                       cudnnDataType_t type, int n, int c, int h,
                                                       int w, int n_stride, int c_stride,
                                                       int h_stride, int w_stride) {
  const int dims[] = {n, c, h, w};
  const int strides[] = {n_stride, c_stride, h_stride, w_stride};
  return Count(k_cudnnSetTensor4dDescriptorEx, SetTensor(desc, type, 4, dims, strides));
}

FAKE_EXPORT cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t desc,
                                                     cudnnDataType_t type, int nb, const int dims[],
                                                     const int strides[]) {
  return Count(k_cudnnSetTensorNdDescriptor, SetTensor(desc, type, nb, dims, strides));
}

FAKE_EXPORT cudnnStatus_t cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t desc,
                                                       cudnnTensorFormat_t format,
                                                       cudnnDataType_t type, int nb,
                                                       const int dims[]) {
  return Count(k_cudnnSetTensorNdDescriptorEx, SetPackedTensor(desc, format, type, nb, dims));
}

// Writes min(requested, nbDims) dims and strides; *nb is the descriptor's own count (0 unset).
FAKE_EXPORT cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t desc,
                                                     int requested, cudnnDataType_t* type, int* nb,
                                                     int dims[], int strides[]) {
  const FakeTensor* t = Mine<FakeTensor>(desc);
  if (t == nullptr || requested < 0 || type == nullptr || nb == nullptr ||
      (requested > 0 && (dims == nullptr || strides == nullptr))) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  *type = t->type;
  *nb = t->nb;
  for (int i = 0; i < requested && i < t->nb; ++i) dims[i] = t->dims[i], strides[i] = t->strides[i];
  return Count(k_cudnnGetTensorNdDescriptor, CUDNN_STATUS_SUCCESS);
}

// --- Filters --------------------------------------------------------------------------------

FAKE_EXPORT cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* desc) {
  return Count(k_cudnnCreateFilterDescriptor, Create<FakeFilter>(desc));
}

FAKE_EXPORT cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t desc) {
  return Count(k_cudnnDestroyFilterDescriptor, Destroy<FakeFilter>(desc));
}

FAKE_EXPORT cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t desc,
                                                     cudnnDataType_t type,
                                                     cudnnTensorFormat_t format, int k, int c,
                                                     int h, int w) {
  const int dims[] = {k, c, h, w};
  return Count(k_cudnnSetFilter4dDescriptor, SetFilter(desc, type, format, 4, dims));
}

FAKE_EXPORT cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t desc,
                                                     cudnnDataType_t type,
                                                     cudnnTensorFormat_t format, int nb,
                                                     const int dims[]) {
  return Count(k_cudnnSetFilterNdDescriptor, SetFilter(desc, type, format, nb, dims));
}

// Writes `requested` dims (up to 8) as cuDNN does: the unused ones 0.
FAKE_EXPORT cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t desc,
                                                     int requested, cudnnDataType_t* type,
                                                     cudnnTensorFormat_t* format, int* nb,
                                                     int dims[]) {
  const FakeFilter* f = Mine<FakeFilter>(desc);
  if (f == nullptr || requested < 0 || type == nullptr || format == nullptr || nb == nullptr ||
      (requested > 0 && dims == nullptr)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  *type = f->type;
  *format = f->format;
  *nb = f->nb;
  for (int i = 0; i < requested && i < CUDNN_DIM_MAX; ++i) dims[i] = f->dims[i];
  return Count(k_cudnnGetFilterNdDescriptor, CUDNN_STATUS_SUCCESS);
}

// --- Convolutions ---------------------------------------------------------------------------

FAKE_EXPORT cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* desc) {
  return Count(k_cudnnCreateConvolutionDescriptor, Create<FakeConv>(desc));
}

FAKE_EXPORT cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t desc) {
  return Count(k_cudnnDestroyConvolutionDescriptor, Destroy<FakeConv>(desc));
}

FAKE_EXPORT cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t desc,
                                                          int pad_h, int pad_w, int u, int v,
                                                          int dilation_h, int dilation_w,
                                                          cudnnConvolutionMode_t mode,
                                                          cudnnDataType_t compute) {
  const int pad[] = {pad_h, pad_w}, stride[] = {u, v}, dilation[] = {dilation_h, dilation_w};
  return Count(k_cudnnSetConvolution2dDescriptor,
               SetConv(desc, 2, pad, stride, dilation, mode, compute));
}

FAKE_EXPORT cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t desc,
                                                          int len, const int pad[],
                                                          const int stride[], const int dilation[],
                                                          cudnnConvolutionMode_t mode,
                                                          cudnnDataType_t compute) {
  return Count(k_cudnnSetConvolutionNdDescriptor,
               SetConv(desc, len, pad, stride, dilation, mode, compute));
}

// Writes `requested` pads, strides and dilations (up to 6), as cuDNN does.
FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t desc,
                                                          int requested, int* len, int pad[],
                                                          int stride[], int dilation[],
                                                          cudnnConvolutionMode_t* mode,
                                                          cudnnDataType_t* compute) {
  const FakeConv* c = Mine<FakeConv>(desc);
  if (c == nullptr || requested < 0 || len == nullptr || mode == nullptr || compute == nullptr ||
      (requested > 0 && (pad == nullptr || stride == nullptr || dilation == nullptr))) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  *len = c->len;
  for (int i = 0; i < requested && i < CUDNN_DIM_MAX - 2; ++i) {
    pad[i] = c->pad[i], stride[i] = c->stride[i], dilation[i] = c->dilation[i];
  }
  *mode = c->mode;
  *compute = c->compute;
  return Count(k_cudnnGetConvolutionNdDescriptor, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t desc,
                                                        int groups) {
  FakeConv* c = Mine<FakeConv>(desc);
  if (c == nullptr || groups < 1) return CUDNN_STATUS_BAD_PARAM;
  c->groups = groups;
  return Count(k_cudnnSetConvolutionGroupCount, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t desc,
                                                        int* groups) {
  const FakeConv* c = Mine<FakeConv>(desc);
  if (c == nullptr || groups == nullptr) return CUDNN_STATUS_BAD_PARAM;
  *groups = c->groups;
  return Count(k_cudnnGetConvolutionGroupCount, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t desc,
                                                      cudnnMathType_t math) {
  FakeConv* c = Mine<FakeConv>(desc);
  if (c == nullptr || Raw(math) < CUDNN_DEFAULT_MATH || Raw(math) > CUDNN_FMA_MATH) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  c->math = math;
  return Count(k_cudnnSetConvolutionMathType, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t desc,
                                                      cudnnMathType_t* math) {
  const FakeConv* c = Mine<FakeConv>(desc);
  if (c == nullptr || math == nullptr) return CUDNN_STATUS_BAD_PARAM;
  *math = c->math;
  return Count(k_cudnnGetConvolutionMathType, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(
    const cudnnConvolutionDescriptor_t desc, const cudnnTensorDescriptor_t x_desc,
    const cudnnFilterDescriptor_t w_desc, int* n, int* c, int* h, int* w) {
  const FakeConv* conv = Mine<FakeConv>(desc);
  if (n == nullptr || c == nullptr || h == nullptr || w == nullptr) return CUDNN_STATUS_BAD_PARAM;
  // Refused, cuDNN still writes: zeros, or N and K when only the spatial dims do not fit.
  int out[CUDNN_DIM_MAX] = {};
  const bool fits = conv != nullptr && conv->len == 2 &&
                    ForwardOutput(conv, Mine<FakeTensor>(x_desc), Mine<FakeFilter>(w_desc), out);
  *n = out[0], *c = out[1], *h = out[2], *w = out[3];
  return fits ? Count(k_cudnnGetConvolution2dForwardOutputDim, CUDNN_STATUS_SUCCESS)
              : CUDNN_STATUS_BAD_PARAM;
}
