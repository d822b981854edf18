// Every way a kernel launch reaches libflopspy.so, without a GPU (docs/testing-without-gpu.md).
// Each program runs twice, without and with the preload, against the fake libcuda.so.1 and
// libcudart.so.12/.13 of tests/fakes/cuda. Both runs must print the same (results, and the
// fakes' call counters: every call reached the library once and unchanged) and end the same;
// the trace must hold exactly the expected launches, each once, with name, shape, stream,
// result and leading parameters.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <time.h>

#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "driver_entries.h"
#include "fake_cuda.h"
#include "flopspy/analyzers/kernel_catalog.h"
#include "launch_trace.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

using trace::Api;

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;
const std::string kDriverDir = FAKECUDA_DRIVER_DIR;
const std::string kRuntime13Dir = FAKECUDA_RUNTIME13_DIR;

constexpr uint32_t kPerThread = trace::kStreamPerThreadDefault;
constexpr uint32_t kLegacy = trace::kStreamLegacyDefault;

// Calls flopspy itself makes to name kernels and read their parameter layouts, once per kernel,
// and the lookups the runtime makes to answer them (a host stub is resolved to its CUkernel and
// CUfunction at first use), its one reading of the devices' properties at the first CUDA call,
// and its reading of the current context and its device (current_device.h): the only lines of
// the fakes' reports that differ with the preload.
bool IsNamingCounter(const std::string& line) {
  for (const char* prefix :
       {"driver cuFuncGetName ", "driver cuKernelGetName ", "driver cuFuncGetParamInfo ",
        "driver cuKernelGetParamInfo ", "runtime cudaFuncGetName ", "runtime cudaFuncGetParamInfo ",
        "runtime cudaGetFuncBySymbol ", "runtime cudaPeekAtLastError ", "runtime cudaGetLastError ",
        "driver cuLibraryGetKernel ", "driver cuKernelGetFunction ", "driver cuInit ",
        "driver cuDriverGetVersion ", "driver cuDeviceGetCount ", "driver cuDeviceGet ",
        "driver cuDeviceGetName ", "driver cuDeviceGetAttribute ", "driver cuDeviceTotalMem_v2 ",
        "driver cuDeviceGetUuid_v2 ", "driver cuDeviceGetUuid ", "driver cuCtxGetDevice ",
        // where a launch went while a stream captured (graph_registry.h)
        "driver cuStreamGetCaptureInfo_v3 "}) {
    if (line.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string WithoutNamingCounters(const std::string& out) {
  std::istringstream in(out);
  std::string line, kept;
  while (std::getline(in, line)) {
    if (!IsNamingCounter(line)) kept += line + "\n";
  }
  return kept;
}

std::string WithoutGpuTimingNotice(const std::string& err) {
  std::istringstream in(err);
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.rfind("flopspy: no GPU times", 0) != 0) kept += line + "\n";
  }
  return kept;
}

// "driver cuLaunchKernel 2" -> counters["driver cuLaunchKernel"] = 2;
// "kernel <name> launches 2 sumN 5096" -> ["kernel <name> launches"], ["kernel <name> sumN"].
std::map<std::string, int64_t> Counters(const std::string& out) {
  std::map<std::string, int64_t> counters;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, name;
    words >> kind >> name;
    if (kind == "driver" || kind == "runtime") {
      int64_t n = 0;
      if (words >> n) counters[kind + " " + name] = n;
    } else if (kind == "kernel") {
      std::string key;
      int64_t n = 0;
      while (words >> key >> n) counters["kernel " + name + " " + key] = n;
    } else if (kind == "procaddress") {
      int64_t flags = 0, n = 0;
      if (words >> flags >> n) counters["procaddress flags " + std::to_string(flags)] = n;
    }
  }
  return counters;
}

int64_t Get(const std::map<std::string, int64_t>& counters, const std::string& key) {
  const auto it = counters.find(key);
  return it == counters.end() ? 0 : it->second;
}

bool Contains(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

bool IsDriverApi(Api api);

struct Runs {
  ChildResult plain;
  ChildResult traced;
  LaunchTrace trace;
  std::map<std::string, int64_t> counters;         // the fakes' counters, plain run
  std::map<std::string, int64_t> traced_counters;  // the same with flopspy
};

class LaunchTest : public ::testing::Test {
 protected:
  ChildOptions Options(const std::map<std::string, std::string>& env, bool preload) const {
    ChildOptions options;
    options.env = env;
    options.env.emplace("LD_LIBRARY_PATH", kDriverDir + ":" + kRuntime13Dir);
    options.timeout = std::chrono::milliseconds(120000);
    if (preload) {
      options.env.emplace("LD_PRELOAD", kLibrary);
      options.env.emplace("FLOPSPY_OUT", dir_->path());
      options.env.emplace("FLOPSPY_FLUSH_MS", "10");
      options.env.emplace("FLOPSPY_QUIET", "1");
      options.env.emplace("FLOPSPY_GPU_TIMING", "off");
      options.env.emplace("FLOPSPY_CPU_ROOFLINE", "off");
    } else {
      options.unset.push_back("LD_PRELOAD");
    }
    return options;
  }

  // Runs `argv` without and with flopspy and checks what must not change.
  Runs RunBoth(const std::vector<std::string>& argv,
               const std::map<std::string, std::string>& env = {},
               const std::string& plain_preload = "", const std::string& extra_preload = "",
               bool expect_trace = true) {
    Runs r;
    ChildOptions plain = Options(env, false);
    if (!plain_preload.empty()) {
      plain.unset.clear();
      plain.env["LD_PRELOAD"] = plain_preload;
    }
    r.plain = RunChild(argv, plain);
    ChildOptions traced = Options(env, true);
    if (!extra_preload.empty()) traced.env["LD_PRELOAD"] = kLibrary + ":" + extra_preload;
    r.traced = RunChild(argv, traced);
    EXPECT_FALSE(r.plain.timed_out);
    EXPECT_FALSE(r.traced.timed_out);
    EXPECT_TRUE(r.plain.exited) << "signal " << r.plain.signal << "\n" << r.plain.err;
    EXPECT_TRUE(r.traced.exited) << "signal " << r.traced.signal << "\n" << r.traced.err;
    EXPECT_EQ(r.traced.exit_code, r.plain.exit_code);
    EXPECT_EQ(WithoutNamingCounters(r.traced.out), WithoutNamingCounters(r.plain.out));
    // The one line flopspy owes the user when GPU timing is off or CUPTI cannot be had (these
    // runs set FLOPSPY_GPU_TIMING=off: the fake driver cannot host CUPTI).
    EXPECT_EQ(WithoutGpuTimingNotice(r.traced.err), r.plain.err);
    r.counters = Counters(r.plain.out);
    r.traced_counters = Counters(r.traced.out);
    const auto traces = dir_->Files(".fspy");
    if (!expect_trace) {
      EXPECT_LE(traces.size(), 1u);
      return r;
    }
    EXPECT_EQ(traces.size(), 1u);
    if (!traces.empty()) r.trace = ReadLaunchTrace(traces.front());
    EXPECT_TRUE(r.trace.header_ok);
    EXPECT_EQ(r.trace.read.status, trace::ReadStatus::kOk) << r.trace.read.message;
    EXPECT_EQ(r.trace.summary.TotalLost(), 0u);
    for (const auto& w : r.trace.summary.warnings) {
      // Expected here: no GPU timing (off), no CPU counters (no PMU on test machines).
      if (w.code == trace::WarningCode::kCuptiUnavailable ||
          w.code == trace::WarningCode::kCountersUnavailable) {
        continue;
      }
      ADD_FAILURE() << "trace warning: " << w.message;
    }
    std::set<uint64_t> correlations;
    for (const auto& l : r.trace.launches) {
      // A launch a runtime hook recorded says so; one a driver hook recorded does not.
      EXPECT_EQ((l.flags & trace::kLaunchFromRuntime) != 0, !IsDriverApi(l.api))
          << "api " << static_cast<int>(l.api) << " flags " << static_cast<int>(l.flags);
      EXPECT_NE(l.correlation, 0u);
      EXPECT_TRUE(correlations.insert(l.correlation).second) << "correlation " << l.correlation;
    }
    for (const auto& c : r.trace.calls) {
      EXPECT_TRUE(correlations.insert(c.correlation).second) << "correlation " << c.correlation;
    }
    return r;
  }

  // Extra naming calls flopspy made (traced minus plain).
  static int64_t NamingCalls(const Runs& r, const std::string& key) {
    return Get(r.traced_counters, key) - Get(r.counters, key);
  }

  // A fresh trace folder, for a second program run in one test.
  void NewTraceDir() { dir_ = std::make_unique<TempDir>(); }

  std::unique_ptr<TempDir> dir_ = std::make_unique<TempDir>();
};

void ExpectLaunch(const LaunchSeen* l, Api api, const char* name, const std::string& grid,
                  const std::string& block, uint32_t smem, uint32_t stream_flags,
                  int32_t result = 0) {
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->api, api);
  EXPECT_EQ(l->name, name);
  EXPECT_EQ(l->Grid(), grid);
  EXPECT_EQ(l->Block(), block);
  EXPECT_EQ(l->smem, smem);
  EXPECT_EQ(l->stream_flags, stream_flags);
  EXPECT_EQ(l->result, result);
}

// Every launch of a trace, one per line, for failure messages.
std::string Describe(const LaunchTrace& t) {
  std::string text;
  for (const auto& l : t.launches) {
    text += "api " + std::to_string(static_cast<int>(l.api)) + " result " +
            std::to_string(l.result) + " name '" + l.name + "' grid " + l.Grid() + " block " +
            l.Block() + " smem " + std::to_string(l.smem) + " stream " + std::to_string(l.stream) +
            "/" + std::to_string(l.stream_flags) + " params " + std::to_string(l.params.size()) +
            " N " + std::to_string(l.ParamInt(0)) + " @8 " + std::to_string(l.ParamInt(8)) + "\n";
  }
  return text;
}

