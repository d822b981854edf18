// A fake libcuda.so.1 for tests without a GPU. It exports every driver function flopspy wraps
// (interpose/src/driver_entries.h, so a new entry there gets a fake here) plus what a runtime or
// a driver user needs around them: cuInit, cuGetProcAddress(_v2), naming and parameter-layout
// queries, modules, libraries, kernels, streams, memory.
//
// Every call is counted under its exported name. Launches check what they were given (a handle
// the fake handed out, parameters readable by the kernel's layout, a valid stream) and return
// the status the test chose. cuGetProcAddress answers like the real driver: the exported
// function for the base name, its _ptsz/_ptds form when the per-thread flag is set, the _v2 ABIs
// by version (cuGetProcAddress itself: the four-argument form before 12.0; cuCtxSynchronize: the
// context-taking form from 13.0).
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <vector>

#include "driver_entries.h"
#include "fake_cuda.h"
#include "proc_names.h"

#define FAKECUDA_EXPORT extern "C" __attribute__((visibility("default")))

// cuda.h maps cuGetProcAddress to the _v2 ABI; the fake exports both.
#undef cuGetProcAddress

namespace fakecuda {
namespace {

// --- Counters ------------------------------------------------------------------------------

// clang-format off
#define FAKECUDA_EXTRA_FUNCTIONS(X) \
  X(cuInit) X(cuDriverGetVersion) X(cuGetProcAddress) X(cuGetProcAddress_v2) X(cuFuncGetName) \
  X(cuKernelGetName) X(cuFuncGetParamInfo) X(cuKernelGetParamInfo) X(cuModuleLoadData) \
  X(cuModuleGetFunction) X(cuLibraryLoadData) X(cuLibraryGetKernel) X(cuKernelGetFunction) \
  X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuGetErrorString) \
  X(cuGetErrorName) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease_v2) X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxGetDevice) \
  X(cuStreamGetCaptureInfo_v3) X(cuGraphCreate)

enum Counter : int {
#define FAKECUDA_ENTRY_ID(id, base, exported, ...) kCount_##exported,
  FLOPSPY_DRIVER_ENTRIES(FAKECUDA_ENTRY_ID)
#undef FAKECUDA_ENTRY_ID
#define FAKECUDA_EXTRA_ID(name) kCount_##name,
  FAKECUDA_EXTRA_FUNCTIONS(FAKECUDA_EXTRA_ID)
#undef FAKECUDA_EXTRA_ID
  kCounterCount
};

const char* const kCounterNames[kCounterCount] = {
#define FAKECUDA_ENTRY_NAME(id, base, exported, ...) #exported,
  FLOPSPY_DRIVER_ENTRIES(FAKECUDA_ENTRY_NAME)
#undef FAKECUDA_ENTRY_NAME
#define FAKECUDA_EXTRA_NAME(name) #name,
  FAKECUDA_EXTRA_FUNCTIONS(FAKECUDA_EXTRA_NAME)
#undef FAKECUDA_EXTRA_NAME
};
// clang-format on

std::atomic<uint64_t> g_calls[kCounterCount];
std::atomic<uint64_t> g_kernel_launches[kKernelCount];
std::atomic<int64_t> g_kernel_sum_n[kKernelCount];
constexpr int kFlagValues = 4;  // cuGetProcAddress flags 0..3
std::atomic<uint64_t> g_proc_flags[kFlagValues];

void Count(Counter c) {
  g_calls[c].fetch_add(1, std::memory_order_relaxed);
}

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

CUresult LaunchResult() {
  static const int value = EnvInt("FAKECUDA_LAUNCH_RESULT", 0);
  return static_cast<CUresult>(value);
}
CUresult ApiResult() {
  static const int value = EnvInt("FAKECUDA_API_RESULT", 0);
  return static_cast<CUresult>(value);
}

// --- Handles -------------------------------------------------------------------------------

// Handles are addresses of these objects: a CUfunction and a CUkernel per catalog kernel.
struct Object {
  int index;
};
Object g_functions[kKernelCount] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}};
Object g_kernels[kKernelCount] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}};
static_assert(kKernelCount == 7, "extend g_functions and g_kernels");
Object g_module{0};
Object g_library{0};

template <class Handle>
const KernelSpec* SpecIn(const Object (&objects)[kKernelCount], Handle handle) {
  const auto* o = reinterpret_cast<const Object*>(handle);
  if (o < std::begin(objects) || o >= std::end(objects)) return nullptr;
  return &kKernels[o->index];
}

int IndexOf(const char* name) {
  for (int i = 0; name != nullptr && i < kKernelCount; ++i) {
    if (std::strcmp(kKernels[i].name, name) == 0) return i;
  }
  return -1;
}

