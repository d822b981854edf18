// The run analysis joins launches, GPU records and cuBLAS calls of a trace and places each
// group on its device's roofs. Timelines are built by hand; expected values are worked out in
// the comments.
#include "flopspy/analyzers/trace_analysis.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::analyzers {
namespace {

using testing::TraceBuilder;
using trace::ChunkSource;
using trace::FigureSource;

constexpr const char* kMul = testing::kAtenMulKernel;
// cuBLAS's FP32 CUDA-core kernel, and its TF32 tensor-core kernel (what runs under the TF32 math
// mode, or with CUBLAS_COMPUTE_32F_FAST_TF32).
constexpr char kGemmKernel[] = "ampere_sgemm_128x128_nn";
constexpr char kTf32Kernel[] = "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32";
constexpr uint32_t kThread = 7;

// A device with round numbers: 10 TFLOP/s FP32, 1 TB/s DRAM, 100 SMs.
DeviceRoofs TestRoofs() {
  DeviceRoofs r;
  r.name = "test gpu";
  r.sm_count = 100;
  r.flops[static_cast<size_t>(ComputePath::kFp32)] = {10e12, RoofSource::kDatasheet, 0};
  r.flops[static_cast<size_t>(ComputePath::kTf32Tensor)] = {100e12, RoofSource::kDatasheet, 0};
  r.bandwidth[static_cast<size_t>(MemoryLevel::kDram)] = {1e12, RoofSource::kDatasheet, 0};
  return r;
}

class TraceAnalysisTest : public ::testing::Test {
 protected:
  TraceAnalysisTest() {
    b_.String(1, kMul).String(2, kGemmKernel).String(3, "cublasSgemm_v2").String(4, kTf32Kernel);
    trace::FunctionDef mul{};
    mul.id = 1;
    mul.mangled_name = 1;
    mul.demangled_name = 1;
    mul.param_count = 3;
    mul.layout_count = 3;
    mul.param_offset[0] = 0, mul.param_size[0] = 4;
    mul.param_offset[1] = 4, mul.param_size[1] = 1;
    mul.param_offset[2] = 8, mul.param_size[2] = 24;
    b_.Add(mul);
    trace::FunctionDef gemm{};
    gemm.id = 2;
    gemm.mangled_name = 2;
    gemm.demangled_name = 2;
    gemm.param_count = 0xFFFF;
    b_.Add(gemm);
    trace::FunctionDef tf32 = gemm;
    tf32.id = 3;
    tf32.mangled_name = tf32.demangled_name = 4;
    b_.Add(tf32);
    AddSignature(1, 1, 977, 256);   // mul: 1,000,000 elements / (256 x 4) per block
    AddSignature(2, 2, 8, 128, 8);  // gemm: 8 x 8 tiles of 128 x 128
    AddSignature(3, 3, 8, 128, 8);  // the TF32 gemm kernel, same tiles
  }

  void AddSignature(uint32_t id, uint32_t function, uint32_t gx, uint32_t bx, uint32_t gy = 1) {
    b_.Add(testing::KernelSignature(id, function, gx, gy, bx));
  }

  void Launch(uint32_t signature, uint64_t correlation, uint64_t enter_ns, uint32_t n,
              bool inside_library = false, uint64_t duration_ns = 5000) {
    b_.Chunk(ChunkSource::kThread, kThread)
        .Add(testing::KernelLaunch(signature, correlation, enter_ns, duration_ns, n,
                                   inside_library));
  }

  void Gpu(uint32_t signature, uint64_t correlation, uint64_t start_ns, uint64_t ns,
           uint8_t flags = 0) {
    trace::GpuActivityRecord g{};
    g.h.flags = flags;
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    g.start_ns = start_ns;
    g.end_ns = start_ns + ns;
    g.correlation = correlation;
    g.signature = signature;
    b_.Chunk(ChunkSource::kGpuActivity).Add(g);
  }

  // An SGEMM's record as the hook and flusher write it; Sgemm adds it to the trace.
  static trace::LibraryCallRecord SgemmRecord(uint64_t correlation, uint64_t enter_ns, int64_t n) {
    trace::LibraryCallRecord c{};
    c.routine = static_cast<uint16_t>(BlasRoutine::kGemm);
    c.enter_ns = enter_ns;
    c.exit_ns = enter_ns + 8000;
    c.correlation = correlation;
    c.m = c.n = c.k = n;
    c.batch = 1;
    c.lda = c.ldb = c.ldc = n;
    c.type_a = c.type_b = c.type_c = c.type_d = cuda_type::kR32F;
    c.compute_type = compute_type::k32F;
    c.flags = trace::kLibBetaKnown;  // beta = 0: C is not read
    c.name = 3;
    // As the flusher fills them (ComputeBlasFigures): 2n^3 FLOPs, 3n^2 x 4 bytes.
    c.flops = 2.0 * n * n * n;
    c.bytes = 3.0 * n * n * 4;
    c.source = static_cast<uint8_t>(FigureSource::kAnalytic);
    return c;
  }
  void Call(const trace::LibraryCallRecord& c) { b_.Chunk(ChunkSource::kThread, kThread).Add(c); }
  void Sgemm(uint64_t correlation, uint64_t enter_ns, int64_t n) {
    Call(SgemmRecord(correlation, enter_ns, n));
  }

  TraceAnalysis Analyze(size_t max_pending = 1u << 20,
                        const ExternalKernelFigures* external = nullptr) {
    trace::TraceReader reader(trace::MemorySource(b_.Bytes()));
    TraceAnalyzer analyzer(max_pending);
    analyzer.UseExternalFigures(external);
    const StringLookup strings = [&](uint32_t id) { return reader.String(id); };
    const auto summary =
        reader.ForEachRecord([&](const trace::RecordView& r) { analyzer.Add(r, strings); });
    EXPECT_EQ(summary.status, trace::ReadStatus::kOk) << summary.message;
    return analyzer.Finish({{0, TestRoofs()}});
  }