size_t CountWithApi(const LaunchTrace& t, Api api) {
  return t.WithApi(api).size();
}

bool IsDriverApi(Api api) {
  return static_cast<uint16_t>(api) < static_cast<uint16_t>(Api::kCudaLaunchKernel) ||
         (static_cast<uint16_t>(api) >= static_cast<uint16_t>(Api::kCuCtxSynchronize) &&
          static_cast<uint16_t>(api) < static_cast<uint16_t>(Api::kCudaDeviceSynchronize)) ||
         (static_cast<uint16_t>(api) >= static_cast<uint16_t>(Api::kCuMemcpy) &&
          static_cast<uint16_t>(api) < static_cast<uint16_t>(Api::kCudaMemcpy));
}

// --- The fakes themselves --------------------------------------------------------------------

// Every exported name flopspy wraps (and the fake driver defines) is a real driver export: the
// names are checked against NVIDIA's stub libcuda.so of the toolkit the project builds with.
TEST(FakeDriver, ExportsWhatTheRealDriverExports) {
  void* stub = dlopen(FAKECUDA_STUB_DRIVER, RTLD_LAZY | RTLD_LOCAL);
  if (stub == nullptr) GTEST_SKIP() << "no stub libcuda.so at " << FAKECUDA_STUB_DRIVER;
  void* fake = dlopen((kDriverDir + "/libcuda.so.1").c_str(), RTLD_LAZY | RTLD_LOCAL);
  ASSERT_NE(fake, nullptr) << dlerror();
  int checked = 0;
#define CHECK_EXPORT(id, base, exported, ...)                             \
  EXPECT_NE(dlsym(stub, #exported), nullptr) << #exported " not in stub"; \
  EXPECT_NE(dlsym(fake, #exported), nullptr) << #exported " not in fake"; \
  ++checked;
  FLOPSPY_DRIVER_ENTRIES(CHECK_EXPORT)
#undef CHECK_EXPORT
  EXPECT_GT(checked, 60);
  for (const char* name : {"cuGetProcAddress", "cuGetProcAddress_v2", "cuFuncGetName",
                           "cuKernelGetName", "cuFuncGetParamInfo", "cuKernelGetParamInfo"}) {
    EXPECT_NE(dlsym(stub, name), nullptr) << name;
    EXPECT_NE(dlsym(fake, name), nullptr) << name;
  }
  dlclose(fake);
  dlclose(stub);
}

// --- The table against the CUDA headers -----------------------------------------------------

std::string ReadCudaHeader(const char* name) {
  std::ifstream in(std::string(CUDA_HEADERS_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool IsCopyOrSet(const std::string& name) {
  return name.rfind("cuMemcpy", 0) == 0 || name.rfind("cuMemsetD", 0) == 0;
}

struct TableEntry {
  std::string base, exported, pfn;
  bool per_thread;
};

std::vector<TableEntry> CopyAndSetEntries() {
  std::vector<TableEntry> out;
#define TABLE_ENTRY(id, base, exported, pfn, per_thread, ...) \
  if (IsCopyOrSet(base)) out.push_back({base, #exported, #pfn, per_thread});
  FLOPSPY_DRIVER_ENTRIES(TABLE_ENTRY)
#undef TABLE_ENTRY
  return out;
}

// Every ABI of the copy and set families that cudaTypedefs.h knows from CUDA 3.2 on has an entry
// (a toolkit that adds one fails here until it is wrapped), and nothing else.
TEST(DriverTable, CopyAndSetFamiliesMatchCudaTypedefs) {
  const std::string typedefs = ReadCudaHeader("cudaTypedefs.h");
  ASSERT_FALSE(typedefs.empty()) << CUDA_HEADERS_DIR;
  const std::regex pfn(R"(PFN_(cuMem(?:cpy|setD)[A-Za-z0-9]*)_v(\d+)(_ptds|_ptsz)?\))");
  std::set<std::string> in_header;
  for (std::sregex_iterator it(typedefs.begin(), typedefs.end(), pfn), end; it != end; ++it) {
    const std::string match = (*it)[0].str();
    if (std::stoi((*it)[2].str()) >= 3020) in_header.insert(match.substr(0, match.size() - 1));
  }
  EXPECT_GE(in_header.size(), 80u) << "the pattern found too few typedefs";
  std::set<std::string> in_table;
  for (const TableEntry& e : CopyAndSetEntries()) {
    EXPECT_TRUE(in_table.insert(e.pfn).second) << "two entries of " << e.pfn;
  }
  for (const std::string& name : in_header) {
    EXPECT_TRUE(in_table.count(name)) << name << " is in cudaTypedefs.h, not in driver_entries.h";
  }
  for (const std::string& name : in_table) {
    EXPECT_TRUE(in_header.count(name)) << name << " is in driver_entries.h, not in cudaTypedefs.h";
  }
}

// Every copy or set function cuda.h declares belongs to a wrapped family, and each name cuda.h
// maps with __CUDA_API_PTDS/__CUDA_API_PTSZ is exported by the table's legacy entry (the target)
// and per-thread entry (the target with _ptds or _ptsz): what a program compiled against these
// headers calls.
TEST(DriverTable, CopyAndSetNamesMatchCudaHeader) {
  const std::string header = ReadCudaHeader("cuda.h");
  ASSERT_FALSE(header.empty()) << CUDA_HEADERS_DIR;
  const std::vector<TableEntry> entries = CopyAndSetEntries();
  std::set<std::string> bases;
  for (const TableEntry& e : entries) bases.insert(e.base);

  const std::regex declared(
      R"(CUresult CUDAAPI (cuMem(?:cpy|setD)[A-Za-z0-9]*)(?:_v\d+)?(?:_ptds|_ptsz)?\()");
  int declarations = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), declared), end; it != end; ++it) {
    ++declarations;
    EXPECT_TRUE(bases.count((*it)[1].str())) << (*it)[0].str() << ": family not wrapped";
  }
  EXPECT_GT(declarations, 60);

  const std::regex mapped(
      R"(#define\s+(cuMem(?:cpy|setD)[A-Za-z0-9]*)\s+__CUDA_API_PT(DS|SZ)\((\w+)\))");
  const auto exports = [&](const std::string& base, const std::string& exported, bool per_thread) {
    for (const TableEntry& e : entries) {
      if (e.base == base && e.exported == exported && e.per_thread == per_thread) return true;
    }
    return false;
  };
  int mappings = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), mapped), end; it != end; ++it) {
    ++mappings;
    const std::string base = (*it)[1].str(), target = (*it)[3].str();
    const std::string suffix = (*it)[2].str() == "DS" ? "_ptds" : "_ptsz";
    EXPECT_TRUE(exports(base, target, false)) << base << " -> " << target;
    EXPECT_TRUE(exports(base, target + suffix, true)) << base << " -> " << target + suffix;
  }
  EXPECT_GT(mappings, 35);
}

// --- (a) dynamic cudart --------------------------------------------------------------------

class RuntimeLaunchTest : public LaunchTest, public ::testing::WithParamInterface<int> {};

TEST_P(RuntimeLaunchTest, EveryRuntimeFormRecordedOnce) {
  const int major = GetParam();
  const Runs r = RunBoth({major == 12 ? RUNTIME_APP12 : RUNTIME_APP13, "all"});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out << r.plain.err;
  const auto& c = r.counters;
  // The fake runtime launched through the driver's pointers, per-thread forms included.
  EXPECT_EQ(Get(c, "driver cuLaunchKernel"), 2);
  EXPECT_EQ(Get(c, "driver cuLaunchKernel_ptsz"), 2);
  EXPECT_EQ(Get(c, "driver cuLaunchKernelEx"), 1);
  EXPECT_EQ(Get(c, "driver cuLaunchKernelEx_ptsz"), 1);
  EXPECT_EQ(Get(c, "driver cuLaunchCooperativeKernel"), 1);
  EXPECT_EQ(Get(c, "driver cuLaunchCooperativeKernel_ptsz"), 1);
  EXPECT_EQ(Get(c, major == 13 ? "driver cuCtxSynchronize_v2" : "driver cuCtxSynchronize"), 1);
  EXPECT_GT(Get(c, "procaddress flags 2"), 0);

  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 8u) << "each runtime launch once, none again from the driver";
  for (const auto& l : t.launches) EXPECT_FALSE(IsDriverApi(l.api)) << static_cast<int>(l.api);

  const LaunchSeen* l1 = t.WithApi(Api::kCudaLaunchKernel).at(0);
  ExpectLaunch(l1, Api::kCudaLaunchKernel, fakecuda::kAtenMul, "4,1,1", "128,1,1", 0, kLegacy);
  EXPECT_EQ(l1->demangled, fakecuda::kAtenMulDemangled);
  EXPECT_EQ(l1->param_count, 3);
  EXPECT_EQ(l1->stream, 0u);
  EXPECT_EQ(l1->ParamInt(0), 1000);
  // All 32 parameter bytes: launched before the flusher catalogued the kernel.
  ASSERT_EQ(l1->params.size(), 32u);
  float functor = 0;
  std::memcpy(&functor, l1->params.data() + 4, 4);
  EXPECT_EQ(functor, 2.5f);

  const LaunchSeen* l2 = t.WithApi(Api::kCudaLaunchKernelPtsz).at(0);
  ExpectLaunch(l2, Api::kCudaLaunchKernelPtsz, fakecuda::kAddKernel, "2,3,1", "64,2,1", 256,
               kPerThread);
  EXPECT_EQ(l2->demangled, fakecuda::kAddKernelDemangled);
  EXPECT_EQ(l2->ParamInt(0), 77);

  const LaunchSeen* l3 = t.WithApi(Api::kCudaLaunchKernelStub).at(0);
  ExpectLaunch(l3, Api::kCudaLaunchKernelStub, fakecuda::kAtenMul, "8,1,1", "256,1,1", 0, 0);
  EXPECT_NE(l3->stream, 0u);
  EXPECT_NE(l3->function_handle, l1->function_handle);  // a cudaKernel_t, not the host stub
  EXPECT_EQ(l3->ParamInt(0), 4096);

  const LaunchSeen* l4 = t.WithApi(Api::kCudaLaunchKernelStubPtsz).at(0);
  ExpectLaunch(l4, Api::kCudaLaunchKernelStubPtsz, fakecuda::kAddKernel, "1,1,1", "32,1,1", 0,
               kPerThread);
  EXPECT_EQ(l4->ParamInt(0), 5);

  const LaunchSeen* l5 = t.WithApi(Api::kCudaLaunchKernelExC).at(0);
  ExpectLaunch(l5, Api::kCudaLaunchKernelExC, fakecuda::kTritonAdd, "8,1,1", "128,1,1", 128, 0);
  EXPECT_EQ(l5->demangled, fakecuda::kTritonAdd);
  EXPECT_EQ(l5->Cluster(), "2,1,1");
  EXPECT_EQ(l5->stream, l3->stream);
  // Its first launch keeps every parameter, xnumel (beyond 20 bytes) included.
  EXPECT_FALSE(l5->flags & trace::kLaunchParamsTruncated);
  EXPECT_EQ(l5->params.size(), 28u);

  const LaunchSeen* l6 = t.WithApi(Api::kCudaLaunchKernelExCPtsz).at(0);
  ExpectLaunch(l6, Api::kCudaLaunchKernelExCPtsz, fakecuda::kEmptyKernel, "1,1,1", "1,1,1", 0,
               kPerThread);
  EXPECT_EQ(l6->param_count, 0);
  EXPECT_TRUE(l6->params.empty());
  EXPECT_EQ(l6->Cluster(), "0,0,0");

  const LaunchSeen* l7 = t.WithApi(Api::kCudaLaunchCooperativeKernel).at(0);
  ExpectLaunch(l7, Api::kCudaLaunchCooperativeKernel, fakecuda::kGridSync, "4,1,1", "32,1,1", 0, 0);
  EXPECT_EQ(l7->ParamInt(8), 9);
  const LaunchSeen* l8 = t.WithApi(Api::kCudaLaunchCooperativeKernelPtsz).at(0);
  ExpectLaunch(l8, Api::kCudaLaunchCooperativeKernelPtsz, fakecuda::kGridSync, "2,1,1", "64,1,1", 0,
               kPerThread);
  EXPECT_EQ(l8->ParamInt(8), 11);

  // Syncs, copies and graph launches: runtime records only.
  EXPECT_EQ(t.calls.size(), 10u);
  for (const auto& call : t.calls) EXPECT_FALSE(IsDriverApi(call.api)) << int(call.api);
  const auto copies = t.CallsWithApi(Api::kCudaMemcpy);
  ASSERT_EQ(copies.size(), 3u);
  EXPECT_EQ(copies[0]->bytes, 4096u);
  EXPECT_EQ(copies[0]->detail & 0xFF, static_cast<uint32_t>(trace::CopyKind::kHostToDevice));
  EXPECT_EQ(copies[1]->detail & 0xFF, static_cast<uint32_t>(trace::CopyKind::kDeviceToHost));
  EXPECT_EQ(copies[2]->bytes, 1024u);
  ASSERT_EQ(t.CallsWithApi(Api::kCudaMemcpyAsync).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaMemcpyAsync)[0]->stream, l3->stream);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaMemcpyAsyncPtsz).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaGraphLaunch).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaGraphLaunchPtsz).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaStreamSynchronize).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaStreamSynchronizePtsz).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaDeviceSynchronize).size(), 1u);

  // Named once per handle: 5 host stubs (their CUfunction from cudaGetFuncBySymbol, then the
  // driver) and 2 cudaKernel_t handles (the driver alone). The runtime's parameter query is never
  // used: its "invalid value" past the last parameter would become the program's last error.
  EXPECT_EQ(NamingCalls(r, "runtime cudaGetFuncBySymbol"), 5);
  EXPECT_EQ(NamingCalls(r, "runtime cudaFuncGetName"), 0);
  EXPECT_EQ(NamingCalls(r, "runtime cudaFuncGetParamInfo"), 0);
  EXPECT_EQ(NamingCalls(r, "driver cuFuncGetName"), 5);
  EXPECT_EQ(NamingCalls(r, "driver cuKernelGetName"), 2);
  EXPECT_TRUE(Contains(r.traced.out, "cudaGetLastError after the launches -> 0")) << r.traced.out;
}

