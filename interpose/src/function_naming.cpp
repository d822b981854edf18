#include "function_naming.h"

#include <algorithm>
#include <mutex>

#include "caller_resolver.h"
#include "catalog_param_bytes.h"
#include "library_resolver.h"
#include "recorder.h"

namespace flopspy::interpose {
namespace {

constexpr size_t kMaxParamsProbed = 256;

// The result type of every driver function is an int enum (CUresult); CUDA_SUCCESS is 0. The
// parameter queries answer "invalid value" (1 in both CUresult and cudaError_t) for an index past
// the last parameter; any other error means the kernel could not be described at all.
constexpr int kInvalidValue = 1;
using DriverNameFn = int (*)(const char**, void*);
using DriverParamInfoFn = int (*)(void*, size_t, size_t*, size_t*);
using RuntimeNameFn = int (*)(const char**, const void*);
using RuntimeFuncBySymbolFn = int (*)(void**, const void*);
using RuntimeLastErrorFn = int (*)();

RealFunction<DriverNameFn> g_func_get_name(CudaLibrary::kDriver, "cuFuncGetName");
RealFunction<DriverNameFn> g_kernel_get_name(CudaLibrary::kDriver, "cuKernelGetName");
RealFunction<DriverParamInfoFn> g_func_param_info(CudaLibrary::kDriver, "cuFuncGetParamInfo");
RealFunction<DriverParamInfoFn> g_kernel_param_info(CudaLibrary::kDriver, "cuKernelGetParamInfo");
RealFunction<RuntimeNameFn> g_runtime_get_name(CudaLibrary::kRuntime, "cudaFuncGetName");
RealFunction<RuntimeFuncBySymbolFn> g_runtime_func_by_symbol(CudaLibrary::kRuntime,
                                                             "cudaGetFuncBySymbol");
RealFunction<RuntimeLastErrorFn> g_runtime_peek_error(CudaLibrary::kRuntime, "cudaPeekAtLastError");
RealFunction<RuntimeLastErrorFn> g_runtime_get_error(CudaLibrary::kRuntime, "cudaGetLastError");

// Returns false (layout left unknown) when the first query fails with anything but "invalid
// value": no driver, a handle of another kind. Reading that as "no parameters" would drop the
// leading parameters of every launch of the kernel.
template <class InfoFn, class Handle>
bool ReadLayout(InfoFn info_fn, Handle handle, ParamLayout& layout) {
  if (info_fn == nullptr) return false;
  size_t index = 0;
  for (; index < kMaxParamsProbed; ++index) {
    size_t offset = 0, size = 0;
    const int result = info_fn(handle, index, &offset, &size);
    if (result != 0) {
      if (index == 0 && result != kInvalidValue) return false;
      break;
    }
    if (index < layout.offset.size()) {
      layout.offset[index] = static_cast<uint16_t>(std::min<size_t>(offset, 0xFFFF));
      layout.size[index] = static_cast<uint16_t>(std::min<size_t>(size, 0xFFFF));
      layout.known = static_cast<uint16_t>(index + 1);
    }
  }
  // A kernel with no parameters answers "invalid value" at index 0.
  layout.count = static_cast<uint16_t>(index);
  return true;
}

// The functions of the runtime copy that holds `runtime` (any of its functions), or of the first
// copy found when that is unknown, that name a host stub. A few copies at most: the answers are
// kept, looked up under a lock on the slow path only.
struct RuntimeNaming {
  RuntimeNameFn name = nullptr;
  RuntimeFuncBySymbolFn function = nullptr;  // cudaGetFuncBySymbol: the stub's CUfunction
  RuntimeLastErrorFn peek_error = nullptr;
  RuntimeLastErrorFn get_error = nullptr;
};

RuntimeNaming NamingFor(const void* runtime) {
  RuntimeNaming first{g_runtime_get_name.get(), g_runtime_func_by_symbol.get(),
                      g_runtime_peek_error.get(), g_runtime_get_error.get()};
  if (runtime == nullptr) return first;
  struct Known {
    const void* runtime;
    RuntimeNaming naming;
  };
  static std::mutex* mutex = new std::mutex;  // never destroyed: hooks may run during exit
  static Known known[32] = {};  // keyed by the real function: a few launch entry points per copy
  {
    std::lock_guard lock(*mutex);
    for (const Known& k : known) {
      if (k.runtime == runtime) return k.naming;
    }
  }
  // Resolved without the lock: ResolveBeside takes the dynamic linker's lock (dladdr, dlopen),
  // and a library constructor that launches a kernel while holding that lock would otherwise
  // wait for ours. Two threads may both resolve; the answers are the same.
  RuntimeNaming naming{
      reinterpret_cast<RuntimeNameFn>(ResolveBeside(runtime, "cudaFuncGetName")),
      reinterpret_cast<RuntimeFuncBySymbolFn>(ResolveBeside(runtime, "cudaGetFuncBySymbol")),
      reinterpret_cast<RuntimeLastErrorFn>(ResolveBeside(runtime, "cudaPeekAtLastError")),
      reinterpret_cast<RuntimeLastErrorFn>(ResolveBeside(runtime, "cudaGetLastError"))};
  if (naming.name == nullptr) naming.name = first.name;
  if (naming.function == nullptr) naming.function = first.function;
  if (naming.peek_error == nullptr) naming.peek_error = first.peek_error;
  if (naming.get_error == nullptr) naming.get_error = first.get_error;
  std::lock_guard lock(*mutex);
  for (Known& k : known) {
    if (k.runtime == runtime) return k.naming;
    if (k.runtime == nullptr) {
      k = {runtime, naming};
      break;
    }
  }
  return naming;
}

// A host stub. Every runtime call that fails becomes the thread's last error, which the program
// reads with cudaGetLastError after its launch (PyTorch checks every one), so the parameter
// layout comes from the driver (an index past the last parameter fails), the runtime is asked
// nothing while the program has an error pending (ours would replace it), and anything a
// runtime query left behind is cleared.
void DescribeStub(FunctionInfo& info, const RuntimeNaming& naming) {
  if (naming.peek_error == nullptr || naming.get_error == nullptr) return;
  // The program has an error pending: the kernel stays unnamed rather than risk replacing it.
  if (naming.peek_error() != 0) return;
  const char* name = nullptr;
  void* function = nullptr;
  const auto* stub = reinterpret_cast<const void*>(info.handle);
  if (naming.function != nullptr && naming.function(&function, stub) == 0 && function != nullptr) {
    if (auto f = g_func_get_name.get(); f && f(&name, function) == 0 && name) {
      info.mangled_name = name;
    }
    ReadLayout(g_func_param_info.get(), function, info.layout);
  }
  if (info.mangled_name.empty() && naming.name != nullptr && naming.name(&name, stub) == 0 &&
      name) {
    info.mangled_name = name;
  }
  naming.get_error();  // none pending before: whatever is there now is ours
}

}  // namespace

void NameFunction(FunctionInfo& info, const void* runtime) {
  const char* name = nullptr;
  void* handle = reinterpret_cast<void*>(info.handle);
  switch (info.kind) {
    case FunctionKind::kDriverFunction:
      if (auto f = g_func_get_name.get(); f && f(&name, handle) == 0 && name) {
        info.mangled_name = name;
        ReadLayout(g_func_param_info.get(), handle, info.layout);
      } else if (auto k = g_kernel_get_name.get(); k && k(&name, handle) == 0 && name) {
        // cuLaunchKernel and cuLaunchKernelEx also take a CUkernel cast to CUfunction (CUDA
        // 12.0+), which cuFuncGetName need not accept.
        info.mangled_name = name;
        ReadLayout(g_kernel_param_info.get(), handle, info.layout);
      } else {
        ReadLayout(g_func_param_info.get(), handle, info.layout);
      }
      break;
    case FunctionKind::kDriverKernel:
      if (auto f = g_kernel_get_name.get(); f && f(&name, handle) == 0 && name) {
        info.mangled_name = name;
      }
      ReadLayout(g_kernel_param_info.get(), handle, info.layout);
      break;
    case FunctionKind::kRuntimeKernel:
      // A cudaKernel_t is a CUkernel: the driver answers without touching the runtime.
      if (auto f = g_kernel_get_name.get(); f && f(&name, handle) == 0 && name) {
        info.mangled_name = name;
      }
      ReadLayout(g_kernel_param_info.get(), handle, info.layout);
      break;
    case FunctionKind::kRuntimeStub:
      DescribeStub(info, NamingFor(runtime));
      break;
  }
}

FunctionInfo* FunctionFor(uint64_t handle, FunctionKind kind, const void* runtime) noexcept {
  // Hooks have C callers: a bad_alloc here would end the program, so the launch goes unnamed.
  try {
    if (FunctionInfo* known = Functions().Find(handle)) return known;
    auto* info = new FunctionInfo;
    info->handle = handle;
    info->kind = kind;
    NameFunction(*info, runtime);
    const Recorder* recorder = Recorder::Get();
    info->configured_param_bytes =
        static_cast<uint16_t>(recorder ? recorder->config().param_bytes : trace::kInlineParamBytes);
    info->wanted_param_bytes.store(UncataloguedParamBytes(info->configured_param_bytes),
                                   std::memory_order_relaxed);
    return Functions().Insert(info);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace flopspy::interpose
