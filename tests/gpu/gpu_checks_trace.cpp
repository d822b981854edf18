// flopspy_gpu_checks_trace DIR: writes traces shaped like the GPU checks' runs, so that
// gpu_checks_selftest.py can feed the real flopspy-report's JSON to the checks' comparison code
// on a machine without a GPU (a renamed or retyped report field then fails here, not on the
// GPU machine):
//
//   DIR/program/run.fspy   launch_paths: fs_add launched 3 times, fs_graph_node run 4 times as
//                          graph nodes (no launch), fs_spin launched twice, 200 us each
//   DIR/cublas/run.fspy    bf16 GEMMs of 1792^3 and 1793^3 through cuBLAS on a 132-SM H200,
//                          twice each, one kernel per call (grids of 128 x 128 tiles)
//   DIR/seed/run.fspy      the seed workload's sin and mul-by-a-scalar on 8192^2 floats, with
//                          counter samples (FLOPs and DRAM bytes) for both
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "trace_builder.h"

namespace {

using flopspy::testing::TraceBuilder;
namespace trace = flopspy::trace;
namespace analyzers = flopspy::analyzers;

constexpr uint64_t kBase = 2'000'000'000;
constexpr uint32_t kThread = 11;
constexpr char kDevices[] =
    R"({"devices":[{"name":"NVIDIA H200","cc_major":9,"cc_minor":0,"sm_count":132,)"
    R"("clock_khz":1980000,"memory_clock_khz":3201000,"memory_bus_width_bits":6144,)"
    R"("l2_bytes":62914560,"total_memory_bytes":150754820096,"uuid":"GPU-selftest",)"
    R"("driver_version":"580.0"}]})";

class Writer {
 public:
  Writer() : b_(Identity()) { b_.Metadata(kDevices); }

  static trace::FileIdentity Identity() {
    trace::FileIdentity id = TraceBuilder::DefaultIdentity();
    id.start_monotonic_ns = kBase;
    return id;
  }

  // A kernel function; `param_size` > 0 declares one leading int parameter of that size (N).
  void Function(uint32_t id, uint32_t string_id, const std::string& name, uint16_t param_size) {
    b_.String(string_id, name);
    trace::FunctionDef f = flopspy::testing::KernelFunction(id, string_id, param_size ? 3 : 0xFFFF);
    f.handle = 0x1000 + id;
    if (param_size) flopspy::testing::SetElementwiseLayout(f, param_size, 16);
    b_.Add(f);
  }

  void Signature(uint32_t id, uint32_t function, uint32_t gx, uint32_t gy, uint32_t bx) {
    b_.Add(flopspy::testing::KernelSignature(id, function, gx, gy, bx));
  }

  void Launch(uint32_t signature, uint64_t correlation, uint64_t at, int32_t n,
              bool inside_library = false) {
    b_.Chunk(trace::ChunkSource::kThread, kThread)
        .Add(flopspy::testing::KernelLaunch(signature, correlation, kBase + at, 3000,
                                            static_cast<uint32_t>(n), inside_library));
  }

  void Gpu(uint32_t signature, uint64_t correlation, uint64_t start, uint64_t ns,
           bool graph = false) {
    b_.Chunk(trace::ChunkSource::kGpuActivity)
        .Add(
            flopspy::testing::KernelExecution(signature, correlation, kBase + start, ns, 7, graph));
  }

  void Gemm(uint64_t correlation, uint64_t at, int64_t n) {
    trace::LibraryCallRecord c{};
    c.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kGemm);
    c.enter_ns = kBase + at;
    c.exit_ns = c.enter_ns + 10'000;
    c.correlation = correlation;
    c.m = c.n = c.k = n;
    c.batch = 1;
    c.lda = c.ldb = c.ldc = c.ldd = n;
    c.type_a = c.type_b = c.type_c = c.type_d = analyzers::cuda_type::kR16BF;
    c.compute_type = analyzers::compute_type::k32F;
    c.scale_type = analyzers::cuda_type::kR32F;
    c.flags = trace::kLibBetaKnown;
    c.epilogue = 1;
    c.name = 90;
    c.flops = 2.0 * n * n * n;
    c.bytes = 3.0 * n * n * 2;
    c.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
    b_.Chunk(trace::ChunkSource::kThread, kThread).Add(c);
  }

