// Runtime-level hooks, for programs that link libcudart dynamically (PyTorch does). They see the
// host stub or cudaKernel_t of a <<<>>> launch, which the driver level never does, and mark the
// thread so that the driver call the runtime makes underneath is not recorded a second time.
//
// CUDA 13's nvcc compiles <<<>>> into __cudaGetKernel + __cudaLaunchKernel(_ptsz); CUDA 12's into
// cudaLaunchKernel(_ptsz) (docs/cuda-notes.md, "CUDA 12 and CUDA 13 launch sequences"): both are
// hooked.
//
// A process may hold two runtimes (libcudart.so.12 and .13, each from its own extension module):
// every hook finds its real function for the object that called it (caller_resolver.h), from
// the return address the exported function sees.
#include <cuda_runtime_api.h>

#include "caller_resolver.h"
#include "capture_window.h"
#include "clock.h"
#include "graph_registry.h"
#include "instrumented_launch.h"
#include "recorder.h"

// The return address of the exported hook being run: where its caller resumes.
#define FLOPSPY_CALLER() __builtin_return_address(0)

#define FLOPSPY_EXPORT extern "C" __attribute__((visibility("default")))

namespace flopspy::interpose {
namespace {

constexpr cudaError_t kNoRuntime = cudaErrorUnknown;

LaunchShape ShapeOf(dim3 grid, dim3 block, size_t smem, cudaStream_t stream, bool per_thread) {
  LaunchShape shape;
  shape.grid[0] = grid.x, shape.grid[1] = grid.y, shape.grid[2] = grid.z;
  shape.block[0] = block.x, shape.block[1] = block.y, shape.block[2] = block.z;
  shape.dynamic_smem = static_cast<uint32_t>(smem);
  shape.stream = reinterpret_cast<uint64_t>(stream);
  shape.per_thread_stream = per_thread;
  shape.from_runtime = true;  // the driver call underneath is this launch, not another
  return shape;
}

using LaunchFn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
using KernelLaunchFn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
using LaunchExFn = cudaError_t (*)(const cudaLaunchConfig_t*, const void*, void**);
using GraphLaunchFn = cudaError_t (*)(cudaGraphExec_t, cudaStream_t);
using DeviceSyncFn = cudaError_t (*)();
using StreamSyncFn = cudaError_t (*)(cudaStream_t);
using MemcpyFn = cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind);
using MemcpyAsyncFn = cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);

CallerRealFunction<LaunchFn> g_launch(CudaLibrary::kRuntime, "cudaLaunchKernel");
CallerRealFunction<LaunchFn> g_launch_ptsz(CudaLibrary::kRuntime, "cudaLaunchKernel_ptsz");
CallerRealFunction<LaunchFn> g_cooperative(CudaLibrary::kRuntime, "cudaLaunchCooperativeKernel");
CallerRealFunction<LaunchFn> g_cooperative_ptsz(CudaLibrary::kRuntime,
                                                "cudaLaunchCooperativeKernel_ptsz");
CallerRealFunction<KernelLaunchFn> g_stub_launch(CudaLibrary::kRuntime, "__cudaLaunchKernel");
CallerRealFunction<KernelLaunchFn> g_stub_launch_ptsz(CudaLibrary::kRuntime,
                                                      "__cudaLaunchKernel_ptsz");
CallerRealFunction<LaunchExFn> g_launch_ex(CudaLibrary::kRuntime, "cudaLaunchKernelExC");
CallerRealFunction<LaunchExFn> g_launch_ex_ptsz(CudaLibrary::kRuntime, "cudaLaunchKernelExC_ptsz");
CallerRealFunction<GraphLaunchFn> g_graph(CudaLibrary::kRuntime, "cudaGraphLaunch");
CallerRealFunction<GraphLaunchFn> g_graph_ptsz(CudaLibrary::kRuntime, "cudaGraphLaunch_ptsz");
CallerRealFunction<DeviceSyncFn> g_device_sync(CudaLibrary::kRuntime, "cudaDeviceSynchronize");
CallerRealFunction<StreamSyncFn> g_stream_sync(CudaLibrary::kRuntime, "cudaStreamSynchronize");
CallerRealFunction<StreamSyncFn> g_stream_sync_ptsz(CudaLibrary::kRuntime,
                                                    "cudaStreamSynchronize_ptsz");
CallerRealFunction<MemcpyFn> g_memcpy(CudaLibrary::kRuntime, "cudaMemcpy");
CallerRealFunction<MemcpyFn> g_memcpy_ptds(CudaLibrary::kRuntime, "cudaMemcpy_ptds");
CallerRealFunction<MemcpyAsyncFn> g_memcpy_async(CudaLibrary::kRuntime, "cudaMemcpyAsync");
CallerRealFunction<MemcpyAsyncFn> g_memcpy_async_ptsz(CudaLibrary::kRuntime,
                                                      "cudaMemcpyAsync_ptsz");

