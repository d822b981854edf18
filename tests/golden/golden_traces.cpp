#include "golden_traces.h"

#include <map>
#include <nlohmann/json.hpp>

#include "flopspy/analyzers/blas_formulas.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/cpu_roofline/replay_backend.h"
#include "flopspy/cpu_roofline/sampler.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

using trace::ChunkSource;

constexpr const char* kMul = kAtenMulKernel;
constexpr char kStencil[] = "my_custom_stencil(float const*, float*, int)";
constexpr char kLtKernel[] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_gelu";
constexpr uint32_t kThread = 7;
constexpr uint64_t kBase = 5'000'000'000;  // monotonic ns of the first event
constexpr char kH100[] =
    R"({"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0,"sm_count":132,)"
    R"("clock_khz":1980000,"memory_clock_khz":2619000,"memory_bus_width_bits":5120,)"
    R"("l2_bytes":52428800,"total_memory_bytes":85520809984,"uuid":"GPU-golden-0",)"
    R"("driver_version":"580.0"})";

trace::FileIdentity Identity(uint32_t pid) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.pid = pid;
  id.start_monotonic_ns = kBase;
  return id;
}

class GpuTraceBuilder {
 public:
  explicit GpuTraceBuilder(uint32_t pid) : b_(Identity(pid)) {}
  TraceBuilder& b() { return b_; }

  void Function(uint32_t id, uint32_t name, uint16_t params) {
    trace::FunctionDef f = KernelFunction(id, name, params);
    if (params == 3) SetElementwiseLayout(f, 4, 24);
    b_.Add(f);
  }

  void Signature(uint32_t id, uint32_t function, uint32_t gx, uint32_t bx, uint32_t gy = 1) {
    b_.Add(KernelSignature(id, function, gx, gy, bx));
  }

  void Launch(uint32_t signature, uint64_t correlation, uint64_t at, uint32_t n,
              bool inside_library = false) {
    b_.Chunk(ChunkSource::kThread, kThread)
        .Add(KernelLaunch(signature, correlation, kBase + at, 4000, n, inside_library));
  }

  void Gpu(uint32_t signature, uint64_t correlation, uint64_t at, uint64_t ns) {
    b_.Chunk(ChunkSource::kGpuActivity)
        .Add(KernelExecution(signature, correlation, kBase + at, ns, 7));
  }

  void Metrics(uint32_t signature, uint64_t correlation, uint16_t sample, double fp32,
               double dram) {
    trace::KernelMetricsRecord m{};
    m.samples = sample;
    m.passes = 5;
    m.correlation = correlation;
    m.signature = signature;
    m.valid = trace::kMetricsFp32 | trace::kMetricsDram;
    m.flops_fp32 = fp32;
    m.dram_read_bytes = dram * 2 / 3;
    m.dram_write_bytes = dram / 3;
    b_.Chunk(ChunkSource::kThread, kThread).Add(m);
  }

  void Warning(trace::WarningCode code, uint32_t message, uint64_t at) {
    trace::WarningRecord w{};
    w.code = static_cast<uint16_t>(code);
    w.time_ns = kBase + at;
    w.message = message;
    b_.Chunk(ChunkSource::kProcess).Add(w);
  }

  // A launch recorded into `graph` (stream capture when `capture_id` is set, else the graph
  // API), with its node record.
  void CapturedLaunch(uint32_t signature, uint64_t correlation, uint64_t at, uint32_t n,
                      uint32_t graph, uint64_t node, uint64_t capture_id,
                      bool inside_library = false) {
    trace::KernelLaunchRecord l =
        KernelLaunch(signature, correlation, kBase + at, 6000, n, inside_library);
    l.h.flags |= trace::kLaunchCaptured;
    if (capture_id == 0) l.api = static_cast<uint16_t>(trace::Api::kCuGraphAddKernelNode);
    trace::GraphNodeRecord r{};
    r.h.flags = capture_id != 0 ? trace::kGraphNodeCaptured : 0;
    r.graph = graph;
    r.correlation = correlation;
    r.node = node;
    r.capture_id = capture_id;
    b_.Chunk(ChunkSource::kThread, kThread).Add(l).Add(r);
  }

