// A fake libcudart.so.12 / libcudart.so.13 (FAKECUDART_MAJOR) for tests without a GPU.
//
// It reaches the driver the way the real runtime does (docs/cuda-notes.md, "How the runtime
// reaches the driver"): dlopen("libcuda.so.1", RTLD_NOW), dlsym(h, "cuGetProcAddress_v2"), a
// probe, cuInit, then cuGetProcAddress asked for itself (version 12000) and the returned pointer
// used for every later lookup, with flags 0 and, for stream-ordered functions, flags 2
// (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM). Launches go through the driver's
// cuLaunchKernel/_ptsz (Ex, cooperative, graph likewise) pointers, so a runtime launch passes
// through a runtime hook and a driver wrapper of an interposer, as with the real pair.
//
// Kernels are registered like nvcc's host code does (__cudaRegisterFatBinary,
// __cudaRegisterFunction with the device name); a host stub is resolved to the driver's CUkernel
// and CUfunction by that name. Every exported function is counted (fakecudart_report).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "cudart_private.h"
#include "fake_cuda.h"

#ifndef FAKECUDART_MAJOR
#error "FAKECUDART_MAJOR (12 or 13) must be defined"
#endif

#define FAKECUDART_EXPORT extern "C" __attribute__((visibility("default")))

