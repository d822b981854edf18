// Writes the fuzzer's seed corpus: small traces, written by the trace writer (TraceBuilder), that
// between them hold every record type, the metadata the report reads (process, devices, CPU
// roofline), and the cases the analyzers branch on (launch and GPU record pairs, library calls,
// copies, graphs, counters, regions, losses, warnings, each way a trace ends).
// `flopspy_fuzz_seeds FOLDER` writes them there; the fuzzer mutates them from there.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "call_site_records.h"
#include "demo_trace.h"
#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

constexpr uint64_t kBase = 5'000'000'000;
constexpr uint32_t kThread = 11;

constexpr char kMetadata[] =
    R"({"flopspy":{"version":"0.1.0","trace_format":1},)"
    R"("process":{"pid":77,"command":["python","train.py"],"executable":"/usr/bin/python3"},)"
    R"("system":{"kernel":"6.1","machine":"x86_64","cpu_model":"EPYC","online_cpus":2},)"
    R"("config":{"gpu_timing":true},"config_warnings":[],)"
    R"("devices":[{"name":"NVIDIA A100-SXM4-80GB","cc_major":8,"cc_minor":0,"sm_count":108,)"
    R"("clock_khz":1410000,"memory_clock_khz":1593000,"memory_bus_width_bits":5120,)"
    R"("l2_bytes":41943040,"total_memory_bytes":85899345920,"uuid":"GPU-seed",)"
    R"("driver_version":"580.0"}],)"
    R"("cpu_roofline":{"mode":"perf","interval_ms":100,"min_trusted_ms":5,)"
    R"("capabilities":{"cpu_key":"seed-cpu"}}})";

void Define(TraceBuilder& b) {
  b.String(1,
           "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, "
           "float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> "
           ">(int, at::native::AUnaryFunctor<float, float, float, "
           "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)");
  b.String(2, "ampere_sgemm_128x64_nn").String(3, "cublasLtMatmul").String(4, "step");
  b.String(5, "triton_poi_fused_add_0").String(6, "worker").String(7, "cublasSgemm_v2");
  b.String(8, "CUPTI is unavailable: another profiler holds it");
  b.String(9, "GPU counters unavailable: the driver refused the range profiler");
  for (uint32_t f = 1; f <= 3; ++f) {
    trace::FunctionDef fn{};
    fn.id = f;
    fn.handle = 0x7000 + f;
    fn.mangled_name = f == 3 ? 5 : f;
    fn.demangled_name = fn.mangled_name;
    fn.param_count = f == 1 ? 3 : 0xFFFF;
    fn.layout_count = f == 1 ? 3 : 0;
    fn.param_offset[1] = 4, fn.param_size[0] = 4, fn.param_size[1] = 1;
    fn.param_offset[2] = 8, fn.param_size[2] = 16;
    b.Add(fn);
  }
  for (uint32_t s = 1; s <= 3; ++s) {
    trace::KernelSignatureDef sig{};
    sig.id = s;
    sig.function = s;
    sig.name = s == 3 ? 5 : s;
    sig.grid[0] = 1024 * s, sig.grid[1] = sig.grid[2] = 1;
    sig.block[0] = 128, sig.block[1] = sig.block[2] = 1;
    if (s == 2) sig.cluster[0] = 2, sig.cluster[1] = sig.cluster[2] = 1;
    b.Add(sig);
  }
  trace::StreamDef stream{};
  stream.id = 1;
  stream.handle = 0xabc;
  stream.stream_flags = trace::kStreamPerThreadDefault;
  b.Add(stream);
  b.Add(NamedThread(kThread, 6));
}

void Launch(TraceBuilder& b, uint32_t signature, uint64_t correlation, uint64_t at, uint32_t n,
            bool extra_params) {
  trace::KernelLaunchRecord l{};
  l.api = static_cast<uint16_t>(signature == 3 ? trace::Api::kCuLaunchKernelEx
                                               : trace::Api::kCudaLaunchKernel);
  l.device = 0;
  l.enter_ns = kBase + at;
  l.duration_ns = 4000;
  l.correlation = correlation;
  l.signature = signature;
  l.stream = 1;
  l.param_bytes = 4;
  std::memcpy(l.params, &n, 4);
  if (extra_params) l.h.flags = trace::kLaunchParamsTruncated;
  b.Chunk(trace::ChunkSource::kThread, kThread).Add(l);
  if (extra_params) {
    trace::LaunchParamsRecord p{};
    p.length = 16;
    std::memset(p.bytes, 0x11, 16);
    b.Add(p);
  }
}