  void GraphEvent(trace::GraphEvent event, uint64_t at, uint32_t graph, uint32_t exec) {
    trace::GraphEventRecord e{};
    e.event = static_cast<uint8_t>(event);
    e.enter_ns = kBase + at;
    e.exit_ns = kBase + at + 50'000;
    e.graph = graph;
    e.exec = exec;
    b_.Chunk(ChunkSource::kThread, kThread).Add(e);
  }

  void GraphLaunch(uint64_t correlation, uint64_t at, uint32_t exec) {
    trace::ApiCallRecord a{};
    a.api = static_cast<uint16_t>(trace::Api::kCudaGraphLaunch);
    a.enter_ns = kBase + at;
    a.exit_ns = kBase + at + 2500;
    a.correlation = correlation;
    a.detail = exec;
    b_.Chunk(ChunkSource::kThread, kThread).Add(a);
  }

  // A replayed node's kernel as CUPTI records it: the graph launch's correlation, its node id.
  void GraphKernel(uint32_t signature, uint64_t correlation, uint64_t gpu_node, uint64_t at,
                   uint64_t ns, uint32_t cupti_graph) {
    trace::GpuActivityRecord g = KernelExecution(signature, correlation, kBase + at, ns, 7, true);
    g.graph_id = cupti_graph;
    g.graph_node_id = gpu_node;
    b_.Chunk(ChunkSource::kGpuActivity).Add(g);
  }

  // `records_lost`: as the recorder counts them, every loss record's count included.
  void End(uint64_t at, uint64_t records_lost = 0) {
    b_.Chunk(ChunkSource::kProcess).Add(ExitEnd(kBase + at, records_lost));
  }

 private:
  TraceBuilder b_;
};

// A cuBLASLt BF16 GEMM with a GELU and bias epilogue, its figures from the formula table.
trace::LibraryCallRecord LtMatmul(uint64_t at, uint32_t name) {
  trace::LibraryCallRecord c{};
  c.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kLtMatmul);
  c.enter_ns = kBase + at;
  c.exit_ns = c.enter_ns + 12'000;
  c.m = 4096, c.n = 4000, c.k = 1000;  // n and k not multiples of the 128 x 256 tile
  c.batch = 1;
  c.lda = c.ldb = c.ldc = c.ldd = 4096;
  c.type_a = c.type_b = c.type_c = c.type_d = analyzers::cuda_type::kR16BF;
  c.compute_type = analyzers::compute_type::k32F;
  c.scale_type = analyzers::cuda_type::kR32F;
  c.trans_a = analyzers::blas_op::kT;
  c.trans_b = analyzers::blas_op::kN;
  c.side = c.uplo = c.diag = analyzers::kNotApplicable;
  c.epilogue = analyzers::lt_epilogue::kGeluBias;
  c.flags = trace::kLibBetaKnown | trace::kLibBiasPresent;
  c.ptr_align = 0x08080808;  // 256-byte aligned
  c.name = name;
  analyzers::FillBlasFigures(c);
  return c;
}

}  // namespace