namespace fakecudart {
namespace {

// clang-format off
#define FAKECUDART_FUNCTIONS(X) \
  X(cudaLaunchKernel) X(cudaLaunchKernel_ptsz) X(__cudaLaunchKernel) X(__cudaLaunchKernel_ptsz) \
  X(__cudaGetKernel) X(__cudaPushCallConfiguration) X(__cudaPopCallConfiguration) \
  X(cudaLaunchKernelExC) X(cudaLaunchKernelExC_ptsz) \
  X(cudaLaunchCooperativeKernel) X(cudaLaunchCooperativeKernel_ptsz) \
  X(cudaGraphLaunch) X(cudaGraphLaunch_ptsz) \
  X(cudaDeviceSynchronize) X(cudaStreamSynchronize) X(cudaStreamSynchronize_ptsz) \
  X(cudaMemcpy) X(cudaMemcpy_ptds) X(cudaMemcpyAsync) X(cudaMemcpyAsync_ptsz) \
  X(cudaMalloc) X(cudaFree) X(cudaStreamCreate) X(cudaStreamDestroy) \
  X(cudaFuncGetName) X(cudaFuncGetParamInfo) X(cudaGetFuncBySymbol) \
  X(cudaGetLastError) X(cudaPeekAtLastError) X(cudaGetErrorString) X(cudaGetErrorName) \
  X(cudaRuntimeGetVersion) X(cudaDriverGetVersion) \
  X(cudaSetDevice) X(cudaGetDevice) X(cudaGetDeviceCount) \
  X(__cudaRegisterFatBinary) X(__cudaRegisterFatBinaryEnd) X(__cudaUnregisterFatBinary) \
  X(__cudaRegisterFunction)
// clang-format on

enum Counter : int {
#define FAKECUDART_ID(name) kCount_##name,
  FAKECUDART_FUNCTIONS(FAKECUDART_ID)
#undef FAKECUDART_ID
      kCounterCount
};
const char* const kCounterNames[kCounterCount] = {
#define FAKECUDART_NAME(name) #name,
    FAKECUDART_FUNCTIONS(FAKECUDART_NAME)
#undef FAKECUDART_NAME
};
std::atomic<uint64_t> g_calls[kCounterCount];

void Count(Counter c) {
  g_calls[c].fetch_add(1, std::memory_order_relaxed);
}

thread_local cudaError_t tls_last_error = cudaSuccess;

cudaError_t Note(cudaError_t e) {
  if (e != cudaSuccess) tls_last_error = e;
  return e;
}

cudaError_t FromDriver(CUresult r) {
  switch (r) {
    case CUDA_SUCCESS:
      return cudaSuccess;
    case CUDA_ERROR_INVALID_VALUE:
      return cudaErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY:
      return cudaErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED:
      return cudaErrorInitializationError;
    case CUDA_ERROR_NO_DEVICE:
      return cudaErrorNoDevice;
    case CUDA_ERROR_INVALID_HANDLE:
      return cudaErrorInvalidResourceHandle;
    case CUDA_ERROR_NOT_FOUND:
      return cudaErrorSymbolNotFound;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return cudaErrorLaunchOutOfResources;
    case CUDA_ERROR_INVALID_CLUSTER_SIZE:
      return cudaErrorInvalidClusterSize;
    default:
      return cudaErrorUnknown;
  }
}

// --- The driver, as the runtime finds it ---------------------------------------------------

constexpr int kLegacy = 0, kPerThread = 1;

struct Driver {
  cudaError_t status = cudaErrorInsufficientDriver;
  PFN_cuGetProcAddress_v12000 get_proc = nullptr;
  PFN_cuInit_v2000 init = nullptr;
  PFN_cuLaunchKernel_v4000 launch[2] = {};
  PFN_cuLaunchKernelEx_v11060 launch_ex[2] = {};
  PFN_cuLaunchCooperativeKernel_v9000 cooperative[2] = {};
  PFN_cuGraphLaunch_v10000 graph[2] = {};
  PFN_cuStreamSynchronize_v2000 stream_sync[2] = {};
#if FAKECUDART_MAJOR >= 13
  PFN_cuCtxSynchronize_v13000 ctx_sync = nullptr;
#else
  PFN_cuCtxSynchronize_v2000 ctx_sync = nullptr;
#endif
  PFN_cuMemcpyHtoD_v3020 htod[2] = {};
  PFN_cuMemcpyDtoH_v3020 dtoh[2] = {};
  PFN_cuMemcpyDtoD_v3020 dtod[2] = {};
  PFN_cuMemcpy_v4000 copy[2] = {};
  PFN_cuMemcpyHtoDAsync_v3020 htod_async[2] = {};
  PFN_cuMemcpyDtoHAsync_v3020 dtoh_async[2] = {};
  PFN_cuMemcpyDtoDAsync_v3020 dtod_async[2] = {};
  PFN_cuMemcpyAsync_v4000 copy_async[2] = {};
  PFN_cuFuncGetName_v12030 func_name = nullptr;
  PFN_cuKernelGetName_v12030 kernel_name = nullptr;
  PFN_cuFuncGetParamInfo_v12040 func_params = nullptr;
  PFN_cuKernelGetParamInfo_v12040 kernel_params = nullptr;
  PFN_cuLibraryGetKernel_v12000 library_kernel = nullptr;
  PFN_cuKernelGetFunction_v12000 kernel_function = nullptr;
  PFN_cuMemAlloc_v3020 alloc = nullptr;
  PFN_cuMemFree_v3020 free = nullptr;
  PFN_cuStreamCreate_v2000 stream_create = nullptr;
  PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;
  PFN_cuDeviceGetCount_v2000 device_count = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 primary_context = nullptr;
  PFN_cuCtxGetCurrent_v4000 get_context = nullptr;
  PFN_cuCtxSetCurrent_v4000 set_context = nullptr;
  PFN_cuCtxGetDevice_v2000 context_device = nullptr;

