#include "real_symbols.h"

#include <atomic>

namespace flopspy::interpose {

extern "C" {
// Read by the dlsym stub in hooks_dlsym.cpp: where RTLD_NEXT lookups go, untouched.
__attribute__((visibility("hidden"))) void* flopspy_next_dlsym = nullptr;
}

DlsymFn RealDlsymFunction() {
  static std::atomic<DlsymFn> cached{nullptr};
  DlsymFn f = cached.load(std::memory_order_acquire);
  if (f != nullptr) return f;
  // Versions of dlsym across glibc releases and architectures, newest first.
  for (const char* version :
       {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.3", "GLIBC_2.0"}) {
    f = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", version));
    if (f != nullptr) break;
  }
  if (f != nullptr) {
    cached.store(f, std::memory_order_release);
    __atomic_store_n(&flopspy_next_dlsym, reinterpret_cast<void*>(f), __ATOMIC_RELEASE);
  }
  return f;
}

}  // namespace flopspy::interpose