// Streams: the special handles, or one made by cuStreamCreate.
constexpr int kMaxStreams = 64;
Object g_streams[kMaxStreams];
std::atomic<int> g_next_stream{0};

bool ValidStream(CUstream s) {
  const auto value = reinterpret_cast<uintptr_t>(s);
  if (value == 0 || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return true;
  const auto* o = reinterpret_cast<const Object*>(s);
  return o >= std::begin(g_streams) && o < std::end(g_streams);
}

// Devices and contexts: FAKECUDA_DEVICE_COUNT devices (default 4), each with a primary context;
// the current context is per thread, none until the thread sets one, as in the real driver.
constexpr int kMaxDevices = 16;
struct Context {
  int device;
};
Context g_contexts[kMaxDevices] = {{0}, {1}, {2},  {3},  {4},  {5},  {6},  {7},
                                   {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}};
// Initial-exec, like a driver's own thread state: cuCtxGetCurrent below is what flopspy calls
// on every record, and the launch benchmark should see a driver-like cost, not __tls_get_addr.
thread_local CUcontext tls_current __attribute__((tls_model("initial-exec"))) = nullptr;
std::atomic<bool> g_initialized{false};

int DeviceCount() {
  static const int count = std::clamp(EnvInt("FAKECUDA_DEVICE_COUNT", 4), 0, kMaxDevices);
  return count;
}

const Context* ContextOf(CUcontext c) {
  const auto* p = reinterpret_cast<const Context*>(c);
  if (p < std::begin(g_contexts) || p >= std::begin(g_contexts) + DeviceCount()) return nullptr;
  return p;
}

// --- Launches ------------------------------------------------------------------------------

// Checks a launch as the driver would and counts it against its kernel. A CUkernel cast to
// CUfunction is accepted, as cuLaunchKernel accepts it since CUDA 12.0.
// Kernel parameters as a launch packs them: 4 KiB, as the driver's limit was for long, and more
// than any kernel of the fake catalog takes.
constexpr size_t kMaxPackedParams = 4096;
constexpr bool EveryKernelFits() {
  for (const KernelSpec& k : kKernels) {
    if (k.total > kMaxPackedParams) return false;
  }
  return true;
}
static_assert(EveryKernelFits());

// What a launch would run: its kernel (an index into kKernels) and its count parameter N.
struct Work {
  int kernel = -1;
  int32_t n = 0;
};

CUresult Pack(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
              unsigned bz, CUstream s, void** params, void** extra, Work* work) {
  const KernelSpec* spec = SpecIn(g_functions, f);
  if (spec == nullptr) spec = SpecIn(g_kernels, f);
  if (spec == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!ValidStream(s)) return CUDA_ERROR_INVALID_HANDLE;
  uint8_t packed[kMaxPackedParams] = {};
  if (extra != nullptr) {
    if (params != nullptr) return CUDA_ERROR_INVALID_VALUE;
    const void* buffer = nullptr;
    size_t size = 0;
    for (int i = 0; i < 32 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = extra[i + 1];
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) std::memcpy(&size, extra[i + 1], sizeof(size));
    }
    if (buffer == nullptr || size != spec->total) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(packed, buffer, size);
  } else if (spec->params > 0) {
    if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < spec->params; ++i) {
      if (params[i] == nullptr) return CUDA_ERROR_INVALID_VALUE;
      std::memcpy(packed + spec->offset[i], params[i], spec->size[i]);
    }
  }
  if (spec->count_param >= 0) std::memcpy(&work->n, packed + spec->offset[spec->count_param], 4);
  work->kernel = static_cast<int>(spec - kKernels);
  return CUDA_SUCCESS;
}

void Run(const Work& work) {
  g_kernel_launches[work.kernel].fetch_add(1, std::memory_order_relaxed);
  g_kernel_sum_n[work.kernel].fetch_add(work.n, std::memory_order_relaxed);
}

// --- Graphs ----------------------------------------------------------------------------------

// Graphs, executable graphs and nodes are slots of fixed tables; a node's handle is its slot's
// address. A stream capturing records its launches as nodes of its graph instead of running them.
// The tables are small: a test makes a few graphs.
constexpr int kMaxGraphs = 32;
constexpr int kMaxNodes = 1024;
struct Node {
  Work work;
  int graph = -1;
};
struct Graph {
  bool live = false;
  std::vector<int> nodes;  // node slots, in the order they were added
};
struct Exec {
  bool live = false;
  std::vector<Work> nodes;   // what each of the graph's nodes ran when instantiated (or updated)
  std::vector<int> sources;  // the graph's node slots, for in-place parameter changes
};
struct Capture {
  CUstream stream = nullptr;
  int graph = -1;
  cuuint64_t id = 0;
};
std::mutex g_graph_mutex;
Node g_nodes[kMaxNodes];
int g_node_count = 0;
Graph g_graph_table[kMaxGraphs];
Exec g_exec_table[kMaxGraphs];
Capture g_captures[kMaxStreams + 2];
cuuint64_t g_capture_ids = 0;