  template <class F>
  bool Get(F& out, const char* name, int version, cuuint64_t flags) {
    void* p = nullptr;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (get_proc(name, &p, version, flags, &found) != CUDA_SUCCESS || p == nullptr ||
        found != CU_GET_PROC_ADDRESS_SUCCESS) {
      return false;
    }
    out = reinterpret_cast<F>(p);
    return true;
  }
  template <class F>
  bool GetBoth(F (&out)[2], const char* name, int legacy_version, int per_thread_version) {
    return Get(out[kLegacy], name, legacy_version, CU_GET_PROC_ADDRESS_DEFAULT) &&
           Get(out[kPerThread], name, per_thread_version,
               CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  }

  void Load() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW);
    if (h == nullptr) return;
    auto first = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(h, "cuGetProcAddress_v2"));
    if (first == nullptr) return;
    void* p = nullptr;
    CUdriverProcAddressQueryResult found;
    first("", &p, 0, 0, &found);  // probe, as the real runtime does
    if (first("cuInit", &p, 2000, 0, &found) != CUDA_SUCCESS) return;
    init = reinterpret_cast<PFN_cuInit_v2000>(p);
    if (first("cuGetProcAddress", &p, 12000, 0, &found) != CUDA_SUCCESS) return;
    get_proc = reinterpret_cast<PFN_cuGetProcAddress_v12000>(p);
    status = cudaErrorSymbolNotFound;
    const bool ok =
        GetBoth(launch, "cuLaunchKernel", 4000, 7000) &&
        GetBoth(launch_ex, "cuLaunchKernelEx", 11060, 11060) &&
        GetBoth(cooperative, "cuLaunchCooperativeKernel", 9000, 9000) &&
        GetBoth(graph, "cuGraphLaunch", 10000, 10000) &&
        GetBoth(stream_sync, "cuStreamSynchronize", 2000, 7000) &&
#if FAKECUDART_MAJOR >= 13
        Get(ctx_sync, "cuCtxSynchronize", 13000, 0) &&
#else
        Get(ctx_sync, "cuCtxSynchronize", 2000, 0) &&
#endif
        GetBoth(htod, "cuMemcpyHtoD", 3020, 7000) && GetBoth(dtoh, "cuMemcpyDtoH", 3020, 7000) &&
        GetBoth(dtod, "cuMemcpyDtoD", 3020, 7000) && GetBoth(copy, "cuMemcpy", 4000, 7000) &&
        GetBoth(htod_async, "cuMemcpyHtoDAsync", 3020, 7000) &&
        GetBoth(dtoh_async, "cuMemcpyDtoHAsync", 3020, 7000) &&
        GetBoth(dtod_async, "cuMemcpyDtoDAsync", 3020, 7000) &&
        GetBoth(copy_async, "cuMemcpyAsync", 4000, 7000) &&
        Get(func_name, "cuFuncGetName", 12030, 0) &&
        Get(kernel_name, "cuKernelGetName", 12030, 0) &&
        Get(func_params, "cuFuncGetParamInfo", 12040, 0) &&
        Get(kernel_params, "cuKernelGetParamInfo", 12040, 0) &&
        Get(library_kernel, "cuLibraryGetKernel", 12000, 0) &&
        Get(kernel_function, "cuKernelGetFunction", 12000, 0) &&
        Get(alloc, "cuMemAlloc", 3020, 0) && Get(free, "cuMemFree", 3020, 0) &&
        Get(stream_create, "cuStreamCreate", 2000, 0) &&
        Get(stream_destroy, "cuStreamDestroy", 4000, 0) &&
        Get(device_count, "cuDeviceGetCount", 2000, 0) &&
        Get(primary_context, "cuDevicePrimaryCtxRetain", 7000, 0) &&
        Get(get_context, "cuCtxGetCurrent", 4000, 0) &&
        Get(set_context, "cuCtxSetCurrent", 4000, 0) &&
        Get(context_device, "cuCtxGetDevice", 2000, 0);
    if (!ok) return;
    const CUresult r = init(0);
    status = r == CUDA_SUCCESS ? cudaSuccess : FromDriver(r);
  }
};

Driver& D() {
  static Driver driver = [] {
    Driver d;
    d.Load();
    return d;
  }();
  return driver;
}

// --- Devices -------------------------------------------------------------------------------

// Like the real runtime: a thread's first call that needs a context uses the context current on
// the thread if there is one, else makes device 0's primary context current; cudaSetDevice makes
// the device's primary context current.
thread_local bool tls_context_ready __attribute__((tls_model("initial-exec"))) = false;

cudaError_t UseDevice(int device) {
  CUcontext context = nullptr;
  CUresult r = D().primary_context(&context, device);
  if (r == CUDA_SUCCESS) r = D().set_context(context);
  if (r != CUDA_SUCCESS)
    return r == CUDA_ERROR_INVALID_DEVICE ? cudaErrorInvalidDevice : FromDriver(r);
  tls_context_ready = true;
  return cudaSuccess;
}

cudaError_t Ready() {
  if (D().status != cudaSuccess) return D().status;
  if (tls_context_ready) return cudaSuccess;
  CUcontext current = nullptr;
  if (D().get_context(&current) == CUDA_SUCCESS && current != nullptr) {
    tls_context_ready = true;
    return cudaSuccess;
  }
  return UseDevice(0);
}