INSTANTIATE_TEST_SUITE_P(Cudart, RuntimeLaunchTest, ::testing::Values(12, 13),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "libcudart_so_" + std::to_string(p.param);
                         });

// (d) on the runtime side: code compiled with --default-stream per-thread.
TEST_F(LaunchTest, RuntimePerThreadDefaultStreamBuild) {
  const Runs r = RunBoth({RUNTIME_APP13, "ptds"});
  EXPECT_EQ(Get(r.counters, "runtime cudaLaunchKernel_ptsz"), 3);
  EXPECT_EQ(Get(r.counters, "runtime cudaLaunchKernel"), 0);
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel_ptsz"), 4);
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 4u);
  ExpectLaunch(t.ByN(2048), Api::kCudaLaunchKernelPtsz, fakecuda::kAtenMul, "16,1,1", "256,1,1", 0,
               kPerThread);
  EXPECT_EQ(t.ByN(2048)->stream, 0u);
  ExpectLaunch(t.ByN(2049), Api::kCudaLaunchKernelPtsz, fakecuda::kAtenMul, "16,1,1", "256,1,1", 0,
               kPerThread);
  EXPECT_EQ(t.ByN(2049)->stream, 2u);  // cudaStreamPerThread
  ExpectLaunch(t.ByN(2050), Api::kCudaLaunchKernelPtsz, fakecuda::kAtenMul, "16,1,1", "256,1,1", 0,
               kLegacy);
  EXPECT_EQ(t.ByN(2050)->stream, 1u);  // cudaStreamLegacy
  ExpectLaunch(t.ByN(6), Api::kCudaLaunchKernelStubPtsz, fakecuda::kAddKernel, "3,1,1", "96,1,1", 0,
               kPerThread);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaStreamSynchronizePtsz).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaMemcpy).size(), 1u);  // cudaMemcpy_ptds
}

// --- (b) a driver user doing what cudart does ----------------------------------------------

TEST_F(LaunchTest, DriverUserThroughCuGetProcAddress) {
  const Runs r = RunBoth({DRIVER_APP, "procaddress"});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out;
  const std::string& out = r.traced.out;
  EXPECT_TRUE(Contains(out, "self lookup returns the function asked: yes")) << out;
  EXPECT_TRUE(Contains(out, "legacy and per-thread pointers distinct: yes"));
  EXPECT_TRUE(Contains(out, "legacy pointer stable: yes"));
  EXPECT_TRUE(Contains(out, "per-thread pointer same through v1: yes"));
  EXPECT_TRUE(Contains(r.plain.out, "cuGetProcAddress returns the exported cuLaunchKernel: yes"));
  EXPECT_TRUE(Contains(out, "cuLaunchKernel bad handle -> 400"));
  EXPECT_TRUE(Contains(out, "lookup cuLaunchKernelEx 11000 -> 500"));
  EXPECT_TRUE(Contains(out, "pointer cleared: yes"));
  const auto& c = r.counters;
  EXPECT_EQ(Get(c, "driver cuLaunchKernel"), 4);
  EXPECT_EQ(Get(c, "driver cuLaunchKernel_ptsz"), 2);  // the per-thread wrapper calls _ptsz
  EXPECT_EQ(Get(c, "driver cuCtxSynchronize"), 1);
  EXPECT_EQ(Get(c, "driver cuCtxSynchronize_v2"), 1);

  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 10u) << Describe(t);
  SCOPED_TRACE(Describe(t));
  EXPECT_EQ(CountWithApi(t, Api::kCuLaunchKernel), 4u);
  EXPECT_EQ(CountWithApi(t, Api::kCuLaunchKernelPtsz), 2u);
  ExpectLaunch(t.ByN(12345), Api::kCuLaunchKernel, fakecuda::kAtenMul, "10,2,1", "256,1,1", 0,
               kLegacy);
  EXPECT_EQ(t.ByN(12345)->demangled, fakecuda::kAtenMulDemangled);
  ExpectLaunch(t.ByN(54321), Api::kCuLaunchKernelPtsz, fakecuda::kAtenMul, "5,1,1", "128,1,1", 64,
               kPerThread);
  ExpectLaunch(t.ByN(4242), Api::kCuLaunchKernelPtsz, fakecuda::kAtenMul, "6,1,1", "128,1,1", 0,
               kPerThread);
  // Parameters passed in one buffer (extra) are captured from it.
  ExpectLaunch(t.ByN(777), Api::kCuLaunchKernel, fakecuda::kAtenMul, "1,1,1", "32,1,1", 0, kLegacy);
  // A CUkernel passed as the CUfunction.
  ExpectLaunch(t.ByN(21), Api::kCuLaunchKernel, fakecuda::kAddKernel, "7,1,1", "32,1,1", 0,
               kLegacy);
  // The driver's error, recorded and returned unchanged; a handle nobody can name keeps an
  // unknown layout, so N (the first 4 bytes) is still captured.
  const LaunchSeen* bad = t.ByN(999);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->result, CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(bad->api, Api::kCuLaunchKernel);
  EXPECT_EQ(bad->function_handle, 0x1234u);
  EXPECT_EQ(bad->name, "");
  EXPECT_EQ(bad->param_count, 0xFFFF);
  ExpectLaunch(t.ByN(31), Api::kCuLaunchKernelEx, fakecuda::kAtenMul, "3,1,1", "64,1,1", 0,
               kLegacy);
  ExpectLaunch(t.ByN(32), Api::kCuLaunchKernelExPtsz, fakecuda::kAtenMul, "3,1,1", "64,1,1", 0,
               kPerThread);
  EXPECT_EQ(t.ByN(32)->stream, 2u);  // CU_STREAM_PER_THREAD
  ExpectLaunch(t.ByN(3, 8), Api::kCuLaunchCooperativeKernel, fakecuda::kGridSync, "4,1,1", "32,1,1",
               0, kLegacy);
  ExpectLaunch(t.ByN(4, 8), Api::kCuLaunchCooperativeKernelPtsz, fakecuda::kGridSync, "2,1,1",
               "32,1,1", 0, kPerThread);

  EXPECT_EQ(t.CallsWithApi(Api::kCuGraphLaunch).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCuStreamSynchronize).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCuStreamSynchronizePtsz).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCuCtxSynchronize).size(), 2u);
  const auto copies = t.CallsWithApi(Api::kCuMemcpy);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0]->bytes, 128u);
  EXPECT_EQ(copies[1]->bytes, 64u);
  ASSERT_EQ(t.CallsWithApi(Api::kCuMemsetAsync).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCuMemsetAsync)[0]->bytes, 64u);  // 16 x 4 bytes
}

