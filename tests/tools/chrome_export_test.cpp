// The Chrome/Perfetto export checked against the Trace Event rules: valid JSON, finite times,
// slices that nest on every track, begin/end pairs, flow ids that pair up, names for every
// process and thread, and two processes aligned on their wall-clock anchors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "subprocess.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

const std::string kReport = FLOPSPY_REPORT_PATH;
constexpr uint64_t kMs = 1'000'000;

// A process that launched `kernels` kernels from thread 7, with GPU records for each.
std::vector<uint8_t> ProcessTrace(uint32_t pid, uint64_t realtime_start, int kernels) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.pid = pid;
  id.start_realtime_ns = realtime_start;
  id.start_monotonic_ns = 1000 * kMs;
  TraceBuilder b(id);
  b.String(1, "_Z6scalefPf").String(2, "scale(float, float*)").String(3, "python");
  b.String(4, "forward");
  b.Add(NamedThread(7, 3));
  trace::FunctionDef fn{};
  fn.id = 1;
  fn.mangled_name = 1;
  fn.demangled_name = 2;
  b.Add(fn);
  trace::KernelSignatureDef sig{};
  sig.id = 1;
  sig.function = 1;
  sig.name = 1;
  sig.grid[0] = 1024;
  sig.block[0] = 256;
  b.Add(sig);
  b.Chunk(trace::ChunkSource::kThread, 7);
  trace::RegionRecord begin{};
  begin.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
  begin.time_ns = 1000 * kMs + 1;
  begin.name = 4;
  b.Add(begin);
  for (int i = 0; i < kernels; ++i) {
    trace::KernelLaunchRecord l{};
    l.api = static_cast<uint16_t>(trace::Api::kCudaLaunchKernel);
    l.enter_ns = 1000 * kMs + 10'000 * (i + 1);
    l.duration_ns = 4'000;
    l.correlation = 100 + i;
    l.signature = 1;
    b.Add(l);
  }
  trace::ApiCallRecord sync{};
  sync.api = static_cast<uint16_t>(trace::Api::kCudaDeviceSynchronize);
  sync.enter_ns = 1000 * kMs + 10'000 * (kernels + 1);
  sync.exit_ns = sync.enter_ns + 50'000;
  sync.correlation = 500;
  b.Add(sync);
  trace::RegionRecord end = begin;
  end.edge = static_cast<uint8_t>(trace::RegionEdge::kEnd);
  end.time_ns = sync.exit_ns + 1;
  b.Add(end);
  b.Chunk(trace::ChunkSource::kGpuActivity);
  for (int i = 0; i < kernels; ++i) {
    trace::GpuActivityRecord g{};
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    g.start_ns = 1000 * kMs + 10'000 * (i + 1) + 20'000;
    g.end_ns = g.start_ns + 8'000;
    g.correlation = 100 + i;
    g.stream = 7;
    g.signature = 1;
    b.Add(g);
  }
  trace::GpuActivityRecord copy{};
  copy.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy);
  copy.start_ns = 1000 * kMs + 200'000;
  copy.end_ns = copy.start_ns + 5'000;
  copy.bytes = 1 << 20;
  copy.stream = 8;
  b.Add(copy);
  return b.Bytes();
}

nlohmann::json Export(const TempDir& dir, const std::vector<std::vector<uint8_t>>& traces) {
  std::vector<std::string> args = {kReport};
  for (size_t i = 0; i < traces.size(); ++i) {
    const std::string path = dir.path() + "/t" + std::to_string(i) + ".fspy";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(traces[i].data()),
               static_cast<std::streamsize>(traces[i].size()));
    args.push_back(path);
  }
  const std::string out = dir.path() + "/chrome.json";
  args.insert(args.end(), {"--chrome", out});
  const auto r = RunChild(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  return nlohmann::json::parse(in);
}