// --- Registered kernels --------------------------------------------------------------------

struct Registered {
  const void* stub;
  std::string name;
  CUkernel kernel = nullptr;
  CUfunction function = nullptr;
};

std::mutex g_mutex;
std::deque<Registered>& Registry() {
  static auto* registry = new std::deque<Registered>;
  return *registry;
}

// The stub's kernel and function, resolved by name through the driver at first use.
const Registered* FindStub(const void* stub) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (Registered& r : Registry()) {
    if (r.stub != stub) continue;
    if (r.function == nullptr) {
      if (D().library_kernel(&r.kernel, nullptr, r.name.c_str()) != CUDA_SUCCESS ||
          D().kernel_function(&r.function, r.kernel) != CUDA_SUCCESS) {
        return nullptr;
      }
    }
    return &r;
  }
  return nullptr;
}

// A host stub, or else a cudaKernel_t (which is a CUkernel), as cudaFuncGetName documents.
cudaError_t FunctionOf(const void* func, CUfunction* f) {
  if (const Registered* r = FindStub(func)) {
    *f = r->function;
    return cudaSuccess;
  }
  const CUresult res = D().kernel_function(f, reinterpret_cast<CUkernel>(const_cast<void*>(func)));
  return res == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

// FAKECUDART_LAUNCH_RESULT: an error the runtime finds before the driver (e.g. 9,
// cudaErrorInvalidConfiguration).
bool RuntimeRejects(cudaError_t* e) {
  static const char* value = std::getenv("FAKECUDART_LAUNCH_RESULT");
  if (value == nullptr || *value == '\0') return false;
  *e = static_cast<cudaError_t>(std::atoi(value));
  return true;
}

cudaError_t LaunchFunction(int form, CUfunction f, dim3 grid, dim3 block, void** args, size_t smem,
                           cudaStream_t stream) {
  return Note(FromDriver(D().launch[form](f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                          static_cast<unsigned>(smem),
                                          reinterpret_cast<CUstream>(stream), args, nullptr)));
}

cudaError_t LaunchStub(int form, const void* func, dim3 grid, dim3 block, void** args, size_t smem,
                       cudaStream_t stream) {
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  cudaError_t e;
  if (RuntimeRejects(&e)) return Note(e);
  CUfunction f = nullptr;
  if ((e = FunctionOf(func, &f)) != cudaSuccess) return Note(e);
  return LaunchFunction(form, f, grid, block, args, smem, stream);
}

cudaError_t LaunchKernelHandle(int form, cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                               size_t smem, cudaStream_t stream) {
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  cudaError_t e;
  if (RuntimeRejects(&e)) return Note(e);
  CUfunction f = nullptr;
  if (D().kernel_function(&f, reinterpret_cast<CUkernel>(kernel)) != CUDA_SUCCESS) {
    return Note(cudaErrorInvalidDeviceFunction);
  }
  return LaunchFunction(form, f, grid, block, args, smem, stream);
}

cudaError_t LaunchEx(int form, const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  if (config == nullptr) return Note(cudaErrorInvalidValue);
  cudaError_t e;
  if (RuntimeRejects(&e)) return Note(e);
  CUfunction f = nullptr;
  if ((e = FunctionOf(func, &f)) != cudaSuccess) return Note(e);
  std::vector<CUlaunchAttribute> attrs(config->numAttrs);
  static_assert(sizeof(CUlaunchAttributeValue) == sizeof(cudaLaunchAttributeValue));
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    attrs[i].id = static_cast<CUlaunchAttributeID>(config->attrs[i].id);
    std::memcpy(&attrs[i].value, &config->attrs[i].val, sizeof(attrs[i].value));
  }
  CUlaunchConfig c{};
  c.gridDimX = config->gridDim.x, c.gridDimY = config->gridDim.y, c.gridDimZ = config->gridDim.z;
  c.blockDimX = config->blockDim.x, c.blockDimY = config->blockDim.y;
  c.blockDimZ = config->blockDim.z;
  c.sharedMemBytes = static_cast<unsigned>(config->dynamicSmemBytes);
  c.hStream = reinterpret_cast<CUstream>(config->stream);
  c.attrs = attrs.empty() ? nullptr : attrs.data();
  c.numAttrs = config->numAttrs;
  return Note(FromDriver(D().launch_ex[form](&c, f, args, nullptr)));
}