// A driver whose cuGetProcAddress returns functions other than its exported symbols: flopspy
// keeps a second slot per entry for them, and every launch through them is still recorded once.
TEST_F(LaunchTest, ProcAddressReturningInternalFunctions) {
  const std::map<std::string, std::string> internal = {{"FAKECUDA_PROC_INTERNAL", "1"}};
  {
    const Runs r = RunBoth({DRIVER_APP, "procaddress"}, internal);
    ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out;
    EXPECT_TRUE(Contains(r.traced.out, "legacy and per-thread pointers distinct: yes"));
    EXPECT_TRUE(Contains(r.plain.out, "cuGetProcAddress returns the exported cuLaunchKernel: no"));
    EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel"), 4);
    EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel_ptsz"), 2);
    const LaunchTrace& t = r.trace;
    EXPECT_EQ(t.launches.size(), 10u) << Describe(t);
    EXPECT_EQ(CountWithApi(t, Api::kCuLaunchKernel), 4u);
    EXPECT_EQ(CountWithApi(t, Api::kCuLaunchKernelPtsz), 2u);
    EXPECT_EQ(CountWithApi(t, Api::kCuLaunchKernelExPtsz), 1u);
    EXPECT_EQ(CountWithApi(t, Api::kCuLaunchCooperativeKernelPtsz), 1u);
    ASSERT_NE(t.ByN(54321), nullptr);
    EXPECT_EQ(t.ByN(54321)->stream_flags, kPerThread);
    EXPECT_EQ(t.CallsWithApi(Api::kCuCtxSynchronize).size(), 2u);
  }
  NewTraceDir();
  {
    const Runs r = RunBoth({RUNTIME_APP13, "all"}, internal);
    EXPECT_EQ(r.trace.launches.size(), 8u) << Describe(r.trace);
    for (const auto& l : r.trace.launches) EXPECT_FALSE(IsDriverApi(l.api));
  }
}

// --- (c) Triton ----------------------------------------------------------------------------

TEST_F(LaunchTest, TritonLaunchKernelExFoundWithDlsym) {
  const Runs r = RunBoth({DRIVER_APP, "triton"}, {{"FLOPSPY_PARAM_BYTES", "32"}});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out;
  EXPECT_TRUE(Contains(r.traced.out, "cuLaunchKernelEx bad cluster -> 912")) << r.traced.out;
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernelEx"), 5);
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernelEx_ptsz"), 1);
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 6u);
  EXPECT_EQ(CountWithApi(t, Api::kCuLaunchKernelEx), 5u);
  for (int xnumel : {8192, 4096, 100, 2048}) {
    const LaunchSeen* l = t.ByN(xnumel, 24);
    ExpectLaunch(l, Api::kCuLaunchKernelEx, fakecuda::kTritonAdd, "64,1,1", "128,1,1", 1024, 0);
    EXPECT_EQ(l->demangled, fakecuda::kTritonAdd);
    EXPECT_EQ(l->Cluster(), "2,1,1");
    EXPECT_NE(l->stream, 0u);
    EXPECT_EQ(l->params.size(), 28u);  // all four parameters, past the inline 20 bytes
  }
  ExpectLaunch(t.ByN(5, 24), Api::kCuLaunchKernelEx, fakecuda::kTritonAdd, "64,1,1", "128,1,1",
               1024, 0, CUDA_ERROR_INVALID_CLUSTER_SIZE);
  EXPECT_EQ(t.ByN(5, 24)->Cluster(), "3,1,1");
  ExpectLaunch(t.ByN(64, 24), Api::kCuLaunchKernelExPtsz, fakecuda::kTritonAdd, "1,1,1", "32,1,1",
               0, kPerThread);
  EXPECT_EQ(t.ByN(64, 24)->Cluster(), "0,0,0");
}

// --- CUDA graphs (docs/cuda-graphs.md)
// ------------------------------------------------------------

// What driver_app graphs did reaches the fake unchanged (each graph launch ran its kernels: the
// fake counts their executions), and the trace holds every node with its kernel and parameters,
// every graph event, and each graph launch's executable graph.
TEST_F(LaunchTest, CudaGraphsAreRecordedNodeByNode) {
  const Runs r = RunBoth({DRIVER_APP, "graphs"});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out;
  // Every result and kernel count is the same with flopspy (which also asks the driver where
  // captured launches went: the driver's call counts differ).
  std::istringstream plain_lines(r.plain.out);
  for (std::string line; std::getline(plain_lines, line);) {
    if (line.rfind("driver ", 0) != 0) {
      EXPECT_TRUE(Contains(r.traced.out, line)) << line;
    }
    if (Contains(line, " -> ")) {
      EXPECT_TRUE(line.ends_with(" -> 0")) << line;
    }
  }
  // Executions: the eager launch, 3 + 1 replays of the capture, 2 + 1 of the built graph.
  EXPECT_TRUE(
      Contains(r.plain.out, std::string("kernel ") + fakecuda::kAtenMul + " launches 8 sumN 18111"))
      << r.plain.out;
  EXPECT_TRUE(Contains(r.plain.out,
                       std::string("kernel ") + fakecuda::kAddKernel + " launches 4 sumN 12000"))
      << r.plain.out;
  const LaunchTrace& t = r.trace;
  const auto launch_of = [&](int32_t n) -> const LaunchSeen& {
    static const LaunchSeen none;
    const LaunchSeen* l = t.ByN(n);
    EXPECT_NE(l, nullptr) << "no single launch of N " << n << "\n" << Describe(t);
    return l != nullptr ? *l : none;
  };
  EXPECT_FALSE(launch_of(111).flags & trace::kLaunchCaptured);
  for (int32_t n : {1000, 2000, 5000, 6000}) {
    EXPECT_TRUE(launch_of(n).flags & trace::kLaunchCaptured) << n;
    EXPECT_EQ(launch_of(n).api, trace::Api::kCuLaunchKernel) << n;
  }
  EXPECT_EQ(launch_of(3000).api, trace::Api::kCuGraphAddKernelNode);
  EXPECT_EQ(launch_of(4000).api, trace::Api::kCuGraphExecKernelNodeSetParams);
  EXPECT_EQ(launch_of(4000).Grid(), "8,1,1");
  EXPECT_TRUE(launch_of(3000).flags & trace::kLaunchCaptured);

  // One node record per recorded node, after its launch, with the launch's correlation.
  ASSERT_EQ(t.graph_nodes.size(), 6u);
  std::map<uint64_t, trace::GraphNodeRecord> node_of;
  for (const auto& n : t.graph_nodes) node_of[n.correlation] = n;
  const auto node = [&](int32_t n) { return node_of[launch_of(n).correlation]; };
  const uint32_t captured = node(1000).graph;
  EXPECT_NE(captured, 0u);
  EXPECT_EQ(node(2000).graph, captured);
  EXPECT_TRUE(node(1000).h.flags & trace::kGraphNodeCaptured);
  EXPECT_NE(node(1000).capture_id, 0u);
  EXPECT_EQ(node(2000).capture_id, node(1000).capture_id);
  EXPECT_NE(node(1000).node, node(2000).node);
  const uint32_t again = node(5000).graph;
  EXPECT_NE(again, captured);
  EXPECT_NE(node(5000).capture_id, node(1000).capture_id);
  const uint32_t built = node(3000).graph;
  EXPECT_NE(built, 0u);
  EXPECT_FALSE(node(3000).h.flags & trace::kGraphNodeCaptured);
  EXPECT_EQ(node(3000).capture_id, 0u);
  EXPECT_TRUE(node(4000).h.flags & trace::kGraphNodeInExec);
  EXPECT_EQ(node(4000).node, node(3000).node);

  // Events, in order: captured, instantiated, instantiated (built), captured again, updated,
  // two executables and three graphs destroyed.
  std::vector<std::string> events;
  for (const auto& e : t.graph_events) {
    events.push_back(std::string(trace::GraphEventName(static_cast<trace::GraphEvent>(e.event))));
    EXPECT_EQ(e.result, 0);
  }
  EXPECT_EQ(events,
            (std::vector<std::string>{"captured", "instantiated", "instantiated", "captured",
                                      "updated", "exec_destroyed", "exec_destroyed",
                                      "graph_destroyed", "graph_destroyed", "graph_destroyed"}));
  ASSERT_EQ(t.graph_events.size(), 10u);
  const uint32_t exec = t.graph_events[1].exec, built_exec = t.graph_events[2].exec;
  EXPECT_EQ(t.graph_events[0].graph, captured);
  EXPECT_EQ(t.graph_events[1].graph, captured);
  EXPECT_EQ(t.graph_events[2].graph, built);
  EXPECT_EQ(t.graph_events[4].graph, again);
  EXPECT_EQ(t.graph_events[4].exec, exec);
  EXPECT_EQ(node(4000).exec, built_exec);
  EXPECT_NE(exec, built_exec);

  // Each graph launch names its executable graph.
  std::map<uint32_t, int> launches_of;
  for (const ApiCallSeen* c : t.CallsWithApi(trace::Api::kCuGraphLaunch)) ++launches_of[c->detail];
  EXPECT_EQ(launches_of, (std::map<uint32_t, int>{{exec, 4}, {built_exec, 3}}));
}