TEST(ChromeExport, FollowsTheTraceEventRules) {
  TempDir dir;
  const auto doc =
      Export(dir, {ProcessTrace(11, 5'000 * kMs, 3), ProcessTrace(22, 5'001 * kMs, 1)});
  ASSERT_TRUE(doc.contains("traceEvents"));
  const auto& events = doc["traceEvents"];

  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<double, double>>> slices;
  std::map<std::pair<int64_t, int64_t>, int> open_regions;
  std::multiset<uint64_t> flow_starts, flow_ends;
  std::set<int64_t> pids, named_pids;
  std::set<std::string> kernel_names;
  for (const auto& e : events) {
    ASSERT_TRUE(e.contains("ph")) << e;
    const std::string ph = e["ph"];
    if (e.contains("pid")) pids.insert(e["pid"].get<int64_t>());
    if (ph == "M") {
      if (e["name"] == "process_name") named_pids.insert(e["pid"].get<int64_t>());
      continue;
    }
    ASSERT_TRUE(e.contains("ts")) << e;
    const double ts = e["ts"];
    ASSERT_TRUE(std::isfinite(ts)) << e;
    const auto track = std::make_pair(e["pid"].get<int64_t>(), e.value("tid", int64_t{0}));
    if (ph == "X") {
      const double dur = e["dur"];
      ASSERT_GE(dur, 0) << e;
      slices[track].push_back({ts, ts + dur});
      if (e["cat"] == "kernel") kernel_names.insert(e["name"].get<std::string>());
    } else if (ph == "B") {
      ++open_regions[track];
    } else if (ph == "E") {
      ASSERT_GT(open_regions[track]--, 0) << "end without begin " << e;
    } else if (ph == "s") {
      flow_starts.insert(e["id"].get<uint64_t>());
    } else if (ph == "f") {
      flow_ends.insert(e["id"].get<uint64_t>());
      EXPECT_EQ(e["bp"], "e");
    }
  }
  // Flows: every start has its end, ids unique across both processes.
  EXPECT_EQ(flow_starts, flow_ends);
  EXPECT_EQ(flow_starts.size(), 4u);
  EXPECT_EQ(std::set<uint64_t>(flow_starts.begin(), flow_starts.end()).size(), 4u);
  for (const auto& [track, open] : open_regions) EXPECT_EQ(open, 0);
  // Slices on one track nest: each starts after the previous ends or lies inside it.
  for (auto& [track, list] : slices) {
    std::sort(list.begin(), list.end());
    std::vector<double> stack;
    for (const auto& [begin, end] : list) {
      while (!stack.empty() && stack.back() <= begin) stack.pop_back();
      if (!stack.empty()) {
        EXPECT_LE(end, stack.back()) << "overlap on track " << track.first;
      }
      stack.push_back(end);
    }
  }
  // Two CPU processes and their GPU tracks, all named.
  EXPECT_TRUE(pids.contains(11));
  EXPECT_TRUE(pids.contains(22));
  EXPECT_EQ(pids.size(), 4u);
  EXPECT_EQ(named_pids, pids);
  EXPECT_EQ(kernel_names, std::set<std::string>{"scale(float, float*)"});
}

TEST(ChromeExport, AlignsProcessesOnTheWallClock) {
  TempDir dir;
  // Same monotonic times, but the second process started 1 ms later on the wall clock.
  const auto doc =
      Export(dir, {ProcessTrace(11, 5'000 * kMs, 1), ProcessTrace(22, 5'001 * kMs, 1)});
  std::map<int64_t, double> first_launch;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "launch") first_launch[e["pid"].get<int64_t>()] = e["ts"];
  }
  ASSERT_EQ(first_launch.size(), 2u);
  EXPECT_NEAR(first_launch[22] - first_launch[11], 1000.0, 1e-6);  // microseconds
}