cudaError_t Cooperative(int form, const void* func, dim3 grid, dim3 block, void** args, size_t smem,
                        cudaStream_t stream) {
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  cudaError_t e;
  if (RuntimeRejects(&e)) return Note(e);
  CUfunction f = nullptr;
  if ((e = FunctionOf(func, &f)) != cudaSuccess) return Note(e);
  return Note(FromDriver(D().cooperative[form](f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                               static_cast<unsigned>(smem),
                                               reinterpret_cast<CUstream>(stream), args)));
}

cudaError_t Copy(int form, void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  const auto d = reinterpret_cast<CUdeviceptr>(dst);
  const auto s = reinterpret_cast<CUdeviceptr>(src);
  switch (kind) {
    case cudaMemcpyHostToDevice:
      return Note(FromDriver(D().htod[form](d, src, n)));
    case cudaMemcpyDeviceToHost:
      return Note(FromDriver(D().dtoh[form](dst, s, n)));
    case cudaMemcpyDeviceToDevice:
      return Note(FromDriver(D().dtod[form](d, s, n)));
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
      return Note(FromDriver(D().copy[form](d, s, n)));
  }
  return Note(cudaErrorInvalidMemcpyDirection);
}

cudaError_t CopyAsync(int form, void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                      cudaStream_t stream) {
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  const auto d = reinterpret_cast<CUdeviceptr>(dst);
  const auto s = reinterpret_cast<CUdeviceptr>(src);
  const auto st = reinterpret_cast<CUstream>(stream);
  switch (kind) {
    case cudaMemcpyHostToDevice:
      return Note(FromDriver(D().htod_async[form](d, src, n, st)));
    case cudaMemcpyDeviceToHost:
      return Note(FromDriver(D().dtoh_async[form](dst, s, n, st)));
    case cudaMemcpyDeviceToDevice:
      return Note(FromDriver(D().dtod_async[form](d, s, n, st)));
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
      return Note(FromDriver(D().copy_async[form](d, s, n, st)));
  }
  return Note(cudaErrorInvalidMemcpyDirection);
}

struct CallConfiguration {
  dim3 grid, block;
  size_t smem;
  void* stream;
};
thread_local std::vector<CallConfiguration> tls_configurations;

}  // namespace
}  // namespace fakecudart

using fakecudart::Count;
using fakecudart::D;
using fakecudart::kLegacy;
using fakecudart::kPerThread;
using fakecudart::Note;
using fakecudart::Ready;

// --- Launches ------------------------------------------------------------------------------

FAKECUDART_EXPORT cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                                               size_t smem, cudaStream_t stream) {
  Count(fakecudart::kCount_cudaLaunchKernel);
  return fakecudart::LaunchStub(kLegacy, func, grid, block, args, smem, stream);
}

FAKECUDART_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block,
                                                    void** args, size_t smem, cudaStream_t stream) {
  Count(fakecudart::kCount_cudaLaunchKernel_ptsz);
  return fakecudart::LaunchStub(kPerThread, func, grid, block, args, smem, stream);
}

FAKECUDART_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* stub) {
  Count(fakecudart::kCount___cudaGetKernel);
  if (kernel == nullptr) return Note(cudaErrorInvalidValue);
  if (D().status != cudaSuccess) return Note(D().status);
  const fakecudart::Registered* r = fakecudart::FindStub(stub);
  if (r == nullptr) return Note(cudaErrorInvalidDeviceFunction);
  *kernel = reinterpret_cast<cudaKernel_t>(r->kernel);
  return cudaSuccess;
}

FAKECUDART_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                 void** args, size_t smem, cudaStream_t stream) {
  Count(fakecudart::kCount___cudaLaunchKernel);
  return fakecudart::LaunchKernelHandle(kLegacy, kernel, grid, block, args, smem, stream);
}

FAKECUDART_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                      void** args, size_t smem,
                                                      cudaStream_t stream) {
  Count(fakecudart::kCount___cudaLaunchKernel_ptsz);
  return fakecudart::LaunchKernelHandle(kPerThread, kernel, grid, block, args, smem, stream);
}

