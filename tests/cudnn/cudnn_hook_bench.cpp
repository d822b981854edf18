// What a cuDNN hook costs on the calling thread. Run it twice, without and with the preload
// (numbers: docs/cudnn-hooks.md §5):
//
//   build/bin/flopspy_bench_cudnn_hooks
//   LD_PRELOAD=build/lib/libflopspy.so FLOPSPY_OUT=/tmp build/bin/flopspy_bench_cudnn_hooks
//
// The fake libcudnn.so.9 checks its arguments and returns, so the difference between the two
// runs is the hook: the call-site lookup, the correlation scope, two clock reads, the getters of
// the copy the call went to (the fake's), the figures and the record.
//   BM_ConvolutionForward: a legacy convolution, its four descriptors read back;
//   BM_BatchNormForwardTraining: batch normalisation, two tensor descriptors read back;
//   BM_BackendExecute: one run of a finalized plan (the plan table's probe, no descriptor read).
#include <benchmark/benchmark.h>
#include <cudnn.h>

#include <cstdlib>
#include <vector>

namespace {

void* const kData = reinterpret_cast<void*>(0x10000);
const float kOne = 1, kZero = 0;

void Check(cudnnStatus_t s) {
  if (s != CUDNN_STATUS_SUCCESS) std::abort();  // a benchmark of failing calls measures nothing
}

struct Legacy {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, params = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  Legacy() {
    Check(cudnnCreate(&handle));
    Check(cudnnCreateTensorDescriptor(&x));
    Check(cudnnCreateTensorDescriptor(&y));
    Check(cudnnCreateTensorDescriptor(&params));
    Check(cudnnCreateFilterDescriptor(&w));
    Check(cudnnCreateConvolutionDescriptor(&conv));
    Check(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 16, 64, 56, 56));
    Check(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 64, 64, 3, 3));
    Check(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT));
    Check(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 16, 64, 56, 56));
    Check(cudnnSetTensor4dDescriptor(params, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 64, 1, 1));
  }
  ~Legacy() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(params);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroy(handle);
  }
};

void BM_ConvolutionForward(benchmark::State& state) {
  Legacy l;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cudnnConvolutionForward(
        l.handle, &kOne, l.x, kData, l.w, kData, l.conv,
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, kData, 0, &kZero, l.y, kData));
  }
}
BENCHMARK(BM_ConvolutionForward);

void BM_BatchNormForwardTraining(benchmark::State& state) {
  Legacy l;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cudnnBatchNormalizationForwardTraining(
        l.handle, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, l.x, kData, l.x, kData, l.params, kData,
        kData, 0.1, kData, kData, 1e-5, kData, kData));
  }
}
BENCHMARK(BM_BatchNormForwardTraining);

// A one-matmul graph, a plan of it from a hand-built engine, run over and over.
void BM_BackendExecute(benchmark::State& state) {
  cudnnHandle_t handle = nullptr;
  Check(cudnnCreate(&handle));
  std::vector<cudnnBackendDescriptor_t> made;
  const auto make = [&](cudnnBackendDescriptorType_t type) {
    cudnnBackendDescriptor_t d = nullptr;
    Check(cudnnBackendCreateDescriptor(type, &d));
    made.push_back(d);
    return d;
  };
  const auto set = [](cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                      cudnnBackendAttributeType_t type, int64_t count, const void* values) {
    Check(cudnnBackendSetAttribute(d, name, type, count, values));
  };
  const auto tensor = [&](int64_t uid, int64_t rows, int64_t cols) {
    cudnnBackendDescriptor_t t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const int64_t dims[] = {8, rows, cols}, strides[] = {rows * cols, cols, 1}, align = 16;
    const cudnnDataType_t type = CUDNN_DATA_HALF;
    set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 3, dims);
    set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, strides);
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    Check(cudnnBackendFinalize(t));
    return t;
  };
  cudnnBackendDescriptor_t a = tensor(1, 512, 256), b = tensor(2, 256, 128),
                           c = tensor(3, 512, 128);
  cudnnBackendDescriptor_t mm = make(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  Check(cudnnBackendFinalize(mm));
  cudnnBackendDescriptor_t op = make(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
  Check(cudnnBackendFinalize(op));
  cudnnBackendDescriptor_t graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
  Check(cudnnBackendFinalize(graph));
  cudnnBackendDescriptor_t engine = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  const int64_t index = 0;
  set(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
  set(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index);
  Check(cudnnBackendFinalize(engine));
  cudnnBackendDescriptor_t config = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  set(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &engine);
  Check(cudnnBackendFinalize(config));
  cudnnBackendDescriptor_t plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config);
  Check(cudnnBackendFinalize(plan));
  cudnnBackendDescriptor_t pack = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  const int64_t uids[] = {1, 2, 3};
  void* pointers[] = {kData, kData, kData};
  set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
  set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &pointers[0]);
  Check(cudnnBackendFinalize(pack));
  for (auto _ : state) benchmark::DoNotOptimize(cudnnBackendExecute(handle, plan, pack));
  for (auto it = made.rbegin(); it != made.rend(); ++it) cudnnBackendDestroyDescriptor(*it);
  cudnnDestroy(handle);
}
BENCHMARK(BM_BackendExecute);

}  // namespace

BENCHMARK_MAIN();