  void Metrics(uint32_t signature, uint64_t correlation, uint16_t samples, double flops,
               double read, double write, double ns) {
    trace::KernelMetricsRecord m{};
    m.samples = samples;
    m.correlation = correlation;
    m.signature = signature;
    m.valid = 1 | 16 | 64;  // fp32, dram, duration
    m.flops_fp32 = flops;
    m.dram_read_bytes = read;
    m.dram_write_bytes = write;
    m.gpu_duration_ns = ns;
    b_.Chunk(trace::ChunkSource::kThread, kThread).Add(m);
  }

  TraceBuilder& builder() { return b_; }

  void Write(const std::filesystem::path& path, uint64_t end_at) {
    b_.Chunk(trace::ChunkSource::kProcess).Add(flopspy::testing::ExitEnd(kBase + end_at));
    std::filesystem::create_directories(path.parent_path());
    b_.WriteTo(path.string());
  }

 private:
  TraceBuilder b_;
};

void Program(const std::filesystem::path& dir) {
  Writer w;
  w.Function(1, 10, "fs_add", 0);
  w.Function(2, 11, "fs_graph_node", 0);
  w.Function(3, 12, "fs_spin", 0);
  w.Signature(1, 1, 4096, 1, 256);
  w.Signature(2, 2, 4096, 1, 256);
  w.Signature(3, 3, 1, 1, 1);
  uint64_t t = 1'000'000, corr = 100;
  for (int i = 0; i < 3; ++i, t += 50'000, ++corr) {
    w.Launch(1, corr, t, 1 << 20);
    w.Gpu(1, corr, t + 10'000, 8'000);
  }
  for (int i = 0; i < 4; ++i, t += 50'000) w.Gpu(2, 0, t, 7'000, /*graph=*/true);
  for (int i = 0; i < 2; ++i, t += 300'000, ++corr) {
    w.Launch(3, corr, t, 0);
    w.Gpu(3, corr, t + 10'000, 200'500);
  }
  w.Write(dir / "program" / "run.fspy", t + 1'000'000);
}

void Cublas(const std::filesystem::path& dir) {
  Writer w;
  w.builder().String(90, "cublasGemmEx");
  w.Function(1, 10, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_selftest", 0);
  w.Signature(1, 1, 14, 14, 256);  // 1792 / 128 = 14 tiles each way
  w.Signature(2, 1, 15, 15, 256);  // 1793 needs 15
  uint64_t t = 1'000'000, corr = 200;
  // As the hooks write them: the kernel's launch inside the call, then the call's record
  // when it returns.
  for (int n : {1792, 1793}) {
    for (int i = 0; i < 2; ++i, t += 100'000, corr += 2) {
      w.Launch(n == 1792 ? 1 : 2, corr + 1, t + 2'000, 0, /*inside_library=*/true);
      w.Gemm(corr, t, n);
      w.Gpu(n == 1792 ? 1 : 2, corr + 1, t + 20'000, n == 1792 ? 40'000 : 52'000);
    }
  }
  w.Write(dir / "cublas" / "run.fspy", t + 1'000'000);
}

void Seed(const std::filesystem::path& dir) {
  constexpr int32_t kN = 8192 * 8192;
  constexpr double kElements = kN;
  Writer w;
  w.Function(1, 10,
             "void at::native::vectorized_elementwise_kernel<4, at::native::sin_kernel_cuda("
             "at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()"
             "() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
             "sin_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda"
             "()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)",
             4);
  w.Function(2, 11,
             "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, "
             "float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, "
             "2ul> >(int, at::native::AUnaryFunctor<float, float, float, at::native::"
             "binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)",
             4);
  w.Signature(1, 1, 65536, 1, 128);
  w.Signature(2, 2, 65536, 1, 128);
  uint64_t t = 1'000'000, corr = 300;
  // 8 bytes per element at about 4.3 TB/s: 125 us each.
  for (uint32_t sig : {1u, 2u}) {
    for (int i = 0; i < 3; ++i, t += 400'000, ++corr) {
      // Counters, measured at the launch and recorded before its GPU record arrives: sin
      // runs ~17 FP32 operations per element, mul one; DRAM traffic 1% above the minimum.
      w.Launch(sig, corr, t, kN);
      w.Metrics(sig, corr, static_cast<uint16_t>(i + 1), (sig == 1 ? 17.0 : 1.0) * kElements,
                4.04 * kElements, 4.04 * kElements, 125'000);
      w.Gpu(sig, corr, t + 10'000, sig == 1 ? 126'000 : 124'000);
    }
  }
  w.Write(dir / "seed" / "run.fspy", t + 1'000'000);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: flopspy_gpu_checks_trace DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  Program(dir);
  Cublas(dir);
  Seed(dir);
  return 0;
}