FAKECUDART_EXPORT unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem,
                                                       struct CUstream_st* stream) {
  Count(fakecudart::kCount___cudaPushCallConfiguration);
  fakecudart::tls_configurations.push_back({grid, block, smem, stream});
  return 0;
}

FAKECUDART_EXPORT cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* smem,
                                                         void* stream) {
  Count(fakecudart::kCount___cudaPopCallConfiguration);
  auto& stack = fakecudart::tls_configurations;
  if (stack.empty()) return Note(cudaErrorMissingConfiguration);
  const fakecudart::CallConfiguration c = stack.back();
  stack.pop_back();
  *grid = c.grid, *block = c.block, *smem = c.smem;
  *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}

FAKECUDART_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config,
                                                  const void* func, void** args) {
  Count(fakecudart::kCount_cudaLaunchKernelExC);
  return fakecudart::LaunchEx(kLegacy, config, func, args);
}

FAKECUDART_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config,
                                                       const void* func, void** args) {
  Count(fakecudart::kCount_cudaLaunchKernelExC_ptsz);
  return fakecudart::LaunchEx(kPerThread, config, func, args);
}

FAKECUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block,
                                                          void** args, size_t smem,
                                                          cudaStream_t stream) {
  Count(fakecudart::kCount_cudaLaunchCooperativeKernel);
  return fakecudart::Cooperative(kLegacy, func, grid, block, args, smem, stream);
}

FAKECUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid,
                                                               dim3 block, void** args, size_t smem,
                                                               cudaStream_t stream) {
  Count(fakecudart::kCount_cudaLaunchCooperativeKernel_ptsz);
  return fakecudart::Cooperative(kPerThread, func, grid, block, args, smem, stream);
}

FAKECUDART_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graph, cudaStream_t stream) {
  Count(fakecudart::kCount_cudaGraphLaunch);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  return Note(fakecudart::FromDriver(D().graph[kLegacy](reinterpret_cast<CUgraphExec>(graph),
                                                        reinterpret_cast<CUstream>(stream))));
}

FAKECUDART_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graph, cudaStream_t stream) {
  Count(fakecudart::kCount_cudaGraphLaunch_ptsz);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  return Note(fakecudart::FromDriver(D().graph[kPerThread](reinterpret_cast<CUgraphExec>(graph),
                                                           reinterpret_cast<CUstream>(stream))));
}

// --- Synchronisation and copies ------------------------------------------------------------

FAKECUDART_EXPORT cudaError_t cudaDeviceSynchronize() {
  Count(fakecudart::kCount_cudaDeviceSynchronize);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
#if FAKECUDART_MAJOR >= 13
  return Note(fakecudart::FromDriver(D().ctx_sync(nullptr)));
#else
  return Note(fakecudart::FromDriver(D().ctx_sync()));
#endif
}

FAKECUDART_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  Count(fakecudart::kCount_cudaStreamSynchronize);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  return Note(fakecudart::FromDriver(D().stream_sync[kLegacy](reinterpret_cast<CUstream>(stream))));
}

FAKECUDART_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  Count(fakecudart::kCount_cudaStreamSynchronize_ptsz);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  return Note(
      fakecudart::FromDriver(D().stream_sync[kPerThread](reinterpret_cast<CUstream>(stream))));
}

FAKECUDART_EXPORT cudaError_t cudaMemcpy(void* dst, const void* src, size_t n,
                                         cudaMemcpyKind kind) {
  Count(fakecudart::kCount_cudaMemcpy);
  return fakecudart::Copy(kLegacy, dst, src, n, kind);
}

FAKECUDART_EXPORT cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t n,
                                              cudaMemcpyKind kind) {
  Count(fakecudart::kCount_cudaMemcpy_ptds);
  return fakecudart::Copy(kPerThread, dst, src, n, kind);
}

FAKECUDART_EXPORT cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n,
                                              cudaMemcpyKind kind, cudaStream_t stream) {
  Count(fakecudart::kCount_cudaMemcpyAsync);
  return fakecudart::CopyAsync(kLegacy, dst, src, n, kind, stream);
}

