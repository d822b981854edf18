// Runs the client from dlopen(argv[1], RTLD_NOW | RTLD_LOCAL), as Python loads an extension
// module: its libcublas.so.N is then outside the global scope.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CLIENT.so\n", argv[0]);
    return 2;
  }
  void* client = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (client == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  using Main = int (*)();
  auto run = reinterpret_cast<Main>(dlsym(client, "flopspy_cublas_client_main"));
  if (run == nullptr) {
    std::fprintf(stderr, "dlsym: %s\n", dlerror());
    return 2;
  }
  return run();
}
