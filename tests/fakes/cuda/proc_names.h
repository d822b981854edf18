// The base names the fake driver's cuGetProcAddress answers for, with the oldest cudaVersion
// that knows each, and the exported name each base maps to. The exported names are not written
// here: proc_names_legacy.cpp and proc_names_per_thread.cpp take them from cuda.h's own macros
// (cuMemcpyHtoD -> cuMemcpyHtoD_v2 or cuMemcpyHtoD_v2_ptds, cuLaunchKernel -> cuLaunchKernel or
// cuLaunchKernel_ptsz), compiled without and with CUDA_API_PER_THREAD_DEFAULT_STREAM, so the
// fake hands out what a program compiled against these headers would have called.
#pragma once

// clang-format off
#define FAKECUDA_PROC_BASES(X) \
  X(cuInit, 2000) X(cuDriverGetVersion, 2020) \
  X(cuLaunchKernel, 4000) X(cuLaunchKernelEx, 11060) X(cuLaunchCooperativeKernel, 9000) \
  X(cuGraphLaunch, 10000) \
  X(cuStreamBeginCapture, 10010) X(cuStreamBeginCaptureToGraph, 12030) X(cuStreamEndCapture, 10000) \
  X(cuGraphInstantiateWithFlags, 11040) X(cuGraphInstantiateWithParams, 12000) \
  X(cuGraphExecUpdate, 12000) X(cuGraphAddKernelNode, 12000) X(cuGraphAddNode, 12030) \
  X(cuGraphKernelNodeSetParams, 12000) X(cuGraphExecKernelNodeSetParams, 12000) \
  X(cuGraphExecDestroy, 10000) X(cuGraphDestroy, 10000) \
  X(cuStreamSynchronize, 2000) X(cuEventSynchronize, 2000) X(cuStreamWaitEvent, 3020) \
  X(cuMemcpyHtoD, 3020) X(cuMemcpyDtoH, 3020) X(cuMemcpyDtoD, 3020) \
  X(cuMemcpyHtoDAsync, 3020) X(cuMemcpyDtoHAsync, 3020) X(cuMemcpyDtoDAsync, 3020) \
  X(cuMemcpy, 4000) X(cuMemcpyAsync, 4000) X(cuMemcpyPeer, 4000) X(cuMemcpyPeerAsync, 4000) \
  X(cuMemcpy2D, 3020) X(cuMemcpy2DAsync, 3020) X(cuMemcpy3D, 3020) X(cuMemcpy3DAsync, 3020) \
  X(cuMemsetD8, 3020) X(cuMemsetD16, 3020) X(cuMemsetD32, 3020) \
  X(cuMemsetD8Async, 3020) X(cuMemsetD16Async, 3020) X(cuMemsetD32Async, 3020) \
  X(cuMemsetD2D8, 3020) X(cuMemsetD2D32, 3020) X(cuMemsetD2D8Async, 3020) X(cuMemsetD2D32Async, 3020) \
  X(cuMemsetD2D16, 3020) X(cuMemsetD2D16Async, 3020) X(cuMemcpy2DUnaligned, 3020) \
  X(cuMemcpy3DPeer, 4000) X(cuMemcpy3DPeerAsync, 4000) \
  X(cuMemcpyDtoA, 3020) X(cuMemcpyAtoD, 3020) X(cuMemcpyHtoA, 3020) X(cuMemcpyAtoH, 3020) \
  X(cuMemcpyAtoA, 3020) X(cuMemcpyHtoAAsync, 3020) X(cuMemcpyAtoHAsync, 3020) \
  X(cuFuncGetName, 12030) X(cuKernelGetName, 12030) \
  X(cuFuncGetParamInfo, 12040) X(cuKernelGetParamInfo, 12040) \
  X(cuModuleLoadData, 2000) X(cuModuleGetFunction, 2000) \
  X(cuLibraryLoadData, 12000) X(cuLibraryGetKernel, 12000) X(cuKernelGetFunction, 12000) \
  X(cuMemAlloc, 3020) X(cuMemFree, 3020) X(cuStreamCreate, 2000) X(cuStreamDestroy, 4000) \
  X(cuGetErrorString, 6000) X(cuGetErrorName, 6000) \
  X(cuDeviceGetCount, 2000) X(cuDeviceGet, 2000) X(cuDevicePrimaryCtxRetain, 7000) \
  X(cuDevicePrimaryCtxRelease, 11000) X(cuCtxGetCurrent, 4000) X(cuCtxSetCurrent, 4000) \
  X(cuCtxGetDevice, 2000)
// clang-format on

namespace fakecuda {

struct ProcName {
  const char* base;
  const char* exported;
  int min_version;
};

// Terminated by an entry with base == nullptr.
extern const ProcName kLegacyProcNames[];
extern const ProcName kPerThreadProcNames[];

}  // namespace fakecuda
