// Helpers shared by the launch test programs: printing results and the fakes' call counters.
// Everything a program prints must be the same with and without libflopspy.so preloaded.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <initializer_list>

namespace launchtest {

inline void Print(const char* what, int result) {
  std::printf("%s -> %d\n", what, result);
}

// The fakes' counters, from whichever fake libraries this process has loaded (found by soname,
// so an RTLD_LOCAL copy is found too).
inline void PrintFakeReports() {
  std::fflush(stdout);
  using Report = void (*)(FILE*);
  if (void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    if (auto report = reinterpret_cast<Report>(dlsym(h, "fakecuda_report"))) report(stdout);
    dlclose(h);
  }
  for (const char* runtime : {"libcudart.so.13", "libcudart.so.12"}) {
    if (void* h = dlopen(runtime, RTLD_NOW | RTLD_NOLOAD)) {
      if (auto report = reinterpret_cast<Report>(dlsym(h, "fakecudart_report"))) report(stdout);
      dlclose(h);
    }
  }
  std::fflush(stdout);
}

}  // namespace launchtest
