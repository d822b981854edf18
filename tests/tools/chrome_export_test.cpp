// The Chrome/Perfetto export checked against the Trace Event rules: valid JSON, finite times,
// slices that nest on every track, begin/end pairs, flow ids that pair up, names for every
// process and thread, and two processes aligned on their wall-clock anchors. Then what Perfetto
// needs beyond them: ids below 2^31, a flow per joined launch whatever the record order, figures
// and counter tracks, --window and gzip output.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "subprocess.h"
#include "test_programs.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

constexpr uint64_t kMs = 1'000'000;

// A process that launched `kernels` kernels from `thread`, with GPU records for each on
// `stream`; with `reversed`, the GPU records come first, the last kernel's first.
std::vector<uint8_t> ProcessTrace(uint32_t pid, uint64_t realtime_start, int kernels,
                                  uint32_t thread = 7, uint32_t stream = 7, bool reversed = false) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.pid = pid;
  id.start_realtime_ns = realtime_start;
  id.start_monotonic_ns = 1000 * kMs;
  TraceBuilder b(id);
  b.String(1, "_Z6scalefPf").String(2, "scale(float, float*)").String(3, "python");
  b.String(4, "forward");
  b.Add(NamedThread(thread, 3));
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
  const auto gpu_records = [&] {
    b.Chunk(trace::ChunkSource::kGpuActivity);
    for (int j = 0; j < kernels; ++j) {
      const int i = reversed ? kernels - 1 - j : j;
      trace::GpuActivityRecord g{};
      g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
      g.start_ns = 1000 * kMs + 10'000 * (i + 1) + 20'000;
      g.end_ns = g.start_ns + 8'000;
      g.correlation = 100 + i;
      g.stream = stream;
      g.signature = 1;
      b.Add(g);
    }
  };
  if (reversed) gpu_records();
  b.Chunk(trace::ChunkSource::kThread, thread);
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
  if (!reversed) gpu_records();
  b.Chunk(trace::ChunkSource::kGpuActivity);
  trace::GpuActivityRecord copy{};
  copy.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy);
  copy.start_ns = 1000 * kMs + 200'000;
  copy.end_ns = copy.start_ns + 5'000;
  copy.bytes = 1 << 20;
  copy.stream = 8;
  b.Add(copy);
  return b.Bytes();
}

// Runs flopspy-report on `traces` with `extra` arguments; the traces' paths.
std::vector<std::string> WriteTraces(const TempDir& dir,
                                     const std::vector<std::vector<uint8_t>>& traces) {
  std::vector<std::string> paths;
  for (size_t i = 0; i < traces.size(); ++i) {
    const std::string path = dir.path() + "/t" + std::to_string(i) + ".fspy";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(traces[i].data()),
               static_cast<std::streamsize>(traces[i].size()));
    paths.push_back(path);
  }
  return paths;
}

ChildResult Report(const TempDir& dir, const std::vector<std::vector<uint8_t>>& traces,
                   const std::vector<std::string>& extra) {
  std::vector<std::string> args = {kReport};
  for (const std::string& path : WriteTraces(dir, traces)) args.push_back(path);
  args.insert(args.end(), extra.begin(), extra.end());
  return RunChild(args);
}

