// launch_paths: a CUDA program that reaches the GPU through every launch path a program can take,
// with a known number of launches of each kernel, for the "every kernel seen once" check
// (tests/gpu/launch_check.py). It is built twice, with nvcc's default static cudart and
// with -cudart shared, because the launches then reach flopspy through different hooks
// (docs/cuda-notes.md, "Static and shared cudart"): the driver entry points cudart obtains from
// cuGetProcAddress, or the runtime symbols plus those.
//
//   launch_paths [--repeat N] [--spins N] [--spin-us N] --json FILE
//
// FILE receives what the program did: per kernel its name as a profiler prints it, the launch
// calls made and the GPU executions they cause, and the cudaEvent time of every fs_spin launch.
// Exit status: 0 ok, 1 a CUDA call failed or a result was wrong, 2 bad arguments, 77 no GPU.
#include <cuda.h>  // driver types only: the driver is reached through dlopen/dlsym, as Triton does
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" __global__ void fs_add(int n, const float* a, const float* b, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

extern "C" __global__ void fs_scale(int n, float s, float* x) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

// One kernel per remaining path, each adding its own constant so that the final values prove
// every launch ran exactly once.
#define FS_ADD_KERNEL(name, value)                       \
  extern "C" __global__ void name(int n, float* x) {     \
    const int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) x[i] += (value);                          \
  }
FS_ADD_KERNEL(fs_runtime_api, 1.0f)
FS_ADD_KERNEL(fs_ptds, 2.0f)
FS_ADD_KERNEL(fs_launch_ex, 4.0f)
FS_ADD_KERNEL(fs_cooperative, 8.0f)
FS_ADD_KERNEL(fs_graph_node, 16.0f)
FS_ADD_KERNEL(fs_driver, 32.0f)
FS_ADD_KERNEL(fs_driver_ex, 64.0f)
FS_ADD_KERNEL(fs_entry_point, 128.0f)
#undef FS_ADD_KERNEL

// A C++ name, so that the check also compares a demangled one.
template <int kAdd>
__global__ void fs_templated(int n, float* x) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += static_cast<float>(kAdd);
}

// Runs for a fixed wall time on the GPU, so its duration can be compared with cudaEvent times.
extern "C" __global__ void fs_spin(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

namespace {

constexpr int kN = 1 << 20;
constexpr int kBlock = 256;
constexpr int kGrid = (kN + kBlock - 1) / kBlock;  // 4096: even, so clusters of 2 divide it
constexpr int kGraphNodes = 2;

struct Options {
  int repeat = 10;
  int spins = 20;
  int spin_us = 200;
  std::string json;
};

bool Check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "launch_paths: %s failed: %s (%d)\n", what, cudaGetErrorString(e),
               static_cast<int>(e));
  return false;
}

bool CheckDriver(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  std::fprintf(stderr, "launch_paths: %s failed: CUresult %d\n", what, static_cast<int>(r));
  return false;
}

bool ParseInt(const char* text, int min, int max, int& out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > max) return false;
  out = static_cast<int>(v);
  return true;
}

int ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--repeat" && has_value && ParseInt(argv[++i], 1, 100000, o.repeat)) continue;
    if (a == "--spins" && has_value && ParseInt(argv[++i], 1, 10000, o.spins)) continue;
    if (a == "--spin-us" && has_value && ParseInt(argv[++i], 1, 1000000, o.spin_us)) continue;
    if (a == "--json" && has_value) {
      o.json = argv[++i];
      continue;
    }
    std::fprintf(stderr,
                 "usage: launch_paths [--repeat N] [--spins N] [--spin-us N] --json FILE\n"
                 "(bad or incomplete argument: %s)\n",
                 a.c_str());
    return 2;
  }
  if (o.json.empty()) {
    std::fprintf(stderr, "launch_paths: --json FILE is required\n");
    return 2;
  }
  return 0;
}

struct KernelCount {
  std::string name;  // as CUPTI and profilers print it (demangled)
  std::string path;  // how it was launched
  long launches;     // launch calls the program made
  long executions;   // kernels the GPU ran
};

using LaunchKernelFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, CUstream, void**, void**);
using LaunchKernelExFn = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);

struct Driver {
  LaunchKernelFn launch = nullptr;
  LaunchKernelExFn launch_ex = nullptr;
};