std::vector<uint8_t> CountersTrace() {
  GpuTraceBuilder g(7100);
  TraceBuilder& b = g.b();
  b.Metadata(std::string(R"({"process":{"command":["python","bench.py","--counters"]},)") +
             R"("devices":[)" + kH100 + "]}");
  b.String(1, kMul).String(2, kStencil).String(3, kLtKernel).String(4, "cublasLtMatmul");
  b.String(5, "step");
  b.String(6,
           "GPU counters: the range profiler could not measure 1 kernel (CUPTI_ERROR_NOT_"
           "SUPPORTED on a replayed graph node); its figures stay unknown");
  b.String(7,
           "CPU FLOPs (W) unavailable: perf_event_open(fp_arith_inst_retired.scalar_double) "
           "failed with ENOENT");
  b.String(8, "FLOPSPY_BUFFER_KB=abc is not a number; using the default 1024");
  g.Function(1, 1, 3);
  g.Function(2, 2, 0xFFFF);
  g.Function(3, 3, 0xFFFF);
  g.Signature(1, 1, 977, 256);     // mul of 1,000,000 elements
  g.Signature(2, 2, 64, 256);      // the stencil on 64 blocks...
  g.Signature(3, 2, 4096, 256);    // ...and on 4,096: another row of the same name
  g.Signature(4, 3, 32, 384, 16);  // the Lt GEMM: 32 x 16 tiles

  const auto region = [&](trace::RegionEdge edge, uint64_t at) {
    trace::RegionRecord r{};
    r.edge = static_cast<uint8_t>(edge);
    r.time_ns = kBase + at;
    r.name = 5;
    b.Chunk(ChunkSource::kThread, kThread).Add(r);
  };
  g.Warning(trace::WarningCode::kBadConfig, 8, 0);
  g.Warning(trace::WarningCode::kCountersUnavailable, 7, 0);
  uint64_t correlation = 100;
  for (int step = 0; step < 2; ++step) {
    const uint64_t t0 = 1'000'000 + step * 4'000'000ull;
    region(trace::RegionEdge::kBegin, t0);
    // mul n=1e6, catalog: 1 MFLOP and 12 MB; the counters measured 1 MFLOP and 14.4 MB (+20%:
    // the catalog is more than 10% off on bytes).
    g.Launch(1, correlation, t0 + 10'000, 1'000'000);
    g.Metrics(1, correlation, static_cast<uint16_t>(step + 1), 1e6, 14.4e6);
    g.Gpu(1, correlation, t0 + 30'000, 100'000);
    ++correlation;
    // The stencil, which only the counters know: 8 MFLOP and 4 MB per launch on 64 blocks.
    g.Launch(2, correlation, t0 + 200'000, 0);
    g.Metrics(2, correlation, static_cast<uint16_t>(step + 1), 8e6, 4e6);
    g.Gpu(2, correlation, t0 + 220'000, 50'000);
    ++correlation;
    // The same stencil on 4,096 blocks, not measured: its figures stay unknown.
    g.Launch(3, correlation, t0 + 300'000, 0);
    g.Gpu(3, correlation, t0 + 320'000, 400'000);
    ++correlation;
    // cuBLASLt BF16 GEMM with GELU + bias: one kernel inside the call, 250 us.
    g.Launch(4, correlation, t0 + 800'000, 0, /*inside_library=*/true);
    b.Chunk(ChunkSource::kThread, kThread).Add(LtMatmul(t0 + 795'000, 4));
    g.Gpu(4, correlation, t0 + 830'000, 250'000);
    ++correlation;
    region(trace::RegionEdge::kEnd, t0 + 3'000'000);
  }
  g.Warning(trace::WarningCode::kCountersUnavailable, 6, 9'000'000);
  trace::LostRecordsRecord lost{};
  lost.source = static_cast<uint16_t>(trace::LossSource::kCuptiBuffer);
  lost.count = 3;
  lost.time_ns = kBase + 9'000'000;
  b.Chunk(ChunkSource::kProcess).Add(lost);
  g.End(10'000'000, lost.count);
  return b.Bytes();
}

gpuroof::CeilingsFile GoldenCeilings() {
  gpuroof::MeasuredCeilings m;
  m.uuid = kGoldenGpuUuid;
  m.driver_version = "580.0";
  m.name = "NVIDIA H100 80GB HBM3";
  m.measured_at = "2026-01-01T00:00:00Z";
  m.tool = "flopspy ceilings (golden test)";
  m.flops[analyzers::ComputePath::kBf16Tensor] = {650e12, "cublasLt bf16 8192^3"};
  m.bandwidth[analyzers::MemoryLevel::kDram] = {2.9e12, "device-to-device copy"};
  gpuroof::CeilingsFile file;
  file.devices.push_back(m);
  return file;
}

std::vector<uint8_t> CpuRooflineTrace(const std::string& replay_file) {
  TraceBuilder b(Identity(7200));
  std::string error;
  const std::optional<cpuroof::ReplayData> data = cpuroof::LoadReplay(replay_file, &error);
  if (!data) return {};
  std::map<std::string, uint32_t> regions;
  std::vector<trace::CpuSampleRecord> samples;
  const cpuroof::ReplayRun run =
      cpuroof::RunReplay(*data, cpuroof::SamplerConfig{},
                         [&](const trace::CpuSampleRecord& r, std::string_view region) {
                           trace::CpuSampleRecord s = r;
                           if (!region.empty()) {
                             const auto [it, added] = regions.try_emplace(
                                 std::string(region), static_cast<uint32_t>(regions.size() + 1));
                             s.region = it->second;
                           }
                           s.begin_ns += kBase;
                           s.end_ns += kBase;
                           samples.push_back(s);
                         });
  nlohmann::json caps = nlohmann::json::parse(run.capabilities.ToJson());
  caps["cpu_key"] = kGoldenCpuKey;
  b.Metadata(nlohmann::json{{"process", {{"command", {"./dgemm_bench", "4000"}}}},
                            {"cpu_roofline", {{"capabilities", caps}, {"mode", "replay"}}}}
                 .dump());
  for (const auto& [name, id] : regions) b.String(id, name);
  uint32_t next_string = static_cast<uint32_t>(regions.size() + 1);
  for (const std::string& line : run.capabilities.Lines()) {
    const std::string text = line.rfind("flopspy: ", 0) == 0 ? line.substr(9) : line;
    b.String(next_string, text);
    trace::WarningRecord w{};
    w.code = static_cast<uint16_t>(trace::WarningCode::kCountersUnavailable);
    w.time_ns = kBase;
    w.message = next_string++;
    b.Chunk(ChunkSource::kProcess).Add(w);
  }
  for (const trace::CpuSampleRecord& s : samples) b.Chunk(ChunkSource::kCpuSampler).Add(s);
  b.Chunk(ChunkSource::kProcess).Add(ExitEnd(samples.empty() ? kBase : samples.back().end_ns));
  return b.Bytes();
}

std::vector<uint8_t> NoGpuTimesTrace() {
  GpuTraceBuilder g(7300);
  TraceBuilder& b = g.b();
  b.Metadata(std::string(R"({"process":{"command":["python","infer.py"]},"devices":[)") + kH100 +
             "]}");
  b.String(1, kMul).String(2, kLtKernel).String(3, "cublasLtMatmul");
  b.String(4,
           "CUPTI is unavailable: another tool holds the CUPTI subscriber (Nsight Systems?); "
           "no GPU times will be recorded");
  g.Function(1, 1, 3);
  g.Function(2, 2, 0xFFFF);
  g.Signature(1, 1, 977, 256);
  g.Signature(2, 2, 32, 384, 16);
  g.Warning(trace::WarningCode::kCuptiUnavailable, 4, 0);
  for (uint64_t i = 0; i < 1200; ++i) g.Launch(1, 100 + i, 1'000'000 + i * 10'000, 1'000'000);
  g.Launch(2, 5000, 20'000'000, 0, /*inside_library=*/true);
  g.b().Chunk(ChunkSource::kThread, kThread).Add(LtMatmul(19'995'000, 3));
  g.End(25'000'000);
  return b.Bytes();
}

// FLOPSPY_GPU_TIMING=sampled: a training loop whose GPU times come from two 1 s windows every
// 10 s, the second still open at the end; the launches between them owe no GPU record.
std::vector<uint8_t> SampledGpuTimingTrace() {
  GpuTraceBuilder g(7400);
  TraceBuilder& b = g.b();
  b.Metadata(std::string(R"({"process":{"command":["python","train.py"]},"devices":[)") + kH100 +
             "]}");
  b.Metadata(R"({"gpu_timing":{"available":true,"source":"CUPTI activity API","sampled":)"
             R"({"window_ns":1000000000,"period_ns":10000000000,"first_window_open_ns":)" +
             std::to_string(kBase + 1'000'000) + "}}}");
  const auto window = [&](const char* event, int index, uint64_t at) {
    b.Chunk(ChunkSource::kProcess)
        .Metadata(std::string(R"({"gpu_window":{"event":")") + event + R"(","index":)" +
                  std::to_string(index) + R"(,"time_ns":)" + std::to_string(kBase + at) + "}}");
  };
  b.String(1, kMul).String(2, kLtKernel);
  g.Function(1, 1, 3);
  g.Function(2, 2, 0xFFFF);
  g.Signature(1, 1, 977, 256);
  g.Signature(2, 2, 32, 384, 16);
  uint64_t correlation = 100;
  // A step every 100 ms: a mul (80 us) and a GEMM-shaped kernel (400 us).
  const auto step = [&](uint64_t at, bool timed) {
    g.Launch(1, correlation, at, 1'000'000);
    if (timed) g.Gpu(1, correlation, at + 20'000, 80'000);
    ++correlation;
    g.Launch(2, correlation, at + 10'000, 0);
    if (timed) g.Gpu(2, correlation, at + 110'000, 400'000);
    ++correlation;
  };
  for (uint64_t i = 0; i < 10; ++i) step(2'000'000 + i * 100'000'000, true);
  window("close", 0, 1'001'000'000);
  for (uint64_t i = 10; i < 110; ++i) step(2'000'000 + i * 100'000'000, false);
  window("open", 1, 11'001'000'000);
  for (uint64_t i = 110; i < 115; ++i) step(2'000'000 + i * 100'000'000, true);
  g.End(11'600'000'000);
  return b.Bytes();
}

std::vector<uint8_t> CudaGraphsTrace() {
  GpuTraceBuilder g(7500);
  TraceBuilder& b = g.b();
  b.Metadata(std::string(R"({"process":{"command":["python","serve.py"]},"devices":[)") + kH100 +
             "]}");
  b.String(1, kMul).String(2, kLtKernel).String(3, "cublasLtMatmul");
  g.Function(1, 1, 3);
  g.Function(2, 2, 0xFFFF);
  g.Signature(1, 1, 977, 256);
  g.Signature(2, 2, 32, 384, 16);
  // The same kernels as CUPTI names them in a replay: no function, the name only.
  for (uint32_t id : {1u, 2u}) {
    trace::KernelSignatureDef named =
        KernelSignature(10 + id, 0, id == 1 ? 977 : 32, id == 1 ? 1 : 16, id == 1 ? 256 : 384);
    named.name = id;
    b.Add(named);
  }
  // Warm-up: the model runs eagerly twice.
  uint64_t correlation = 100;
  for (uint64_t i = 0; i < 2; ++i) {
    const uint64_t at = 1'000'000 + i * 1'000'000;
    g.Launch(1, ++correlation, at, 1'000'000);
    g.Gpu(1, correlation, at + 20'000, 12'000);
    g.Launch(2, ++correlation, at + 100'000, 0, /*inside_library=*/true);
    b.Chunk(ChunkSource::kThread, kThread).Add(LtMatmul(at + 95'000, 3));
    g.Gpu(2, correlation, at + 120'000, 400'000);
  }
  // Captured: multiply, the cuBLASLt GEMM, multiply again; instantiated as executable graph 1.
  g.CapturedLaunch(1, 201, 4'000'000, 1'000'000, 1, 0xA1, 7);
  g.CapturedLaunch(2, 202, 4'010'000, 0, 1, 0xA2, 7, /*inside_library=*/true);
  b.Chunk(ChunkSource::kThread, kThread).Add(LtMatmul(4'005'000, 3));
  g.CapturedLaunch(1, 203, 4'030'000, 2'000'000, 1, 0xA3, 7);
  g.GraphEvent(trace::GraphEvent::kCaptured, 4'040'000, 1, 0);
  g.GraphEvent(trace::GraphEvent::kInstantiated, 4'100'000, 1, 1);
  // A one-node graph built with cuGraphAddKernelNode, executable graph 2.
  g.CapturedLaunch(1, 204, 4'200'000, 4'000'000, 2, 0xB1, 0);
  g.GraphEvent(trace::GraphEvent::kInstantiated, 4'300'000, 2, 2);
  // 20 replays of each, 0.5 ms apart.
  for (uint64_t r = 0; r < 20; ++r) {
    const uint64_t at = 5'000'000 + r * 500'000;
    g.GraphLaunch(300 + 2 * r, at, 1);
    g.GraphKernel(11, 300 + 2 * r, 901, at + 10'000, 12'000, 90);
    g.GraphKernel(12, 300 + 2 * r, 902, at + 23'000, 400'000, 90);
    g.GraphKernel(11, 300 + 2 * r, 903, at + 424'000, 24'000, 90);
    g.GraphLaunch(301 + 2 * r, at + 5'000, 2);
    g.GraphKernel(11, 301 + 2 * r, 904, at + 449'000, 48'000, 91);
  }
  g.End(16'000'000);
  return b.Bytes();
}

std::vector<uint8_t> StressTrace() {
  GpuTraceBuilder g(7400);
  TraceBuilder& b = g.b();
  nlohmann::json command = nlohmann::json::array();
  for (int i = 0; i < 40; ++i) command.push_back("--option-number-" + std::to_string(i));
  b.Metadata(nlohmann::json{{"process", {{"command", command}}},
                            {"devices",
                             {{{"name", "NVIDIA A100-SXM4-80GB"},
                               {"cc_major", 8},
                               {"cc_minor", 0},
                               {"sm_count", 108},
                               {"clock_khz", 1410000},
                               {"memory_clock_khz", 1593000},
                               {"memory_bus_width_bits", 5120},
                               {"total_memory_bytes", 85899345920ull},
                               {"uuid", "GPU-stress"},
                               {"driver_version", "580.0"}}}}}
                 .dump());
  b.String(1, std::string(300, 'k'));
  b.String(2,
           "void at::native::(anonymous namespace)::very_long_reduction_kernel<at::native::"
           "ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, "
           "4, 4>, 512, 4, true>(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
           "float, float>, unsigned int, float, 4, 4>)");
  b.String(3, "cublasLtMatmul");
  b.String(4, "x" + std::string(400, '-') + "x");
  b.String(5, std::string(250, 'c') + "_cutlass_kernel_with_a_long_name_and_no_spaces");
  g.Function(1, 1, 0xFFFF);
  g.Function(2, 2, 0xFFFF);
  g.Function(3, 5, 0xFFFF);
  g.Signature(1, 1, 2147483647, 1024, 65535);
  g.Signature(2, 2, 1, 512);
  g.Signature(3, 3, 65535, 256, 65535);
  g.Warning(trace::WarningCode::kGeneric, 4, 0);
  trace::LostRecordsRecord lost{};
  lost.source = static_cast<uint16_t>(trace::LossSource::kThreadBuffer);
  lost.thread_id = kThread;
  lost.count = 123'456'789'012ull;
  b.Chunk(ChunkSource::kProcess).Add(lost);
  for (uint64_t i = 0; i < 20; ++i) {
    g.Launch(1, 100 + 3 * i, 1'000'000 + i * 100'000'000ull, 0);
    g.Gpu(1, 100 + 3 * i, 1'020'000 + i * 100'000'000ull, 99'000'000);
    g.Launch(2, 101 + 3 * i, 1'010'000 + i * 100'000'000ull, 0);
    g.Gpu(2, 101 + 3 * i, 1'020'000 + i * 100'000'000ull, 3'000);
    g.Launch(3, 102 + 3 * i, 1'015'000 + i * 100'000'000ull, 0, /*inside_library=*/true);
    trace::LibraryCallRecord c = LtMatmul(1'012'000 + i * 100'000'000ull, 3);
    c.m = c.n = c.k = 1'048'576;
    c.batch = 4096;
    c.type_a = analyzers::cuda_type::kR8FE4M3;
    c.type_b = analyzers::cuda_type::kR8FE5M2;
    c.type_c = analyzers::cuda_type::kR16BF;
    c.type_d = analyzers::cuda_type::kR32F;
    c.epilogue = analyzers::lt_epilogue::kDgeluBgrad;
    c.flags |= trace::kLibScalePointers | trace::kLibAuxPresent;
    analyzers::FillBlasFigures(c);
    b.Chunk(ChunkSource::kThread, kThread).Add(c);
    g.Gpu(3, 102 + 3 * i, 1'030'000 + i * 100'000'000ull, 123'456'789);
  }
  g.End(2'100'000'000, lost.count);
  return b.Bytes();
}

}  // namespace flopspy::testing