FAKECUDART_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t n,
                                                   cudaMemcpyKind kind, cudaStream_t stream) {
  Count(fakecudart::kCount_cudaMemcpyAsync_ptsz);
  return fakecudart::CopyAsync(kPerThread, dst, src, n, kind, stream);
}

// --- Memory, streams -----------------------------------------------------------------------

FAKECUDART_EXPORT cudaError_t cudaMalloc(void** p, size_t bytes) {
  Count(fakecudart::kCount_cudaMalloc);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  if (p == nullptr) return Note(cudaErrorInvalidValue);
  CUdeviceptr d = 0;
  const cudaError_t e = Note(fakecudart::FromDriver(D().alloc(&d, bytes)));
  *p = reinterpret_cast<void*>(d);
  return e;
}

FAKECUDART_EXPORT cudaError_t cudaFree(void* p) {
  Count(fakecudart::kCount_cudaFree);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  return Note(fakecudart::FromDriver(D().free(reinterpret_cast<CUdeviceptr>(p))));
}

FAKECUDART_EXPORT cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  Count(fakecudart::kCount_cudaStreamCreate);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  CUstream s = nullptr;
  const cudaError_t e = Note(fakecudart::FromDriver(D().stream_create(&s, 0)));
  *stream = reinterpret_cast<cudaStream_t>(s);
  return e;
}

FAKECUDART_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  Count(fakecudart::kCount_cudaStreamDestroy);
  if (const cudaError_t ready = Ready(); ready != cudaSuccess) return Note(ready);
  return Note(fakecudart::FromDriver(D().stream_destroy(reinterpret_cast<CUstream>(stream))));
}

// --- Devices -------------------------------------------------------------------------------

FAKECUDART_EXPORT cudaError_t cudaSetDevice(int device) {
  Count(fakecudart::kCount_cudaSetDevice);
  if (D().status != cudaSuccess) return Note(D().status);
  return Note(fakecudart::UseDevice(device));
}

FAKECUDART_EXPORT cudaError_t cudaGetDevice(int* device) {
  Count(fakecudart::kCount_cudaGetDevice);
  if (device == nullptr) return Note(cudaErrorInvalidValue);
  if (const cudaError_t ready = fakecudart::Ready(); ready != cudaSuccess) return Note(ready);
  CUdevice d = 0;
  const cudaError_t e = Note(fakecudart::FromDriver(D().context_device(&d)));
  if (e == cudaSuccess) *device = d;
  return e;
}

FAKECUDART_EXPORT cudaError_t cudaGetDeviceCount(int* count) {
  Count(fakecudart::kCount_cudaGetDeviceCount);
  if (count == nullptr) return Note(cudaErrorInvalidValue);
  if (D().status != cudaSuccess) return Note(D().status);
  return Note(fakecudart::FromDriver(D().device_count(count)));
}

// --- Names and parameter layouts -----------------------------------------------------------