// --- the kernel catalog asks for more parameter bytes ------------------------------------------

// A kernel named like an ATen double-precision reduce_kernel: the catalog reads its ReduceConfig
// at bytes 16-27, past the default 20. The hooks never demangle, so before the flusher has
// classified the kernel its launch keeps all it can (the whole 200-byte ReduceOp); after that,
// the 28 bytes its model reads. Both launches are modelled.
TEST_F(LaunchTest, CatalogSettlesParameterBytesAfterFirstLaunches) {
  const Runs r = RunBoth({DRIVER_APP, "catalog"});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out;
  EXPECT_TRUE(Contains(r.traced.out, "cuLaunchKernel reduce later -> 0")) << r.traced.out;
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 2u) << Describe(t);
  const LaunchSeen& first = t.launches[0];
  const LaunchSeen& later = t.launches[1];
  EXPECT_EQ(first.name, fakecuda::kAtenMeanDouble);
  EXPECT_EQ(later.name, fakecuda::kAtenMeanDouble);
  EXPECT_EQ(first.params.size(), fakecuda::kReduceOpBytes);
  EXPECT_FALSE(first.flags & trace::kLaunchParamsTruncated);
  EXPECT_EQ(analyzers::ParamBytesWanted(later.demangled), 28);
  ASSERT_EQ(later.params.size(), 28u);
  EXPECT_TRUE(later.flags & trace::kLaunchParamsTruncated);  // the ReduceOp is 200 bytes

  // With 28 bytes the catalog models the launch: 16 outputs x 4096 inputs each.
  analyzers::LaunchFacts facts;
  facts.params = later.params;
  facts.layout.count = 1;
  facts.layout.slots[0] = {0, fakecuda::kReduceOpBytes};
  facts.grid = {16, 1, 1};
  const analyzers::KernelEstimate e = analyzers::EstimateKernel(later.demangled, facts);
  EXPECT_EQ(e.functor, "mean");
  EXPECT_EQ(e.source, trace::FigureSource::kCatalog) << e.reason;
  EXPECT_EQ(e.elements, 65536);
  EXPECT_DOUBLE_EQ(e.bytes, 65536.0 * 8 + 16 * 8);
  EXPECT_DOUBLE_EQ(e.flops, 65536.0 + 16);  // one add per input, one scaling per output
  facts.params = first.params;
  const analyzers::KernelEstimate e_first = analyzers::EstimateKernel(first.demangled, facts);
  EXPECT_EQ(e_first.source, trace::FigureSource::kCatalog) << e_first.reason;
  EXPECT_DOUBLE_EQ(e_first.flops, e.flops);
}

// FlashAttention 2's forward kernel takes Flash_fwd_params by value: its first launch, before
// the flusher has named it, keeps the most one launch can (255 bytes of the 400); later ones the
// 208 bytes its layout table reads. The catalog models both from them (docs/kernel-catalog.md,
// "Attention"): b 2, h 16 over h_k 4 (GQA), s 1024, d 128, bf16.
TEST_F(LaunchTest, AttentionLaunchKeepsTheBytesOfItsShape) {
  const Runs r = RunBoth({DRIVER_APP, "attention"});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out;
  EXPECT_TRUE(Contains(r.traced.out, "cuLaunchKernel attention later -> 0")) << r.traced.out;
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 2u) << Describe(t);
  const LaunchSeen& first = t.launches[0];
  const LaunchSeen& later = t.launches[1];
  EXPECT_EQ(later.name, fakecuda::kFlashAttnFwd);
  EXPECT_EQ(first.params.size(), 255u);
  EXPECT_TRUE(first.flags & trace::kLaunchParamsTruncated);
  ASSERT_EQ(analyzers::ParamBytesWanted(later.demangled), 208);
  ASSERT_EQ(later.params.size(), 208u);
  EXPECT_TRUE(later.flags & trace::kLaunchParamsTruncated);  // the struct is 400 bytes

  analyzers::LaunchFacts facts;
  facts.params = later.params;
  facts.layout.count = 1;
  facts.layout.slots[0] = {0, fakecuda::kFlashParamsBytes};
  facts.grid = {8, 32, 2};
  const analyzers::KernelEstimate e = analyzers::EstimateKernel(later.demangled, facts);
  ASSERT_EQ(e.source, trace::FigureSource::kCatalog) << e.reason;
  // 4 b h s^2 d = 4 x 2 x 16 x 1024^2 x 128; bytes: Q and O of 2 x 16 x 1024 x 128 and K and V
  // of 2 x 4 x 1024 x 128 bf16 elements, plus the float LSE of 2 x 16 x 1024.
  EXPECT_DOUBLE_EQ(e.flops, 17179869184.0);
  EXPECT_DOUBLE_EQ(e.bytes, 2.0 * (2 * 4194304.0 + 2 * 1048576.0) + 131072.0);
  EXPECT_EQ(e.shape_key, "b=2,h=16,h_k=4,s_q=1024,s_k=1024,d=128,causal=0");
  facts.params = first.params;
  const analyzers::KernelEstimate e_first = analyzers::EstimateKernel(first.demangled, facts);
  EXPECT_EQ(e_first.source, trace::FigureSource::kCatalog) << e_first.reason;
  EXPECT_EQ(e_first.shape_key, e.shape_key);
}

// With FLOPSPY_PARAM_BYTES=0 (capture off) the catalog does not turn capture back on.
TEST_F(LaunchTest, CatalogLeavesParameterCaptureOff) {
  const Runs r = RunBoth({DRIVER_APP, "catalog"}, {{"FLOPSPY_PARAM_BYTES", "0"}});
  ASSERT_EQ(r.trace.launches.size(), 2u) << Describe(r.trace);
  for (const auto& l : r.trace.launches) EXPECT_TRUE(l.params.empty());
}

// --- (d) default-stream handles on the driver ------------------------------------------------

TEST_F(LaunchTest, DriverDefaultStreamHandles) {
  const Runs r = RunBoth({DRIVER_APP, "streams"});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out;
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel"), 4);
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel_ptsz"), 3);
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 7u);
  struct Expected {
    int n;
    Api api;
    uint64_t stream;  // 99: the created stream
    uint32_t flags;
  };
  const uint64_t created = t.ByN(5) ? t.ByN(5)->stream : 0;
  EXPECT_GT(created, 2u);
  for (const Expected& e : std::vector<Expected>{{1, Api::kCuLaunchKernel, 0, kLegacy},
                                                 {2, Api::kCuLaunchKernel, 1, kLegacy},
                                                 {3, Api::kCuLaunchKernel, 2, kPerThread},
                                                 {4, Api::kCuLaunchKernelPtsz, 0, kPerThread},
                                                 {5, Api::kCuLaunchKernelPtsz, 99, 0},
                                                 {6, Api::kCuLaunchKernel, 99, 0},
                                                 {7, Api::kCuLaunchKernelPtsz, 1, kLegacy}}) {
    SCOPED_TRACE("launch with n = " + std::to_string(e.n));
    const LaunchSeen* l = t.ByN(e.n);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->api, e.api);
    EXPECT_EQ(l->stream, e.stream == 99 ? created : e.stream);
    EXPECT_EQ(l->stream_flags, e.flags);
    EXPECT_EQ(l->name, fakecuda::kAddKernel);
  }
}

// Programs linked with libcuda call flopspy's exports of the driver's own names.
TEST_F(LaunchTest, LinkedDriverCallsReachTheDriverOnce) {
  const Runs r = RunBoth({LINKED_APP});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out << r.plain.err;
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel"), 1);
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel_ptsz"), 1);
  EXPECT_EQ(Get(r.counters, "driver cuMemcpyHtoD_v2"), 1);
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 2u);
  ExpectLaunch(t.ByN(40), Api::kCuLaunchKernel, fakecuda::kAddKernel, "2,1,1", "64,1,1", 0,
               kLegacy);
  ExpectLaunch(t.ByN(41), Api::kCuLaunchKernelPtsz, fakecuda::kAddKernel, "3,1,1", "64,1,1", 0,
               kPerThread);
  ASSERT_EQ(t.CallsWithApi(Api::kCuMemcpy).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCuMemcpy)[0]->bytes, 256u);
  EXPECT_EQ(t.CallsWithApi(Api::kCuStreamSynchronize).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCuCtxSynchronize).size(), 1u);
}

// --- (e) CUDA code in a library opened with RTLD_LOCAL ---------------------------------------

TEST_F(LaunchTest, LibraryOpenedWithRtldLocal) {
  const Runs r = RunBoth({LOCAL_APP, LOCAL_EXT});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out << r.plain.err;
  EXPECT_TRUE(Contains(r.plain.out, "RTLD_DEFAULT finds the local dependency: yes"));
  EXPECT_TRUE(Contains(r.traced.out, "RTLD_DEFAULT finds the local dependency: yes"))
      << r.traced.out;
  EXPECT_EQ(Get(r.counters, "runtime cudaLaunchKernel"), 1);
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 4u);
  ExpectLaunch(t.ByN(300), Api::kCudaLaunchKernel, fakecuda::kAtenMul, "3,1,1", "128,1,1", 0,
               kLegacy);
  ExpectLaunch(t.ByN(8), Api::kCudaLaunchKernelStub, fakecuda::kAddKernel, "2,1,1", "64,1,1", 0,
               kLegacy);
  ExpectLaunch(t.ByN(9), Api::kCudaLaunchKernelPtsz, fakecuda::kAddKernel, "1,1,1", "32,1,1", 0,
               kPerThread);
  const auto ex = t.WithApi(Api::kCudaLaunchKernelExC);
  ASSERT_EQ(ex.size(), 1u);
  EXPECT_EQ(ex[0]->Cluster(), "4,1,1");
  EXPECT_EQ(ex[0]->name, fakecuda::kTritonAdd);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaDeviceSynchronize).size(), 1u);
  EXPECT_EQ(t.CallsWithApi(Api::kCudaMemcpy).size(), 1u);
}