void Gpu(TraceBuilder& b, trace::GpuActivityKind kind, uint32_t signature, uint64_t correlation,
         uint64_t at, uint64_t ns, uint8_t flags = 0) {
  trace::GpuActivityRecord g{};
  g.h.flags = flags;
  g.kind = static_cast<uint8_t>(kind);
  g.start_ns = kBase + at;
  g.end_ns = g.start_ns + ns;
  g.correlation = correlation;
  g.signature = signature;
  g.stream = 7;
  if (kind == trace::GpuActivityKind::kMemcpy) {
    g.copy_kind = static_cast<uint8_t>(trace::CopyKind::kDeviceToHost);
    g.src_kind = static_cast<uint8_t>(trace::MemoryKind::kDevice);
    g.dst_kind = static_cast<uint8_t>(trace::MemoryKind::kPageable);
    g.bytes = 1 << 20;
  } else if (kind == trace::GpuActivityKind::kMemset) {
    g.bytes = 4096;
  }
  if (flags & trace::kGpuFromGraph) g.graph_id = 1, g.graph_node_id = correlation;
  b.Chunk(trace::ChunkSource::kGpuActivity).Add(g);
}

void Api(TraceBuilder& b, trace::Api api, uint64_t at, uint64_t ns, uint64_t correlation,
         uint64_t bytes) {
  trace::ApiCallRecord a{};
  a.api = static_cast<uint16_t>(api);
  a.h.flags = api == trace::Api::kCudaMemcpy || api == trace::Api::kCudaDeviceSynchronize
                  ? trace::kApiCallSynchronizing
                  : 0;
  a.enter_ns = kBase + at;
  a.exit_ns = a.enter_ns + ns;
  a.correlation = correlation;
  a.bytes = bytes;
  a.detail = static_cast<uint32_t>(trace::CopyKind::kDeviceToHost) |
             static_cast<uint32_t>(trace::MemoryKind::kPageable) << 16;
  b.Chunk(trace::ChunkSource::kThread, kThread).Add(a);
}

void Library(TraceBuilder& b, analyzers::BlasRoutine routine, uint64_t correlation, uint64_t at,
             int64_t m, int64_t n, int64_t k) {
  trace::LibraryCallRecord c{};
  c.routine = static_cast<uint16_t>(routine);
  c.enter_ns = kBase + at;
  c.exit_ns = c.enter_ns + 9000;
  c.correlation = correlation;
  c.m = m, c.n = n, c.k = k;
  c.batch = routine == analyzers::BlasRoutine::kLtMatmul ? 4 : 1;
  c.lda = m, c.ldb = k, c.ldc = c.ldd = m;
  c.stride_a = m * k, c.stride_b = k * n, c.stride_c = c.stride_d = m * n;
  const bool half = routine == analyzers::BlasRoutine::kLtMatmul;
  c.type_a = c.type_b = half ? analyzers::cuda_type::kR16F : analyzers::cuda_type::kR32F;
  c.type_c = c.type_d = c.type_a;
  c.compute_type = analyzers::compute_type::k32F;
  c.scale_type = analyzers::cuda_type::kR32F;
  c.side = c.uplo = c.diag = 0xFF;
  c.epilogue = half ? 4 : 1;
  c.flags =
      trace::kLibBetaKnown | trace::kLibAlphaKnown | (half ? uint32_t{trace::kLibBiasPresent} : 0u);
  c.ptr_align = 0x08080808;
  c.name = half ? 3 : 7;
  c.flops = 2.0 * m * n * k * c.batch;
  c.epilogue_flops = half ? 1.0 * m * n : 0;
  c.bytes = 4.0 * (m * k + k * n + m * n) * c.batch;
  c.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
  b.Chunk(trace::ChunkSource::kThread, kThread).Add(c);
}