Capture* CaptureOn(CUstream s) {
  for (Capture& c : g_captures) {
    if (c.graph >= 0 && c.stream == s) return &c;
  }
  return nullptr;
}

template <class Handle, class Table>
int SlotOf(Handle handle, Table& table) {
  const auto* p = reinterpret_cast<const std::remove_reference_t<decltype(table[0])>*>(handle);
  if (p < std::begin(table) || p >= std::end(table)) return -1;
  return static_cast<int>(p - std::begin(table));
}

int NewSlot(auto& table) {
  for (int i = 0; i < kMaxGraphs; ++i) {
    if (!table[i].live) {
      table[i] = {};
      table[i].live = true;
      return i;
    }
  }
  return -1;
}

// Adds a node to `graph` (locked); its handle, or null when the table is full.
CUgraphNode AddNode(int graph, const Work& work) {
  if (g_node_count >= kMaxNodes) return nullptr;
  const int slot = g_node_count++;
  g_nodes[slot] = {work, graph};
  g_graph_table[graph].nodes.push_back(slot);
  return reinterpret_cast<CUgraphNode>(&g_nodes[slot]);
}

CUresult Launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                unsigned bz, CUstream s, void** params, void** extra) {
  Work work;
  if (const CUresult packed = Pack(f, gx, gy, gz, bx, by, bz, s, params, extra, &work);
      packed != CUDA_SUCCESS) {
    return packed;
  }
  {
    const std::lock_guard lock(g_graph_mutex);
    if (const Capture* c = CaptureOn(s)) {
      return AddNode(c->graph, work) != nullptr ? LaunchResult() : CUDA_ERROR_OUT_OF_MEMORY;
    }
  }
  Run(work);
  return LaunchResult();
}

