// The next definition of a symbol we interpose (libc's, or another preloaded tool's).
#pragma once

#include <dlfcn.h>

namespace flopspy::interpose {

// dlsym(RTLD_NEXT) as seen from this library, so a chain of preloaded tools keeps working.
void* NextSymbol(const char* name);

template <class F>
F NextFunction(const char* name) {
  return reinterpret_cast<F>(NextSymbol(name));
}

}  // namespace flopspy::interpose
