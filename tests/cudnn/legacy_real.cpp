// A convolution described with NVIDIA's real libcudnn (its descriptor functions work without a
// GPU): cudnnConvolutionForward, BackwardData and BackwardFilter with no handle fail, but the hooks
// still read every descriptor through the real library's getters, so the records carry the
// shapes NVIDIA's library gives back. Prints each call's status.
#include <cudnn.h>

#include <cstdio>

int main() {
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  if (cudnnCreateTensorDescriptor(&x) != CUDNN_STATUS_SUCCESS ||
      cudnnCreateTensorDescriptor(&y) != CUDNN_STATUS_SUCCESS ||
      cudnnCreateFilterDescriptor(&w) != CUDNN_STATUS_SUCCESS ||
      cudnnCreateConvolutionDescriptor(&conv) != CUDNN_STATUS_SUCCESS) {
    std::printf("descriptors could not be created\n");
    return 1;
  }
  // 16x256x28x28 FP16 channels last, 32 groups, 3x3 filters, stride 2: 16x256x14x14.
  if (cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 16, 256, 28, 28) != 0 ||
      cudnnSetFilter4dDescriptor(w, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 256, 8, 3, 3) != 0 ||
      cudnnSetConvolution2dDescriptor(conv, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION,
                                      CUDNN_DATA_FLOAT) != 0 ||
      cudnnSetConvolutionGroupCount(conv, 32) != 0 ||
      cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH) != 0 ||
      cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 16, 256, 14, 14) != 0) {
    std::printf("descriptors could not be set\n");
    return 1;
  }
  const float one = 1, zero = 0;
  void* const device = reinterpret_cast<void*>(0x10000);
  const cudnnStatus_t forward = cudnnConvolutionForward(nullptr, &one, x, device, w, device, conv,
                                                        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                                        nullptr, 0, &zero, y, device);
  const cudnnStatus_t data =
      cudnnConvolutionBackwardData(nullptr, &one, w, device, y, device, conv,
                                   CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, nullptr, 0, &zero, x, device);
  const cudnnStatus_t filter = cudnnConvolutionBackwardFilter(
      nullptr, &one, x, device, y, device, conv, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, nullptr, 0,
      &one, w, device);
  std::printf("forward %d data %d filter %d\n", forward, data, filter);
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyTensorDescriptor(y);
  cudnnDestroyFilterDescriptor(w);
  cudnnDestroyConvolutionDescriptor(conv);
  return 0;
}
