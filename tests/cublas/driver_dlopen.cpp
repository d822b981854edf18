// Runs the client, or several extension modules in turn, each from dlopen(path, RTLD_NOW |
// RTLD_LOCAL) as Python loads an extension module: their libcublas.so.N are then outside the
// global scope, and two modules linked against different copies give one process two copies.
// Exits with the modules' common status (4 if they differ).
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODULE.so...\n", argv[0]);
    return 2;
  }
  int status = -1;
  for (int i = 1; i < argc; ++i) {
    void* module = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
      std::fprintf(stderr, "dlopen: %s\n", dlerror());
      return 2;
    }
    using Main = int (*)();
    auto run = reinterpret_cast<Main>(dlsym(module, "flopspy_cublas_client_main"));
    if (run == nullptr) {
      std::fprintf(stderr, "dlsym: %s\n", dlerror());
      return 2;
    }
    if (argc > 2) std::printf("== module %d\n", i);
    const int s = run();
    status = status < 0 || status == s ? s : 4;
  }
  return status;
}
