// The real dynamic-linker functions. libflopspy.so exports its own `dlsym` (hooks_dlsym.cpp),
// and -Bsymbolic binds the library's own calls to it: code inside flopspy must therefore call
// RealDlsym, never dlsym (a test checks the sources).
#pragma once

#include <dlfcn.h>

namespace flopspy::interpose {

using DlsymFn = void* (*)(void*, const char*);

// glibc's dlsym (or the next preloaded override of it), found with dlvsym.
DlsymFn RealDlsymFunction();

// dlsym without flopspy's wrapping. With RTLD_NEXT it resolves relative to libflopspy.so.
inline void* RealDlsym(void* handle, const char* name) {
  DlsymFn real = RealDlsymFunction();
  return real != nullptr ? real(handle, name) : nullptr;
}

// The next definition of a symbol flopspy interposes (libc's, or another preloaded tool's).
inline void* NextSymbol(const char* name) {
  return RealDlsym(RTLD_NEXT, name);
}

template <class F>
F NextFunction(const char* name) {
  return reinterpret_cast<F>(NextSymbol(name));
}

// Sets `fn` to `name` in `handle` (a dlopen handle of CUPTI or the driver), null when absent.
// Through RealDlsym: flopspy's own dlsym would hand back its wrappers of driver entry points, and
// calls flopspy makes must not be recorded as the program's.
template <class F>
void ResolveInto(F& fn, void* handle, const char* name) {
  fn = reinterpret_cast<F>(RealDlsym(handle, name));
}

}  // namespace flopspy::interpose

// Fills the member `name` of the API table `api` (a pointer in scope) from `handle`.
#define FLOPSPY_RESOLVE(handle, name) ::flopspy::interpose::ResolveInto(api->name, handle, #name)
