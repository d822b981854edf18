// (e): the CUDA-using code lives in a shared library the program opens with
// dlopen(RTLD_LOCAL), as Python opens extension modules. That library links libcudart (and a
// helper library); neither is in the global scope, so RTLD_NEXT from libflopspy.so cannot see
// them (docs/cuda-notes.md, "Finding the copy the program loaded").
#include <dlfcn.h>

#include <cstdio>

#include "app_util.h"

// local_app EXT...: opens each extension RTLD_LOCAL and runs it, in order.
int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    void* ext = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (ext == nullptr) {
      std::printf("dlopen failed: %s\n", dlerror());
      return 10;
    }
    const auto run = reinterpret_cast<int (*)()>(dlsym(ext, "ext_run"));
    if (run == nullptr) return 11;
    std::printf("== %s\n", i == 1 ? "first extension" : "next extension");
    status |= run();
  }
  launchtest::PrintFakeReports();
  return status;
}
