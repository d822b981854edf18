// Launches from known functions through the fake libcuda.so.1, for the native call-site tests
// (stacks_test.cpp). The functions are extern "C" so that the test finds them in the program's
// symbol table (nm) by name; noinline so that each is a frame of its own. Built with -g and
// without frame pointers (the default), as most programs are.
//   stacks_app basic     two signatures from two call paths, then the first again
//   stacks_app repeat N  N launches of one signature from one call path
//   stacks_app threads   the same signature from the main thread and from a second thread
//   stacks_app alternate N  N launches of one signature, from two call paths in turn
//   stacks_app fork      a launch, then fork(): the child launches from another call path
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "fake_cuda.h"

namespace {
CUfunction g_function = nullptr;
int g_n = 64;
void* g_params[3] = {&g_n, nullptr, nullptr};
float* g_out = nullptr;
const float* g_in = nullptr;
}  // namespace

extern "C" {

__attribute__((noinline)) int stacks_launch(unsigned grid) {
  const CUresult r =
      cuLaunchKernel(g_function, grid, 1, 1, 64, 1, 1, 0, nullptr, g_params, nullptr);
  asm volatile("" ::: "memory");  // keeps the call from becoming a tail call
  return static_cast<int>(r);
}

__attribute__((noinline)) int stacks_outer_a(unsigned grid) {
  const int r = stacks_launch(grid);
  asm volatile("" ::: "memory");
  return r;
}

__attribute__((noinline)) int stacks_outer_b(unsigned grid) {
  const int r = stacks_launch(grid);
  asm volatile("" ::: "memory");
  return r;
}

__attribute__((noinline)) int stacks_thread_body(unsigned grid) {
  const int r = stacks_launch(grid);
  asm volatile("" ::: "memory");
  return r;
}

}  // extern "C"

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "basic";
  CUmodule module = nullptr;
  g_params[1] = &g_out;
  g_params[2] = &g_in;
  if (cuInit(0) != CUDA_SUCCESS || cuModuleLoadData(&module, "cubin") != CUDA_SUCCESS ||
      cuModuleGetFunction(&g_function, module, fakecuda::kAddKernel) != CUDA_SUCCESS) {
    std::fprintf(stderr, "stacks_app: no fake driver\n");
    return 3;
  }
  int failures = 0;
  if (std::strcmp(mode, "basic") == 0) {
    failures += stacks_outer_a(1) != 0;
    failures += stacks_outer_b(2) != 0;
    for (int i = 0; i < 3; ++i) failures += stacks_outer_a(1) != 0;
  } else if (std::strcmp(mode, "repeat") == 0) {
    const int n = argc > 2 ? std::atoi(argv[2]) : 100;
    for (int i = 0; i < n; ++i) failures += stacks_outer_a(1) != 0;
  } else if (std::strcmp(mode, "alternate") == 0) {
    const int n = argc > 2 ? std::atoi(argv[2]) : 100;
    for (int i = 0; i < n; ++i)
      failures += (i % 2 == 0 ? stacks_outer_a(1) : stacks_outer_b(1)) != 0;
  } else if (std::strcmp(mode, "fork") == 0) {
    failures += stacks_outer_a(1) != 0;
    const pid_t child = fork();
    if (child == 0) std::exit(stacks_outer_b(2) == 0 ? 0 : 1);
    int status = 0;
    failures += child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
                WEXITSTATUS(status) != 0;
  } else if (std::strcmp(mode, "threads") == 0) {
    failures += stacks_outer_a(1) != 0;
    std::thread second([&failures] { failures += stacks_thread_body(1) != 0; });
    second.join();
  } else {
    std::fprintf(stderr, "stacks_app: unknown mode %s\n", mode);
    return 2;
  }
  std::printf("launches failed: %d\n", failures);
  return failures == 0 ? 0 : 1;
}