// The launch hooks with the (func, grid, block, args, smem, stream) shape: host stubs
// (cudaLaunchKernel, cudaLaunchCooperativeKernel) and cudaKernel_t (__cudaLaunchKernel).
template <class Fn, class Handle>
cudaError_t Launch(const void* caller, CallerRealFunction<Fn>& real, trace::Api api,
                   FunctionKind kind, bool per_thread, Handle func, dim3 grid, dim3 block,
                   void** args, size_t smem, cudaStream_t stream) noexcept {
  const auto fn = real.get(caller);
  if (fn == nullptr) {
    ReportMissingReal(real.name());
    return kNoRuntime;
  }
  if (!RecordingCalls() || tls_in_runtime_call) {
    return fn(func, grid, block, args, smem, stream);
  }
  const LaunchSite site{api, reinterpret_cast<uint64_t>(func), kind,
                        reinterpret_cast<const void*>(fn)};
  return InstrumentedLaunch(site, ShapeOf(grid, block, smem, stream, per_thread), {args, nullptr},
                            [&]() noexcept { return fn(func, grid, block, args, smem, stream); });
}

cudaError_t LaunchEx(const void* caller, trace::Api api, bool per_thread,
                     const cudaLaunchConfig_t* config, const void* func, void** args) noexcept {
  CallerRealFunction<LaunchExFn>& real = per_thread ? g_launch_ex_ptsz : g_launch_ex;
  const auto fn = real.get(caller);
  if (fn == nullptr) {
    ReportMissingReal(real.name());
    return kNoRuntime;
  }
  if (!RecordingCalls() || tls_in_runtime_call || config == nullptr) {
    return fn(config, func, args);
  }
  LaunchShape shape = ShapeOf(config->gridDim, config->blockDim, config->dynamicSmemBytes,
                              config->stream, per_thread);
  NoteCluster(shape, config->attrs, config->numAttrs, cudaLaunchAttributeClusterDimension,
              &cudaLaunchAttribute::val);
  const LaunchSite site{api, reinterpret_cast<uint64_t>(func), FunctionKind::kRuntimeStub,
                        reinterpret_cast<const void*>(fn)};
  return InstrumentedLaunch(site, shape, {args, nullptr},
                            [&]() noexcept { return fn(config, func, args); });
}

// Synchronisation, copies, graph launches: one API call record each.
// ApiCallRecord::detail: a copy's kind, or a graph launch's executable graph.
struct Detail {
  Detail(trace::CopyKind kind)  // NOLINT(google-explicit-constructor): every copy passes one
      : value(static_cast<uint32_t>(kind)) {}
  explicit Detail(cudaGraphExec_t exec) : value(ExecIdOf(reinterpret_cast<CUgraphExec>(exec))) {}
  uint32_t value;
};

template <class Fn, class... A>
cudaError_t Call(const void* caller, CallerRealFunction<Fn>& real, trace::Api api, uint64_t stream,
                 uint64_t bytes, Detail detail, bool synchronizing, A... args) noexcept {
  const auto fn = real.get(caller);
  if (fn == nullptr) {
    ReportMissingReal(real.name());
    return kNoRuntime;
  }
  if (!RecordingCalls() || tls_in_runtime_call) return fn(args...);
  const uint64_t correlation = NextCorrelation();
  cudaError_t result;
  uint64_t enter, exit;
  {
    RuntimeCallScope scope;
    GpuCorrelationScope timing(correlation);
    enter = NowNs();
    result = fn(args...);
    exit = NowNs();
  }
  RecordApiCall(api, enter, exit, result, correlation, stream, bytes, detail.value, synchronizing);
  return result;
}

trace::CopyKind CopyKindOf(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      return trace::CopyKind::kHostToHost;
    case cudaMemcpyHostToDevice:
      return trace::CopyKind::kHostToDevice;
    case cudaMemcpyDeviceToHost:
      return trace::CopyKind::kDeviceToHost;
    case cudaMemcpyDeviceToDevice:
      return trace::CopyKind::kDeviceToDevice;
    case cudaMemcpyDefault:
      return trace::CopyKind::kDefault;
  }
  return trace::CopyKind::kUnknown;
}

}  // namespace
}  // namespace flopspy::interpose

using namespace flopspy::interpose;  // NOLINT(google-build-using-namespace): hook definitions
using flopspy::trace::Api;

FLOPSPY_EXPORT cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                                            size_t smem, cudaStream_t stream) {
  return Launch(FLOPSPY_CALLER(), g_launch, Api::kCudaLaunchKernel, FunctionKind::kRuntimeStub,
                false, func, grid, block, args, smem, stream);
}

