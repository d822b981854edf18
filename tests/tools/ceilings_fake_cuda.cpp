// Fake libcuda.so.1 for the ceilings test: one simulated device (ceilings_fake_gpu.h), the
// driver functions `flopspy ceilings --gpu` uses, found by dlsym (ReadDevices) and by
// cuGetProcAddress_v2 (the benchmarks). Work advances a virtual clock per stream; events read it.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "ceilings_fake_gpu.h"

namespace {

namespace fg = flopspy::fakegpu;

struct Stream {
  double now = 0;
};
struct Event {
  double time = 0;
};
struct Function {
  std::string name;
};

Stream g_null_stream;
std::mutex g_mutex;
std::set<CUdeviceptr> g_real;  // allocations backed by host memory
CUdeviceptr g_next_fake = CUdeviceptr{1} << 46;

Stream* StreamOf(CUstream s) {
  return s != nullptr ? reinterpret_cast<Stream*>(s) : &g_null_stream;
}

template <class T>
T Arg(void** params, int i) {
  T v;
  std::memcpy(&v, params[i], sizeof v);
  return v;
}

// Seconds a launch takes on the simulated device; writes the FMA kernels' clock64 pairs.
double KernelSeconds(const std::string& name, unsigned blocks, unsigned threads, void** params) {
  const double all = static_cast<double>(blocks) * threads;
  double rate = 0, lanes = 1;
  if (name == "flopspy_fma_fp32") rate = fg::kFp32;
  if (name == "flopspy_fma_fp64") rate = fg::kFp64;
  if (name == "flopspy_fma_fp16") rate = fg::kFp16, lanes = 2;
  if (name == "flopspy_fma_bf16") rate = fg::kBf16, lanes = 2;
  if (rate > 0) {
    // (float b, float c, long long iterations, float* out, long long* clocks); 8 chains.
    const auto iterations = Arg<long long>(params, 2);
    const auto clocks = Arg<CUdeviceptr>(params, 4);
    const double seconds = all * static_cast<double>(iterations) * 8 * 2 * lanes / rate;
    if (clocks != 0 && g_real.count(clocks)) {
      auto* pairs = reinterpret_cast<long long*>(clocks);
      for (unsigned b = 0; b < blocks; ++b) {
        pairs[2 * b] = 1000 + b;
        pairs[2 * b + 1] = 1000 + b + static_cast<long long>(seconds * fg::kClockHz);
      }
    }
    return seconds;
  }
  if (name == "flopspy_read") {
    // (const uint4* data, unsigned long long count, int passes, unsigned* out)
    const double bytes = static_cast<double>(Arg<unsigned long long>(params, 1)) * 16;
    const int passes = Arg<int>(params, 2);
    return bytes * passes / (bytes <= fg::kL2Bytes ? fg::kL2Read : fg::kDramRead);
  }
  return 0;  // the fill kernels: free
}

}  // namespace