FAKECUDART_EXPORT cudaError_t cudaFuncGetName(const char** name, const void* func) {
  Count(fakecudart::kCount_cudaFuncGetName);
  if (name == nullptr) return Note(cudaErrorInvalidValue);
  if (D().status != cudaSuccess) return Note(D().status);
  if (const fakecudart::Registered* r = fakecudart::FindStub(func)) {
    return Note(fakecudart::FromDriver(D().func_name(name, r->function)));
  }
  const CUresult res = D().kernel_name(name, reinterpret_cast<CUkernel>(const_cast<void*>(func)));
  return Note(res == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

// Like the real runtime (seen on an H200, CUDA 13.0), an index past the last parameter answers
// cudaErrorInvalidValue and leaves it as the thread's last error, which cudaGetLastError returns.
FAKECUDART_EXPORT cudaError_t cudaFuncGetParamInfo(const void* func, size_t index, size_t* offset,
                                                   size_t* size) {
  Count(fakecudart::kCount_cudaFuncGetParamInfo);
  if (D().status != cudaSuccess) return Note(D().status);
  if (const fakecudart::Registered* r = fakecudart::FindStub(func)) {
    return Note(fakecudart::FromDriver(D().func_params(r->function, index, offset, size)));
  }
  const CUresult res =
      D().kernel_params(reinterpret_cast<CUkernel>(const_cast<void*>(func)), index, offset, size);
  return Note(res == CUDA_ERROR_INVALID_HANDLE ? cudaErrorInvalidDeviceFunction
                                               : fakecudart::FromDriver(res));
}

FAKECUDART_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t* function, const void* symbol) {
  Count(fakecudart::kCount_cudaGetFuncBySymbol);
  if (function == nullptr) return Note(cudaErrorInvalidValue);
  if (D().status != cudaSuccess) return Note(D().status);
  if (const fakecudart::Registered* r = fakecudart::FindStub(symbol)) {
    *function = reinterpret_cast<cudaFunction_t>(r->function);
    return cudaSuccess;
  }
  return Note(cudaErrorInvalidDeviceFunction);
}

// --- Errors, versions ----------------------------------------------------------------------

FAKECUDART_EXPORT cudaError_t cudaGetLastError() {
  Count(fakecudart::kCount_cudaGetLastError);
  const cudaError_t e = fakecudart::tls_last_error;
  fakecudart::tls_last_error = cudaSuccess;
  return e;
}

FAKECUDART_EXPORT cudaError_t cudaPeekAtLastError() {
  Count(fakecudart::kCount_cudaPeekAtLastError);
  return fakecudart::tls_last_error;
}

namespace {
const char* ErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorInsufficientDriver:
      return "cudaErrorInsufficientDriver";
    case cudaErrorInvalidDeviceFunction:
      return "cudaErrorInvalidDeviceFunction";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorSymbolNotFound:
      return "cudaErrorSymbolNotFound";
    case cudaErrorLaunchOutOfResources:
      return "cudaErrorLaunchOutOfResources";
    default:
      return "cudaErrorUnknown";
  }
}
}  // namespace

FAKECUDART_EXPORT const char* cudaGetErrorString(cudaError_t e) {
  Count(fakecudart::kCount_cudaGetErrorString);
  return ErrorName(e);
}

FAKECUDART_EXPORT const char* cudaGetErrorName(cudaError_t e) {
  Count(fakecudart::kCount_cudaGetErrorName);
  return ErrorName(e);
}

FAKECUDART_EXPORT cudaError_t cudaRuntimeGetVersion(int* version) {
  Count(fakecudart::kCount_cudaRuntimeGetVersion);
  if (version == nullptr) return Note(cudaErrorInvalidValue);
  *version = FAKECUDART_MAJOR * 1000;
  return cudaSuccess;
}

FAKECUDART_EXPORT cudaError_t cudaDriverGetVersion(int* version) {
  Count(fakecudart::kCount_cudaDriverGetVersion);
  if (version == nullptr) return Note(cudaErrorInvalidValue);
  *version = D().status == cudaSuccess ? 13000 : 0;
  return cudaSuccess;
}

// --- Registration, as nvcc's host code does it ---------------------------------------------

FAKECUDART_EXPORT void** __cudaRegisterFatBinary(void* fat_cubin) {
  Count(fakecudart::kCount___cudaRegisterFatBinary);
  return new void*(fat_cubin);
}

FAKECUDART_EXPORT void __cudaRegisterFatBinaryEnd(void**) {
  Count(fakecudart::kCount___cudaRegisterFatBinaryEnd);
}

FAKECUDART_EXPORT void __cudaUnregisterFatBinary(void** handle) {
  Count(fakecudart::kCount___cudaUnregisterFatBinary);
  delete handle;
}

FAKECUDART_EXPORT void __cudaRegisterFunction(void**, const char* host_function,
                                              char* device_function, const char*, int, uint3*,
                                              uint3*, dim3*, dim3*, int*) {
  Count(fakecudart::kCount___cudaRegisterFunction);
  std::lock_guard<std::mutex> lock(fakecudart::g_mutex);
  fakecudart::Registry().push_back({host_function, device_function});
}

// --- For tests -----------------------------------------------------------------------------

FAKECUDART_EXPORT void fakecudart_report(FILE* out) {
  using namespace fakecudart;
  for (int c = 0; c < kCounterCount; ++c) {
    if (const uint64_t n = g_calls[c].load()) {
      std::fprintf(out, "runtime %s %llu\n", kCounterNames[c], static_cast<unsigned long long>(n));
    }
  }
}
