// A library that, like the real libcublasLt.so.13, opens the driver and looks up its functions
// in its own constructor. Linked into a program, its constructor runs before libflopspy.so's
// (the loader initialises the program's dependencies before the preloaded library), so flopspy
// hands out its wrappers before its static initialisers ran: on an H200 that gave cuBLASLt null
// function pointers and the process died before main (2026-11-28). The pointers it kept are
// called again from main, after flopspy started: those launches must be recorded.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>

#include "fake_cuda.h"

namespace {

PFN_cuLaunchKernel_v4000 g_launch = nullptr;
CUfunction g_aten = nullptr;
int g_at_load = -1;

struct AtenArgs {
  int n = 4096;
  float functor[2] = {2.5f, 0.0f};
  char* data[2] = {nullptr, nullptr};
  void* params[3] = {&n, functor, data};
};

__attribute__((constructor)) void LookUpTheDriverAtLoad() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (h == nullptr) return;
  const auto init = reinterpret_cast<PFN_cuInit_v2000>(dlsym(h, "cuInit"));
  const auto load = reinterpret_cast<PFN_cuModuleLoadData_v2000>(dlsym(h, "cuModuleLoadData"));
  const auto get = reinterpret_cast<PFN_cuModuleGetFunction_v2000>(dlsym(h, "cuModuleGetFunction"));
  g_launch = reinterpret_cast<PFN_cuLaunchKernel_v4000>(dlsym(h, "cuLaunchKernel"));
  if (init == nullptr || load == nullptr || get == nullptr || g_launch == nullptr) return;
  CUmodule module = nullptr;
  if (init(0) != CUDA_SUCCESS || load(&module, "cubin") != CUDA_SUCCESS ||
      get(&g_aten, module, fakecuda::kAtenMul) != CUDA_SUCCESS) {
    return;
  }
  AtenArgs args;
  g_at_load = g_launch(g_aten, 2, 1, 1, 64, 1, 1, 0, nullptr, args.params, nullptr);
}

}  // namespace

// What the constructor's launch returned (-1: it never got that far).
extern "C" __attribute__((visibility("default"))) int driver_at_load_result() {
  return g_at_load;
}

// Launches again through the pointer the constructor kept.
extern "C" __attribute__((visibility("default"))) int driver_at_load_launch_again(int n) {
  if (g_launch == nullptr || g_aten == nullptr) return -1;
  AtenArgs args;
  args.n = n;
  return g_launch(g_aten, 3, 1, 1, 64, 1, 1, 0, nullptr, args.params, nullptr);
}