extern "C" {

void flopspy_fake_gpu_advance(void* stream, double seconds) {
  std::lock_guard<std::mutex> lock(g_mutex);
  StreamOf(static_cast<CUstream>(stream))->now += seconds;
}

CUresult cuInit(unsigned int) {
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  std::snprintf(name, static_cast<size_t>(len), "%s", fg::kName);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = 8;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = fg::kSms;
      break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      *value = 1410000;
      break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      *value = 1593000;
      break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
      *value = 5120;
      break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      *value = static_cast<int>(fg::kL2Bytes);
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      *value = fg::kMaxThreadsPerSm;
      break;
    default:
      *value = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice) {
  *bytes = size_t{80} << 30;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice) {
  // GPU-f1a2b3c4-0000-4000-8000-00000000abcd
  const unsigned char bytes[16] = {0xf1, 0xa2, 0xb3, 0xc4, 0x00, 0x00, 0x40, 0x00,
                                   0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0xab, 0xcd};
  std::memcpy(uuid->bytes, bytes, 16);
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult, const char** text) {
  *text = "fake driver error";
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&g_null_stream);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) {
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext) {
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() {
  return CUDA_SUCCESS;
}
CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  *free_bytes = size_t{70} << 30;
  *total = size_t{80} << 30;
  return CUDA_SUCCESS;
}
// Small buffers are host memory (the FMA kernels' clocks are read back); large ones only
// addresses, since nothing reads or writes them here.
CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (bytes <= (size_t{64} << 20)) {
    void* p = std::calloc(1, bytes);
    if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    g_real.insert(*ptr);
  } else {
    *ptr = g_next_fake;
    g_next_fake += (bytes + 0xFFFF) & ~CUdeviceptr{0xFFFF};
  }
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_real.erase(ptr) != 0) std::free(reinterpret_cast<void*>(ptr));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_real.count(src)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr, CUdeviceptr, size_t bytes, CUstream stream) {
  flopspy_fake_gpu_advance(stream, 2.0 * static_cast<double>(bytes) / fg::kCopy);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr, unsigned char, size_t, CUstream) {
  return CUDA_SUCCESS;
}
// The image must be the fatbin flopspy carries (magic 0xBA55ED50), not a stray pointer.
CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  uint32_t magic = 0;
  if (image != nullptr) std::memcpy(&magic, image, sizeof magic);
  if (magic != 0xBA55ED50u) return CUDA_ERROR_INVALID_IMAGE;
  *module = reinterpret_cast<CUmodule>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule module) {
  delete reinterpret_cast<int*>(module);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* function, CUmodule, const char* name) {
  static const std::set<std::string> kKernels{
      "flopspy_fma_fp32",  "flopspy_fma_fp64",  "flopspy_fma_fp16", "flopspy_fma_bf16",
      "flopspy_read",      "flopspy_fill_f32",  "flopspy_fill_f64", "flopspy_fill_f16",
      "flopspy_fill_bf16", "flopspy_fill_e4m3", "flopspy_fill_i8"};
  if (!kKernels.count(name)) return CUDA_ERROR_NOT_FOUND;
  *function = reinterpret_cast<CUfunction>(new Function{name});  // leaked: a test process
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction, int block_size,
                                                     size_t) {
  *blocks = block_size > 0 ? fg::kMaxThreadsPerSm / block_size : 0;
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z,
                        unsigned int, CUstream stream, void** params, void**) {
  if (f == nullptr || params == nullptr || grid_y != 1 || grid_z != 1 || block_y != 1 ||
      block_z != 1 || block_x > 1024) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const auto* function = reinterpret_cast<const Function*>(f);
  double seconds = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    seconds = KernelSeconds(function->name, grid_x, block_x, params);
  }
  flopspy_fake_gpu_advance(stream, seconds);
  return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream* stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(new Stream);
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream stream) {
  delete reinterpret_cast<Stream*>(stream);
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) {
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent* event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new Event);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<Event*>(event);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent event, CUstream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  reinterpret_cast<Event*>(event)->time = StreamOf(stream)->now;
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) {
  return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  *ms = static_cast<float>(
      (reinterpret_cast<Event*>(end)->time - reinterpret_cast<Event*>(start)->time) * 1e3);
  return CUDA_SUCCESS;
}

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t,
                             CUdriverProcAddressQueryResult* status) {
  static const std::map<std::string, void*> kTable{
      {"cuGetErrorString", reinterpret_cast<void*>(&cuGetErrorString)},
      {"cuDeviceGet", reinterpret_cast<void*>(&cuDeviceGet)},
      {"cuDeviceGetAttribute", reinterpret_cast<void*>(&cuDeviceGetAttribute)},
      {"cuDevicePrimaryCtxRetain", reinterpret_cast<void*>(&cuDevicePrimaryCtxRetain)},
      {"cuDevicePrimaryCtxRelease", reinterpret_cast<void*>(&cuDevicePrimaryCtxRelease_v2)},
      {"cuCtxSetCurrent", reinterpret_cast<void*>(&cuCtxSetCurrent)},
      {"cuCtxSynchronize", reinterpret_cast<void*>(&cuCtxSynchronize)},
      {"cuMemGetInfo", reinterpret_cast<void*>(&cuMemGetInfo_v2)},
      {"cuMemAlloc", reinterpret_cast<void*>(&cuMemAlloc_v2)},
      {"cuMemFree", reinterpret_cast<void*>(&cuMemFree_v2)},
      {"cuMemcpyDtoH", reinterpret_cast<void*>(&cuMemcpyDtoH_v2)},
      {"cuMemcpyDtoDAsync", reinterpret_cast<void*>(&cuMemcpyDtoDAsync_v2)},
      {"cuMemsetD8Async", reinterpret_cast<void*>(&cuMemsetD8Async)},
      {"cuModuleLoadData", reinterpret_cast<void*>(&cuModuleLoadData)},
      {"cuModuleUnload", reinterpret_cast<void*>(&cuModuleUnload)},
      {"cuModuleGetFunction", reinterpret_cast<void*>(&cuModuleGetFunction)},
      {"cuOccupancyMaxActiveBlocksPerMultiprocessor",
       reinterpret_cast<void*>(&cuOccupancyMaxActiveBlocksPerMultiprocessor)},
      {"cuLaunchKernel", reinterpret_cast<void*>(&cuLaunchKernel)},
      {"cuStreamCreate", reinterpret_cast<void*>(&cuStreamCreate)},
      {"cuStreamDestroy", reinterpret_cast<void*>(&cuStreamDestroy_v2)},
      {"cuStreamSynchronize", reinterpret_cast<void*>(&cuStreamSynchronize)},
      {"cuEventCreate", reinterpret_cast<void*>(&cuEventCreate)},
      {"cuEventDestroy", reinterpret_cast<void*>(&cuEventDestroy_v2)},
      {"cuEventRecord", reinterpret_cast<void*>(&cuEventRecord)},
      {"cuEventSynchronize", reinterpret_cast<void*>(&cuEventSynchronize)},
      {"cuEventElapsedTime", reinterpret_cast<void*>(&cuEventElapsedTime_v2)},
  };
  const auto it = kTable.find(symbol);
  if (it == kTable.end()) {
    *pfn = nullptr;
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = it->second;
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

}  // extern "C"
