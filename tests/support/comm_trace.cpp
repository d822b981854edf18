#include "comm_trace.h"

#include <filesystem>
#include <fstream>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "rank_trace.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

constexpr uint32_t kThread = 7;
constexpr uint64_t kUs = 1000, kMs = 1'000'000;

}  // namespace

std::vector<uint8_t> CommRankTrace(const CommRankSpec& spec) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.pid = 6000 + spec.rank;
  id.rank = spec.rank;
  id.local_rank = spec.rank;
  id.host = "node0";
  id.start_realtime_ns = 1'700'000'000'000'000'000ull;
  const uint64_t base = (200 + 11 * spec.rank) * 1'000'000'000ull;  // monotonic origin
  id.start_monotonic_ns = base;
  TraceBuilder b(id);
  b.Metadata(R"({"devices":[{"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0,)"
             R"("sm_count":132,"clock_khz":1980000,"memory_clock_khz":2619000,)"
             R"("memory_bus_width_bits":5120,"l2_bytes":52428800,)"
             R"("total_memory_bytes":85520809984,"uuid":"GPU-comm-)" +
             std::to_string(spec.rank) + R"(","driver_version":"580.0"}]})");
  b.String(1, kRankGemmKernel).String(2, kCommKernel).String(3, "ncclAllReduce");
  for (uint32_t f = 1; f <= 2; ++f) {
    trace::FunctionDef fn{};
    fn.id = f;
    fn.mangled_name = f;
    fn.demangled_name = f;
    fn.param_count = 0xFFFF;
    b.Add(fn);
    trace::KernelSignatureDef s{};
    s.id = f;
    s.function = f;
    s.name = f;
    s.grid[0] = f == 1 ? 264 : 8, s.grid[1] = 1, s.grid[2] = 1;
    s.block[0] = 256, s.block[1] = 1, s.block[2] = 1;
    b.Add(s);
  }
  const auto launch = [&](uint32_t sig, uint64_t correlation, uint64_t at, bool in_library) {
    b.Chunk(trace::ChunkSource::kThread, kThread)
        .Add(KernelLaunch(sig, correlation, at, 4 * kUs, 0, in_library));
  };
  const auto gpu = [&](uint32_t sig, uint64_t correlation, uint64_t start, uint64_t ns,
                       uint32_t stream) {
    b.Chunk(trace::ChunkSource::kGpuActivity)
        .Add(KernelExecution(sig, correlation, start, ns, stream));
  };
  uint64_t correlation = 1000;
  for (int s = 0; s < spec.steps; ++s) {
    const uint64_t t0 = base + kMs + static_cast<uint64_t>(s) * 10 * kMs;
    launch(1, ++correlation, t0, false);
    gpu(1, correlation, t0 + 10 * kUs, 2 * kMs, 7);
    // The all-reduce: its call (its kernel launched inside), then the kernel's GPU record, which
    // carries the call's correlation as CUPTI's external id does.
    const uint64_t call_at = t0 + 2 * kMs + 20 * kUs + spec.late_ns;
    const uint64_t call = ++correlation;
    if (!spec.grouped) launch(2, ++correlation, call_at + 5 * kUs, true);
    trace::LibraryCallRecord c{};
    c.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kNcclAllReduce);
    c.enter_ns = call_at;
    c.exit_ns = call_at + 15 * kUs;
    c.correlation = call;
    c.m = spec.count;
    c.n = 2;
    c.k = spec.rank;
    c.batch = -1;
    c.lda = 0;  // ncclSum
    c.ldb = static_cast<int64_t>(kCommCommunicatorId);
    c.ldc = s + 1;
    c.stride_a = spec.count * 4;
    c.type_a = analyzers::cuda_type::kR32F;
    c.type_b = c.type_c = c.type_d = c.compute_type = c.scale_type = analyzers::kNotApplicable;
    c.flops = static_cast<double>(spec.count) / 2;
    c.bytes = static_cast<double>(spec.count) * 4;
    c.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
    c.name = 3;
    uint64_t owner = call;  // the record whose correlation the kernel carries
    if (spec.grouped) {
      // ncclGroupStart; ncclAllReduce (flagged, launches nothing); ncclGroupEnd (launches).
      c.flags |= trace::kLibCommInGroup;
      b.Chunk(trace::ChunkSource::kThread, kThread).Add(c);
      owner = ++correlation;
      launch(2, ++correlation, c.exit_ns + 5 * kUs, true);
      trace::LibraryCallRecord end = c;
      end.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kNcclGroupEnd);
      end.flags = 0;
      end.enter_ns = c.exit_ns + 2 * kUs;
      end.exit_ns = end.enter_ns + 15 * kUs;
      end.correlation = owner;
      end.m = 1;
      end.ldc = 0;
      end.flops = end.bytes = 0;
      b.Add(end);
    } else {
      b.Chunk(trace::ChunkSource::kThread, kThread).Add(c);
    }
    const uint64_t kernel_at = call_at + 30 * kUs;
    gpu(2, spec.launch_correlation ? correlation : owner, kernel_at,
        spec.wait_ns + spec.transfer_ns, 9);
    if (spec.overlap_ns > 0) {
      launch(1, ++correlation, call_at + 20 * kUs, false);
      gpu(1, correlation, kernel_at, spec.overlap_ns, 7);
    }
  }
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  end.time_ns = base + kMs + static_cast<uint64_t>(spec.steps) * 10 * kMs + kMs;
  b.Chunk(trace::ChunkSource::kProcess).Add(end);
  return b.Bytes();
}

std::string WriteCommJob(const std::string& dir, uint64_t late_ns) {
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  };
  write("rank0.fspy", CommRankTrace({.rank = 0, .wait_ns = late_ns}));
  write("rank1.fspy", CommRankTrace({.rank = 1, .late_ns = late_ns, .overlap_ns = 250'000}));
  return dir;
}

}  // namespace flopspy::testing