FLOPSPY_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block,
                                                 void** args, size_t smem, cudaStream_t stream) {
  return Launch(FLOPSPY_CALLER(), g_launch_ptsz, Api::kCudaLaunchKernelPtsz,
                FunctionKind::kRuntimeStub, true, func, grid, block, args, smem, stream);
}

FLOPSPY_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block,
                                                       void** args, size_t smem,
                                                       cudaStream_t stream) {
  return Launch(FLOPSPY_CALLER(), g_cooperative, Api::kCudaLaunchCooperativeKernel,
                FunctionKind::kRuntimeStub, false, func, grid, block, args, smem, stream);
}

FLOPSPY_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block,
                                                            void** args, size_t smem,
                                                            cudaStream_t stream) {
  return Launch(FLOPSPY_CALLER(), g_cooperative_ptsz, Api::kCudaLaunchCooperativeKernelPtsz,
                FunctionKind::kRuntimeStub, true, func, grid, block, args, smem, stream);
}

FLOPSPY_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                              void** args, size_t smem, cudaStream_t stream) {
  return Launch(FLOPSPY_CALLER(), g_stub_launch, Api::kCudaLaunchKernelStub,
                FunctionKind::kRuntimeKernel, false, kernel, grid, block, args, smem, stream);
}

FLOPSPY_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                   void** args, size_t smem, cudaStream_t stream) {
  return Launch(FLOPSPY_CALLER(), g_stub_launch_ptsz, Api::kCudaLaunchKernelStubPtsz,
                FunctionKind::kRuntimeKernel, true, kernel, grid, block, args, smem, stream);
}

FLOPSPY_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func,
                                               void** args) {
  return LaunchEx(FLOPSPY_CALLER(), Api::kCudaLaunchKernelExC, false, config, func, args);
}

FLOPSPY_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config,
                                                    const void* func, void** args) {
  return LaunchEx(FLOPSPY_CALLER(), Api::kCudaLaunchKernelExCPtsz, true, config, func, args);
}

FLOPSPY_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graph, cudaStream_t stream) {
  return Call(FLOPSPY_CALLER(), g_graph, Api::kCudaGraphLaunch, reinterpret_cast<uint64_t>(stream),
              0, Detail(graph), false, graph, stream);
}

FLOPSPY_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graph, cudaStream_t stream) {
  return Call(FLOPSPY_CALLER(), g_graph_ptsz, Api::kCudaGraphLaunchPtsz,
              reinterpret_cast<uint64_t>(stream), 0, Detail(graph), false, graph, stream);
}

FLOPSPY_EXPORT cudaError_t cudaDeviceSynchronize() {
  return Call(FLOPSPY_CALLER(), g_device_sync, Api::kCudaDeviceSynchronize, 0, 0,
              flopspy::trace::CopyKind::kUnknown, true);
}

FLOPSPY_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return Call(FLOPSPY_CALLER(), g_stream_sync, Api::kCudaStreamSynchronize,
              reinterpret_cast<uint64_t>(stream), 0, flopspy::trace::CopyKind::kUnknown, true,
              stream);
}

FLOPSPY_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  return Call(FLOPSPY_CALLER(), g_stream_sync_ptsz, Api::kCudaStreamSynchronizePtsz,
              reinterpret_cast<uint64_t>(stream), 0, flopspy::trace::CopyKind::kUnknown, true,
              stream);
}

FLOPSPY_EXPORT cudaError_t cudaMemcpy(void* dst, const void* src, size_t count,
                                      cudaMemcpyKind kind) {
  return Call(FLOPSPY_CALLER(), g_memcpy, Api::kCudaMemcpy, 0, count, CopyKindOf(kind), true, dst,
              src, count, kind);
}

FLOPSPY_EXPORT cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count,
                                           cudaMemcpyKind kind) {
  return Call(FLOPSPY_CALLER(), g_memcpy_ptds, Api::kCudaMemcpy, 0, count, CopyKindOf(kind), true,
              dst, src, count, kind);
}

FLOPSPY_EXPORT cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                           cudaMemcpyKind kind, cudaStream_t stream) {
  return Call(FLOPSPY_CALLER(), g_memcpy_async, Api::kCudaMemcpyAsync,
              reinterpret_cast<uint64_t>(stream), count, CopyKindOf(kind), false, dst, src, count,
              kind, stream);
}

FLOPSPY_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count,
                                                cudaMemcpyKind kind, cudaStream_t stream) {
  return Call(FLOPSPY_CALLER(), g_memcpy_async_ptsz, Api::kCudaMemcpyAsyncPtsz,
              reinterpret_cast<uint64_t>(stream), count, CopyKindOf(kind), false, dst, src, count,
              kind, stream);
}
