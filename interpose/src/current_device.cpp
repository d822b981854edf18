#include "current_device.h"

#include <algorithm>

#include "caller_resolver.h"
#include "library_resolver.h"

namespace flopspy::interpose {

thread_local ThreadContext tls_context __attribute__((tls_model("initial-exec")));
std::atomic<CtxGetCurrentFn> g_ctx_get_current{nullptr};

namespace {

std::atomic<CtxGetDeviceFn> g_ctx_get_device{nullptr};
std::atomic<uint32_t> g_misses{0};

void* DriverSymbol(const void* driver_function, const char* name) {
  if (driver_function != nullptr) {
    if (void* beside = ResolveBeside(driver_function, name)) return beside;
  }
  return ResolveReal(CudaLibrary::kDriver, name);
}

}  // namespace

int16_t CurrentDeviceResolving(const void* driver_function) {
  // Without a driver every recorded call comes here: look again only at the 1st, 2nd, 4th, 8th...
  // miss, so that a process with no driver pays a lookup a handful of times, not per call.
  const uint32_t miss = g_misses.fetch_add(1, std::memory_order_relaxed) + 1;
  if ((miss & (miss - 1)) != 0) return -1;
  const auto get_current =
      reinterpret_cast<CtxGetCurrentFn>(DriverSymbol(driver_function, "cuCtxGetCurrent"));
  const auto get_device =
      reinterpret_cast<CtxGetDeviceFn>(DriverSymbol(driver_function, "cuCtxGetDevice"));
  if (get_current == nullptr || get_device == nullptr) return -1;
  g_ctx_get_device.store(get_device, std::memory_order_release);
  g_ctx_get_current.store(get_current, std::memory_order_release);
  return CurrentDevice();
}

int16_t DeviceOfNewContext(void* context) {
  const CtxGetDeviceFn get_device = g_ctx_get_device.load(std::memory_order_acquire);
  int device = -1;
  if (get_device == nullptr || get_device(&device) != 0 || device < 0) device = -1;
  // Kept even when the driver could not say: asked again only when the context changes.
  tls_context.context = context;
  tls_context.device = static_cast<int16_t>(std::min(device, int{INT16_MAX}));
  return tls_context.device;
}

}  // namespace flopspy::interpose