// One SGEMM of n = 1024 whose kernel ran for 1 ms on an H100, with the kernel's GPU record
// written before the launching thread's chunk when `gpu_first`.
std::vector<uint8_t> SgemmTrace(bool gpu_first) {
  TraceBuilder b;
  b.Metadata(R"({"devices":[{"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0}]})");
  b.String(1, "_Z11sgemm_tilePf").String(2, "sgemm_tile(float*)").String(3, "cublasSgemm_v2");
  trace::FunctionDef fn{};
  fn.id = 1;
  fn.mangled_name = 1;
  fn.demangled_name = 2;
  b.Add(fn);
  trace::KernelSignatureDef sig{};
  sig.id = 1;
  sig.function = 1;
  sig.grid[0] = 64;
  sig.block[0] = 256;
  b.Add(sig);
  constexpr double kN = 1024;
  trace::GpuActivityRecord g{};
  g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
  g.start_ns = 1000 * kMs + 50'000;
  g.end_ns = g.start_ns + kMs;
  g.correlation = 42;
  g.stream = 7;
  g.signature = 1;
  if (gpu_first) b.Chunk(trace::ChunkSource::kGpuActivity).Add(g);
  b.Chunk(trace::ChunkSource::kThread, 7);
  trace::KernelLaunchRecord l{};
  l.h.flags = trace::kLaunchInsideLibrary;
  l.api = static_cast<uint16_t>(trace::Api::kCudaLaunchKernel);
  l.enter_ns = 1000 * kMs + 10'000;
  l.duration_ns = 4'000;
  l.correlation = 42;
  l.signature = 1;
  b.Add(l);
  trace::LibraryCallRecord c{};
  c.routine = 1;  // BlasRoutine::kGemm
  c.enter_ns = 1000 * kMs + 5'000;
  c.exit_ns = 1000 * kMs + 20'000;
  c.m = c.n = c.k = static_cast<int64_t>(kN);
  c.batch = 1;
  c.compute_type = 4;  // CUBLAS_COMPUTE_32F as stored (68 - 64); the data types 0 are CUDA_R_32F
  c.name = 3;
  c.flops = 2 * kN * kN * kN;
  c.bytes = 3 * kN * kN * 4;
  c.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
  b.Add(c);
  if (!gpu_first) b.Chunk(trace::ChunkSource::kGpuActivity).Add(g);
  return b.Bytes();
}

// Kernel slices carry the figures the analysis computed for their signature; the flow from the
// launch to the kernel is drawn whichever record the trace holds first.
TEST(ChromeExport, KernelSlicesCarryTheAnalysisFigures) {
  for (const bool gpu_first : {false, true}) {
    SCOPED_TRACE(gpu_first ? "GPU record first" : "launch first");
    TempDir dir;
    const auto doc = Export(dir, {SgemmTrace(gpu_first)});
    std::vector<nlohmann::json> kernels;
    int flows = 0;
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] == "X" && e["cat"] == "kernel") kernels.push_back(e);
      if (e["ph"] == "s") ++flows;
    }
    EXPECT_EQ(flows, 1);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0]["name"], "sgemm_tile(float*)");
    const auto& args = kernels[0]["args"];
    const double flops = 2.0 * 1024 * 1024 * 1024, bytes = 3.0 * 1024 * 1024 * 4;
    EXPECT_DOUBLE_EQ(args["flops"].get<double>(), flops) << args;
    EXPECT_DOUBLE_EQ(args["bytes"].get<double>(), bytes) << args;
    EXPECT_EQ(args["flops_source"], "analytic");
    EXPECT_EQ(args["bytes_source"], "analytic");
    ASSERT_TRUE(args["intensity"].is_number()) << args;
    EXPECT_NEAR(args["intensity"].get<double>(), flops / bytes, 1e-3);
    EXPECT_NEAR(args["achieved_flops_per_s"].get<double>(), flops / 1e-3, flops * 1e-3);
    ASSERT_TRUE(args["pct_of_roof"].is_number()) << args;
    EXPECT_GT(args["pct_of_roof"].get<double>(), 0) << args;
    EXPECT_EQ(args["regime"], "compute_bound") << args;
  }
}

// A kernel the analysis has no figures for says so rather than showing zeros.
TEST(ChromeExport, KernelSlicesWithoutFiguresSayUnknown) {
  TempDir dir;
  const auto doc = Export(dir, {ProcessTrace(11, 5'000 * kMs, 1)});
  int kernels = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "kernel") continue;
    ++kernels;
    EXPECT_TRUE(e["args"]["flops"].is_null()) << e;
    EXPECT_EQ(e["args"]["flops_source"], "unknown");
    EXPECT_EQ(e["args"]["regime"], "unknown");
  }
  EXPECT_EQ(kernels, 1);
}

}  // namespace
}  // namespace flopspy::testing