  TraceBuilder b_;
};

// A Triton kernel the catalog cannot model takes the figures an inductor cache recorded for it
// (tools/report/inductor_cache.h); a kernel the catalog models keeps the catalog's.
TEST_F(TraceAnalysisTest, ExternalFiguresFillWhatTheCatalogDoesNotKnow) {
  b_.String(5, "triton_poi_fused_add_mul_0").String(6, "triton_tem_fused_mm_1");
  for (uint32_t id : {5u, 6u}) {
    trace::FunctionDef f{};
    f.id = f.mangled_name = id;
    f.param_count = 0xFFFF;
    b_.Add(f);
    AddSignature(id, id, 64, 128);
  }
  ExternalKernelFigures external;
  external["triton_poi_fused_add_mul_0"] = {std::nullopt, 12e6, "xnumel=1000000",
                                            "inductor cache: kernel_num_gb of a.py"};
  external["triton_tem_fused_mm_1"] = {2e9, 3e6, "",
                                       "inductor cache: kernel_flop and "
                                       "kernel_num_gb of b.py"};
  external[kMul] = {1.0, 1.0, "", "must not replace the catalog's figures"};
  Launch(5, 100, 1'000'000, 0);
  Gpu(5, 100, 1'010'000, 20'000);
  Launch(6, 101, 1'100'000, 0);
  Gpu(6, 101, 1'110'000, 50'000);
  Launch(1, 102, 1'200'000, 1'000'000);
  Gpu(1, 102, 1'210'000, 10'000);
  const TraceAnalysis run = Analyze(1u << 20, &external);
  ASSERT_EQ(run.kernels.size(), 3u);
  for (const KernelGroup& g : run.kernels) {
    if (g.name == "triton_poi_fused_add_mul_0") {
      EXPECT_EQ(g.all.flops_source, FigureSource::kUnknown);  // inductor records no FLOPs here
      EXPECT_EQ(g.all.bytes_source, FigureSource::kCatalog);
      EXPECT_DOUBLE_EQ(g.all.bytes, 12e6);
      EXPECT_EQ(g.shape_key, "xnumel=1000000");
      EXPECT_EQ(g.reason, "inductor cache: kernel_num_gb of a.py");
    } else if (g.name == "triton_tem_fused_mm_1") {
      EXPECT_EQ(g.all.flops_source, FigureSource::kCatalog);
      EXPECT_DOUBLE_EQ(g.timed.flops, 2e9);
      EXPECT_DOUBLE_EQ(g.timed.bytes, 3e6);
    } else {
      EXPECT_DOUBLE_EQ(g.all.flops, 1'000'000);  // the catalog's: one multiply per element
      EXPECT_NE(g.reason, "must not replace the catalog's figures");
    }
  }
}

TEST_F(TraceAnalysisTest, ElementwiseKernelIsMemoryBoundWithCatalogFigures) {
  Launch(1, 100, 1'000'000, 1'000'000);
  Gpu(1, 100, 1'020'000, 100'000);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.kernels.size(), 1u);
  const KernelGroup& g = run.kernels[0];
  EXPECT_EQ(g.name, kMul);
  EXPECT_EQ(g.functor, "mul");
  EXPECT_EQ(g.launches, 1u);
  EXPECT_EQ(g.executions, 1u);
  EXPECT_DOUBLE_EQ(g.gpu_ns, 100'000);
  // mul of two float tensors into a third: 1 FLOP and 12 bytes per element.
  EXPECT_DOUBLE_EQ(g.timed.flops, 1e6);
  EXPECT_DOUBLE_EQ(g.timed.bytes, 12e6);
  EXPECT_EQ(g.timed.flops_source, FigureSource::kCatalog);
  ASSERT_TRUE(g.placement.has_value());
  // Intensity 1/12 FLOP/B, far below the ridge (10e12 / 1e12 = 10): memory bound.
  // 12e6 B in 100 us = 120 GB/s = 12% of the 1 TB/s roof.
  EXPECT_EQ(g.placement->regime, Regime::kMemoryBound);
  EXPECT_NEAR(*g.placement->intensity, 1.0 / 12, 1e-12);
  EXPECT_NEAR(*g.placement->achieved_bandwidth, 120e9, 1);
  EXPECT_NEAR(*g.placement->pct_of_bandwidth, 12.0, 1e-9);
  EXPECT_EQ(run.unmatched_launches, 0u);
  ASSERT_EQ(run.devices.size(), 1u);
  EXPECT_DOUBLE_EQ(run.devices[0].kernel_ns_by_source[static_cast<int>(FigureSource::kCatalog)],
                   100'000);
}

// Sampled GPU timing: launches between windows owe no GPU record; each kernel row's GPU time
// for every launch is estimated from its timed executions (docs/gpu-timing.md, "Sampled").
TEST_F(TraceAnalysisTest, SampledGpuTimingEstimatesEveryLaunchFromTheWindows) {
  constexpr uint64_t kSecond = 1'000'000'000;
  b_.Chunk(ChunkSource::kProcess)
      .Metadata(R"({"gpu_timing":{"available":true,"sampled":{"window_ns":1000000000,)"
                R"("period_ns":10000000000,"first_window_open_ns":1000000}}})");
  // Window 0, [1 ms, 1.001 s]: four launches timed, 100 us on average.
  const uint64_t ns[] = {100'000, 110'000, 90'000, 100'000};
  for (uint64_t i = 0; i < 4; ++i) {
    Launch(1, 10 + i, 1'100'000 + 100'000 * i, 1'000'000);
    Gpu(1, 10 + i, 1'150'000 + 100'000 * i, ns[i]);
  }
  b_.Chunk(ChunkSource::kProcess)
      .Metadata(R"({"gpu_window":{"event":"close","index":0,"time_ns":1001000000}})");
  // Between windows: six launches, no GPU records (CUPTI was not collecting).
  for (uint64_t i = 0; i < 6; ++i) Launch(1, 20 + i, (2 + i) * kSecond, 1'000'000);
  b_.Chunk(ChunkSource::kProcess)
      .Metadata(R"({"gpu_window":{"event":"open","index":1,"time_ns":11000000000}})");
  // Window 1, still open at the end: two launches timed, one whose record never came.
  Launch(1, 30, 11 * kSecond + 1000, 1'000'000);
  Gpu(1, 30, 11 * kSecond + 50'000, 100'000);
  Launch(1, 31, 11 * kSecond + 2000, 1'000'000);
  Gpu(1, 31, 11 * kSecond + 250'000, 100'000);
  Launch(1, 32, 11 * kSecond + 3000, 1'000'000);

  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.kernels.size(), 1u);
  const KernelGroup& g = run.kernels[0];
  EXPECT_EQ(g.launches, 13u);
  EXPECT_EQ(g.executions, 6u);
  EXPECT_DOUBLE_EQ(g.gpu_ns, 600'000);
  EXPECT_DOUBLE_EQ(g.estimated_gpu_ns, 100'000.0 * 13);  // the mean of six, times 13 launches
  // Only the launch inside a window lacks its record; the six between windows owed none.
  EXPECT_EQ(run.unmatched_launches, 1u);
  const GpuSamplingFigures& s = run.sampling;
  EXPECT_TRUE(s.sampled);
  EXPECT_EQ(s.windows, 2u);
  EXPECT_EQ(s.window_ns, kSecond);
  EXPECT_EQ(s.period_ns, 10 * kSecond);
  EXPECT_EQ(s.launches_in_windows, 7u);
  EXPECT_EQ(s.launches_outside_windows, 6u);
  EXPECT_EQ(s.timed_ns, kSecond + 3000);  // window 1 counted to the last launch
  EXPECT_EQ(s.span_ns, 11 * kSecond + 3000 - 1'000'000);
  EXPECT_DOUBLE_EQ(s.measured_gpu_ns, 600'000);
  EXPECT_DOUBLE_EQ(s.estimated_gpu_ns, 1'300'000);
  // Rates stand on the timed launches alone: 1e6 FLOPs each, 6 of them in 600 us.
  EXPECT_DOUBLE_EQ(g.timed.flops, 6e6);
}

TEST_F(TraceAnalysisTest, WithoutSamplingNothingIsEstimated) {
  Launch(1, 100, 1'000'000, 1'000'000);
  Gpu(1, 100, 1'020'000, 100'000);
  Launch(1, 101, 2'000'000, 1'000'000);
  const TraceAnalysis run = Analyze();
  EXPECT_FALSE(run.sampling.sampled);
  EXPECT_EQ(run.kernels[0].estimated_gpu_ns, 0);
  EXPECT_EQ(run.unmatched_launches, 1u);
}

TEST_F(TraceAnalysisTest, GpuRecordBeforeItsLaunchStillJoins) {
  Gpu(1, 100, 1'020'000, 100'000);
  Launch(1, 100, 1'000'000, 1'000'000);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(run.kernels[0].timed.bytes, 12e6);
  EXPECT_EQ(run.unmatched_gpu_records, 0u);
}

TEST_F(TraceAnalysisTest, LaunchesWithDifferentSizesAreSeparateGroups) {
  Launch(1, 1, 1000, 1000);
  Launch(1, 2, 2000, 2000);
  Gpu(1, 1, 10'000, 1000);
  Gpu(1, 2, 20'000, 2000);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.kernels.size(), 2u);
  EXPECT_NE(run.kernels[0].shape_key, run.kernels[1].shape_key);
}

TEST_F(TraceAnalysisTest, CublasCallOwnsItsKernelAndItsGpuTime) {
  // The kernel's launch (inside the call), then the call's record, then the GPU record.
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);
  Sgemm(201, 999'000, 1024);
  Gpu(2, 200, 1'010'000, 1'000'000);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 1u);
  const LibraryGroup& lib = run.libraries[0];
  EXPECT_EQ(lib.routine, "cublasSgemm_v2");
  EXPECT_EQ(lib.calls, 1u);
  EXPECT_EQ(lib.kernels, 1u);
  EXPECT_DOUBLE_EQ(lib.gpu_ns, 1e6);
  // 2 x 1024^3 = 2,147,483,648 FLOPs in 1 ms: 2.147 TFLOP/s on the FP32 roof of 10 TFLOP/s.
  EXPECT_DOUBLE_EQ(lib.timed_flops, 2147483648.0);
  ASSERT_TRUE(lib.placement.has_value());
  EXPECT_NEAR(*lib.placement->achieved_flops, 2.147483648e12, 1);
  EXPECT_EQ(lib.placement->roof_path, ComputePath::kFp32);
  // Intensity: 2^31 / (3 x 1024^2 x 4 = 12,582,912 B) = 170.7 FLOP/B > ridge 10: compute bound.
  EXPECT_EQ(lib.placement->regime, Regime::kComputeBound);
  EXPECT_EQ(lib.main_grid[0], 8u);
  EXPECT_FALSE(lib.findings.empty());  // at least the wave numbers on 100 SMs
  // The kernel itself carries the call's figures, labelled analytic.
  ASSERT_EQ(run.kernels.size(), 1u);
  EXPECT_EQ(run.kernels[0].timed.flops_source, FigureSource::kAnalytic);
  EXPECT_DOUBLE_EQ(run.kernels[0].timed.flops, 2147483648.0);
  EXPECT_DOUBLE_EQ(run.devices[0].kernel_ns_by_source[static_cast<int>(FigureSource::kAnalytic)],
                   1e6);
  // So does its row over all launches: the table shows the FLOPs the placement used.
  EXPECT_EQ(run.kernels[0].all.flops_source, FigureSource::kAnalytic);
  EXPECT_EQ(run.kernels[0].all.bytes_source, FigureSource::kAnalytic);
  EXPECT_DOUBLE_EQ(run.kernels[0].all.flops, 2147483648.0);
  EXPECT_DOUBLE_EQ(run.kernels[0].all.bytes, 3.0 * 1024 * 1024 * 4);
  EXPECT_EQ(run.kernels[0].all.launches_with_flops, 1u);
}

TEST_F(TraceAnalysisTest, Fp32CallWhoseKernelIsTf32RunsOnTheTf32Roof) {
  // The record says CUBLAS_COMPUTE_32F (the math mode could not be read), but cuBLAS launched
  // its TF32 tensor-core kernel: the call and its kernel are placed on the TF32 roof
  // (100 TFLOP/s here), not the FP32 one, and the report says why.
  Launch(3, 200, 1'000'000, 0, /*inside_library=*/true);
  Sgemm(201, 999'000, 1024);
  Gpu(3, 200, 1'010'000, 1'000'000);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 1u);
  const LibraryGroup& lib = run.libraries[0];
  EXPECT_EQ(lib.path, ComputePath::kTf32Tensor);
  EXPECT_EQ(lib.path_basis, PathBasis::kKernelName);
  ASSERT_TRUE(lib.placement.has_value());
  EXPECT_EQ(lib.placement->roof_path, ComputePath::kTf32Tensor);
  EXPECT_DOUBLE_EQ(lib.placement->peak_flops, 100e12);
  ASSERT_EQ(run.kernels.size(), 1u);
  EXPECT_EQ(run.kernels[0].path, ComputePath::kTf32Tensor);
  ASSERT_TRUE(run.kernels[0].placement.has_value());
  EXPECT_EQ(run.kernels[0].placement->roof_path, ComputePath::kTf32Tensor);
}

TEST_F(TraceAnalysisTest, Fp32CallWithAnFp32KernelStaysOnTheFp32Roof) {
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);
  Sgemm(201, 999'000, 1024);
  Gpu(2, 200, 1'010'000, 1'000'000);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 1u);
  EXPECT_EQ(run.libraries[0].path, ComputePath::kFp32);
  EXPECT_EQ(run.libraries[0].path_basis, PathBasis::kCallTypes);
}

TEST_F(TraceAnalysisTest, CallsThatDifferOnlyInCsTypeOrScaleTypeAreSeparateGroups) {
  // Three GemmEx-like calls of one shape: the second writes a BF16 C (and D), the third has an
  // FP64 scale type. Each keeps its own types; none takes the first call's.
  trace::LibraryCallRecord a = SgemmRecord(1, 1000, 64);
  trace::LibraryCallRecord b = a;
  b.type_c = b.type_d = cuda_type::kR16BF;
  b.bytes = 2.0 * 64 * 64 * 4 + 64 * 64 * 2;  // A, B in FP32; D in BF16
  trace::LibraryCallRecord c = a;
  c.scale_type = cuda_type::kR64F;
  Call(a);
  Call(b);
  Call(b);
  Call(c);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 3u);
  std::map<std::pair<uint8_t, uint8_t>, const LibraryGroup*> by_types;
  for (const LibraryGroup& g : run.libraries) by_types[{g.shape.type_c, g.shape.scale_type}] = &g;
  ASSERT_EQ(by_types.size(), 3u);
  const LibraryGroup& bf16 = *by_types.at({cuda_type::kR16BF, 0});
  EXPECT_EQ(bf16.calls, 2u);
  EXPECT_EQ(bf16.shape.type_d, cuda_type::kR16BF);
  EXPECT_DOUBLE_EQ(bf16.bytes, 2 * (2.0 * 64 * 64 * 4 + 64 * 64 * 2));
  EXPECT_EQ(by_types.at({cuda_type::kR32F, 0})->calls, 1u);
  EXPECT_EQ(by_types.at({cuda_type::kR32F, cuda_type::kR64F})->calls, 1u);
}

TEST_F(TraceAnalysisTest, LtCallsWithAndWithoutBiasPointerAreSeparateGroups) {
  trace::LibraryCallRecord plain = SgemmRecord(1, 1000, 64);
  plain.routine = static_cast<uint16_t>(BlasRoutine::kLtMatmul);
  plain.epilogue = lt_epilogue::kDefault;
  trace::LibraryCallRecord bias = plain;
  bias.flags |= trace::kLibBiasPresent;
  bias.epilogue = lt_epilogue::kBias;
  bias.epilogue_flops = 64.0 * 64;
  trace::LibraryCallRecord scaled = plain;
  scaled.flags |= trace::kLibScalePointers;
  Call(plain);
  Call(bias);
  Call(scaled);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 3u);
  int with_bias = 0, with_scales = 0;
  for (const LibraryGroup& g : run.libraries) {
    with_bias += (g.shape.flags & trace::kLibBiasPresent) != 0;
    with_scales += (g.shape.flags & trace::kLibScalePointers) != 0;
    if (g.shape.flags & trace::kLibBiasPresent) {
      EXPECT_DOUBLE_EQ(g.epilogue_flops, 64.0 * 64);
    }
  }
  EXPECT_EQ(with_bias, 1);
  EXPECT_EQ(with_scales, 1);
}

TEST_F(TraceAnalysisTest, LibraryGroupsKnowTheirKernelsAfterSorting) {
  // A long elementwise kernel first, so that sorting moves the GEMM kernel's group: the library
  // group's kernel index must follow it.
  Launch(1, 100, 0, 1'000'000);
  Gpu(1, 100, 10'000, 5'000'000);
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);
  Sgemm(201, 999'000, 1024);
  Gpu(2, 200, 6'000'000, 1'000'000);
  Launch(2, 202, 8'000'000, 0, /*inside_library=*/true);
  Gpu(2, 202, 8'010'000, 1'000'000);  // GPU record first this time
  Sgemm(203, 7'999'000, 1024);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 1u);
  ASSERT_EQ(run.libraries[0].kernel_time.size(), 1u);
  const auto [index, ns] = run.libraries[0].kernel_time[0];
  ASSERT_LT(index, run.kernels.size());
  EXPECT_EQ(run.kernels[index].name, kGemmKernel);
  EXPECT_DOUBLE_EQ(ns, 2e6);
  EXPECT_DOUBLE_EQ(run.libraries[0].gpu_ns, 2e6);
}

TEST_F(TraceAnalysisTest, GpuRecordBeforeTheLibraryCallRecord) {
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);
  Gpu(2, 200, 1'010'000, 1'000'000);
  Sgemm(201, 999'000, 1024);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 1u);
  EXPECT_DOUBLE_EQ(run.libraries[0].gpu_ns, 1e6);
  EXPECT_DOUBLE_EQ(run.libraries[0].timed_flops, 2147483648.0);
  EXPECT_EQ(run.kernels[0].timed.flops_source, FigureSource::kAnalytic);
  EXPECT_DOUBLE_EQ(run.devices[0].kernel_ns_by_source[static_cast<int>(FigureSource::kAnalytic)],
                   1e6);
  EXPECT_DOUBLE_EQ(run.devices[0].kernel_ns_by_source[static_cast<int>(FigureSource::kUnknown)], 0);
  EXPECT_EQ(run.kernels[0].all.flops_source, FigureSource::kAnalytic);
  EXPECT_DOUBLE_EQ(run.kernels[0].all.flops, 2147483648.0);
}

TEST_F(TraceAnalysisTest, TwoKernelsOfOneCallShareItsFiguresInEveryRow) {
  // A call that launched two kernels: each carries half the FLOPs, timed or not.
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);
  Launch(2, 202, 1'001'000, 0, /*inside_library=*/true);
  Sgemm(201, 999'000, 1024);
  Gpu(2, 200, 1'010'000, 500'000);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(run.kernels[0].all.flops, 2147483648.0);
  EXPECT_EQ(run.kernels[0].all.launches_with_flops, 2u);
  EXPECT_DOUBLE_EQ(run.kernels[0].timed.flops, 2147483648.0 / 2);  // one of them ran timed
}

// cuBLAS launches through the runtime linked into it: CUPTI gives its kernels the correlation of
// the call (pushed by the cuBLAS hook), never that of the launch flopspy saw underneath (measured
// on an H200). The call's kernels are joined to its launches in launch order.
TEST_F(TraceAnalysisTest, GpuRecordsCarryingTheCallsCorrelationJoinItsLaunchesInOrder) {
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);
  Launch(3, 202, 1'001'000, 0, /*inside_library=*/true);
  Sgemm(201, 999'000, 1024);
  Gpu(2, 201, 1'010'000, 600'000);
  Gpu(3, 201, 1'610'000, 200'000);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 1u);
  EXPECT_DOUBLE_EQ(run.libraries[0].gpu_ns, 800'000);
  EXPECT_EQ(run.unmatched_launches, 0u);
  EXPECT_EQ(run.unmatched_gpu_records, 0u);
  ASSERT_EQ(run.kernels.size(), 2u);
  for (const KernelGroup& k : run.kernels) {
    EXPECT_EQ(k.launches, 1u) << k.name;
    EXPECT_EQ(k.executions, 1u) << k.name;
    EXPECT_DOUBLE_EQ(k.timed.flops, 2147483648.0 / 2) << k.name;
    EXPECT_DOUBLE_EQ(k.gpu_ns, k.name == kGemmKernel ? 600'000 : 200'000) << k.name;
  }
}

TEST_F(TraceAnalysisTest, GpuRecordsCarryingTheCallsCorrelationBeforeTheCallsRecord) {
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);
  Launch(2, 202, 1'001'000, 0, /*inside_library=*/true);
  Gpu(2, 201, 1'610'000, 200'000);  // the second kernel's record first: start time decides
  Gpu(2, 201, 1'010'000, 600'000);
  Sgemm(201, 999'000, 1024);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 1u);
  EXPECT_DOUBLE_EQ(run.libraries[0].gpu_ns, 800'000);
  EXPECT_EQ(run.libraries[0].kernels, 2u);
  EXPECT_EQ(run.unmatched_launches, 0u);
  EXPECT_EQ(run.unmatched_gpu_records, 0u);
  ASSERT_EQ(run.kernels.size(), 1u);
  EXPECT_EQ(run.kernels[0].executions, 2u);
  EXPECT_DOUBLE_EQ(run.kernels[0].gpu_ns, 800'000);
  EXPECT_DOUBLE_EQ(run.kernels[0].timed.flops, 2147483648.0);
}

// cuBLASLt launches some kernels through the driver (their records carry their own launch's
// correlation) and others through its runtime (the call's): each record finds its own kernel.
TEST_F(TraceAnalysisTest, ACallsKernelsWithTheirOwnAndWithTheCallsCorrelation) {
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);  // through the driver
  Launch(3, 202, 1'001'000, 0, /*inside_library=*/true);  // through the runtime
  Sgemm(201, 999'000, 1024);
  Gpu(3, 201, 1'610'000, 200'000);  // the runtime's, first
  Gpu(2, 200, 1'010'000, 600'000);
  const TraceAnalysis run = Analyze();
  EXPECT_DOUBLE_EQ(run.libraries[0].gpu_ns, 800'000);
  EXPECT_EQ(run.unmatched_launches, 0u);
  EXPECT_EQ(run.unmatched_gpu_records, 0u);
  ASSERT_EQ(run.kernels.size(), 2u);
  for (const KernelGroup& k : run.kernels) {
    EXPECT_EQ(k.executions, 1u) << k.name;
    EXPECT_DOUBLE_EQ(k.gpu_ns, k.signature == 2 ? 600'000 : 200'000) << k.name;
  }
}

TEST_F(TraceAnalysisTest, MoreKernelsThanLaunchesUnderACallStillCountForTheCall) {
  Launch(2, 200, 1'000'000, 0, /*inside_library=*/true);
  Sgemm(201, 999'000, 1024);
  Gpu(2, 201, 1'010'000, 600'000);
  Gpu(3, 201, 1'610'000, 200'000);  // launched where flopspy saw no launch
  const TraceAnalysis run = Analyze();
  EXPECT_DOUBLE_EQ(run.libraries[0].gpu_ns, 800'000);
  EXPECT_EQ(run.kernels.size(), 2u);
}

// CUDA's lazy loading makes the first launch of a kernel load its module (milliseconds): that is
// no launch cost, and must not make a 60 us kernel look launch bound.
TEST_F(TraceAnalysisTest, TheFirstLaunchOfAFunctionIsLeftOutOfItsLaunchCost) {
  for (uint64_t i = 0; i < 3; ++i) {
    // 2 ms for the first launch (the module load), 5 us for the others.
    Launch(1, 10 + i, 10'000'000 * i, 1 << 20, false, i == 0 ? 2'000'000 : 5000);
    Gpu(1, 10 + i, 10'000'000 * i + 3'000'000, 60'000);
  }
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.kernels.size(), 1u);
  const KernelGroup& k = run.kernels[0];
  EXPECT_EQ(k.first_launches, 1u);
  EXPECT_DOUBLE_EQ(k.first_launch_ns, 2'000'000);
  EXPECT_DOUBLE_EQ(SteadyLaunchNs(k), 5000);
  ASSERT_TRUE(k.placement.has_value());
  EXPECT_NE(k.placement->regime, Regime::kOverheadBound);
}

TEST_F(TraceAnalysisTest, GraphNodesCountWithoutLaunchRecords) {
  Gpu(1, 555, 1000, 3000, trace::kGpuFromGraph);
  Gpu(1, 556, 5000, 3000, trace::kGpuFromGraph);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.kernels.size(), 1u);
  EXPECT_EQ(run.kernels[0].launches, 0u);
  EXPECT_EQ(run.kernels[0].executions, 2u);
  EXPECT_DOUBLE_EQ(run.kernels[0].gpu_ns, 6000);
  EXPECT_EQ(run.kernels[0].name, kMul);
}

TEST_F(TraceAnalysisTest, WithoutGpuRecordsLaunchesStayUnmatchedAndUnplaced) {
  for (uint64_t i = 0; i < 10; ++i) Launch(1, i + 1, 1000 * i, 1000);
  const TraceAnalysis run = Analyze(/*max_pending=*/4);
  EXPECT_FALSE(run.gpu_timing);
  EXPECT_EQ(run.launches, 10u);
  EXPECT_EQ(run.unmatched_launches, 10u);  // 6 evicted on the way, 4 left at the end
  ASSERT_EQ(run.kernels.size(), 1u);
  EXPECT_EQ(run.kernels[0].launches, 10u);
  EXPECT_DOUBLE_EQ(run.kernels[0].all.flops, 10 * 1000.0);
  EXPECT_FALSE(run.kernels[0].placement.has_value());
}

TEST_F(TraceAnalysisTest, FailedLaunchesWaitForNothing) {
  trace::KernelLaunchRecord l{};
  l.signature = 1;
  l.correlation = 9;
  l.result = 1;  // CUDA_ERROR_INVALID_VALUE
  b_.Chunk(ChunkSource::kThread, kThread).Add(l);
  const TraceAnalysis run = Analyze();
  EXPECT_EQ(run.kernels[0].launch_errors, 1u);
  EXPECT_EQ(run.unmatched_launches, 0u);
}

TEST_F(TraceAnalysisTest, CopiesAreGroupedByDirectionAndMemory) {
  trace::GpuActivityRecord g{};
  g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy);
  g.copy_kind = static_cast<uint8_t>(trace::CopyKind::kHostToDevice);
  g.src_kind = static_cast<uint8_t>(trace::MemoryKind::kPageable);
  g.dst_kind = static_cast<uint8_t>(trace::MemoryKind::kDevice);
  g.start_ns = 0;
  g.end_ns = 1'000'000;
  g.bytes = 10'000'000;  // 10 MB in 1 ms: 10 GB/s
  b_.Chunk(ChunkSource::kGpuActivity).Add(g).Add(g);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.copies.size(), 1u);
  EXPECT_TRUE(run.copies[0].from_gpu);
  EXPECT_EQ(run.copies[0].count, 2u);
  EXPECT_DOUBLE_EQ(run.copies[0].bytes / run.copies[0].ns, 10.0);  // bytes per ns = GB/s
  EXPECT_EQ(run.copies[0].src, trace::MemoryKind::kPageable);
}

TEST_F(TraceAnalysisTest, ModelFlopUtilisationOverTheDeviceSpan) {
  // One 1024^3 SGEMM (2^31 FLOPs) in a device span of 10 ms: 214.7 GFLOP/s, 2.1% of 10 TFLOP/s.
  Launch(2, 200, 1'000'000, 0, true);
  Sgemm(201, 999'000, 1024);
  Gpu(2, 200, 1'000'000, 1'000'000);
  Launch(1, 300, 9'000'000, 1000);
  Gpu(1, 300, 10'000'000, 1'000'000);  // the device is active from 1 ms to 11 ms
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.devices.size(), 1u);
  ASSERT_TRUE(run.devices[0].utilization.has_value());
  EXPECT_NEAR(*run.devices[0].utilization->mfu, 2147483648.0 / 0.010 / 10e12, 1e-12);
  EXPECT_EQ(run.devices[0].utilization_path, ComputePath::kFp32);
}

TEST_F(TraceAnalysisTest, ARateIsTakenOverTheLaunchesWhoseFlopsAreKnown) {
  // One GEMM kernel signature launched 103 times, 1 ms each: 10 times inside an SGEMM call
  // (2^31 FLOPs each, analytic), 93 times on its own (the catalog has no FLOPs for it).
  uint64_t t = 1'000'000;
  for (uint64_t i = 0; i < 103; ++i, t += 2'000'000) {
    const uint64_t correlation = 1000 + 2 * i;
    Launch(2, correlation, t, 0, /*inside_library=*/i < 10);
    if (i < 10) Sgemm(correlation + 1, t - 1000, 1024);
    Gpu(2, correlation, t + 10'000, 1'000'000);
  }
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.kernels.size(), 1u);
  const KernelGroup& g = run.kernels[0];
  EXPECT_EQ(g.executions, 103u);
  EXPECT_EQ(g.timed.launches_with_flops, 10u);
  EXPECT_DOUBLE_EQ(g.timed.flops_ns, 10e6);
  ASSERT_TRUE(g.placement.has_value());
  const Placement& p = *g.placement;
  EXPECT_EQ(p.calls, 103u);
  EXPECT_EQ(p.calls_with_flops, 10u);
  // 10 x 2^31 FLOPs in the 10 ms of those launches: 2.147 TFLOP/s, not 10 x 2^31 / 103 ms.
  EXPECT_NEAR(*p.achieved_flops, 2.147483648e12, 1);
  // Intensity 170.7 FLOP/B is right of the ridge (10): 21.5% of the 10 TFLOP/s roof, far.
  EXPECT_EQ(p.regime, Regime::kComputeBound);
  EXPECT_NEAR(*p.pct_of_attainable, 21.47483648, 1e-9);
  EXPECT_EQ(p.proximity, RoofProximity::kFar);
  // The roof time is per launch (2^31 / 10e12 = 214.7 us) for every launch of the signature.
  EXPECT_NEAR(*p.roof_time_ns, 214748.3648 * 103, 1e-3);
}

// --- CUDA graphs (docs/cuda-graphs.md) -----------------------------------------------------------

// A kernel's signature as CUPTI names a replayed node's: no function, the name only.
void CuptiSignature(TraceBuilder& b, uint32_t id, uint32_t name, uint32_t gx, uint32_t gy,
                    uint32_t bx) {
  trace::KernelSignatureDef by_name = testing::KernelSignature(id, 0, gx, gy, bx);
  by_name.name = name;
  b.Add(by_name);
}

// A launch recorded into a graph (what the hooks write while a stream captures).
void CapturedLaunch(TraceBuilder& b, uint32_t signature, uint64_t correlation, uint64_t enter_ns,
                    uint32_t n, uint32_t graph, uint64_t node, bool inside_library = false,
                    uint32_t thread = kThread) {
  trace::KernelLaunchRecord l =
      testing::KernelLaunch(signature, correlation, enter_ns, 3000, n, inside_library);
  l.h.flags |= trace::kLaunchCaptured;
  trace::GraphNodeRecord r{};
  r.h.flags = trace::kGraphNodeCaptured;
  r.graph = graph;
  r.correlation = correlation;
  r.node = node;
  r.capture_id = 1;
  b.Chunk(ChunkSource::kThread, thread).Add(l).Add(r);
}

void GraphEvent(TraceBuilder& b, trace::GraphEvent event, uint32_t graph, uint32_t exec) {
  trace::GraphEventRecord e{};
  e.event = static_cast<uint8_t>(event);
  e.graph = graph;
  e.exec = exec;
  b.Chunk(ChunkSource::kThread, kThread).Add(e);
}

void GraphLaunch(TraceBuilder& b, uint64_t correlation, uint64_t enter_ns, uint32_t exec) {
  trace::ApiCallRecord a{};
  a.api = static_cast<uint16_t>(trace::Api::kCuGraphLaunch);
  a.enter_ns = enter_ns;
  a.exit_ns = enter_ns + 2000;
  a.correlation = correlation;
  a.detail = exec;
  b.Chunk(ChunkSource::kThread, kThread).Add(a);
}

// A replayed node's kernel record, as CUPTI gives it: the graph launch's correlation, CUPTI's id
// of the node, and a signature of the kernel's name only.
void GraphKernel(TraceBuilder& b, uint32_t signature, uint64_t correlation, uint64_t gpu_node,
                 uint64_t start_ns, uint64_t ns) {
  trace::GpuActivityRecord g{};
  g.h.flags = trace::kGpuFromGraph;
  g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
  g.start_ns = start_ns;
  g.end_ns = start_ns + ns;
  g.correlation = correlation;
  g.signature = signature;
  g.graph_id = 77;
  g.graph_node_id = gpu_node;
  b.Chunk(ChunkSource::kGpuActivity).Add(g);
}

// Two multiplies captured into a graph, replayed three times: each replay's kernels join the
// nodes (the first replay by kernel and order, the later ones by CUPTI's node id; one replay's
// records come before its graph launch's), and count with the catalog's figures of the captured
// launches. The captured launches ran nothing: not launches, not executions.
TEST_F(TraceAnalysisTest, GraphReplaysTakeTheFiguresOfTheirCapturedNodes) {
  CuptiSignature(b_, 9, 1, 977, 1, 256);
  Launch(1, 10, 1'000'000, 1000);  // an eager launch of the same kernel
  Gpu(1, 10, 1'010'000, 5'000);
  CapturedLaunch(b_, 1, 20, 2'000'000, 2000, 3, 0xA0);
  CapturedLaunch(b_, 1, 21, 2'010'000, 4000, 3, 0xB0);
  GraphEvent(b_, trace::GraphEvent::kCaptured, 3, 0);
  GraphEvent(b_, trace::GraphEvent::kInstantiated, 3, 5);
  for (uint64_t replay = 0; replay < 3; ++replay) {
    const uint64_t correlation = 30 + replay, at = 3'000'000 + replay * 100'000;
    if (replay == 2) {  // this replay's records come first
      GraphKernel(b_, 9, correlation, 501, at + 10'000, 1'000);
      GraphKernel(b_, 9, correlation, 502, at + 12'000, 2'000);
      GraphLaunch(b_, correlation, at, 5);
      continue;
    }
    GraphLaunch(b_, correlation, at, 5);
    // The second replay's records come in the other order: the node ids decide.
    if (replay == 1) GraphKernel(b_, 9, correlation, 502, at + 12'000, 2'000);
    GraphKernel(b_, 9, correlation, 501, at + 10'000, 1'000);
    if (replay == 0) GraphKernel(b_, 9, correlation, 502, at + 12'000, 2'000);
  }
  const TraceAnalysis run = Analyze();
  EXPECT_EQ(run.launches, 1u);
  EXPECT_EQ(run.captured_launches, 2u);
  EXPECT_EQ(run.unmatched_launches, 0u);
  EXPECT_EQ(run.unmatched_gpu_records, 0u);
  uint64_t executions = 0, graph_executions = 0;
  double timed_flops = 0, all_flops = 0;
  for (const KernelGroup& g : run.kernels) {
    executions += g.executions;
    graph_executions += g.graph_executions;
    timed_flops += g.timed.flops;
    all_flops += g.all.flops;
    EXPECT_EQ(g.timed.flops_source, FigureSource::kCatalog) << g.shape_key;
  }
  EXPECT_EQ(executions, 7u);
  EXPECT_EQ(graph_executions, 6u);
  // One multiply per element: 1000 eager, then 2000 + 4000 per replay.
  EXPECT_DOUBLE_EQ(timed_flops, 1000.0 + 3 * 6000.0);
  EXPECT_DOUBLE_EQ(all_flops, timed_flops);
  ASSERT_EQ(run.graphs.size(), 1u);
  const GraphUnit& unit = run.graphs[0];
  EXPECT_EQ(unit.exec, 5u);
  EXPECT_EQ(unit.graph, 3u);
  EXPECT_TRUE(unit.captured);
  EXPECT_EQ(unit.kernel_nodes, 2u);
  EXPECT_EQ(unit.replays, 3u);
  EXPECT_EQ(unit.kernel_executions, 6u);
  EXPECT_EQ(unit.unjoined_executions, 0u);
  EXPECT_DOUBLE_EQ(unit.KernelsPerReplay(), 2.0);
  EXPECT_DOUBLE_EQ(unit.gpu_ns, 3 * 3'000.0);
  EXPECT_DOUBLE_EQ(unit.flops, 3 * 6000.0);
  EXPECT_EQ(unit.flops_source, FigureSource::kCatalog);
  // What one replay runs by its nodes, GPU times or not.
  EXPECT_DOUBLE_EQ(unit.node_flops, 6000.0);
  EXPECT_EQ(unit.nodes_with_flops, 2u);
  EXPECT_EQ(unit.node_flops_source, FigureSource::kCatalog);
  EXPECT_DOUBLE_EQ(unit.launch_ns, 3 * 2000.0);
  // One by one at the eager launch's 5 us: 6 launches, 30 us, against 6 us of graph launches.
  EXPECT_TRUE(unit.one_by_one_from_eager);
  EXPECT_DOUBLE_EQ(unit.LaunchNsSaved(), 6 * 5000.0 - 6000.0);
  // Each node's replays land in its own shape's row: N = 2000 three times, N = 4000 three times.
  // The first node ran 1 us each time, the second 2 us: the second replay's records, in the other
  // order, still join by node id.
  std::map<std::string, uint64_t> by_shape;
  std::map<std::string, double> ns_by_shape;
  for (const KernelGroup& g : run.kernels) {
    by_shape[g.shape_key] += g.graph_executions;
    ns_by_shape[g.shape_key] += g.gpu_ns;
  }
  EXPECT_EQ(by_shape["n=2000"], 3u);
  EXPECT_EQ(by_shape["n=4000"], 3u);
  EXPECT_DOUBLE_EQ(ns_by_shape["n=2000"], 3 * 1'000.0);
  EXPECT_DOUBLE_EQ(ns_by_shape["n=4000"], 3 * 2'000.0);
}

// A cuBLAS call made while its stream captured: it ran nothing then (not a call, no FLOPs); each
// replay of its kernel adds the call's analytic figures to its row. An update swaps the nodes an
// executable graph runs.
TEST_F(TraceAnalysisTest, CapturedLibraryCallCountsAtEachReplay) {
  CuptiSignature(b_, 9, 2, 8, 8, 128);
  CapturedLaunch(b_, 2, 20, 1'000'000, 0, 4, 0xA0, /*inside_library=*/true);
  Sgemm(19, 999'000, 1024);
  GraphEvent(b_, trace::GraphEvent::kInstantiated, 4, 6);
  for (uint64_t replay = 0; replay < 2; ++replay) {
    GraphLaunch(b_, 40 + replay, 2'000'000 + replay * 10'000'000, 6);
    GraphKernel(b_, 9, 40 + replay, 601, 2'010'000 + replay * 10'000'000, 1'000'000);
  }
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.libraries.size(), 1u);
  const LibraryGroup& lib = run.libraries[0];
  EXPECT_EQ(lib.calls, 0u);
  EXPECT_EQ(lib.captured_calls, 1u);
  EXPECT_EQ(lib.captured_kernels, 1u);
  EXPECT_EQ(lib.kernels, 0u);
  EXPECT_EQ(lib.graph_kernels, 2u);
  EXPECT_DOUBLE_EQ(CallExecutions(lib), 2.0);
  // Its kernel ran only in replays, and is still the library's.
  for (const KernelGroup& g : run.kernels) {
    if (g.graph_executions > 0) {
      EXPECT_TRUE(g.inside_library) << g.name;
    }
  }
  EXPECT_DOUBLE_EQ(lib.flops, 2 * 2147483648.0);
  EXPECT_DOUBLE_EQ(lib.timed_flops, 2 * 2147483648.0);
  EXPECT_DOUBLE_EQ(lib.gpu_ns, 2e6);
  ASSERT_EQ(run.graphs.size(), 1u);
  EXPECT_TRUE(run.graphs[0].captured);
  EXPECT_EQ(run.graphs[0].flops_source, FigureSource::kAnalytic);
  EXPECT_DOUBLE_EQ(run.graphs[0].flops, 2 * 2147483648.0);
  EXPECT_EQ(run.graphs[0].kernel_executions, 2u);
}

// An executable graph updated from another capture (same topology) runs the new graph's nodes;
// a node changed in the executable graph runs its new parameters: the replays after each change
// take the new figures, CUPTI's node ids unchanged.
TEST_F(TraceAnalysisTest, GraphUpdatesChangeWhatLaterReplaysRun) {
  CuptiSignature(b_, 9, 1, 977, 1, 256);
  CapturedLaunch(b_, 1, 20, 1'000'000, 1000, 3, 0xA0);
  GraphEvent(b_, trace::GraphEvent::kInstantiated, 3, 5);
  const auto replay = [&](uint64_t correlation) {
    GraphLaunch(b_, correlation, 2'000'000 + correlation * 10'000, 5);
    GraphKernel(b_, 9, correlation, 501, 2'010'000 + correlation * 10'000, 1'000);
  };
  replay(30);
  CapturedLaunch(b_, 1, 21, 3'000'000, 3000, 4, 0xB0);  // the second capture
  GraphEvent(b_, trace::GraphEvent::kUpdated, 4, 5);
  replay(31);
  // cuGraphExecKernelNodeSetParams on the executable graph's node (the second graph's handle).
  trace::KernelLaunchRecord set = testing::KernelLaunch(1, 22, 4'000'000, 3000, 7000);
  set.h.flags |= trace::kLaunchCaptured;
  set.api = static_cast<uint16_t>(trace::Api::kCuGraphExecKernelNodeSetParams);
  trace::GraphNodeRecord in_exec{};
  in_exec.h.flags = trace::kGraphNodeInExec;
  in_exec.correlation = 22;
  in_exec.node = 0xB0;
  in_exec.exec = 5;
  b_.Chunk(ChunkSource::kThread, kThread).Add(set).Add(in_exec);
  replay(32);
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.graphs.size(), 1u);
  EXPECT_EQ(run.graphs[0].replays, 3u);
  EXPECT_EQ(run.graphs[0].graph, 4u);
  EXPECT_DOUBLE_EQ(run.graphs[0].flops, 1000.0 + 3000.0 + 7000.0);
  EXPECT_DOUBLE_EQ(run.graphs[0].node_flops, 7000.0);  // what a replay runs now
  EXPECT_EQ(run.graphs[0].executions_with_bytes, 3u);
  EXPECT_EQ(run.graphs[0].bytes_source, FigureSource::kCatalog);
  EXPECT_EQ(run.captured_launches, 3u);
}

// Nodes another thread captured can reach the file after the instantiation (each thread's
// records come in its own chunks): the next graph launch takes them, even when the graph was
// destroyed right after its instantiation (torch.cuda.CUDAGraph keeps no graph by default).
TEST_F(TraceAnalysisTest, GraphNodesReadAfterTheInstantiationJoinLaterReplays) {
  CuptiSignature(b_, 9, 1, 977, 1, 256);
  CapturedLaunch(b_, 1, 20, 1'000'000, 1000, 3, 0xA0);
  GraphEvent(b_, trace::GraphEvent::kInstantiated, 3, 5);
  GraphEvent(b_, trace::GraphEvent::kGraphDestroyed, 3, 0);
  // The autograd thread's node, read later.
  CapturedLaunch(b_, 1, 21, 1'001'000, 2000, 3, 0xA1, false, kThread + 1);
  for (uint64_t replay = 0; replay < 2; ++replay) {
    GraphLaunch(b_, 30 + replay, 2'000'000 + replay * 100'000, 5);
    GraphKernel(b_, 9, 30 + replay, 501, 2'010'000 + replay * 100'000, 1'000);
    GraphKernel(b_, 9, 30 + replay, 502, 2'012'000 + replay * 100'000, 1'000);
  }
  const TraceAnalysis run = Analyze();
  ASSERT_EQ(run.graphs.size(), 1u);
  EXPECT_EQ(run.graphs[0].kernel_nodes, 2u);
  EXPECT_EQ(run.graphs[0].kernel_executions, 4u);
  EXPECT_EQ(run.graphs[0].unjoined_executions, 0u);
  EXPECT_DOUBLE_EQ(run.graphs[0].flops, 2 * 3000.0);
}

}  // namespace
}  // namespace flopspy::analyzers
