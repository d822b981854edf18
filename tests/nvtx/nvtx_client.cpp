// The fake NVTX client: runs module a, then module b (two NVTX loaders), and prints what NVTX
// returned and what NVTX_INJECTION64_PATH was, one line each, for nvtx_test.cpp.
#include <cstdio>
#include <cstdlib>
#include <string>

std::string nvtx_module_a_run();
std::string nvtx_module_b_run();

int main() {
  std::printf("a: %s\n", nvtx_module_a_run().c_str());
  std::printf("b: %s\n", nvtx_module_b_run().c_str());
  const char* path = std::getenv("NVTX_INJECTION64_PATH");
  std::printf("injection: %s\n", path == nullptr ? "(unset)" : path);
  return 0;
}
