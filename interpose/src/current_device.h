// The device the calling thread's CUDA work goes to: the device of its current context, which is
// where the driver runs a launch, copy, set or synchronisation made without an explicit context,
// and where a cuBLAS handle (bound to the device current at cublasCreate) runs.
//
// Per thread, the last context seen and its device are kept: each call asks the real
// cuCtxGetCurrent (a thread-local read in the driver) and calls cuCtxGetDevice only when the
// context differs from the last one. Function handles are not mapped to devices: a CUDA 12+
// CUkernel is context-independent and launches on whichever device is current.
//
// Limit: a context destroyed and another created at the same address for another device, on a
// thread that used the first, is reported with the first one's device until the thread sees a
// different context.
#pragma once

#include <atomic>
#include <cstdint>

namespace flopspy::interpose {

// The driver's cuCtxGetCurrent and cuCtxGetDevice (CUresult is an int enum; CUcontext a pointer).
using CtxGetCurrentFn = int (*)(void** context);
using CtxGetDeviceFn = int (*)(int* device);

struct ThreadContext {
  void* context = nullptr;  // the last current context this thread saw (nullptr: none yet)
  int16_t device = -1;      // its device
};
extern thread_local ThreadContext tls_context __attribute__((tls_model("initial-exec")));
extern std::atomic<CtxGetCurrentFn> g_ctx_get_current;

// Slow paths: find the driver's functions (`driver_function`, a real driver function the hook
// holds, names the driver copy to ask; nullptr: the loaded libcuda), and ask for the device of a
// context not seen before on this thread.
int16_t CurrentDeviceResolving(const void* driver_function);
int16_t DeviceOfNewContext(void* context);

// The device ordinal of the current context, or -1 (no context, no driver, a driver error).
inline int16_t CurrentDevice(const void* driver_function = nullptr) {
  const CtxGetCurrentFn get = g_ctx_get_current.load(std::memory_order_acquire);
  if (__builtin_expect(get == nullptr, 0)) return CurrentDeviceResolving(driver_function);
  void* context = nullptr;
  if (get(&context) != 0 || context == nullptr) return -1;
  if (__builtin_expect(context == tls_context.context, 1)) return tls_context.device;
  return DeviceOfNewContext(context);
}

}  // namespace flopspy::interpose
