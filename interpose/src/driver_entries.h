// The CUDA driver functions flopspy wraps, one line each:
//   X(Id, base name (cuGetProcAddress), exported name (libcuda.so), function type, per-thread
//     stream form, trace::Api, kind of wrapper, copy kind, may block the CPU, (parameters), (args))
// Exported names follow cuda.h: _v2 ABIs for copies and sets, _ptds for per-thread synchronous
// copies, _ptsz for per-thread stream-ordered calls (docs/cuda-notes.md, "Driver ABIs and exported
// names"). The function type is cudaTypedefs.h's PFN_<base>_v<version>: the version is the
// cudaVersion from which cuGetProcAddress hands out that ABI, and where one base name has two ABIs
// (cuCtxSynchronize, the batch copies) a lookup gets the newest one not newer than the version it
// asks for.
//
// The cuMemcpy* and cuMemsetD* families are complete for every ABI from CUDA 3.2 on (the
// DriverTable tests of tests/launch/launch_test.cpp check the table against cuda.h and
// cudaTypedefs.h); the 32-bit ABIs older than 3.2 (PFN_..._v2000) are not wrapped: a lookup of
// one is passed through.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

// The Graph entries (graph_hooks.h) build, instantiate, update and destroy CUDA graphs: the
// trace records what each graph runs (docs/cuda-graphs.md).
//
// cuda.h maps these to the CUDA 13.0 ABI (_v2); the table also wraps the CUDA 12.8 ABI the bare
// names export.
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync

