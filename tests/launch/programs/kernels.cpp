#include "kernels.h"

#include "fake_cuda.h"

namespace launchtest {

// Different bodies so that no optimisation folds two stubs into one address.
volatile int g_stub_sink = 0;
void AtenMulStub() {
  g_stub_sink = 1;
}
void TritonAddStub() {
  g_stub_sink = 2;
}
void AddKernelStub() {
  g_stub_sink = 3;
}
void EmptyKernelStub() {
  g_stub_sink = 4;
}
void GridSyncStub() {
  g_stub_sink = 5;
}

namespace {
char g_fatbin[] = "fake fatbin";
bool g_registered = false;
}  // namespace

void RegisterKernels() {
  if (g_registered) return;
  g_registered = true;
  void** module = __cudaRegisterFatBinary(g_fatbin);
  struct Entry {
    void (*stub)();
    const char* device_name;
  };
  const Entry entries[] = {{AtenMulStub, fakecuda::kAtenMul},
                           {TritonAddStub, fakecuda::kTritonAdd},
                           {AddKernelStub, fakecuda::kAddKernel},
                           {EmptyKernelStub, fakecuda::kEmptyKernel},
                           {GridSyncStub, fakecuda::kGridSync}};
  for (const Entry& e : entries) {
    __cudaRegisterFunction(module, reinterpret_cast<const char*>(e.stub),
                           const_cast<char*>(e.device_name), e.device_name, -1, nullptr, nullptr,
                           nullptr, nullptr, nullptr);
  }
  __cudaRegisterFatBinaryEnd(module);
}

namespace {
__attribute__((constructor)) void RegisterAtLoad() {
  RegisterKernels();
}
}  // namespace

}  // namespace launchtest