// The stacks of a launch; the first time, the code, module and stack records they name.
void CallSites(TraceBuilder& b, uint64_t correlation, bool first) {
  b.Chunk(trace::ChunkSource::kThread, kThread);
  if (first) {
    const std::vector<uint8_t> records[] = {
        PyCode(0x51, "/work/model.py", "Block.forward", 80, OneLineTable(8)),
        PyCode(0x52, "/work/train.py", "<module>", 1, OneLineTable(20), 0x030A),
        PythonStack(0x61, {{0x51, 4}, {0x52, 10}}),
        Module("/work/train_app", "\x12\x34", 0x400000, 0x400000, 0x500000),
        NativeStack(0x62, {0x401234, 0x402345})};
    for (const std::vector<uint8_t>& r : records) b.AddRaw(r.data(), r.size());
  }
  b.Add(StackSample(
      correlation, 0x61, 0x62,
      first ? trace::StackSampleReason::kNewSignature : trace::StackSampleReason::kSampled));
}

void Region(TraceBuilder& b, trace::RegionEdge edge, uint64_t at) {
  trace::RegionRecord r{};
  r.edge = static_cast<uint8_t>(edge);
  r.time_ns = kBase + at;
  r.name = 4;
  b.Chunk(trace::ChunkSource::kThread, kThread).Add(r);
}

void CpuSample(TraceBuilder& b, trace::CpuSampleScope scope, uint64_t at, uint64_t ns) {
  trace::CpuSampleRecord s{};
  s.scope = static_cast<uint8_t>(scope);
  s.begin_ns = kBase + at;
  s.end_ns = s.begin_ns + ns;
  s.region = scope == trace::CpuSampleScope::kRegion ? 4 : 0;
  s.valid = trace::kCpuFlopsDp | trace::kCpuFlopsSp | trace::kCpuBytesAny | trace::kCpuCycles |
            trace::kCpuInstructions | trace::kCpuTaskClock;
  s.flags = trace::kCpuMultiplexed | trace::kCpuSystemWideMemory;
  s.flops_dp = 1e8, s.flops_sp = 3e8, s.bytes_any = 2e8;
  s.cycles = 2e8, s.instructions = 4e8, s.task_clock_ns = static_cast<double>(ns);
  s.running_fraction = 0.5;
  b.Chunk(trace::ChunkSource::kCpuSampler).Add(s);
}

void Warning(TraceBuilder& b, trace::WarningCode code, uint32_t message) {
  trace::WarningRecord w{};
  w.code = static_cast<uint16_t>(code);
  w.time_ns = kBase;
  w.message = message;
  b.Chunk(trace::ChunkSource::kProcess).Add(w);
}

void End(TraceBuilder& b, trace::EndReason reason, int32_t value) {
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(reason);
  end.time_ns = kBase + 90'000'000;
  end.value = value;
  end.records_written = 40;
  end.records_lost = 3;
  b.Chunk(trace::ChunkSource::kProcess).Add(end);
}