// Triton's way: the driver library by soname and its functions by dlsym.
bool OpenDriver(Driver& d) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    std::fprintf(stderr, "launch_paths: dlopen(libcuda.so.1): %s\n", dlerror());
    return false;
  }
  d.launch = reinterpret_cast<LaunchKernelFn>(dlsym(lib, "cuLaunchKernel"));
  d.launch_ex = reinterpret_cast<LaunchKernelExFn>(dlsym(lib, "cuLaunchKernelEx"));
  if (!d.launch || !d.launch_ex) {
    std::fprintf(stderr, "launch_paths: libcuda.so.1 lacks cuLaunchKernel or cuLaunchKernelEx\n");
    return false;
  }
  return true;
}

bool WriteJson(const Options& o, const cudaDeviceProp& prop, bool cluster,
               const std::vector<KernelCount>& counts, const std::vector<float>& spin_ms) {
  FILE* f = std::fopen(o.json.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "launch_paths: cannot write %s\n", o.json.c_str());
    return false;
  }
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::fprintf(f, "{\n  \"program\": \"launch_paths\",\n  \"cudart\": \"%s\",\n",
               FLOPSPY_CUDART_KIND);
  std::fprintf(f, "  \"runtime_version\": %d,\n  \"device\": \"%s\",\n", runtime, prop.name);
  std::fprintf(f, "  \"compute_capability\": \"%d.%d\",\n  \"cluster_launch\": %s,\n", prop.major,
               prop.minor, cluster ? "true" : "false");
  std::fprintf(f, "  \"spin_ns_requested\": %lld,\n", static_cast<long long>(o.spin_us) * 1000);
  std::fprintf(f, "  \"kernels\": [\n");
  for (size_t i = 0; i < counts.size(); ++i) {
    const KernelCount& c = counts[i];
    std::fprintf(f,
                 "    {\"name\": \"%s\", \"path\": \"%s\", \"launches\": %ld, \"executions\": "
                 "%ld}%s\n",
                 c.name.c_str(), c.path.c_str(), c.launches, c.executions,
                 i + 1 < counts.size() ? "," : "");
  }
  std::fprintf(f, "  ],\n  \"event_ns\": {\"fs_spin\": [");
  for (size_t i = 0; i < spin_ms.size(); ++i) {
    std::fprintf(f, "%s%.1f", i ? ", " : "", static_cast<double>(spin_ms[i]) * 1e6);
  }
  std::fprintf(f, "]}\n}\n");
  return std::fclose(f) == 0;
}

