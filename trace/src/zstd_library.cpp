#include "zstd_library.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace flopspy::trace {
namespace {

template <class F>
bool Resolve(void* handle, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
  return *out != nullptr;
}

ZstdLibrary Load() {
  ZstdLibrary z;
  void* handle = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return z;
  z.loaded = Resolve(handle, "ZSTD_createCCtx", &z.createCCtx) &&
             Resolve(handle, "ZSTD_freeCCtx", &z.freeCCtx) &&
             Resolve(handle, "ZSTD_compressCCtx", &z.compressCCtx) &&
             Resolve(handle, "ZSTD_compressBound", &z.compressBound) &&
             Resolve(handle, "ZSTD_createDCtx", &z.createDCtx) &&
             Resolve(handle, "ZSTD_freeDCtx", &z.freeDCtx) &&
             Resolve(handle, "ZSTD_decompressDCtx", &z.decompressDCtx) &&
             Resolve(handle, "ZSTD_findFrameCompressedSize", &z.findFrameCompressedSize) &&
             Resolve(handle, "ZSTD_getFrameContentSize", &z.getFrameContentSize) &&
             Resolve(handle, "ZSTD_isError", &z.isError) &&
             Resolve(handle, "ZSTD_getErrorName", &z.getErrorName);
  return z;  // the handle stays open for the process's life
}

// Not a function-local static: its guard would stay taken in a child forked during the load.
enum LoadState : int { kNotLoaded, kLoading, kLoaded };
std::atomic<int> g_state{kNotLoaded};
ZstdLibrary g_library;
const ZstdLibrary kNone;

}  // namespace

const ZstdLibrary& Zstd() {
  for (int waited = 0;; ++waited) {
    int state = g_state.load(std::memory_order_acquire);
    if (state == kLoaded) return g_library;
    if (state == kNotLoaded &&
        g_state.compare_exchange_strong(state, kLoading, std::memory_order_acq_rel)) {
      g_library = Load();
      g_state.store(kLoaded, std::memory_order_release);
      return g_library;
    }
    // Another thread is loading it: a dlopen takes milliseconds; beyond a second, go without.
    if (waited > 1000) return kNone;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void ZstdAfterFork() {
  int loading = kLoading;
  g_state.compare_exchange_strong(loading, kNotLoaded, std::memory_order_acq_rel);
}

}  // namespace flopspy::trace