// clang-format off
#define FLOPSPY_DRIVER_ENTRIES(X) \
  X(LaunchKernel, "cuLaunchKernel", cuLaunchKernel, PFN_cuLaunchKernel_v4000, false, kCuLaunchKernel, Launch, kUnknown, false, \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s, void** p, void** e), \
    (f, gx, gy, gz, bx, by, bz, smem, s, p, e)) \
  X(LaunchKernelPtsz, "cuLaunchKernel", cuLaunchKernel_ptsz, PFN_cuLaunchKernel_v7000_ptsz, true, kCuLaunchKernelPtsz, Launch, kUnknown, false, \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s, void** p, void** e), \
    (f, gx, gy, gz, bx, by, bz, smem, s, p, e)) \
  X(LaunchKernelEx, "cuLaunchKernelEx", cuLaunchKernelEx, PFN_cuLaunchKernelEx_v11060, false, kCuLaunchKernelEx, LaunchEx, kUnknown, false, \
    (const CUlaunchConfig* c, CUfunction f, void** p, void** e), (c, f, p, e)) \
  X(LaunchKernelExPtsz, "cuLaunchKernelEx", cuLaunchKernelEx_ptsz, PFN_cuLaunchKernelEx_v11060_ptsz, true, kCuLaunchKernelExPtsz, LaunchEx, kUnknown, false, \
    (const CUlaunchConfig* c, CUfunction f, void** p, void** e), (c, f, p, e)) \
  X(LaunchCooperativeKernel, "cuLaunchCooperativeKernel", cuLaunchCooperativeKernel, PFN_cuLaunchCooperativeKernel_v9000, false, kCuLaunchCooperativeKernel, Cooperative, kUnknown, false, \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s, void** p), \
    (f, gx, gy, gz, bx, by, bz, smem, s, p)) \
  X(LaunchCooperativeKernelPtsz, "cuLaunchCooperativeKernel", cuLaunchCooperativeKernel_ptsz, PFN_cuLaunchCooperativeKernel_v9000_ptsz, true, kCuLaunchCooperativeKernelPtsz, Cooperative, kUnknown, false, \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s, void** p), \
    (f, gx, gy, gz, bx, by, bz, smem, s, p)) \
  X(GraphLaunch, "cuGraphLaunch", cuGraphLaunch, PFN_cuGraphLaunch_v10000, false, kCuGraphLaunch, Api, kUnknown, false, \
    (CUgraphExec g, CUstream s), (g, s)) \
  X(GraphLaunchPtsz, "cuGraphLaunch", cuGraphLaunch_ptsz, PFN_cuGraphLaunch_v10000_ptsz, true, kCuGraphLaunchPtsz, Api, kUnknown, false, \
    (CUgraphExec g, CUstream s), (g, s)) \
  X(StreamBeginCapture, "cuStreamBeginCapture", cuStreamBeginCapture_v2, PFN_cuStreamBeginCapture_v10010, false, kUnknown, Graph, kUnknown, false, \
    (CUstream s, CUstreamCaptureMode m), (s, m)) \
  X(StreamBeginCapturePtsz, "cuStreamBeginCapture", cuStreamBeginCapture_v2_ptsz, PFN_cuStreamBeginCapture_v10010_ptsz, true, kUnknown, Graph, kUnknown, false, \
    (CUstream s, CUstreamCaptureMode m), (s, m)) \
  X(StreamBeginCaptureToGraph, "cuStreamBeginCaptureToGraph", cuStreamBeginCaptureToGraph, PFN_cuStreamBeginCaptureToGraph_v12030, false, kUnknown, Graph, kUnknown, false, \
    (CUstream s, CUgraph g, const CUgraphNode* d, const CUgraphEdgeData* ed, size_t n, CUstreamCaptureMode m), (s, g, d, ed, n, m)) \
  X(StreamBeginCaptureToGraphPtsz, "cuStreamBeginCaptureToGraph", cuStreamBeginCaptureToGraph_ptsz, PFN_cuStreamBeginCaptureToGraph_v12030_ptsz, true, kUnknown, Graph, kUnknown, false, \
    (CUstream s, CUgraph g, const CUgraphNode* d, const CUgraphEdgeData* ed, size_t n, CUstreamCaptureMode m), (s, g, d, ed, n, m)) \
  X(StreamEndCapture, "cuStreamEndCapture", cuStreamEndCapture, PFN_cuStreamEndCapture_v10000, false, kUnknown, Graph, kUnknown, false, \
    (CUstream s, CUgraph* g), (s, g)) \
  X(StreamEndCapturePtsz, "cuStreamEndCapture", cuStreamEndCapture_ptsz, PFN_cuStreamEndCapture_v10000_ptsz, true, kUnknown, Graph, kUnknown, false, \
    (CUstream s, CUgraph* g), (s, g)) \
  X(GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", cuGraphInstantiateWithFlags, PFN_cuGraphInstantiateWithFlags_v11040, false, kUnknown, Graph, kUnknown, false, \
    (CUgraphExec* e, CUgraph g, unsigned long long f), (e, g, f)) \
  X(GraphInstantiateWithParams, "cuGraphInstantiateWithParams", cuGraphInstantiateWithParams, PFN_cuGraphInstantiateWithParams_v12000, false, kUnknown, Graph, kUnknown, false, \
    (CUgraphExec* e, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS* p), (e, g, p)) \
  X(GraphInstantiateWithParamsPtsz, "cuGraphInstantiateWithParams", cuGraphInstantiateWithParams_ptsz, PFN_cuGraphInstantiateWithParams_v12000_ptsz, true, kUnknown, Graph, kUnknown, false, \
    (CUgraphExec* e, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS* p), (e, g, p)) \
  X(GraphExecUpdate, "cuGraphExecUpdate", cuGraphExecUpdate_v2, PFN_cuGraphExecUpdate_v12000, false, kUnknown, Graph, kUnknown, false, \
    (CUgraphExec e, CUgraph g, CUgraphExecUpdateResultInfo* r), (e, g, r)) \
  X(GraphAddKernelNode, "cuGraphAddKernelNode", cuGraphAddKernelNode_v2, PFN_cuGraphAddKernelNode_v12000, false, kCuGraphAddKernelNode, Graph, kUnknown, false, \
    (CUgraphNode* n, CUgraph g, const CUgraphNode* d, size_t c, const CUDA_KERNEL_NODE_PARAMS* p), (n, g, d, c, p)) \
  X(GraphAddNode, "cuGraphAddNode", cuGraphAddNode_v2, PFN_cuGraphAddNode_v12030, false, kCuGraphAddNode, Graph, kUnknown, false, \
    (CUgraphNode* n, CUgraph g, const CUgraphNode* d, const CUgraphEdgeData* ed, size_t c, CUgraphNodeParams* p), (n, g, d, ed, c, p)) \
  X(GraphKernelNodeSetParams, "cuGraphKernelNodeSetParams", cuGraphKernelNodeSetParams_v2, PFN_cuGraphKernelNodeSetParams_v12000, false, kCuGraphKernelNodeSetParams, Graph, kUnknown, false, \
    (CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS* p), (n, p)) \
  X(GraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams", cuGraphExecKernelNodeSetParams_v2, PFN_cuGraphExecKernelNodeSetParams_v12000, false, kCuGraphExecKernelNodeSetParams, Graph, kUnknown, false, \
    (CUgraphExec e, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS* p), (e, n, p)) \
  X(GraphExecDestroy, "cuGraphExecDestroy", cuGraphExecDestroy, PFN_cuGraphExecDestroy_v10000, false, kUnknown, Graph, kUnknown, false, \
    (CUgraphExec e), (e)) \
  X(GraphDestroy, "cuGraphDestroy", cuGraphDestroy, PFN_cuGraphDestroy_v10000, false, kUnknown, Graph, kUnknown, false, \
    (CUgraph g), (g)) \
  X(CtxSynchronize, "cuCtxSynchronize", cuCtxSynchronize, PFN_cuCtxSynchronize_v2000, false, kCuCtxSynchronize, Api, kUnknown, true, \
    (void), ()) \
  X(CtxSynchronizeV2, "cuCtxSynchronize", cuCtxSynchronize_v2, PFN_cuCtxSynchronize_v13000, false, kCuCtxSynchronize, Api, kUnknown, true, \
    (CUcontext c), (c)) \
  X(StreamSynchronize, "cuStreamSynchronize", cuStreamSynchronize, PFN_cuStreamSynchronize_v2000, false, kCuStreamSynchronize, Api, kUnknown, true, \
    (CUstream s), (s)) \
  X(StreamSynchronizePtsz, "cuStreamSynchronize", cuStreamSynchronize_ptsz, PFN_cuStreamSynchronize_v7000_ptsz, true, kCuStreamSynchronizePtsz, Api, kUnknown, true, \
    (CUstream s), (s)) \
  X(EventSynchronize, "cuEventSynchronize", cuEventSynchronize, PFN_cuEventSynchronize_v2000, false, kCuEventSynchronize, Api, kUnknown, true, \
    (CUevent ev), (ev)) \
  X(StreamWaitEvent, "cuStreamWaitEvent", cuStreamWaitEvent, PFN_cuStreamWaitEvent_v3020, false, kCuStreamWaitEvent, Api, kUnknown, false, \
    (CUstream s, CUevent ev, unsigned flags), (s, ev, flags)) \
  X(StreamWaitEventPtsz, "cuStreamWaitEvent", cuStreamWaitEvent_ptsz, PFN_cuStreamWaitEvent_v7000_ptsz, true, kCuStreamWaitEventPtsz, Api, kUnknown, false, \
    (CUstream s, CUevent ev, unsigned flags), (s, ev, flags)) \
  X(MemcpyHtoD, "cuMemcpyHtoD", cuMemcpyHtoD_v2, PFN_cuMemcpyHtoD_v3020, false, kCuMemcpy, Api, kHostToDevice, true, \
    (CUdeviceptr d, const void* h, size_t n), (d, h, n)) \
  X(MemcpyHtoDPtds, "cuMemcpyHtoD", cuMemcpyHtoD_v2_ptds, PFN_cuMemcpyHtoD_v7000_ptds, true, kCuMemcpy, Api, kHostToDevice, true, \
    (CUdeviceptr d, const void* h, size_t n), (d, h, n)) \
  X(MemcpyDtoH, "cuMemcpyDtoH", cuMemcpyDtoH_v2, PFN_cuMemcpyDtoH_v3020, false, kCuMemcpy, Api, kDeviceToHost, true, \
    (void* h, CUdeviceptr d, size_t n), (h, d, n)) \
  X(MemcpyDtoHPtds, "cuMemcpyDtoH", cuMemcpyDtoH_v2_ptds, PFN_cuMemcpyDtoH_v7000_ptds, true, kCuMemcpy, Api, kDeviceToHost, true, \
    (void* h, CUdeviceptr d, size_t n), (h, d, n)) \
  X(MemcpyDtoD, "cuMemcpyDtoD", cuMemcpyDtoD_v2, PFN_cuMemcpyDtoD_v3020, false, kCuMemcpy, Api, kDeviceToDevice, true, \
    (CUdeviceptr d, CUdeviceptr src, size_t n), (d, src, n)) \
  X(MemcpyDtoDPtds, "cuMemcpyDtoD", cuMemcpyDtoD_v2_ptds, PFN_cuMemcpyDtoD_v7000_ptds, true, kCuMemcpy, Api, kDeviceToDevice, true, \
    (CUdeviceptr d, CUdeviceptr src, size_t n), (d, src, n)) \
  X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync", cuMemcpyHtoDAsync_v2, PFN_cuMemcpyHtoDAsync_v3020, false, kCuMemcpyAsync, Api, kHostToDevice, false, \
    (CUdeviceptr d, const void* h, size_t n, CUstream s), (d, h, n, s)) \
  X(MemcpyHtoDAsyncPtsz, "cuMemcpyHtoDAsync", cuMemcpyHtoDAsync_v2_ptsz, PFN_cuMemcpyHtoDAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kHostToDevice, false, \
    (CUdeviceptr d, const void* h, size_t n, CUstream s), (d, h, n, s)) \
  X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync", cuMemcpyDtoHAsync_v2, PFN_cuMemcpyDtoHAsync_v3020, false, kCuMemcpyAsync, Api, kDeviceToHost, false, \
    (void* h, CUdeviceptr d, size_t n, CUstream s), (h, d, n, s)) \
  X(MemcpyDtoHAsyncPtsz, "cuMemcpyDtoHAsync", cuMemcpyDtoHAsync_v2_ptsz, PFN_cuMemcpyDtoHAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kDeviceToHost, false, \
    (void* h, CUdeviceptr d, size_t n, CUstream s), (h, d, n, s)) \
  X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync", cuMemcpyDtoDAsync_v2, PFN_cuMemcpyDtoDAsync_v3020, false, kCuMemcpyAsync, Api, kDeviceToDevice, false, \
    (CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s), (d, src, n, s)) \
  X(MemcpyDtoDAsyncPtsz, "cuMemcpyDtoDAsync", cuMemcpyDtoDAsync_v2_ptsz, PFN_cuMemcpyDtoDAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kDeviceToDevice, false, \
    (CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s), (d, src, n, s)) \
  X(Memcpy, "cuMemcpy", cuMemcpy, PFN_cuMemcpy_v4000, false, kCuMemcpy, Api, kDefault, true, \
    (CUdeviceptr d, CUdeviceptr src, size_t n), (d, src, n)) \
  X(MemcpyPtds, "cuMemcpy", cuMemcpy_ptds, PFN_cuMemcpy_v7000_ptds, true, kCuMemcpy, Api, kDefault, true, \
    (CUdeviceptr d, CUdeviceptr src, size_t n), (d, src, n)) \
  X(MemcpyAsync, "cuMemcpyAsync", cuMemcpyAsync, PFN_cuMemcpyAsync_v4000, false, kCuMemcpyAsync, Api, kDefault, false, \
    (CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s), (d, src, n, s)) \
  X(MemcpyAsyncPtsz, "cuMemcpyAsync", cuMemcpyAsync_ptsz, PFN_cuMemcpyAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kDefault, false, \
    (CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s), (d, src, n, s)) \
  X(MemcpyPeer, "cuMemcpyPeer", cuMemcpyPeer, PFN_cuMemcpyPeer_v4000, false, kCuMemcpy, Api, kPeer, true, \
    (CUdeviceptr d, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n), (d, dc, src, sc, n)) \
  X(MemcpyPeerPtds, "cuMemcpyPeer", cuMemcpyPeer_ptds, PFN_cuMemcpyPeer_v7000_ptds, true, kCuMemcpy, Api, kPeer, true, \
    (CUdeviceptr d, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n), (d, dc, src, sc, n)) \
  X(MemcpyPeerAsync, "cuMemcpyPeerAsync", cuMemcpyPeerAsync, PFN_cuMemcpyPeerAsync_v4000, false, kCuMemcpyAsync, Api, kPeer, false, \
    (CUdeviceptr d, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s), (d, dc, src, sc, n, s)) \
  X(MemcpyPeerAsyncPtsz, "cuMemcpyPeerAsync", cuMemcpyPeerAsync_ptsz, PFN_cuMemcpyPeerAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kPeer, false, \
    (CUdeviceptr d, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s), (d, dc, src, sc, n, s)) \
  X(Memcpy2D, "cuMemcpy2D", cuMemcpy2D_v2, PFN_cuMemcpy2D_v3020, false, kCuMemcpy, Api, kUnknown, true, \
    (const CUDA_MEMCPY2D* c), (c)) \
  X(Memcpy2DPtds, "cuMemcpy2D", cuMemcpy2D_v2_ptds, PFN_cuMemcpy2D_v7000_ptds, true, kCuMemcpy, Api, kUnknown, true, \
    (const CUDA_MEMCPY2D* c), (c)) \
  X(Memcpy2DAsync, "cuMemcpy2DAsync", cuMemcpy2DAsync_v2, PFN_cuMemcpy2DAsync_v3020, false, kCuMemcpyAsync, Api, kUnknown, false, \
    (const CUDA_MEMCPY2D* c, CUstream s), (c, s)) \
  X(Memcpy2DAsyncPtsz, "cuMemcpy2DAsync", cuMemcpy2DAsync_v2_ptsz, PFN_cuMemcpy2DAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kUnknown, false, \
    (const CUDA_MEMCPY2D* c, CUstream s), (c, s)) \
  X(Memcpy3D, "cuMemcpy3D", cuMemcpy3D_v2, PFN_cuMemcpy3D_v3020, false, kCuMemcpy, Api, kUnknown, true, \
    (const CUDA_MEMCPY3D* c), (c)) \
  X(Memcpy3DPtds, "cuMemcpy3D", cuMemcpy3D_v2_ptds, PFN_cuMemcpy3D_v7000_ptds, true, kCuMemcpy, Api, kUnknown, true, \
    (const CUDA_MEMCPY3D* c), (c)) \
  X(Memcpy3DAsync, "cuMemcpy3DAsync", cuMemcpy3DAsync_v2, PFN_cuMemcpy3DAsync_v3020, false, kCuMemcpyAsync, Api, kUnknown, false, \
    (const CUDA_MEMCPY3D* c, CUstream s), (c, s)) \
  X(Memcpy3DAsyncPtsz, "cuMemcpy3DAsync", cuMemcpy3DAsync_v2_ptsz, PFN_cuMemcpy3DAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kUnknown, false, \
    (const CUDA_MEMCPY3D* c, CUstream s), (c, s)) \
  X(MemsetD8, "cuMemsetD8", cuMemsetD8_v2, PFN_cuMemsetD8_v3020, false, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, unsigned char v, size_t n), (d, v, n)) \
  X(MemsetD8Ptds, "cuMemsetD8", cuMemsetD8_v2_ptds, PFN_cuMemsetD8_v7000_ptds, true, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, unsigned char v, size_t n), (d, v, n)) \
  X(MemsetD16, "cuMemsetD16", cuMemsetD16_v2, PFN_cuMemsetD16_v3020, false, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, unsigned short v, size_t n), (d, v, n)) \
  X(MemsetD16Ptds, "cuMemsetD16", cuMemsetD16_v2_ptds, PFN_cuMemsetD16_v7000_ptds, true, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, unsigned short v, size_t n), (d, v, n)) \
  X(MemsetD32, "cuMemsetD32", cuMemsetD32_v2, PFN_cuMemsetD32_v3020, false, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, unsigned int v, size_t n), (d, v, n)) \
  X(MemsetD32Ptds, "cuMemsetD32", cuMemsetD32_v2_ptds, PFN_cuMemsetD32_v7000_ptds, true, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, unsigned int v, size_t n), (d, v, n)) \
  X(MemsetD8Async, "cuMemsetD8Async", cuMemsetD8Async, PFN_cuMemsetD8Async_v3020, false, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, unsigned char v, size_t n, CUstream s), (d, v, n, s)) \
  X(MemsetD8AsyncPtsz, "cuMemsetD8Async", cuMemsetD8Async_ptsz, PFN_cuMemsetD8Async_v7000_ptsz, true, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, unsigned char v, size_t n, CUstream s), (d, v, n, s)) \
  X(MemsetD16Async, "cuMemsetD16Async", cuMemsetD16Async, PFN_cuMemsetD16Async_v3020, false, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, unsigned short v, size_t n, CUstream s), (d, v, n, s)) \
  X(MemsetD16AsyncPtsz, "cuMemsetD16Async", cuMemsetD16Async_ptsz, PFN_cuMemsetD16Async_v7000_ptsz, true, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, unsigned short v, size_t n, CUstream s), (d, v, n, s)) \
  X(MemsetD32Async, "cuMemsetD32Async", cuMemsetD32Async, PFN_cuMemsetD32Async_v3020, false, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, unsigned int v, size_t n, CUstream s), (d, v, n, s)) \
  X(MemsetD32AsyncPtsz, "cuMemsetD32Async", cuMemsetD32Async_ptsz, PFN_cuMemsetD32Async_v7000_ptsz, true, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, unsigned int v, size_t n, CUstream s), (d, v, n, s)) \
  X(MemsetD2D8, "cuMemsetD2D8", cuMemsetD2D8_v2, PFN_cuMemsetD2D8_v3020, false, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h), (d, pitch, v, w, h)) \
  X(MemsetD2D8Ptds, "cuMemsetD2D8", cuMemsetD2D8_v2_ptds, PFN_cuMemsetD2D8_v7000_ptds, true, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h), (d, pitch, v, w, h)) \
  X(MemsetD2D32, "cuMemsetD2D32", cuMemsetD2D32_v2, PFN_cuMemsetD2D32_v3020, false, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h), (d, pitch, v, w, h)) \
  X(MemsetD2D32Ptds, "cuMemsetD2D32", cuMemsetD2D32_v2_ptds, PFN_cuMemsetD2D32_v7000_ptds, true, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h), (d, pitch, v, w, h)) \
  X(MemsetD2D8Async, "cuMemsetD2D8Async", cuMemsetD2D8Async, PFN_cuMemsetD2D8Async_v3020, false, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s)) \
  X(MemsetD2D8AsyncPtsz, "cuMemsetD2D8Async", cuMemsetD2D8Async_ptsz, PFN_cuMemsetD2D8Async_v7000_ptsz, true, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s)) \
  X(MemsetD2D32Async, "cuMemsetD2D32Async", cuMemsetD2D32Async, PFN_cuMemsetD2D32Async_v3020, false, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s)) \
  X(MemsetD2D32AsyncPtsz, "cuMemsetD2D32Async", cuMemsetD2D32Async_ptsz, PFN_cuMemsetD2D32Async_v7000_ptsz, true, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s)) \
  X(MemsetD2D16, "cuMemsetD2D16", cuMemsetD2D16_v2, PFN_cuMemsetD2D16_v3020, false, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h), (d, pitch, v, w, h)) \
  X(MemsetD2D16Ptds, "cuMemsetD2D16", cuMemsetD2D16_v2_ptds, PFN_cuMemsetD2D16_v7000_ptds, true, kCuMemset, Api, kUnknown, true, \
    (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h), (d, pitch, v, w, h)) \
  X(MemsetD2D16Async, "cuMemsetD2D16Async", cuMemsetD2D16Async, PFN_cuMemsetD2D16Async_v3020, false, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s)) \
  X(MemsetD2D16AsyncPtsz, "cuMemsetD2D16Async", cuMemsetD2D16Async_ptsz, PFN_cuMemsetD2D16Async_v7000_ptsz, true, kCuMemsetAsync, Api, kUnknown, false, \
    (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h, CUstream s), (d, pitch, v, w, h, s)) \
  X(Memcpy2DUnaligned, "cuMemcpy2DUnaligned", cuMemcpy2DUnaligned_v2, PFN_cuMemcpy2DUnaligned_v3020, false, kCuMemcpy, Api, kUnknown, true, \
    (const CUDA_MEMCPY2D* c), (c)) \
  X(Memcpy2DUnalignedPtds, "cuMemcpy2DUnaligned", cuMemcpy2DUnaligned_v2_ptds, PFN_cuMemcpy2DUnaligned_v7000_ptds, true, kCuMemcpy, Api, kUnknown, true, \
    (const CUDA_MEMCPY2D* c), (c)) \
  X(Memcpy3DPeer, "cuMemcpy3DPeer", cuMemcpy3DPeer, PFN_cuMemcpy3DPeer_v4000, false, kCuMemcpy, Api, kPeer, true, \
    (const CUDA_MEMCPY3D_PEER* c), (c)) \
  X(Memcpy3DPeerPtds, "cuMemcpy3DPeer", cuMemcpy3DPeer_ptds, PFN_cuMemcpy3DPeer_v7000_ptds, true, kCuMemcpy, Api, kPeer, true, \
    (const CUDA_MEMCPY3D_PEER* c), (c)) \
  X(Memcpy3DPeerAsync, "cuMemcpy3DPeerAsync", cuMemcpy3DPeerAsync, PFN_cuMemcpy3DPeerAsync_v4000, false, kCuMemcpyAsync, Api, kPeer, false, \
    (const CUDA_MEMCPY3D_PEER* c, CUstream s), (c, s)) \
  X(Memcpy3DPeerAsyncPtsz, "cuMemcpy3DPeerAsync", cuMemcpy3DPeerAsync_ptsz, PFN_cuMemcpy3DPeerAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kPeer, false, \
    (const CUDA_MEMCPY3D_PEER* c, CUstream s), (c, s)) \
  X(MemcpyDtoA, "cuMemcpyDtoA", cuMemcpyDtoA_v2, PFN_cuMemcpyDtoA_v3020, false, kCuMemcpy, Api, kDeviceToDevice, true, \
    (CUarray a, size_t offset, CUdeviceptr src, size_t n), (a, offset, src, n)) \
  X(MemcpyDtoAPtds, "cuMemcpyDtoA", cuMemcpyDtoA_v2_ptds, PFN_cuMemcpyDtoA_v7000_ptds, true, kCuMemcpy, Api, kDeviceToDevice, true, \
    (CUarray a, size_t offset, CUdeviceptr src, size_t n), (a, offset, src, n)) \
  X(MemcpyAtoD, "cuMemcpyAtoD", cuMemcpyAtoD_v2, PFN_cuMemcpyAtoD_v3020, false, kCuMemcpy, Api, kDeviceToDevice, true, \
    (CUdeviceptr d, CUarray a, size_t offset, size_t n), (d, a, offset, n)) \
  X(MemcpyAtoDPtds, "cuMemcpyAtoD", cuMemcpyAtoD_v2_ptds, PFN_cuMemcpyAtoD_v7000_ptds, true, kCuMemcpy, Api, kDeviceToDevice, true, \
    (CUdeviceptr d, CUarray a, size_t offset, size_t n), (d, a, offset, n)) \
  X(MemcpyHtoA, "cuMemcpyHtoA", cuMemcpyHtoA_v2, PFN_cuMemcpyHtoA_v3020, false, kCuMemcpy, Api, kHostToDevice, true, \
    (CUarray a, size_t offset, const void* h, size_t n), (a, offset, h, n)) \
  X(MemcpyHtoAPtds, "cuMemcpyHtoA", cuMemcpyHtoA_v2_ptds, PFN_cuMemcpyHtoA_v7000_ptds, true, kCuMemcpy, Api, kHostToDevice, true, \
    (CUarray a, size_t offset, const void* h, size_t n), (a, offset, h, n)) \
  X(MemcpyAtoH, "cuMemcpyAtoH", cuMemcpyAtoH_v2, PFN_cuMemcpyAtoH_v3020, false, kCuMemcpy, Api, kDeviceToHost, true, \
    (void* h, CUarray a, size_t offset, size_t n), (h, a, offset, n)) \
  X(MemcpyAtoHPtds, "cuMemcpyAtoH", cuMemcpyAtoH_v2_ptds, PFN_cuMemcpyAtoH_v7000_ptds, true, kCuMemcpy, Api, kDeviceToHost, true, \
    (void* h, CUarray a, size_t offset, size_t n), (h, a, offset, n)) \
  X(MemcpyAtoA, "cuMemcpyAtoA", cuMemcpyAtoA_v2, PFN_cuMemcpyAtoA_v3020, false, kCuMemcpy, Api, kDeviceToDevice, true, \
    (CUarray a, size_t offset, CUarray src, size_t src_offset, size_t n), (a, offset, src, src_offset, n)) \
  X(MemcpyAtoAPtds, "cuMemcpyAtoA", cuMemcpyAtoA_v2_ptds, PFN_cuMemcpyAtoA_v7000_ptds, true, kCuMemcpy, Api, kDeviceToDevice, true, \
    (CUarray a, size_t offset, CUarray src, size_t src_offset, size_t n), (a, offset, src, src_offset, n)) \
  X(MemcpyHtoAAsync, "cuMemcpyHtoAAsync", cuMemcpyHtoAAsync_v2, PFN_cuMemcpyHtoAAsync_v3020, false, kCuMemcpyAsync, Api, kHostToDevice, false, \
    (CUarray a, size_t offset, const void* h, size_t n, CUstream s), (a, offset, h, n, s)) \
  X(MemcpyHtoAAsyncPtsz, "cuMemcpyHtoAAsync", cuMemcpyHtoAAsync_v2_ptsz, PFN_cuMemcpyHtoAAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kHostToDevice, false, \
    (CUarray a, size_t offset, const void* h, size_t n, CUstream s), (a, offset, h, n, s)) \
  X(MemcpyAtoHAsync, "cuMemcpyAtoHAsync", cuMemcpyAtoHAsync_v2, PFN_cuMemcpyAtoHAsync_v3020, false, kCuMemcpyAsync, Api, kDeviceToHost, false, \
    (void* h, CUarray a, size_t offset, size_t n, CUstream s), (h, a, offset, n, s)) \
  X(MemcpyAtoHAsyncPtsz, "cuMemcpyAtoHAsync", cuMemcpyAtoHAsync_v2_ptsz, PFN_cuMemcpyAtoHAsync_v7000_ptsz, true, kCuMemcpyAsync, Api, kDeviceToHost, false, \
    (void* h, CUarray a, size_t offset, size_t n, CUstream s), (h, a, offset, n, s)) \
  X(MemcpyBatchAsyncV12080, "cuMemcpyBatchAsync", cuMemcpyBatchAsync, PFN_cuMemcpyBatchAsync_v12080, false, kCuMemcpyAsync, Api, kDefault, false, \
    (CUdeviceptr* d, CUdeviceptr* src, size_t* sizes, size_t count, CUmemcpyAttributes* attrs, size_t* attr_index, size_t attr_count, size_t* fail, CUstream s), \
    (d, src, sizes, count, attrs, attr_index, attr_count, fail, s)) \
  X(MemcpyBatchAsyncV12080Ptsz, "cuMemcpyBatchAsync", cuMemcpyBatchAsync_ptsz, PFN_cuMemcpyBatchAsync_v12080_ptsz, true, kCuMemcpyAsync, Api, kDefault, false, \
    (CUdeviceptr* d, CUdeviceptr* src, size_t* sizes, size_t count, CUmemcpyAttributes* attrs, size_t* attr_index, size_t attr_count, size_t* fail, CUstream s), \
    (d, src, sizes, count, attrs, attr_index, attr_count, fail, s)) \
  X(MemcpyBatchAsync, "cuMemcpyBatchAsync", cuMemcpyBatchAsync_v2, PFN_cuMemcpyBatchAsync_v13000, false, kCuMemcpyAsync, Api, kDefault, false, \
    (CUdeviceptr* d, CUdeviceptr* src, size_t* sizes, size_t count, CUmemcpyAttributes* attrs, size_t* attr_index, size_t attr_count, CUstream s), \
    (d, src, sizes, count, attrs, attr_index, attr_count, s)) \
  X(MemcpyBatchAsyncPtsz, "cuMemcpyBatchAsync", cuMemcpyBatchAsync_v2_ptsz, PFN_cuMemcpyBatchAsync_v13000_ptsz, true, kCuMemcpyAsync, Api, kDefault, false, \
    (CUdeviceptr* d, CUdeviceptr* src, size_t* sizes, size_t count, CUmemcpyAttributes* attrs, size_t* attr_index, size_t attr_count, CUstream s), \
    (d, src, sizes, count, attrs, attr_index, attr_count, s)) \
  X(Memcpy3DBatchAsyncV12080, "cuMemcpy3DBatchAsync", cuMemcpy3DBatchAsync, PFN_cuMemcpy3DBatchAsync_v12080, false, kCuMemcpyAsync, Api, kDefault, false, \
    (size_t count, CUDA_MEMCPY3D_BATCH_OP* ops, size_t* fail, unsigned long long flags, CUstream s), (count, ops, fail, flags, s)) \
  X(Memcpy3DBatchAsyncV12080Ptsz, "cuMemcpy3DBatchAsync", cuMemcpy3DBatchAsync_ptsz, PFN_cuMemcpy3DBatchAsync_v12080_ptsz, true, kCuMemcpyAsync, Api, kDefault, false, \
    (size_t count, CUDA_MEMCPY3D_BATCH_OP* ops, size_t* fail, unsigned long long flags, CUstream s), (count, ops, fail, flags, s)) \
  X(Memcpy3DBatchAsync, "cuMemcpy3DBatchAsync", cuMemcpy3DBatchAsync_v2, PFN_cuMemcpy3DBatchAsync_v13000, false, kCuMemcpyAsync, Api, kDefault, false, \
    (size_t count, CUDA_MEMCPY3D_BATCH_OP* ops, unsigned long long flags, CUstream s), (count, ops, flags, s)) \
  X(Memcpy3DBatchAsyncPtsz, "cuMemcpy3DBatchAsync", cuMemcpy3DBatchAsync_v2_ptsz, PFN_cuMemcpy3DBatchAsync_v13000_ptsz, true, kCuMemcpyAsync, Api, kDefault, false, \
    (size_t count, CUDA_MEMCPY3D_BATCH_OP* ops, unsigned long long flags, CUstream s), (count, ops, flags, s))
// clang-format on