int Run(const Options& o) {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    std::printf("launch_paths: no usable CUDA GPU (%s)\n",
                probe != cudaSuccess ? cudaGetErrorString(probe) : "no device");
    return 77;
  }
  cudaDeviceProp prop{};
  if (!Check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties")) return 1;
  const bool cluster = prop.major >= 9;
  int cooperative = 0;
  cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0);
  Driver driver;
  if (!OpenDriver(driver)) return 1;

  float *a = nullptr, *b = nullptr, *sum = nullptr, *x = nullptr;
  const size_t bytes = sizeof(float) * kN;
  if (!Check(cudaMalloc(&a, bytes), "cudaMalloc") || !Check(cudaMalloc(&b, bytes), "cudaMalloc") ||
      !Check(cudaMalloc(&sum, bytes), "cudaMalloc") ||
      !Check(cudaMalloc(&x, bytes), "cudaMalloc")) {
    return 1;
  }
  std::vector<float> host(kN, 1.0f);
  if (!Check(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
      !Check(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
      !Check(cudaMemset(x, 0, bytes), "cudaMemset")) {
    return 1;
  }
  cudaStream_t stream = nullptr;
  if (!Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate")) {
    return 1;
  }
  int n = kN;
  const int r = o.repeat;
  bool ok = true;

  // <<<>>> on the legacy default stream and on a created stream.
  for (int i = 0; i < r; ++i) fs_add<<<kGrid, kBlock>>>(n, a, b, sum);
  ok = ok && Check(cudaGetLastError(), "fs_add<<<>>>");
  ok = ok && Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  for (int i = 0; i < r; ++i) fs_scale<<<kGrid, kBlock, 0, stream>>>(n, 0.5f, sum);
  ok = ok && Check(cudaGetLastError(), "fs_scale<<<>>>");
  for (int i = 0; i < r; ++i) fs_templated<7><<<kGrid, kBlock, 0, stream>>>(n, x);
  ok = ok && Check(cudaGetLastError(), "fs_templated<<<>>>");

  // The runtime API by name.
  void* args[] = {&n, &x};
  for (int i = 0; i < r && ok; ++i) {
    ok = Check(cudaLaunchKernel(reinterpret_cast<const void*>(fs_runtime_api), dim3(kGrid),
                                dim3(kBlock), args, 0, stream),
               "cudaLaunchKernel");
  }
  ok = ok && Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

  // The per-thread default stream.
  for (int i = 0; i < r; ++i) fs_ptds<<<kGrid, kBlock, 0, cudaStreamPerThread>>>(n, x);
  ok = ok && Check(cudaGetLastError(), "fs_ptds<<<>>>");
  ok = ok && Check(cudaStreamSynchronize(cudaStreamPerThread), "cudaStreamSynchronize");

  // cudaLaunchKernelEx, with a cluster of two blocks where the GPU has clusters (sm_90+).
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kGrid);
  config.blockDim = dim3(kBlock);
  config.stream = stream;
  config.attrs = cluster ? &attr : nullptr;
  config.numAttrs = cluster ? 1 : 0;
  for (int i = 0; i < r && ok; ++i) {
    ok = Check(cudaLaunchKernelEx(&config, fs_launch_ex, n, x), "cudaLaunchKernelEx");
  }

  // Cooperative launch: a grid the GPU can hold at once (one block per SM).
  long cooperative_launches = 0;
  if (cooperative) {
    for (int i = 0; i < r && ok; ++i, ++cooperative_launches) {
      ok = Check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(fs_cooperative),
                                             dim3(prop.multiProcessorCount), dim3(kBlock), args, 0,
                                             stream),
                 "cudaLaunchCooperativeKernel");
    }
  }

  // A CUDA graph of two kernel nodes, captured once and replayed: executions without launches.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t graph_exec = nullptr;
  ok = ok && Check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
                   "cudaStreamBeginCapture");
  if (ok) {
    for (int i = 0; i < kGraphNodes; ++i) fs_graph_node<<<kGrid, kBlock, 0, stream>>>(n, x);
    ok = Check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  }
  ok = ok && Check(cudaGraphInstantiate(&graph_exec, graph, 0), "cudaGraphInstantiate");
  for (int i = 0; i < r && ok; ++i)
    ok = Check(cudaGraphLaunch(graph_exec, stream), "cudaGraphLaunch");
  ok = ok && Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

  // The driver API through dlsym, with the CUfunction behind each runtime kernel.
  cudaFunction_t f_driver = nullptr, f_driver_ex = nullptr, f_entry = nullptr;
  ok = ok && Check(cudaGetFuncBySymbol(&f_driver, reinterpret_cast<const void*>(fs_driver)),
                   "cudaGetFuncBySymbol");
  ok = ok && Check(cudaGetFuncBySymbol(&f_driver_ex, reinterpret_cast<const void*>(fs_driver_ex)),
                   "cudaGetFuncBySymbol");
  ok = ok && Check(cudaGetFuncBySymbol(&f_entry, reinterpret_cast<const void*>(fs_entry_point)),
                   "cudaGetFuncBySymbol");
  CUstream cu_stream = reinterpret_cast<CUstream>(stream);
  for (int i = 0; i < r && ok; ++i) {
    ok = CheckDriver(driver.launch(reinterpret_cast<CUfunction>(f_driver), kGrid, 1, 1, kBlock, 1,
                                   1, 0, cu_stream, args, nullptr),
                     "cuLaunchKernel (dlsym)");
  }
  CUlaunchConfig cu_config{};
  cu_config.gridDimX = kGrid;
  cu_config.gridDimY = cu_config.gridDimZ = 1;
  cu_config.blockDimX = kBlock;
  cu_config.blockDimY = cu_config.blockDimZ = 1;
  cu_config.hStream = cu_stream;
  for (int i = 0; i < r && ok; ++i) {
    ok = CheckDriver(
        driver.launch_ex(&cu_config, reinterpret_cast<CUfunction>(f_driver_ex), args, nullptr),
        "cuLaunchKernelEx (dlsym)");
  }
  // The driver entry point as the runtime hands it out (cuGetProcAddress underneath).
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult query{};
  ok = ok && Check(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000,
                                                    cudaEnableDefault, &query),
                   "cudaGetDriverEntryPointByVersion");
  if (ok && (entry == nullptr || query != cudaDriverEntryPointSuccess)) {
    std::fprintf(stderr, "launch_paths: no cuLaunchKernel entry point (query %d)\n",
                 static_cast<int>(query));
    ok = false;
  }
  for (int i = 0; i < r && ok; ++i) {
    ok = CheckDriver(
        reinterpret_cast<LaunchKernelFn>(entry)(reinterpret_cast<CUfunction>(f_entry), kGrid, 1, 1,
                                                kBlock, 1, 1, 0, cu_stream, args, nullptr),
        "cuLaunchKernel (cudaGetDriverEntryPointByVersion)");
  }
  ok = ok && Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

  // Timed kernels: each between two events on its stream.
  std::vector<float> spin_ms;
  cudaEvent_t start = nullptr, stop = nullptr;
  ok = ok && Check(cudaEventCreate(&start), "cudaEventCreate") &&
       Check(cudaEventCreate(&stop), "cudaEventCreate");
  const unsigned long long spin_ns = static_cast<unsigned long long>(o.spin_us) * 1000ull;
  for (int i = 0; i < o.spins && ok; ++i) {
    ok = Check(cudaEventRecord(start, stream), "cudaEventRecord");
    fs_spin<<<1, 1, 0, stream>>>(spin_ns);
    ok = ok && Check(cudaGetLastError(), "fs_spin<<<>>>") &&
         Check(cudaEventRecord(stop, stream), "cudaEventRecord") &&
         Check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    ok = ok && Check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    spin_ms.push_back(ms);
  }
  if (!ok) return 1;

  // Every element of x got each path's constant once per launch (or per graph node replay).
  std::vector<float> result(kN);
  std::vector<float> result_sum(kN);
  if (!Check(cudaMemcpy(result.data(), x, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy") ||
      !Check(cudaMemcpy(result_sum.data(), sum, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy")) {
    return 1;
  }
  const double per_launch = 7 + 1 + 2 + 4 + 32 + 64 + 128;
  double expected = r * per_launch + static_cast<double>(r) * kGraphNodes * 16;
  expected += static_cast<double>(cooperative_launches) * 8;  // only blocks 0..SMs-1 ran
  const int cooperative_threads = prop.multiProcessorCount * kBlock;
  const double expected_sum = 2.0 * std::pow(0.5, r);
  for (int i = 0; i < kN; ++i) {
    const double want = expected - (i >= cooperative_threads ? cooperative_launches * 8.0 : 0.0);
    if (result[i] != static_cast<float>(want) ||
        result_sum[i] != static_cast<float>(expected_sum)) {
      std::fprintf(stderr, "launch_paths: element %d is %g and %g, expected %g and %g\n", i,
                   static_cast<double>(result[i]), static_cast<double>(result_sum[i]), want,
                   expected_sum);
      return 1;
    }
  }

  const long rl = r;
  std::vector<KernelCount> counts = {
      {"fs_add", "<<<>>> legacy default stream", rl, rl},
      {"fs_scale", "<<<>>> created stream", rl, rl},
      {"void fs_templated<7>(int, float*)", "<<<>>> C++ template", rl, rl},
      {"fs_runtime_api", "cudaLaunchKernel", rl, rl},
      {"fs_ptds", "<<<>>> cudaStreamPerThread", rl, rl},
      {"fs_launch_ex", cluster ? "cudaLaunchKernelEx, cluster 2x1x1" : "cudaLaunchKernelEx", rl,
       rl},
      {"fs_cooperative", "cudaLaunchCooperativeKernel", cooperative_launches, cooperative_launches},
      // Captured launches put nothing on the GPU; the replays run kGraphNodes kernels each.
      {"fs_graph_node", "CUDA graph: 2 captured launches, replayed", 0, rl * kGraphNodes},
      {"fs_driver", "cuLaunchKernel via dlsym(libcuda.so.1)", rl, rl},
      {"fs_driver_ex", "cuLaunchKernelEx via dlsym(libcuda.so.1)", rl, rl},
      {"fs_entry_point", "cuLaunchKernel via cudaGetDriverEntryPointByVersion", rl, rl},
      {"fs_spin", "<<<>>> between cudaEvents", o.spins, o.spins},
  };
  if (!WriteJson(o, prop, cluster, counts, spin_ms)) return 1;
  cudaGraphExecDestroy(graph_exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
  cudaFree(sum);
  cudaFree(x);
  std::printf("launch_paths: %s cudart, %s (cc %d.%d): ok\n", FLOPSPY_CUDART_KIND, prop.name,
              prop.major, prop.minor);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const int status = ParseOptions(argc, argv, o); status != 0) return status;
  return Run(o);
}