CUresult BeginCapture(CUstream s, int graph) {
  if (!ValidStream(s) || s == nullptr || s == CU_STREAM_LEGACY) {
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  const std::lock_guard lock(g_graph_mutex);
  if (CaptureOn(s) != nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  if (graph < 0) graph = NewSlot(g_graph_table);
  if (graph < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  for (Capture& c : g_captures) {
    if (c.graph < 0) {
      c = {s, graph, ++g_capture_ids};
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult KernelWork(const CUDA_KERNEL_NODE_PARAMS* p, Work* work) {
  if (p == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const auto f = p->func != nullptr ? p->func : reinterpret_cast<CUfunction>(p->kern);
  return Pack(f, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ,
              nullptr, p->kernelParams, p->extra, work);
}

CUresult Instantiate(CUgraphExec* exec, CUgraph graph) {
  const std::lock_guard lock(g_graph_mutex);
  const int g = SlotOf(graph, g_graph_table);
  if (exec == nullptr || g < 0 || !g_graph_table[g].live) return CUDA_ERROR_INVALID_VALUE;
  const int e = NewSlot(g_exec_table);
  if (e < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  for (int node : g_graph_table[g].nodes) {
    g_exec_table[e].nodes.push_back(g_nodes[node].work);
    g_exec_table[e].sources.push_back(node);
  }
  *exec = reinterpret_cast<CUgraphExec>(&g_exec_table[e]);
  return CUDA_SUCCESS;
}

template <class T>
bool BadStreamArgument(T value) {
  if constexpr (std::is_same_v<T, CUstream>) return !ValidStream(value);
  return false;
}

// What each exported entry does; the overload is picked by the entry's parameter types.
struct Fake {
  Counter counter;

  CUresult operator()(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, unsigned, CUstream s, void** p, void** e) const {
    Count(counter);
    return Launch(f, gx, gy, gz, bx, by, bz, s, p, e);
  }
  CUresult operator()(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, unsigned, CUstream s, void** p) const {
    Count(counter);
    return Launch(f, gx, gy, gz, bx, by, bz, s, p, nullptr);
  }
  CUresult operator()(const CUlaunchConfig* c, CUfunction f, void** p, void** e) const {
    Count(counter);
    if (c == nullptr || (c->numAttrs > 0 && c->attrs == nullptr)) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < c->numAttrs; ++i) {
      if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        const auto& d = c->attrs[i].value.clusterDim;
        if (d.x == 0 || d.y == 0 || d.z == 0 || c->gridDimX % d.x != 0) {
          return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        }
      }
    }
    return Launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                  c->blockDimZ, c->hStream, p, e);
  }
  // A graph launch runs the executable graph's kernels.
  CUresult operator()(CUgraphExec g, CUstream s) const {
    Count(counter);
    if (g == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (!ValidStream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (ApiResult() != CUDA_SUCCESS) return ApiResult();
    const std::lock_guard lock(g_graph_mutex);
    const int e = SlotOf(g, g_exec_table);
    if (e < 0 || !g_exec_table[e].live) return CUDA_ERROR_INVALID_VALUE;
    for (const Work& work : g_exec_table[e].nodes) Run(work);
    return CUDA_SUCCESS;
  }
  // Stream capture.
  CUresult operator()(CUstream s, CUstreamCaptureMode) const {
    Count(counter);
    return BeginCapture(s, -1);
  }
  CUresult operator()(CUstream s, CUgraph graph, const CUgraphNode*, const CUgraphEdgeData*, size_t,
                      CUstreamCaptureMode) const {
    Count(counter);
    int g = -1;
    {
      const std::lock_guard lock(g_graph_mutex);
      g = SlotOf(graph, g_graph_table);
      if (g < 0 || !g_graph_table[g].live) return CUDA_ERROR_INVALID_VALUE;
    }
    return BeginCapture(s, g);
  }
  CUresult operator()(CUstream s, CUgraph* graph) const {
    Count(counter);
    const std::lock_guard lock(g_graph_mutex);
    Capture* c = CaptureOn(s);
    if (c == nullptr) return CUDA_ERROR_ILLEGAL_STATE;
    if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *graph = reinterpret_cast<CUgraph>(&g_graph_table[c->graph]);
    c->graph = -1;
    return CUDA_SUCCESS;
  }
  // Instantiation and update.
  CUresult operator()(CUgraphExec* exec, CUgraph graph, unsigned long long) const {
    Count(counter);
    return Instantiate(exec, graph);
  }
  CUresult operator()(CUgraphExec* exec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS*) const {
    Count(counter);
    return Instantiate(exec, graph);
  }
  CUresult operator()(CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo*) const {
    Count(counter);
    const std::lock_guard lock(g_graph_mutex);
    const int e = SlotOf(exec, g_exec_table), g = SlotOf(graph, g_graph_table);
    if (e < 0 || g < 0 || !g_exec_table[e].live || !g_graph_table[g].live) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    Exec& x = g_exec_table[e];
    const std::vector<int>& nodes = g_graph_table[g].nodes;
    if (nodes.size() != x.nodes.size()) return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    for (size_t i = 0; i < nodes.size(); ++i) x.nodes[i] = g_nodes[nodes[i]].work;
    x.sources = nodes;
    return CUDA_SUCCESS;
  }
  // Kernel nodes through the graph API.
  CUresult operator()(CUgraphNode* node, CUgraph graph, const CUgraphNode*, size_t,
                      const CUDA_KERNEL_NODE_PARAMS* p) const {
    Count(counter);
    Work work;
    if (const CUresult r = KernelWork(p, &work); r != CUDA_SUCCESS) return r;
    const std::lock_guard lock(g_graph_mutex);
    const int g = SlotOf(graph, g_graph_table);
    if (node == nullptr || g < 0 || !g_graph_table[g].live) return CUDA_ERROR_INVALID_VALUE;
    *node = AddNode(g, work);
    return *node != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
  }
  CUresult operator()(CUgraphNode* node, CUgraph graph, const CUgraphNode* d,
                      const CUgraphEdgeData*, size_t n, CUgraphNodeParams* p) const {
    if (p == nullptr || p->type != CU_GRAPH_NODE_TYPE_KERNEL) {
      Count(counter);
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    return (*this)(node, graph, d, n, reinterpret_cast<const CUDA_KERNEL_NODE_PARAMS*>(&p->kernel));
  }
  CUresult operator()(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS* p) const {
    Count(counter);
    Work work;
    if (const CUresult r = KernelWork(p, &work); r != CUDA_SUCCESS) return r;
    const std::lock_guard lock(g_graph_mutex);
    const int slot = SlotOf(node, g_nodes);
    if (slot < 0 || slot >= g_node_count) return CUDA_ERROR_INVALID_VALUE;
    g_nodes[slot].work = work;
    return CUDA_SUCCESS;
  }
  CUresult operator()(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS* p) const {
    Count(counter);
    Work work;
    if (const CUresult r = KernelWork(p, &work); r != CUDA_SUCCESS) return r;
    const std::lock_guard lock(g_graph_mutex);
    const int e = SlotOf(exec, g_exec_table), slot = SlotOf(node, g_nodes);
    if (e < 0 || !g_exec_table[e].live || slot < 0) return CUDA_ERROR_INVALID_VALUE;
    Exec& x = g_exec_table[e];
    for (size_t i = 0; i < x.sources.size(); ++i) {
      if (x.sources[i] == slot) {
        x.nodes[i] = work;
        return CUDA_SUCCESS;
      }
    }
    return CUDA_ERROR_INVALID_VALUE;
  }
  // Destruction.
  CUresult operator()(CUgraphExec exec) const {
    Count(counter);
    const std::lock_guard lock(g_graph_mutex);
    const int e = SlotOf(exec, g_exec_table);
    if (e < 0 || !g_exec_table[e].live) return CUDA_ERROR_INVALID_VALUE;
    g_exec_table[e].live = false;
    return CUDA_SUCCESS;
  }
  CUresult operator()(CUgraph graph) const {
    Count(counter);
    const std::lock_guard lock(g_graph_mutex);
    const int g = SlotOf(graph, g_graph_table);
    if (g < 0 || !g_graph_table[g].live) return CUDA_ERROR_INVALID_VALUE;
    g_graph_table[g].live = false;
    return CUDA_SUCCESS;
  }
  // Synchronisation, copies, sets: a valid stream, then the chosen status.
  template <class... A>
  CUresult operator()(A... args) const {
    Count(counter);
    if ((BadStreamArgument(args) || ...)) return CUDA_ERROR_INVALID_HANDLE;
    return ApiResult();
  }
};

// --- cuGetProcAddress ----------------------------------------------------------------------

struct Export {
  const char* name;
  void* address;
};

const Export* Exports();

const Export* InternalExports();

void* AddressOf(std::string_view exported) {
  static const bool internal = EnvInt("FAKECUDA_PROC_INTERNAL", 0) != 0;
  if (internal) {
    for (const Export* e = InternalExports(); e->name != nullptr; ++e) {
      if (exported == e->name) return e->address;
    }
  }
  for (const Export* e = Exports(); e->name != nullptr; ++e) {
    if (exported == e->name) return e->address;
  }
  return nullptr;
}

CUresult Resolve(const char* symbol, void** pfn, int version, cuuint64_t flags,
                 CUdriverProcAddressQueryResult* status);

// FAKECUDA_LOG_LOOKUPS=1: every cuGetProcAddress lookup on stderr (what a runtime asks for).
CUresult Lookup(const char* symbol, void** pfn, int version, cuuint64_t flags,
                CUdriverProcAddressQueryResult* status) {
  static const bool log = EnvInt("FAKECUDA_LOG_LOOKUPS", 0) != 0;
  const CUresult r = Resolve(symbol, pfn, version, flags, status);
  if (log) {
    std::fprintf(stderr, "fakecuda lookup %s %d %llu -> %d\n", symbol ? symbol : "(null)", version,
                 static_cast<unsigned long long>(flags), static_cast<int>(r));
  }
  return r;
}

CUresult Resolve(const char* symbol, void** pfn, int version, cuuint64_t flags,
                 CUdriverProcAddressQueryResult* status) {
  g_proc_flags[std::min<cuuint64_t>(flags, kFlagValues - 1)].fetch_add(1);
  if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  const std::string_view base(symbol);
  const char* exported = nullptr;
  int min_version = 0;
  if (base == "cuGetProcAddress") {
    exported = version >= 12000 ? "cuGetProcAddress_v2" : "cuGetProcAddress";
    min_version = 11030;
  } else if (base == "cuCtxSynchronize") {
    exported = version >= 13000 ? "cuCtxSynchronize_v2" : "cuCtxSynchronize";
    min_version = 2000;
  } else if (base == "cuMemcpyBatchAsync" || base == "cuMemcpy3DBatchAsync") {
    // The CUDA 12.8 ABI (with failIdx) under the bare name, the 13.0 ABI as _v2.
    const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    static constexpr const char* kNames[2][2][2] = {
        // [3D][13.0 ABI][per thread]
        {{"cuMemcpyBatchAsync", "cuMemcpyBatchAsync_ptsz"},
         {"cuMemcpyBatchAsync_v2", "cuMemcpyBatchAsync_v2_ptsz"}},
        {{"cuMemcpy3DBatchAsync", "cuMemcpy3DBatchAsync_ptsz"},
         {"cuMemcpy3DBatchAsync_v2", "cuMemcpy3DBatchAsync_v2_ptsz"}}};
    exported = kNames[base == "cuMemcpy3DBatchAsync"][version >= 13000][per_thread];
    min_version = 12080;
  } else {
    const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    for (const ProcName* p = per_thread ? kPerThreadProcNames : kLegacyProcNames; p->base; ++p) {
      if (base == p->base) {
        exported = p->exported;
        min_version = p->min_version;
        break;
      }
    }
  }
  if (exported == nullptr) return CUDA_ERROR_NOT_FOUND;
  if (version < min_version) {
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = AddressOf(exported);
  if (*pfn == nullptr) return CUDA_ERROR_NOT_FOUND;
  if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

CUresult Name(const KernelSpec* spec, const char** name) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (spec == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  *name = spec->name;
  return CUDA_SUCCESS;
}

// The parameter list ends with CUDA_ERROR_INVALID_VALUE, which callers iterate to.
CUresult ParamInfo(const KernelSpec* spec, size_t index, size_t* offset, size_t* size) {
  if (spec == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (offset == nullptr || size == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (index >= static_cast<size_t>(spec->params)) return CUDA_ERROR_INVALID_VALUE;
  *offset = spec->offset[index];
  *size = spec->size[index];
  return CUDA_SUCCESS;
}

}  // namespace
}  // namespace fakecuda

using fakecuda::Count;

// --- The wrapped entry points --------------------------------------------------------------

// Each entry point twice: the exported function, and an internal one (not exported) that
// cuGetProcAddress hands out instead under FAKECUDA_PROC_INTERNAL=1, as a driver may return
// pointers other than its exported symbols. Both count under the exported name.
#define FAKECUDA_DEFINE_ENTRY(id, base, exported, pfn, per_thread, api, kind, copy, sync, params, \
                              args)                                                               \
  FAKECUDA_EXPORT CUresult exported params {                                                      \
    return fakecuda::Fake{fakecuda::kCount_##exported} args;                                      \
  }                                                                                               \
  namespace fakecuda::internal {                                                                  \
  CUresult exported params {                                                                      \
    return fakecuda::Fake{fakecuda::kCount_##exported} args;                                      \
  }                                                                                               \
  }
FLOPSPY_DRIVER_ENTRIES(FAKECUDA_DEFINE_ENTRY)
#undef FAKECUDA_DEFINE_ENTRY

// --- Everything around them ----------------------------------------------------------------

FAKECUDA_EXPORT CUresult cuInit(unsigned int) {
  Count(fakecuda::kCount_cuInit);
  static const int value = fakecuda::EnvInt("FAKECUDA_INIT_RESULT", 0);
  if (value == CUDA_SUCCESS) fakecuda::g_initialized.store(true);
  return static_cast<CUresult>(value);
}

FAKECUDA_EXPORT CUresult cuDeviceGetCount(int* count) {
  Count(fakecuda::kCount_cuDeviceGetCount);
  if (!fakecuda::g_initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = fakecuda::DeviceCount();
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  Count(fakecuda::kCount_cuDeviceGet);
  if (!fakecuda::g_initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= fakecuda::DeviceCount()) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  Count(fakecuda::kCount_cuDevicePrimaryCtxRetain);
  if (!fakecuda::g_initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (device < 0 || device >= fakecuda::DeviceCount()) return CUDA_ERROR_INVALID_DEVICE;
  *context = reinterpret_cast<CUcontext>(&fakecuda::g_contexts[device]);
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  Count(fakecuda::kCount_cuDevicePrimaryCtxRelease_v2);
  if (!fakecuda::g_initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  return device >= 0 && device < fakecuda::DeviceCount() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

// No current context: success and a null context, as the real driver answers. Not counted: a
// thread-local read in the real driver, and flopspy calls it for every record it writes (an
// atomic count here would make the launch benchmark measure the fake).
FAKECUDA_EXPORT CUresult cuCtxGetCurrent(CUcontext* context) {
  if (!fakecuda::g_initialized.load(std::memory_order_relaxed)) return CUDA_ERROR_NOT_INITIALIZED;
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *context = fakecuda::tls_current;
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  Count(fakecuda::kCount_cuCtxSetCurrent);
  if (!fakecuda::g_initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (context != nullptr && fakecuda::ContextOf(context) == nullptr) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  fakecuda::tls_current = context;
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  Count(fakecuda::kCount_cuCtxGetDevice);
  if (!fakecuda::g_initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const fakecuda::Context* c = fakecuda::ContextOf(fakecuda::tls_current);
  if (c == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *device = c->device;
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream s, CUstreamCaptureStatus* status,
                                                   cuuint64_t* id, CUgraph* graph,
                                                   const CUgraphNode** dependencies,
                                                   const CUgraphEdgeData** edges, size_t* count) {
  Count(fakecuda::kCount_cuStreamGetCaptureInfo_v3);
  if (status == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!fakecuda::ValidStream(s)) return CUDA_ERROR_INVALID_HANDLE;
  const std::lock_guard lock(fakecuda::g_graph_mutex);
  const fakecuda::Capture* c = fakecuda::CaptureOn(s);
  *status = c != nullptr ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  if (c == nullptr) return CUDA_SUCCESS;
  if (id != nullptr) *id = c->id;
  if (graph != nullptr) *graph = reinterpret_cast<CUgraph>(&fakecuda::g_graph_table[c->graph]);
  // The stream depends on the last node captured (a linear capture).
  static thread_local CUgraphNode last = nullptr;
  const std::vector<int>& nodes = fakecuda::g_graph_table[c->graph].nodes;
  last = nodes.empty() ? nullptr : reinterpret_cast<CUgraphNode>(&fakecuda::g_nodes[nodes.back()]);
  if (dependencies != nullptr) *dependencies = nodes.empty() ? nullptr : &last;
  if (edges != nullptr) *edges = nullptr;
  if (count != nullptr) *count = nodes.empty() ? 0 : 1;
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuGraphCreate(CUgraph* graph, unsigned int) {
  Count(fakecuda::kCount_cuGraphCreate);
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const std::lock_guard lock(fakecuda::g_graph_mutex);
  const int g = fakecuda::NewSlot(fakecuda::g_graph_table);
  if (g < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *graph = reinterpret_cast<CUgraph>(&fakecuda::g_graph_table[g]);
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuDriverGetVersion(int* version) {
  Count(fakecuda::kCount_cuDriverGetVersion);
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                                             cuuint64_t flags,
                                             CUdriverProcAddressQueryResult* status) {
  Count(fakecuda::kCount_cuGetProcAddress_v2);
  return fakecuda::Lookup(symbol, pfn, version, flags, status);
}

FAKECUDA_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version,
                                          cuuint64_t flags) {
  Count(fakecuda::kCount_cuGetProcAddress);
  return fakecuda::Lookup(symbol, pfn, version, flags, nullptr);
}

FAKECUDA_EXPORT CUresult cuFuncGetName(const char** name, CUfunction f) {
  Count(fakecuda::kCount_cuFuncGetName);
  return fakecuda::Name(fakecuda::SpecIn(fakecuda::g_functions, f), name);
}

FAKECUDA_EXPORT CUresult cuKernelGetName(const char** name, CUkernel k) {
  Count(fakecuda::kCount_cuKernelGetName);
  return fakecuda::Name(fakecuda::SpecIn(fakecuda::g_kernels, k), name);
}

FAKECUDA_EXPORT CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset,
                                            size_t* size) {
  Count(fakecuda::kCount_cuFuncGetParamInfo);
  return fakecuda::ParamInfo(fakecuda::SpecIn(fakecuda::g_functions, f), index, offset, size);
}

FAKECUDA_EXPORT CUresult cuKernelGetParamInfo(CUkernel k, size_t index, size_t* offset,
                                              size_t* size) {
  Count(fakecuda::kCount_cuKernelGetParamInfo);
  return fakecuda::ParamInfo(fakecuda::SpecIn(fakecuda::g_kernels, k), index, offset, size);
}

FAKECUDA_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  Count(fakecuda::kCount_cuModuleLoadData);
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *module = reinterpret_cast<CUmodule>(&fakecuda::g_module);
  return CUDA_SUCCESS;
}

// Every module holds every catalog kernel.
FAKECUDA_EXPORT CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
  Count(fakecuda::kCount_cuModuleGetFunction);
  if (f == nullptr || module == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const int i = fakecuda::IndexOf(name);
  if (i < 0) return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(&fakecuda::g_functions[i]);
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*,
                                           void**, unsigned int, CUlibraryOption*, void**,
                                           unsigned int) {
  Count(fakecuda::kCount_cuLibraryLoadData);
  if (library == nullptr || code == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *library = reinterpret_cast<CUlibrary>(&fakecuda::g_library);
  return CUDA_SUCCESS;
}

// Every library holds every catalog kernel; a null library stands for the runtime's own.
FAKECUDA_EXPORT CUresult cuLibraryGetKernel(CUkernel* k, CUlibrary, const char* name) {
  Count(fakecuda::kCount_cuLibraryGetKernel);
  if (k == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const int i = fakecuda::IndexOf(name);
  if (i < 0) return CUDA_ERROR_NOT_FOUND;
  *k = reinterpret_cast<CUkernel>(&fakecuda::g_kernels[i]);
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuKernelGetFunction(CUfunction* f, CUkernel k) {
  Count(fakecuda::kCount_cuKernelGetFunction);
  const fakecuda::KernelSpec* spec = fakecuda::SpecIn(fakecuda::g_kernels, k);
  if (f == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (spec == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  *f = reinterpret_cast<CUfunction>(&fakecuda::g_functions[spec - fakecuda::kKernels]);
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  Count(fakecuda::kCount_cuMemAlloc_v2);
  if (p == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *p = reinterpret_cast<CUdeviceptr>(std::calloc(1, std::max<size_t>(bytes, 1)));
  return *p != 0 ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

FAKECUDA_EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
  Count(fakecuda::kCount_cuMemFree_v2);
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuStreamCreate(CUstream* s, unsigned int) {
  Count(fakecuda::kCount_cuStreamCreate);
  if (s == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const int i = fakecuda::g_next_stream.fetch_add(1);
  if (i >= fakecuda::kMaxStreams) return CUDA_ERROR_OUT_OF_MEMORY;
  *s = reinterpret_cast<CUstream>(&fakecuda::g_streams[i]);
  return CUDA_SUCCESS;
}

FAKECUDA_EXPORT CUresult cuStreamDestroy_v2(CUstream s) {
  Count(fakecuda::kCount_cuStreamDestroy_v2);
  return fakecuda::ValidStream(s) && s != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

namespace {
const char* ErrorName(CUresult r) {
  switch (r) {
    case CUDA_SUCCESS:
      return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE:
      return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_NOT_INITIALIZED:
      return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_INVALID_HANDLE:
      return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_NOT_FOUND:
      return "CUDA_ERROR_NOT_FOUND";
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    default:
      return nullptr;
  }
}
}  // namespace

FAKECUDA_EXPORT CUresult cuGetErrorString(CUresult r, const char** text) {
  Count(fakecuda::kCount_cuGetErrorString);
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *text = ErrorName(r);
  return *text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKECUDA_EXPORT CUresult cuGetErrorName(CUresult r, const char** text) {
  Count(fakecuda::kCount_cuGetErrorName);
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *text = ErrorName(r);
  return *text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// --- For tests -----------------------------------------------------------------------------

FAKECUDA_EXPORT void fakecuda_report(FILE* out) {
  using namespace fakecuda;
  for (int c = 0; c < kCounterCount; ++c) {
    if (const uint64_t n = g_calls[c].load()) {
      std::fprintf(out, "driver %s %llu\n", kCounterNames[c], static_cast<unsigned long long>(n));
    }
  }
  for (int k = 0; k < kKernelCount; ++k) {
    if (const uint64_t n = g_kernel_launches[k].load()) {
      std::fprintf(out, "kernel %s launches %llu sumN %lld\n", kKernels[k].name,
                   static_cast<unsigned long long>(n),
                   static_cast<long long>(g_kernel_sum_n[k].load()));
    }
  }
  for (int f = 0; f < kFlagValues; ++f) {
    if (const uint64_t n = g_proc_flags[f].load()) {
      std::fprintf(out, "procaddress flags %d %llu\n", f, static_cast<unsigned long long>(n));
    }
  }
}

FAKECUDA_EXPORT uint64_t fakecuda_calls(const char* exported_name) {
  using namespace fakecuda;
  for (int c = 0; exported_name != nullptr && c < kCounterCount; ++c) {
    if (std::strcmp(kCounterNames[c], exported_name) == 0) return g_calls[c].load();
  }
  return 0;
}

namespace fakecuda {
namespace {
const Export* Exports() {
  // clang-format off
  static const Export kExports[] = {
#define FAKECUDA_EXPORT_ADDRESS(id, base, exported, ...) \
    {#exported, reinterpret_cast<void*>(&::exported)},
    FLOPSPY_DRIVER_ENTRIES(FAKECUDA_EXPORT_ADDRESS)
#undef FAKECUDA_EXPORT_ADDRESS
#define FAKECUDA_EXTRA_ADDRESS(name) {#name, reinterpret_cast<void*>(&::name)},
    FAKECUDA_EXTRA_FUNCTIONS(FAKECUDA_EXTRA_ADDRESS)
#undef FAKECUDA_EXTRA_ADDRESS
    {nullptr, nullptr}};
  // clang-format on
  return kExports;
}

const Export* InternalExports() {
  // clang-format off
  static const Export kInternal[] = {
#define FAKECUDA_INTERNAL_ADDRESS(id, base, exported, ...) \
    {#exported, reinterpret_cast<void*>(&internal::exported)},
    FLOPSPY_DRIVER_ENTRIES(FAKECUDA_INTERNAL_ADDRESS)
#undef FAKECUDA_INTERNAL_ADDRESS
    {nullptr, nullptr}};
  // clang-format on
  return kInternal;
}
}  // namespace
}  // namespace fakecuda
