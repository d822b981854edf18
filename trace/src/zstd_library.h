// libzstd.so.1, opened at run time on first use (never in a library constructor): libflopspy.so
// is preloaded into programs that did not ask for zstd, and a machine without it still writes
// (uncompressed) traces. Every Debian and Ubuntu system has it (dpkg pre-depends on it).
#pragma once

#include <zstd.h>

namespace flopspy::trace {

struct ZstdLibrary {
  bool loaded = false;
  decltype(&::ZSTD_createCCtx) createCCtx = nullptr;
  decltype(&::ZSTD_freeCCtx) freeCCtx = nullptr;
  decltype(&::ZSTD_compressCCtx) compressCCtx = nullptr;
  decltype(&::ZSTD_compressBound) compressBound = nullptr;
  decltype(&::ZSTD_createDCtx) createDCtx = nullptr;
  decltype(&::ZSTD_freeDCtx) freeDCtx = nullptr;
  decltype(&::ZSTD_decompressDCtx) decompressDCtx = nullptr;
  decltype(&::ZSTD_findFrameCompressedSize) findFrameCompressedSize = nullptr;
  decltype(&::ZSTD_getFrameContentSize) getFrameContentSize = nullptr;
  decltype(&::ZSTD_isError) isError = nullptr;
  decltype(&::ZSTD_getErrorName) getErrorName = nullptr;
};

// The library, resolved once (thread-safe); `loaded` false when it cannot be had.
const ZstdLibrary& Zstd();

// In a fork() child: a load the parent had under way when it forked is started again (its thread
// does not exist here, and waiting for it would wait forever).
void ZstdAfterFork();

}  // namespace flopspy::trace