nlohmann::json Export(const TempDir& dir, const std::vector<std::vector<uint8_t>>& traces,
                      const std::vector<std::string>& extra = {}, std::string* err = nullptr) {
  const std::string out = dir.path() + "/chrome.json";
  std::vector<std::string> args = {"--chrome", out};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = Report(dir, traces, args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (err != nullptr) *err = r.err;
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
    // Rates carry six significant digits.
    EXPECT_NEAR(args["achieved_flops_per_s"].get<double>(), flops / 1e-3, flops / 1e-3 * 1e-5);
    ASSERT_TRUE(args["pct_of_roof"].is_number()) << args;
    EXPECT_GT(args["pct_of_roof"].get<double>(), 0) << args;
    EXPECT_EQ(args["regime"], "compute_bound") << args;
    // No copy size on a kernel, no graph ids off a graph.
    EXPECT_FALSE(args.contains("graph_id")) << args;
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

constexpr int64_t kMaxId = (int64_t{1} << 31) - 1;

// Perfetto reads pid and tid as 32-bit numbers: every id stays below 2^31, and processes of
// several traces keep distinct pids even when two hosts gave them the same one, or the trace's
// own is out of range; GPU pids collide with none of them.
TEST(ChromeExport, IdsStayBelow2To31AndUniqueAcrossTraces) {
  TempDir dir;
  const uint32_t kHuge = 3'000'000'000u;  // beyond 2^31: a thread and a stream of a crafted file
  const auto doc = Export(dir, {ProcessTrace(11, 5'000 * kMs, 2), ProcessTrace(11, 5'000 * kMs, 2),
                                ProcessTrace(kHuge, 5'000 * kMs, 2, kHuge, kHuge)});
  std::map<int64_t, std::string> process_names;
  std::set<std::pair<int64_t, int64_t>> named_threads, used_threads;
  for (const auto& e : doc["traceEvents"]) {
    const int64_t pid = e["pid"].get<int64_t>();
    EXPECT_GT(pid, 0) << e;
    EXPECT_LE(pid, kMaxId) << e;
    if (e.contains("tid")) {
      EXPECT_GE(e["tid"].get<int64_t>(), 0) << e;
      EXPECT_LE(e["tid"].get<int64_t>(), kMaxId) << e;
    }
    if (e["ph"] == "M" && e["name"] == "process_name") {
      EXPECT_TRUE(process_names.emplace(pid, e["args"]["name"]).second) << "named twice " << e;
    } else if (e["ph"] == "M" && e["name"] == "thread_name") {
      named_threads.insert({pid, e["tid"].get<int64_t>()});
    } else if (e["ph"] == "X") {
      used_threads.insert({pid, e["tid"].get<int64_t>()});
    }
  }
  // Three CPU processes and three GPUs, six pids; the first keeps its own.
  ASSERT_EQ(process_names.size(), 6u);
  EXPECT_TRUE(process_names.contains(11));
  int cpu = 0, gpu = 0;
  for (const auto& [pid, name] : process_names) (name.starts_with("GPU ") ? gpu : cpu)++;
  EXPECT_EQ(cpu, 3);
  EXPECT_EQ(gpu, 3);
  // Every track that holds a slice is named (the stream and thread ids remapped consistently).
  for (const auto& track : used_threads) EXPECT_TRUE(named_threads.contains(track)) << track.first;
}

// Every joined launch gets its arrow, here with every GPU record read before its launch and in
// reverse order; stderr says how many launches were joined.
TEST(ChromeExport, FlowsJoinEveryLaunchWhateverTheRecordOrder) {
  TempDir dir;
  std::string err;
  const auto doc = Export(dir, {ProcessTrace(11, 5'000 * kMs, 50, 7, 7, true)}, {}, &err);
  std::multiset<uint64_t> starts, ends;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "s") starts.insert(e["id"].get<uint64_t>());
    if (e["ph"] == "f") ends.insert(e["id"].get<uint64_t>());
  }
  EXPECT_EQ(starts.size(), 50u);
  EXPECT_EQ(starts, ends);
  EXPECT_NE(err.find("50 launch-to-GPU flows: 50 of 50 kernel launches joined"), std::string::npos)
      << err;
}

// Each GPU has a busy counter (percent per bucket, back to 0 after its last work) and, where
// the report knows kernels' FLOPs, an achieved FLOP/s counter.
TEST(ChromeExport, GpusHaveBusyAndFlopsCounterTracks) {
  TempDir dir;
  const auto doc = Export(dir, {SgemmTrace(false)});
  std::vector<double> busy, flops;
  std::set<int64_t> counter_pids, gpu_pids;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "kernel") gpu_pids.insert(e["pid"].get<int64_t>());
    if (e["ph"] != "C") continue;
    counter_pids.insert(e["pid"].get<int64_t>());
    if (e["name"] == "GPU busy") busy.push_back(e["args"]["%"]);
    if (e["name"] == "achieved") flops.push_back(e["args"]["FLOP/s (known FLOPs)"]);
  }
  EXPECT_EQ(counter_pids, gpu_pids);
  ASSERT_FALSE(busy.empty());
  EXPECT_DOUBLE_EQ(*std::max_element(busy.begin(), busy.end()), 100.0);
  EXPECT_EQ(busy.back(), 0.0);
  ASSERT_FALSE(flops.empty());
  // 2 n^3 FLOPs in 1 ms, spread evenly over the kernel's buckets.
  const double rate = 2.0 * 1024 * 1024 * 1024 / 1e-3;
  EXPECT_NEAR(*std::max_element(flops.begin(), flops.end()), rate, rate * 1e-3);
  EXPECT_EQ(flops.back(), 0.0);

  // Without known FLOPs, no FLOP/s track: a flat zero would claim none were done.
  TempDir unknown;
  int busy_events = 0;
  const auto without = Export(unknown, {ProcessTrace(11, 5'000 * kMs, 3)});
  for (const auto& e : without["traceEvents"]) {
    EXPECT_NE(e["name"], "achieved") << e;
    if (e["ph"] == "C" && e["name"] == "GPU busy") ++busy_events;
  }
  EXPECT_GT(busy_events, 0);
}

// --window keeps the events that meet it (launches at 10 us steps from the trace start, their
// kernels 20 us later), the names, and the flows whose two ends are both kept.
TEST(ChromeExport, WindowKeepsTheEventsThatMeetIt) {
  TempDir dir;
  std::string err;
  const auto doc =
      Export(dir, {ProcessTrace(11, 5'000 * kMs, 10)}, {"--window", "35us:65us"}, &err);
  std::map<std::string, int> slices;
  int names = 0, flows = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M") ++names;
    if (e["ph"] == "s") ++flows;
    if (e["ph"] != "X" && e["ph"] != "C") continue;
    const double ts = e["ts"], dur = e.value("dur", 0.0);
    EXPECT_GE(ts + dur, 35.0) << e;
    EXPECT_LE(ts, 65.0) << e;
    if (e["ph"] == "X") ++slices[e["cat"].get<std::string>()];
  }
  EXPECT_EQ(slices["launch"], 3);  // 40, 50, 60 us (the one at 30 us ends at 34)
  EXPECT_EQ(slices["kernel"], 4);  // 30-38, 40-48, 50-58, 60-68 us
  EXPECT_EQ(slices["region"], 1);  // "forward" spans the window
  EXPECT_EQ(slices["cuda_api"], 0);
  EXPECT_EQ(slices["memcpy"], 0);
  EXPECT_EQ(flows, 1);  // the launch at 40 us to its kernel at 60 us
  EXPECT_GE(names, 4);
  EXPECT_NE(err.find("1 of 3 kernel launches joined to their kernel in the window"),
            std::string::npos)
      << err;
}

// The bytes of a gzip file, inflated by zlib; empty when they are not gzip.
std::string Gunzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string packed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return "";
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  std::string out;
  char buffer[1 << 14];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END && z.avail_in == 0 ? out : "";
}

// A file name ending in .gz gets gzip, holding the same document as the plain file.
TEST(ChromeExport, GzipWhenTheNameEndsInGz) {
  TempDir dir;
  const std::vector<std::vector<uint8_t>> traces = {ProcessTrace(11, 5'000 * kMs, 200)};
  const std::string gz = dir.path() + "/trace.json.gz";
  const auto r = Report(dir, traces, {"--chrome", gz});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = Gunzip(gz);
  ASSERT_FALSE(text.empty()) << "not a whole gzip stream";
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc, Export(dir, traces));
  std::ifstream plain(dir.path() + "/chrome.json", std::ios::binary | std::ios::ate);
  std::ifstream packed(gz, std::ios::binary | std::ios::ate);
  EXPECT_LT(packed.tellg() * 4, plain.tellg());
}

// A window that is not START:END with units is a usage error, as is one without --chrome.
TEST(ChromeExport, BadWindowIsAUsageError) {
  TempDir dir;
  const std::string out = dir.path() + "/c.json";
  for (const std::string window : {"5s:2s", "2s", "2:5", "abc:1s", "1s:2s:3s", ":", "-1s:2s"}) {
    const auto r =
        Report(dir, {ProcessTrace(11, 5'000 * kMs, 1)}, {"--chrome", out, "--window=" + window});
    EXPECT_EQ(r.exit_code, 2) << window << ": " << r.err;
    EXPECT_EQ(r.err.rfind("flopspy-report: --window", 0), 0u) << r.err;
  }
  const auto r = Report(dir, {ProcessTrace(11, 5'000 * kMs, 1)}, {"--window", "1s:2s"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--chrome"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flopspy::testing
