#include "zstd_library.h"

#include <dlfcn.h>

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

}  // namespace

const ZstdLibrary& Zstd() {
  static const ZstdLibrary library = Load();
  return library;
}

}  // namespace flopspy::trace
