#include "rank_trace.h"

#include <filesystem>
#include <fstream>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

constexpr char kOther[] = "void layer_norm_kernel<float>(float*, int)";
constexpr uint32_t kThread = 7;
constexpr uint64_t kUs = 1000, kMs = 1'000'000;

void Write(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

std::vector<uint8_t> RankTrace(const RankSpec& spec) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.pid = 5000 + spec.rank;
  id.rank = spec.rank;
  id.local_rank = spec.rank;
  id.host = "node0";
  id.start_realtime_ns = 1'700'000'000'000'000'000ull + spec.rank * 10 * kMs;
  const uint64_t base = (100 + 7 * spec.rank) * 1'000'000'000ull;  // monotonic origin
  id.start_monotonic_ns = base;
  TraceBuilder b(id);
  b.Metadata(R"({"process":{"command":["python","train.py"]},)"
             R"("devices":[{"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0,)"
             R"("sm_count":132,"clock_khz":1980000,"memory_clock_khz":2619000,)"
             R"("memory_bus_width_bits":5120,"l2_bytes":52428800,)"
             R"("total_memory_bytes":85520809984,"uuid":"GPU-)" +
             std::to_string(spec.rank) + R"(","driver_version":"580.0"}]})");
  b.String(1, kRankGemmKernel).String(2, kOther).String(3, "cublasSgemm_v2").String(4, "step");
  for (uint32_t f = 1; f <= 2; ++f) {
    trace::FunctionDef fn{};
    fn.id = f;
    fn.mangled_name = f;
    fn.demangled_name = f;
    fn.param_count = 0xFFFF;
    b.Add(fn);
  }
  const auto signature = [&](uint32_t sig, uint32_t function, uint32_t grid) {
    trace::KernelSignatureDef s{};
    s.id = sig;
    s.function = function;
    s.grid[0] = grid, s.grid[1] = 1, s.grid[2] = 1;
    s.block[0] = 128, s.block[1] = 1, s.block[2] = 1;
    b.Add(s);
  };
  signature(1, 1, 256);
  signature(2, 2, spec.other_grid);
  const auto region = [&](trace::RegionEdge edge, uint64_t at) {
    trace::RegionRecord r{};
    r.edge = static_cast<uint8_t>(edge);
    r.time_ns = at;
    r.name = 4;
    b.Chunk(trace::ChunkSource::kThread, kThread).Add(r);
  };
  const auto launch = [&](uint32_t sig, uint64_t correlation, uint64_t at, bool in_library) {
    trace::KernelLaunchRecord l{};
    l.h.flags = in_library ? trace::kLaunchInsideLibrary : 0;
    l.api = static_cast<uint16_t>(trace::Api::kCudaLaunchKernel);
    l.enter_ns = at;
    l.duration_ns = 5 * kUs;
    l.correlation = correlation;
    l.signature = sig;
    b.Chunk(trace::ChunkSource::kThread, kThread).Add(l);
  };
  const auto gpu = [&](uint32_t sig, uint64_t correlation, uint64_t start, uint64_t ns) {
    trace::GpuActivityRecord g{};
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    g.start_ns = start;
    g.end_ns = start + ns;
    g.correlation = correlation;
    g.signature = sig;
    g.stream = 7;
    b.Chunk(trace::ChunkSource::kGpuActivity).Add(g);
  };
  for (int s = 0; s < spec.steps; ++s) {
    const uint64_t t0 = base + kMs + s * spec.step_ns;
    const uint64_t correlation = 100 + 2 * s;
    region(trace::RegionEdge::kBegin, t0);
    launch(1, correlation, t0 + 10 * kUs, true);
    trace::LibraryCallRecord c{};
    c.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kGemm);
    c.enter_ns = t0 + 9 * kUs;
    c.exit_ns = t0 + 20 * kUs;
    c.m = c.n = c.k = 2048;
    c.batch = 1;
    c.lda = c.ldb = c.ldc = 2048;
    c.type_a = c.type_b = c.type_c = c.type_d = analyzers::cuda_type::kR32F;
    c.compute_type = analyzers::compute_type::k32F;
    c.flags = trace::kLibBetaKnown;
    c.name = 3;
    c.flops = 2.0 * 2048 * 2048 * 2048;
    c.bytes = 3.0 * 2048 * 2048 * 4;
    c.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
    b.Chunk(trace::ChunkSource::kThread, kThread).Add(c);
    gpu(1, correlation, t0 + 30 * kUs, spec.gemm_ns);
    launch(2, correlation + 1, t0 + 25 * kUs, false);
    gpu(2, correlation + 1, t0 + 30 * kUs + spec.gemm_ns, spec.other_ns);
    region(trace::RegionEdge::kEnd, t0 + spec.step_ns);
  }
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  end.time_ns = base + kMs + spec.steps * spec.step_ns + kMs;
  b.Chunk(trace::ChunkSource::kProcess).Add(end);
  return b.Bytes();
}

std::string WriteRankJob(const std::string& dir, bool fast) {
  std::filesystem::create_directories(dir);
  for (int r = 0; r < 4; ++r) {
    RankSpec spec;
    spec.rank = r;
    if (fast) {
      spec.gemm_ns = 5 * kMs;
      spec.step_ns = 7 * kMs;
      spec.other_grid = 2;
    } else if (r == 3) {
      spec.gemm_ns = 8 * kMs;
      spec.step_ns = 10 * kMs;
    }
    Write(dir + "/rank" + std::to_string(r) + ".fspy", RankTrace(spec));
  }
  return dir;
}

}  // namespace flopspy::testing