// Two runtimes in one process, each used by its own extension module (a CUDA 12 PyTorch and a
// CUDA 13 extension, both opened RTLD_LOCAL). Each module's runtime calls must reach its own
// libcudart (caller_resolver.h): with the first copy for every call, the second module's
// launches went to a runtime that does not know its kernels (cudaErrorInvalidDeviceFunction).
// Both orders: whichever copy flopspy meets first must not matter.
TEST_F(LaunchTest, TwoRuntimeMajorsInOneProcess) {
  for (const auto& order : {std::vector<std::string>{LOCAL_APP, LOCAL_EXT12, LOCAL_EXT},
                            std::vector<std::string>{LOCAL_APP, LOCAL_EXT, LOCAL_EXT12}}) {
    SCOPED_TRACE(order[1] + " first");
    NewTraceDir();
    const Runs r = RunBoth(order);
    ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out << r.plain.err;
    // Each runtime saw the calls of its own module, one cudaLaunchKernel and one cudaMemcpy
    // (each runtime prints its own counters; RunBoth compared them with the plain run's).
    for (const char* line : {"runtime cudaLaunchKernel 1\n", "runtime cudaMemcpy 1\n"}) {
      size_t seen = 0;
      for (size_t at = r.traced.out.find(line); at != std::string::npos;
           at = r.traced.out.find(line, at + 1)) {
        ++seen;
      }
      EXPECT_EQ(seen, 2u) << line << r.traced.out;
    }
    const LaunchTrace& t = r.trace;
    ASSERT_EQ(t.launches.size(), 8u) << Describe(t);
    for (const auto& l : t.launches) {
      EXPECT_EQ(l.result, 0) << Describe(t);
      // Named by the runtime that launched it: the other one does not know the handle.
      EXPECT_FALSE(l.name.empty()) << Describe(t);
    }
    EXPECT_EQ(t.WithApi(Api::kCudaLaunchKernel).size(), 2u);
    EXPECT_EQ(t.WithApi(Api::kCudaLaunchKernelStub).size(), 2u);
    EXPECT_EQ(t.CallsWithApi(Api::kCudaDeviceSynchronize).size(), 2u);
    for (const auto* call : t.CallsWithApi(Api::kCudaMemcpy)) EXPECT_EQ(call->result, 0);
  }
}

// --- (f) many threads ------------------------------------------------------------------------

TEST_F(LaunchTest, EightThreadsEveryLaunchOnce) {
  constexpr int kThreads = 8, kIterations = 500;
  const Runs r = RunBoth({THREADS_APP, std::to_string(kIterations)});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out;
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel"), 2 * kThreads * kIterations);
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel_ptsz"), kThreads * kIterations);
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 3u * kThreads * kIterations);
  EXPECT_EQ(CountWithApi(t, Api::kCudaLaunchKernel), 1u * kThreads * kIterations);
  EXPECT_EQ(CountWithApi(t, Api::kCudaLaunchKernelStubPtsz), 1u * kThreads * kIterations);
  EXPECT_EQ(CountWithApi(t, Api::kCuLaunchKernel), 1u * kThreads * kIterations);
  std::map<uint32_t, std::map<int32_t, int>> by_thread;  // thread -> N -> launches
  for (const auto& l : t.launches) {
    ++by_thread[l.thread][l.ParamInt(0)];
    EXPECT_FALSE(l.name.empty());
    EXPECT_EQ(l.result, 0);
  }
  ASSERT_EQ(by_thread.size(), static_cast<size_t>(kThreads));
  std::set<int32_t> ns;
  for (const auto& [thread, counts] : by_thread) {
    ASSERT_EQ(counts.size(), 1u) << "thread " << thread << " carries launches of another thread";
    EXPECT_EQ(counts.begin()->second, 3 * kIterations) << "thread " << thread;
    ns.insert(counts.begin()->first);
  }
  EXPECT_EQ(ns, (std::set<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// --- Copies and sets -------------------------------------------------------------------------

struct ExpectedCopy {
  const char* exported;  // the fake driver's function that must have been called once
  Api api;
  uint64_t bytes;
  trace::CopyKind kind;
  trace::MemoryKind src, dst;
  bool synchronizing;
};

// What `driver_app copies` does, in its order: per form, sizes 1001... plus 100 per-thread.
std::vector<ExpectedCopy> ExpectedCopies() {
  using C = trace::CopyKind;
  using M = trace::MemoryKind;
  std::vector<ExpectedCopy> out;
  for (const bool pt : {false, true}) {
    const uint64_t b = pt ? 100 : 0;
    const auto name = [pt](const char* legacy, const char* per_thread) {
      return pt ? per_thread : legacy;
    };
    out.push_back({name("cuMemsetD2D16_v2", "cuMemsetD2D16_v2_ptds"), Api::kCuMemset,
                   2 * (1001 + b), C::kUnknown, M::kUnknown, M::kUnknown, true});
    out.push_back({name("cuMemsetD2D16Async", "cuMemsetD2D16Async_ptsz"), Api::kCuMemsetAsync,
                   2 * (1002 + b), C::kUnknown, M::kUnknown, M::kUnknown, false});
    out.push_back({name("cuMemcpy2DUnaligned_v2", "cuMemcpy2DUnaligned_v2_ptds"), Api::kCuMemcpy,
                   1003 + b, C::kHostToDevice, M::kUnknown, M::kArray, true});
    out.push_back({name("cuMemcpy3DPeer", "cuMemcpy3DPeer_ptds"), Api::kCuMemcpy, 1004 + b,
                   C::kPeer, M::kDevice, M::kDevice, true});
    out.push_back({name("cuMemcpy3DPeerAsync", "cuMemcpy3DPeerAsync_ptsz"), Api::kCuMemcpyAsync,
                   1005 + b, C::kPeer, M::kDevice, M::kDevice, false});
    out.push_back({name("cuMemcpyDtoA_v2", "cuMemcpyDtoA_v2_ptds"), Api::kCuMemcpy, 1006 + b,
                   C::kDeviceToDevice, M::kUnknown, M::kArray, true});
    out.push_back({name("cuMemcpyAtoD_v2", "cuMemcpyAtoD_v2_ptds"), Api::kCuMemcpy, 1007 + b,
                   C::kDeviceToDevice, M::kArray, M::kUnknown, true});
    out.push_back({name("cuMemcpyHtoA_v2", "cuMemcpyHtoA_v2_ptds"), Api::kCuMemcpy, 1008 + b,
                   C::kHostToDevice, M::kUnknown, M::kArray, true});
    out.push_back({name("cuMemcpyAtoH_v2", "cuMemcpyAtoH_v2_ptds"), Api::kCuMemcpy, 1009 + b,
                   C::kDeviceToHost, M::kArray, M::kUnknown, true});
    out.push_back({name("cuMemcpyAtoA_v2", "cuMemcpyAtoA_v2_ptds"), Api::kCuMemcpy, 1010 + b,
                   C::kDeviceToDevice, M::kArray, M::kArray, true});
    out.push_back({name("cuMemcpyHtoAAsync_v2", "cuMemcpyHtoAAsync_v2_ptsz"), Api::kCuMemcpyAsync,
                   1011 + b, C::kHostToDevice, M::kUnknown, M::kArray, false});
    out.push_back({name("cuMemcpyAtoHAsync_v2", "cuMemcpyAtoHAsync_v2_ptsz"), Api::kCuMemcpyAsync,
                   1012 + b, C::kDeviceToHost, M::kArray, M::kUnknown, false});
    out.push_back({name("cuMemcpyBatchAsync", "cuMemcpyBatchAsync_ptsz"), Api::kCuMemcpyAsync,
                   1013 + b + 7, C::kDefault, M::kUnknown, M::kUnknown, false});
    out.push_back({name("cuMemcpyBatchAsync_v2", "cuMemcpyBatchAsync_v2_ptsz"), Api::kCuMemcpyAsync,
                   1015 + b + 7, C::kDefault, M::kUnknown, M::kUnknown, false});
    out.push_back({name("cuMemcpy3DBatchAsync", "cuMemcpy3DBatchAsync_ptsz"), Api::kCuMemcpyAsync,
                   1014 + b + 24, C::kDefault, M::kUnknown, M::kUnknown, false});
    out.push_back({name("cuMemcpy3DBatchAsync_v2", "cuMemcpy3DBatchAsync_v2_ptsz"),
                   Api::kCuMemcpyAsync, 1016 + b + 24, C::kDefault, M::kUnknown, M::kUnknown,
                   false});
  }
  return out;
}

class CopyFamiliesTest : public LaunchTest, public ::testing::WithParamInterface<bool> {};

// Every copy and set of the copy and set families reaches the driver function of its form
// (legacy, per-thread, 12.8 or 13.0 ABI) once and is recorded once with its bytes, direction and
// memory kinds; with the driver handing out internal functions too (GetParam()), when the ABI
// is picked by the version asked for.
TEST_P(CopyFamiliesTest, EveryCopyAndSetRecordedOnce) {
  const std::map<std::string, std::string> env =
      GetParam() ? std::map<std::string, std::string>{{"FAKECUDA_PROC_INTERNAL", "1"}}
                 : std::map<std::string, std::string>{};
  const Runs r = RunBoth({DRIVER_APP, "copies"}, env);
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out << r.plain.err;
  const std::vector<ExpectedCopy> expected = ExpectedCopies();
  ASSERT_EQ(r.trace.calls.size(), expected.size());
  for (const ExpectedCopy& e : expected) {
    EXPECT_EQ(Get(r.counters, std::string("driver ") + e.exported), 1) << e.exported;
    std::vector<const ApiCallSeen*> found;
    for (const auto& c : r.trace.calls) {
      if (c.bytes == e.bytes) found.push_back(&c);
    }
    ASSERT_EQ(found.size(), 1u) << e.exported << " bytes " << e.bytes;
    const ApiCallSeen& c = *found.front();
    EXPECT_EQ(c.api, e.api) << e.exported;
    EXPECT_EQ(c.result, 0) << e.exported;
    EXPECT_EQ(c.detail & 0xFF, static_cast<uint32_t>(e.kind)) << e.exported;
    EXPECT_EQ((c.detail >> 8) & 0xFF, static_cast<uint32_t>(e.src)) << e.exported;
    EXPECT_EQ((c.detail >> 16) & 0xFF, static_cast<uint32_t>(e.dst)) << e.exported;
    EXPECT_EQ((c.flags & trace::kApiCallSynchronizing) != 0, e.synchronizing) << e.exported;
    EXPECT_EQ(c.device, -1) << "no context was made current";
  }
}

INSTANTIATE_TEST_SUITE_P(DriverProcs, CopyFamiliesTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? std::string("InternalFunctions")
                                          : std::string("Exports");
                         });

// A failing driver: every copy and set returns its error to the program and the trace records it;
// a failed batch counts no bytes (its size array is not read).
TEST_F(LaunchTest, CopyAndSetErrorsPassThrough) {
  const Runs r = RunBoth({DRIVER_APP, "copies"}, {{"FAKECUDA_API_RESULT", "1"}});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out << r.plain.err;
  EXPECT_TRUE(Contains(r.plain.out, "cuMemcpyAtoA -> 1")) << r.plain.out;
  EXPECT_TRUE(Contains(r.plain.out, "cuMemcpyBatchAsync 12080 -> 1")) << r.plain.out;
  ASSERT_EQ(r.trace.calls.size(), ExpectedCopies().size());
  for (const auto& c : r.trace.calls) {
    EXPECT_EQ(c.result, 1) << "api " << static_cast<int>(c.api) << " bytes " << c.bytes;
    if ((c.detail & 0xFF) == static_cast<uint32_t>(trace::CopyKind::kDefault)) {
      EXPECT_EQ(c.bytes, 0u);
    }
  }
}

// Every launch, API call and cuBLAS call carries the device of the thread's current context,
// however the program switched it (devices_app.cpp: markers name the expected device).
TEST_F(LaunchTest, DevicesFollowTheCurrentContext) {
  const Runs r = RunBoth({DEVICES_APP});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.out << r.plain.err;
  EXPECT_TRUE(Contains(r.plain.out, "cudaSetDevice 2 -> 0")) << r.plain.out;
  EXPECT_TRUE(Contains(r.plain.out, "cuCtxSetCurrent 3 -> 0")) << r.plain.out;
  const auto device_of = [](int64_t marker) { return marker == 99 ? -1 : marker % 100; };
  const std::set<int64_t> markers = {100, 202, 303, 401, 503, 601, 702, 800};

  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 2 * markers.size() + 1) << Describe(t);
  std::map<int64_t, int> launches_by_marker;
  for (const auto& l : t.launches) {
    const int32_t marker = l.ParamInt(0);
    ++launches_by_marker[marker];
    EXPECT_EQ(l.device, device_of(marker))
        << "launch N " << marker << " api " << static_cast<int>(l.api);
    EXPECT_EQ(l.stream_device, l.device) << "launch N " << marker;
  }
  for (int64_t m : markers) EXPECT_EQ(launches_by_marker[m], 2) << "marker " << m;
  EXPECT_EQ(launches_by_marker[99], 1);

  size_t copies = 0, sets = 0;
  for (const auto& c : t.calls) {
    if (c.api == Api::kCudaDeviceSynchronize) {
      EXPECT_EQ(c.device, 0) << "the runtime's implicit device";
      continue;
    }
    const int64_t marker = static_cast<int64_t>(c.bytes / 10);
    ASSERT_TRUE(markers.count(marker)) << "api " << static_cast<int>(c.api) << " bytes " << c.bytes;
    EXPECT_EQ(c.device, device_of(marker))
        << "api " << static_cast<int>(c.api) << " bytes " << c.bytes;
    copies += c.api == Api::kCudaMemcpy;
    sets += c.api == Api::kCuMemset;
  }
  EXPECT_EQ(copies, markers.size());
  EXPECT_EQ(sets, markers.size());

  ASSERT_EQ(t.library_calls.size(), markers.size());
  for (const auto& c : t.library_calls) {
    EXPECT_TRUE(markers.count(c.m)) << c.m;
    EXPECT_EQ(c.device, device_of(c.m)) << "cublasSgemm_v2 m " << c.m;
    const auto s = t.streams.find(c.stream);
    ASSERT_NE(s, t.streams.end());
    EXPECT_EQ(s->second.device, c.device);
  }

  // cuCtxGetDevice only when a thread's context changed: the main thread saw devices 0, 2, 3,
  // 1, 2, 0 in turn and the second thread 3 (the third had no context).
  EXPECT_EQ(NamingCalls(r, "driver cuCtxGetDevice"), 7);
}