// Every record type, two steps of a small training loop; `compressed`: in zstd chunks.
std::vector<uint8_t> Assorted(bool compressed = false) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.compressed_chunks = compressed;
  id.start_monotonic_ns = kBase;
  id.rank = 1;
  id.local_rank = 1;
  id.run_id = 99;
  TraceBuilder b(id);
  b.Chunk(trace::ChunkSource::kProcess).Metadata(kMetadata);
  Define(b);
  Warning(b, trace::WarningCode::kCuptiUnavailable, 8);
  Warning(b, trace::WarningCode::kCountersUnavailable, 9);
  uint64_t correlation = 1;
  for (uint64_t step = 0; step < 2; ++step) {
    const uint64_t t = step * 40'000'000;
    Region(b, trace::RegionEdge::kBegin, t);
    Api(b, trace::Api::kCudaMemcpyAsync, t + 1000, 3000, correlation, 1 << 20);
    Gpu(b, trace::GpuActivityKind::kMemcpy, 0, correlation++, t + 5000, 90'000);
    Launch(b, 1, correlation, t + 200'000, 1 << 20, step == 1);
    CallSites(b, correlation, step == 0);
    Gpu(b, trace::GpuActivityKind::kKernel, 1, correlation++, t + 210'000, 40'000);
    Library(b, analyzers::BlasRoutine::kGemm, correlation, t + 300'000, 512, 512, 512);
    Launch(b, 2, correlation, t + 301'000, 0, false);
    Gpu(b, trace::GpuActivityKind::kKernel, 2, correlation++, t + 305'000, 120'000);
    Library(b, analyzers::BlasRoutine::kLtMatmul, correlation, t + 500'000, 4096, 4095, 1000);
    Launch(b, 3, correlation, t + 501'000, 7, false);
    Gpu(b, trace::GpuActivityKind::kKernel, 3, correlation++, t + 900'000, 3'000'000);
    Gpu(b, trace::GpuActivityKind::kKernel, 3, 0, t + 4'000'000, 2000, trace::kGpuFromGraph);
    Gpu(b, trace::GpuActivityKind::kKernel, 1, 0, t + 4'010'000, 1000, trace::kGpuDeviceLaunched);
    Gpu(b, trace::GpuActivityKind::kMemset, 0, 0, t + 4'020'000, 500);
    Api(b, trace::Api::kCudaDeviceSynchronize, t + 600'000, 3'500'000, 0, 0);
    Api(b, trace::Api::kCuGraphLaunch, t + 3'990'000, 2000, correlation++, 0);
    Region(b, trace::RegionEdge::kEnd, t + 8'000'000);
    CpuSample(b, trace::CpuSampleScope::kInterval, t, 8'000'000);
    CpuSample(b, trace::CpuSampleScope::kRegion, t, 8'000'000);
    b.Flush();
  }
  trace::KernelMetricsRecord m{};
  m.samples = 1;
  m.passes = 12;
  m.correlation = 2;
  m.signature = 1;
  m.valid = trace::kMetricsFp32 | trace::kMetricsDram | trace::kMetricsDuration;
  m.flops_fp32 = 1 << 20, m.dram_read_bytes = 8 << 20, m.dram_write_bytes = 4 << 20;
  m.gpu_duration_ns = 40'000;
  b.Chunk(trace::ChunkSource::kGpuActivity).Add(m);
  CpuSample(b, trace::CpuSampleScope::kRun, 0, 90'000'000);
  trace::LostRecordsRecord lost{};
  lost.source = static_cast<uint16_t>(trace::LossSource::kCuptiBuffer);
  lost.count = 3;
  b.Chunk(trace::ChunkSource::kProcess).Add(lost);
  End(b, trace::EndReason::kSignal, 9);
  return b.Bytes();
}

// A forked child after exec, killed before its end record: no TraceEnd, metadata only partly.
std::vector<uint8_t> Unfinished() {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.flags = trace::kFileForkedChild | trace::kFileAfterExec;
  id.parent_pid = 1;
  id.start_monotonic_ns = kBase;
  TraceBuilder b(id);
  b.Chunk(trace::ChunkSource::kProcess).Metadata(R"({"process":{"command":"not a list"}})");
  Define(b);
  Launch(b, 1, 1, 1000, 64, false);
  Launch(b, 1, 2, 9000, 64, false);
  Gpu(b, trace::GpuActivityKind::kKernel, 1, 2, 10'000, 1000);
  return b.Bytes();
}

// Counts at the top of their range: the report carries them as JSON doubles, where 2^64 does not
// fit back into a uint64_t (the HTML page once cast the lost-records total without a check).
std::vector<uint8_t> HugeCounts() {
  TraceBuilder b(TraceBuilder::DefaultIdentity());
  b.Chunk(trace::ChunkSource::kProcess).Metadata(kMetadata);
  Define(b);
  Launch(b, 1, 1, 1000, 64, false);
  Gpu(b, trace::GpuActivityKind::kKernel, 1, 1, 2000, 1000);
  trace::LostRecordsRecord lost{};
  lost.source = static_cast<uint16_t>(trace::LossSource::kCuptiBuffer);
  lost.count = UINT64_MAX;
  b.Chunk(trace::ChunkSource::kProcess).Add(lost);
  return b.Bytes();
}

}  // namespace
}  // namespace flopspy::testing

int main(int argc, char** argv) {
  using namespace flopspy::testing;
  if (argc != 2) {
    std::fprintf(stderr, "usage: flopspy_fuzz_seeds FOLDER\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::filesystem::create_directories(dir);
  std::vector<uint8_t> assorted = Assorted();
  WriteFile(dir + "/assorted.fspy", assorted);
  WriteFile(dir + "/demo.fspy", DemoTrace());
  WriteFile(dir + "/unfinished.fspy", Unfinished());
  WriteFile(dir + "/huge-counts.fspy", HugeCounts());
  assorted.resize(assorted.size() - 20);  // cut inside the last chunk
  WriteFile(dir + "/cut.fspy", assorted);
  std::vector<uint8_t> compressed = Assorted(/*compressed=*/true);
  WriteFile(dir + "/compressed.fspy", compressed);
  compressed.resize(compressed.size() - 20);
  WriteFile(dir + "/compressed-cut.fspy", compressed);
  return 0;
}
