#include "demo_trace.h"

#include <fstream>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

constexpr const char* kMul = kAtenMulKernel;
constexpr char kGemmKernel[] = "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32";
constexpr uint32_t kThread = 7;
constexpr uint64_t kBase = 1'000'000'000;  // monotonic ns of the first event

class Demo {
 public:
  Demo(uint32_t pid, int32_t rank) : b_(Identity(pid, rank)) {
    b_.Metadata(
        R"({"process":{"command":["python","train.py","--size","big, \"quoted\""]},)"
        R"("devices":[{"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0,)"
        R"("sm_count":132,"clock_khz":1980000,"memory_clock_khz":2619000,)"
        R"("memory_bus_width_bits":5120,"l2_bytes":52428800,)"
        R"("total_memory_bytes":85520809984,"uuid":"GPU-demo","driver_version":"580.0"}]})");
    b_.String(1, kMul).String(2, kGemmKernel).String(3, "cublasSgemm_v2").String(4, kNastyKernel);
    trace::FunctionDef mul = KernelFunction(1, 1, 3);
    SetElementwiseLayout(mul, 4, 24);
    b_.Add(mul).Add(KernelFunction(2, 2)).Add(KernelFunction(3, 4));  // gemm, the nasty kernel
    Signature(1, 1, 977, 256);   // mul of 1,000,000 elements: 256 x 4 per block
    Signature(2, 1, 3907, 256);  // mul of 4,000,000 elements
    Signature(3, 1, 1, 256);     // mul of 1,000 elements
    Signature(4, 2, 8, 128, 8);  // gemm: 8 x 8 tiles of 128 x 128
    Signature(5, 3, 2, 32);      // the nasty kernel
  }

  static trace::FileIdentity Identity(uint32_t pid, int32_t rank) {
    trace::FileIdentity id = TraceBuilder::DefaultIdentity();
    id.pid = pid;
    id.rank = rank;
    id.start_monotonic_ns = kBase;
    return id;
  }

  void Signature(uint32_t id, uint32_t function, uint32_t gx, uint32_t bx, uint32_t gy = 1) {
    b_.Add(KernelSignature(id, function, gx, gy, bx));
  }

  void Launch(uint32_t signature, uint64_t correlation, uint64_t enter_ns, uint32_t n,
              bool inside_library = false) {
    b_.Chunk(trace::ChunkSource::kThread, kThread)
        .Add(KernelLaunch(signature, correlation, kBase + enter_ns, 5000, n, inside_library));
  }

  void Gpu(uint32_t signature, uint64_t correlation, uint64_t start_ns, uint64_t ns,
           uint32_t stream) {
    if (!gpu_records_) return;
    b_.Chunk(trace::ChunkSource::kGpuActivity)
        .Add(KernelExecution(signature, correlation, kBase + start_ns, ns, stream));
  }

  void Sgemm(uint64_t correlation, uint64_t enter_ns, int64_t n) {
    trace::LibraryCallRecord c{};
    c.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kGemm);
    c.enter_ns = kBase + enter_ns;
    c.exit_ns = c.enter_ns + 8000;
    c.correlation = correlation;
    c.m = c.n = c.k = n;
    c.batch = 1;
    c.lda = c.ldb = c.ldc = n;
    c.type_a = c.type_b = c.type_c = c.type_d = analyzers::cuda_type::kR32F;
    c.compute_type = analyzers::compute_type::k32F;  // math mode unread: its kernel says TF32
    c.scale_type = analyzers::cuda_type::kR32F;
    c.side = c.uplo = c.diag = analyzers::kNotApplicable;
    c.epilogue = analyzers::lt_epilogue::kDefault;
    c.flags = trace::kLibBetaKnown;
    c.name = 3;
    c.flops = 2.0 * n * n * n;
    c.bytes = 3.0 * n * n * 4;
    c.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
    b_.Chunk(trace::ChunkSource::kThread, kThread).Add(c);
  }

  void Copy(uint64_t start_ns, uint64_t ns, uint64_t bytes, uint32_t stream) {
    if (!gpu_records_) return;
    trace::GpuActivityRecord g{};
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy);
    g.copy_kind = static_cast<uint8_t>(trace::CopyKind::kHostToDevice);
    g.src_kind = static_cast<uint8_t>(trace::MemoryKind::kPinned);
    g.dst_kind = static_cast<uint8_t>(trace::MemoryKind::kDevice);
    g.start_ns = kBase + start_ns;
    g.end_ns = g.start_ns + ns;
    g.bytes = bytes;
    g.stream = stream;
    b_.Chunk(trace::ChunkSource::kGpuActivity).Add(g);
  }

  void Region(uint32_t name, trace::RegionEdge edge, uint64_t time_ns) {
    trace::RegionRecord r{};
    r.edge = static_cast<uint8_t>(edge);
    r.time_ns = kBase + time_ns;
    r.name = name;
    b_.Chunk(trace::ChunkSource::kThread, kThread).Add(r);
  }

  void CpuSample(trace::CpuSampleScope scope, uint32_t region, uint64_t begin_ns, uint64_t end_ns,
                 double flops, double bytes) {
    trace::CpuSampleRecord r{};
    r.scope = static_cast<uint8_t>(scope);
    r.begin_ns = kBase + begin_ns;
    r.end_ns = kBase + end_ns;
    r.region = region;
    r.valid = trace::kCpuFlopsDp | trace::kCpuFlopsAny | trace::kCpuBytesAny;
    r.flops_dp = r.flops_any = flops;
    r.bytes_any = bytes;
    r.running_fraction = 1;
    b_.Chunk(trace::ChunkSource::kProcess).Add(r);
  }

  // Regions and CPU samples (see DemoCpuPoints for the figures).
  void AddCpu() {
    b_.Metadata(std::string(R"({"cpu_roofline":{"capabilities":{"cpu_key":")") + kDemoCpuKey +
                R"("}}})");
    b_.String(10, "forward").String(11, "backward");
    Region(10, trace::RegionEdge::kBegin, 0);
    Region(10, trace::RegionEdge::kEnd, 1'000'000);
    Region(10, trace::RegionEdge::kBegin, 1'000'000);
    Region(10, trace::RegionEdge::kEnd, 3'000'000);
    Region(11, trace::RegionEdge::kBegin, 3'000'000);
    Region(11, trace::RegionEdge::kEnd, 3'500'000);
    Region(11, trace::RegionEdge::kBegin, 3'600'000);  // never ended
    CpuSample(trace::CpuSampleScope::kRegion, 10, 0, 3'000'000, 6e7, 1.2e8);
    CpuSample(trace::CpuSampleScope::kRegion, 11, 3'000'000, 3'500'000, 1e8, 1e7);
    CpuSample(trace::CpuSampleScope::kRun, 0, 0, 4'000'000, 1.6e8, 1.3e8);
  }

  std::vector<uint8_t> Build() {
    Copy(0, 1'000'000, 10'000'000, 8);  // 10 MB in 1 ms
    // mul n=1e6: 1e6 FLOPs, 12e6 bytes in 100 us, twice.
    Launch(1, 100, 1'000'000, 1'000'000);
    Gpu(1, 100, 1'020'000, 100'000, 7);
    Launch(1, 101, 1'200'000, 1'000'000);
    Gpu(1, 101, 1'220'000, 100'000, 7);
    // mul n=4e6: 4e6 FLOPs, 48e6 bytes in 300 us.
    Launch(2, 102, 1'400'000, 4'000'000);
    Gpu(2, 102, 1'420'000, 300'000, 7);
    // mul n=1000 in 2 us: shorter than the 5 us launch, overhead bound.
    Launch(3, 103, 1'800'000, 1'000);
    Gpu(3, 103, 1'820'000, 2'000, 7);
    // SGEMM 1024^3 in 1 ms through cuBLAS.
    Launch(4, 200, 2'000'000, 0, /*inside_library=*/true);
    Sgemm(201, 1'999'000, 1024);
    Gpu(4, 200, 2'010'000, 1'000'000, 7);
    // The nasty kernel: no catalog entry, FLOPs unknown; 50 us on stream 8.
    Launch(5, 300, 3'100'000, 7);
    Gpu(5, 300, 3'120'000, 50'000, 8);
    b_.Chunk(trace::ChunkSource::kProcess).Add(ExitEnd(kBase + 4'000'000));
    return b_.Bytes();
  }

 private:
  TraceBuilder b_;

 public:
  bool gpu_records_ = true;  // false: as recorded without CUPTI
};

}  // namespace

std::vector<uint8_t> DemoTrace(uint32_t pid, int32_t rank) {
  return Demo(pid, rank).Build();
}

std::vector<uint8_t> DemoTraceWithoutGpuRecords(uint32_t pid) {
  Demo demo(pid, -1);
  demo.gpu_records_ = false;
  return demo.Build();
}

std::vector<uint8_t> DemoTraceWithCpu() {
  Demo demo(4242, -1);
  demo.AddCpu();
  return demo.Build();
}

std::vector<ExpectedCpuPoint> DemoCpuPoints() {
  return {
      {"forward", 6e7 / 1.2e8, 6e7 / 3e-3},   // 0.5 FLOP/B at 20 GFLOP/s
      {"backward", 1e8 / 1e7, 1e8 / 0.5e-3},  // 10 FLOP/B at 200 GFLOP/s
      {"whole run", 1.6e8 / 1.3e8, 1.6e8 / 4e-3},
  };
}

std::vector<ExpectedPoint> DemoTracePoints() {
  return {
      {"kernel", 1.0 / 12, 2e6 / 200e-6, 200'000, "memory_bound"},
      {"kernel", 1.0 / 12, 4e6 / 300e-6, 300'000, "memory_bound"},
      {"kernel", 1.0 / 12, 1e3 / 2e-6, 2'000, "overhead_bound"},
      // 2 x 1024^3 FLOPs over 3 x 1024^2 x 4 bytes, in 1 ms.
      {"library", 2.0 * 1024 / 12, 2.0 * 1024 * 1024 * 1024 / 1e-3, 1'000'000, "compute_bound"},
  };
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

}  // namespace flopspy::testing