// FLOPSPY_CLOCK=tsc: once the flusher has calibrated the TSC, launch times come from it and stay
// on CLOCK_MONOTONIC: every launch inside the run as this process's clock saw it, in order, and
// at least the 5 ms apart the program slept.
TEST_F(LaunchTest, TscTimesStayOnClockMonotonic) {
  constexpr int kLaunches = 40;
  const auto monotonic_now = [] {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
  };
  const uint64_t before = monotonic_now();
  const Runs r = RunBoth({WINDOW_APP, "timed", std::to_string(kLaunches), "5"},
                         {{"FLOPSPY_CLOCK", "tsc"}, {"FLOPSPY_FLUSH_MS", "5"}});
  const uint64_t after = monotonic_now();
  std::string clock;  // the last: the trace end's
  for (const std::string& m : r.trace.summary.metadata) {
    if (m.find("\"clock\"") != std::string::npos) clock = m;
  }
  if (clock.find("\"source\":\"tsc\"") == std::string::npos &&
      clock.find("no invariant TSC") != std::string::npos) {
    GTEST_SKIP() << clock;
  }
  ASSERT_NE(clock.find("\"source\":\"tsc\""), std::string::npos) << clock;
  ASSERT_EQ(r.trace.launches.size(), static_cast<size_t>(kLaunches));
  uint64_t previous = 0;
  for (const LaunchSeen& l : r.trace.launches) {
    EXPECT_GE(l.enter_ns, before);
    EXPECT_LE(l.enter_ns, after);
    if (previous != 0) {
      EXPECT_GE(l.enter_ns, previous + 4'900'000) << "launch " << l.ParamInt(0);
    }
    previous = l.enter_ns;
  }
}

// FLOPSPY_ENABLE=0: every call passes straight through, nothing is asked of the driver or the
// runtime, no trace is written.
TEST_F(LaunchTest, DisabledFlopspyChangesNothing) {
  const ChildResult plain = RunChild({RUNTIME_APP13, "all"}, Options({}, false));
  const ChildResult off =
      RunChild({RUNTIME_APP13, "all"}, Options({{"FLOPSPY_ENABLE", "0"}}, true));
  ASSERT_TRUE(off.exited);
  EXPECT_EQ(off.exit_code, plain.exit_code);
  EXPECT_EQ(off.out, plain.out);  // naming counters included
  EXPECT_TRUE(dir_->Files(".fspy").empty());
}

// GPU timing off as configured is information: one line by default, none with FLOPSPY_QUIET=1
// (as `flopspy run` sets it unless --verbose); the trace keeps the reason either way.
TEST_F(LaunchTest, QuietSilencesTheNoticeOfGpuTimingOffButNotTheTrace) {
  const auto lines = [](const std::string& err) {
    return err.size() - WithoutGpuTimingNotice(err).size();
  };
  const ChildResult quiet = RunChild({RUNTIME_APP13, "launch-once"}, Options({}, true));
  ASSERT_TRUE(quiet.exited) << quiet.err;
  EXPECT_EQ(lines(quiet.err), 0u) << quiet.err;
  const ChildResult loud =
      RunChild({RUNTIME_APP13, "launch-once"}, Options({{"FLOPSPY_QUIET", "0"}}, true));
  ASSERT_TRUE(loud.exited) << loud.err;
  EXPECT_TRUE(Contains(loud.err,
                       "flopspy: no GPU times: FLOPSPY_GPU_TIMING=off; kernel launches "
                       "are still recorded"))
      << loud.err;
  const auto traces = dir_->Files(".fspy");
  ASSERT_EQ(traces.size(), 2u);
  for (const std::string& path : traces) {
    trace::TraceReader reader = trace::TraceReader::OpenFile(path);
    std::vector<uint32_t> messages;
    reader.ForEachRecord([&](const trace::RecordView& r) {
      if (r.type == trace::RecordType::kWarning) {
        messages.push_back(r.As<trace::WarningRecord>().message);
      }
    });
    int said = 0;
    for (uint32_t id : messages) {
      said += std::string(reader.String(id)).find("FLOPSPY_GPU_TIMING=off") != std::string::npos;
    }
    EXPECT_EQ(said, 1) << path;
  }
}

// --- Errors pass through unchanged -----------------------------------------------------------

TEST_F(LaunchTest, DriverErrorReachesRuntimeProgramUnchanged) {
  const Runs r = RunBoth({RUNTIME_APP13, "launch-once"}, {{"FAKECUDA_LAUNCH_RESULT", "1"}});
  EXPECT_EQ(r.plain.exit_code, 3);
  EXPECT_TRUE(Contains(r.traced.out, "cudaLaunchKernel -> 1")) << r.traced.out;
  EXPECT_TRUE(Contains(r.traced.out, "cudaGetLastError -> 1"));
  EXPECT_TRUE(Contains(r.traced.out, "cudaGetErrorString cudaErrorInvalidValue"));
  ASSERT_EQ(r.trace.launches.size(), 2u);
  for (const auto& l : r.trace.launches) EXPECT_EQ(l.result, cudaErrorInvalidValue);
}

// A kernel first launched while the program's own error is pending: flopspy asks the runtime
// nothing (its answer would replace the error), so the kernel stays unnamed.
TEST_F(LaunchTest, AnErrorPendingAtAFirstLaunchIsLeftToTheProgram) {
  const Runs r = RunBoth({RUNTIME_APP13, "error-pending"});
  EXPECT_EQ(r.traced.exit_code, 0);
  EXPECT_TRUE(Contains(r.plain.out, "cudaGetLastError -> 1")) << r.plain.out;
  EXPECT_TRUE(Contains(r.traced.out, "cudaGetLastError -> 1")) << r.traced.out;
  ASSERT_EQ(r.trace.launches.size(), 1u);
  EXPECT_TRUE(r.trace.launches[0].name.empty()) << r.trace.launches[0].name;
}

TEST_F(LaunchTest, RuntimeErrorReachesProgramUnchanged) {
  const Runs r = RunBoth({RUNTIME_APP13, "launch-once"}, {{"FAKECUDART_LAUNCH_RESULT", "9"}});
  EXPECT_EQ(r.plain.exit_code, 3);
  EXPECT_TRUE(Contains(r.traced.out, "cudaLaunchKernel -> 9")) << r.traced.out;
  EXPECT_TRUE(Contains(r.traced.out, "<<<>>> -> 9"));
  EXPECT_EQ(Get(r.counters, "driver cuLaunchKernel"), 0);
  ASSERT_EQ(r.trace.launches.size(), 2u);
  for (const auto& l : r.trace.launches) EXPECT_EQ(l.result, cudaErrorInvalidConfiguration);
  EXPECT_EQ(r.trace.launches[0].ParamInt(0), 1000);
}

TEST_F(LaunchTest, DriverErrorReachesDriverProgramUnchanged) {
  const Runs r = RunBoth({DRIVER_APP, "streams"}, {{"FAKECUDA_LAUNCH_RESULT", "701"}});
  EXPECT_TRUE(Contains(r.traced.out, "cuLaunchKernel_ptsz stream 0 -> 701")) << r.traced.out;
  ASSERT_EQ(r.trace.launches.size(), 7u);
  for (const auto& l : r.trace.launches) EXPECT_EQ(l.result, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
}

TEST_F(LaunchTest, NoDeviceFailsEveryRuntimeLaunchTheSameWay) {
  const Runs r = RunBoth({RUNTIME_APP13, "launch-once"}, {{"FAKECUDA_INIT_RESULT", "100"}});
  EXPECT_TRUE(Contains(r.traced.out, "cudaLaunchKernel -> 100")) << r.traced.out;
  ASSERT_EQ(r.trace.launches.size(), 2u);
  EXPECT_EQ(r.trace.launches[0].result, cudaErrorNoDevice);
  EXPECT_EQ(r.trace.launches[0].Grid(), "4,1,1");
  EXPECT_EQ(r.trace.launches[0].ParamInt(0), 1000);
}

// --- dlsym and dlvsym callers with nothing to do with CUDA ---------------------------------

TEST_F(LaunchTest, DlsymCallersUnaffected) {
  const Runs r = RunBoth({DLSYM_APP}, {}, "", "", /*expect_trace=*/false);
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.err;
  const std::string& out = r.traced.out;
  EXPECT_TRUE(Contains(out, "getpid matches the kernel's: yes")) << out;
  EXPECT_TRUE(Contains(out, "wrapper's RTLD_NEXT in its constructor: libc.so.6"));
  EXPECT_TRUE(Contains(out, "wrapper's RTLD_NEXT at first call: libc.so.6"));
  EXPECT_TRUE(Contains(out, "handle lookup cuInit: libcuda.so.1"));
  EXPECT_TRUE(Contains(out, "handle lookup cuNoSuchSymbol: NULL, error names it"));
  EXPECT_TRUE(Contains(out, "dlvsym cudaLaunchKernel@libcudart.so.13: libcudart.so.13"));
}

// The wrapper preloaded after flopspy: its constructor runs before flopspy's initialisation.
TEST_F(LaunchTest, DlsymRtldNextFromPreloadedWrapper) {
  const Runs r = RunBoth({DLSYM_APP}, {}, GETPID_WRAP, GETPID_WRAP, /*expect_trace=*/false);
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.err;
  EXPECT_TRUE(Contains(r.traced.out, "wrapper's RTLD_NEXT in its constructor: libc.so.6"))
      << r.traced.out;
  EXPECT_TRUE(Contains(r.traced.out, "wrapper's RTLD_NEXT at first call: libc.so.6"));
}

// A library that opens the driver and launches from its own constructor, which runs before
// flopspy's (as libcublasLt.so.13 does on a real GPU): the program runs as without flopspy, and
// the launches made later through the pointers it kept are flopspy's wrappers, recorded.
TEST_F(LaunchTest, DriverLookedUpInAnotherLibrarysConstructor) {
  const Runs r = RunBoth({AT_LOAD_APP});
  ASSERT_EQ(r.plain.exit_code, 0) << r.plain.err;
  EXPECT_TRUE(Contains(r.traced.out, "constructor cuLaunchKernel -> 0")) << r.traced.out;
  EXPECT_TRUE(Contains(r.traced.out, "main cuLaunchKernel 5252 -> 0")) << r.traced.out;
  const LaunchTrace& t = r.trace;
  ASSERT_NE(t.ByN(5151), nullptr) << Describe(t);
  ASSERT_NE(t.ByN(5252), nullptr) << Describe(t);
  EXPECT_EQ(t.ByN(5151)->api, Api::kCuLaunchKernel);
  EXPECT_EQ(t.ByN(5252)->Grid(), "3,1,1");
}

// --- Item 4: the real libcudart, no driver ---------------------------------------------------

TEST_F(LaunchTest, RealCudartWithoutDriver) {
  ChildOptions probe;
  probe.unset.push_back("LD_PRELOAD");
  probe.env["LD_LIBRARY_PATH"] = "/nonexistent";  // not the fake driver
  const ChildResult plain = RunChild({REAL_CUDART_APP}, probe);
  if (!Contains(plain.out, "cudaLaunchKernel -> 35")) {
    GTEST_SKIP() << "this machine has a CUDA driver; the test needs none:\n" << plain.out;
  }
  const Runs r = RunBoth({REAL_CUDART_APP}, {{"LD_LIBRARY_PATH", "/nonexistent"}});
  EXPECT_TRUE(Contains(r.traced.out, "cudaLaunchKernel -> 35")) << r.traced.out;
  const LaunchTrace& t = r.trace;
  ASSERT_EQ(t.launches.size(), 2u);
  const auto runtime = t.WithApi(Api::kCudaLaunchKernel);
  ASSERT_EQ(runtime.size(), 1u);
  EXPECT_EQ(runtime[0]->result, cudaErrorInsufficientDriver);
  EXPECT_EQ(runtime[0]->Grid(), "3,2,1");
  EXPECT_EQ(runtime[0]->Block(), "64,1,1");
  EXPECT_EQ(runtime[0]->stream_flags, kLegacy);
  EXPECT_EQ(runtime[0]->ParamInt(0), 77);  // no layout without a driver: N only
  const auto stub = t.WithApi(Api::kCudaLaunchKernelStub);
  ASSERT_EQ(stub.size(), 1u);
  EXPECT_EQ(stub[0]->Grid(), "5,1,1");
  EXPECT_EQ(stub[0]->Block(), "32,1,1");
  EXPECT_EQ(stub[0]->smem, 16u);
  EXPECT_EQ(stub[0]->ParamInt(0), 88);
  EXPECT_EQ(stub[0]->result, cudaErrorInsufficientDriver);
  EXPECT_TRUE(Contains(r.traced.out, "__cudaLaunchKernel -> " + std::to_string(stub[0]->result)));
}

// The real libcudart on the fake driver: it cannot run there (it needs private export tables),
// but it asks the driver for ~440 entry points through cuGetProcAddress first, the way it does
// on a real machine. Every lookup (symbol, version, flags, result) must reach the driver
// unchanged through flopspy's wrappers, and cudart's error must reach the program unchanged.
TEST_F(LaunchTest, RealCudartLookupsPassThroughUnchanged) {
  // The fake driver, but NVIDIA's runtime (not the fake one next to it).
  const Runs r =
      RunBoth({REAL_CUDART_APP}, {{"FAKECUDA_LOG_LOOKUPS", "1"}, {"LD_LIBRARY_PATH", kDriverDir}});
  size_t lookups = 0;
  for (size_t at = r.plain.err.find("fakecuda lookup "); at != std::string::npos;
       at = r.plain.err.find("fakecuda lookup ", at + 1)) {
    ++lookups;
  }
  EXPECT_GT(lookups, 100u) << r.plain.err;
  EXPECT_TRUE(Contains(r.plain.err, "fakecuda lookup cuGetProcAddress 12000 0 -> 0"));
  EXPECT_TRUE(Contains(r.plain.err, "fakecuda lookup cuLaunchKernel 7000 2 -> 0"));
  // stderr (the lookup log) and stdout are compared by RunBoth.
  ASSERT_EQ(r.trace.launches.size(), 2u);
  const LaunchSeen& first = r.trace.launches[0];
  EXPECT_EQ(first.api, Api::kCudaLaunchKernel);
  EXPECT_NE(first.result, 0);
  EXPECT_TRUE(Contains(r.traced.out, "cudaLaunchKernel -> " + std::to_string(first.result)));
}

}  // namespace
}  // namespace flopspy::testing
