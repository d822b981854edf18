// Sizing and arithmetic of the GPU ceilings benchmarks: grids, FLOP counts, working sets, GEMM
// sizes, timing summaries and the SM clock, checked by hand-computed figures.
#include "flopspy/gpu_roofline/ceilings_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>

#include "flopspy/gpu_roofline/device_table.h"

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

const FmaChainKernel& Kernel(std::string_view id) {
  for (const FmaChainKernel& k : FmaChainKernels()) {
    if (k.id == id) return k;
  }
  ADD_FAILURE() << "no kernel " << id;
  return FmaChainKernels().front();
}

const GemmCase& Gemm(std::string_view id) {
  for (const GemmCase& g : GemmCases()) {
    if (g.id == id) return g;
  }
  ADD_FAILURE() << "no GEMM case " << id;
  return GemmCases().front();
}

TEST(FillAllSms, OneFullWaveFromTheOccupancyCalculator) {
  // H200: 132 SMs, 2048 threads each; 8 resident blocks of 256.
  LaunchGrid g = FillAllSms(132, 2048, 256, 8);
  EXPECT_EQ(g.blocks, 1056);
  EXPECT_EQ(g.threads_per_block, 256);
  EXPECT_EQ(g.Threads(), 270336);
  // Registers or the block limit allow fewer: the calculator's answer wins.
  EXPECT_EQ(FillAllSms(132, 2048, 256, 3).blocks, 396);
  // Unknown occupancy: max threads per SM / block size. T4: 40 SMs x 1024 threads.
  EXPECT_EQ(FillAllSms(40, 1024, 256, 0).blocks, 160);
  EXPECT_EQ(FillAllSms(40, 0, 256, 0).blocks, 40);  // nothing known: one block per SM
  EXPECT_EQ(FillAllSms(0, 2048, 256, 8).blocks, 0);
  EXPECT_EQ(FillAllSms(132, 2048, 0, 8).blocks, 0);
}

TEST(FmaChainFlops, TwoFlopsPerMultiplyAddPerLanePerChain) {
  const LaunchGrid grid = FillAllSms(132, 2048, 256, 8);  // 270336 threads
  // fp32: 8 chains x 1000 iterations x 2 FLOPs x 270336 threads.
  EXPECT_DOUBLE_EQ(FmaChainFlops(grid, Kernel("fma_fp32"), 1000), 8 * 1000 * 2 * 270336.0);
  EXPECT_DOUBLE_EQ(FmaChainFlops(grid, Kernel("fma_fp64"), 1000), 8 * 1000 * 2 * 270336.0);
  // half2 and bf16x2 do two multiply-adds per instruction.
  EXPECT_DOUBLE_EQ(FmaChainFlops(grid, Kernel("fma_fp16"), 1000), 8 * 1000 * 4 * 270336.0);
  EXPECT_DOUBLE_EQ(FmaChainFlops(grid, Kernel("fma_bf16"), 1000), 8 * 1000 * 4 * 270336.0);
}

TEST(FmaChainKernels, OnePerCudaCorePathWithDistinctIdsAndSymbols) {
  std::set<std::string_view> ids, symbols;
  std::set<ComputePath> paths;
  for (const FmaChainKernel& k : FmaChainKernels()) {
    ids.insert(k.id);
    symbols.insert(k.symbol);
    paths.insert(k.path);
    EXPECT_FALSE(analyzers::IsTensorPath(k.path)) << k.id;
    EXPECT_GT(k.chains * k.unroll, 0);
  }
  EXPECT_EQ(ids.size(), FmaChainKernels().size());
  EXPECT_EQ(symbols.size(), FmaChainKernels().size());
  EXPECT_EQ(paths, (std::set<ComputePath>{ComputePath::kFp32, ComputePath::kFp64,
                                          ComputePath::kFp16, ComputePath::kBf16}));
  EXPECT_EQ(Kernel("fma_bf16").min_cc_major, 8);  // no bf16 arithmetic before Ampere
}

// The FLOP count is only right if the kernels do what the table says: read the chain counts and
// unrolls from the CUDA source.
TEST(FmaChainKernels, MatchTheKernelSource) {
  std::ifstream in(std::string(FLOPSPY_TEST_DATA_DIR) +
                   "/../../gpu_roofline/src/cuda/ceilings_kernels.cu");
  ASSERT_TRUE(in) << "kernel source not found";
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  for (const FmaChainKernel& k : FmaChainKernels()) {
    // extern "C" __global__ void <symbol>(...) { ... FmaChains<T, chains, unroll>(...)
    const std::regex pattern(std::string(k.symbol) +
                             R"(\([^)]*\)\s*\{[^}]*?FmaChains<[^,]+,\s*(\d+),\s*(\d+)>)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(source, m, pattern)) << k.symbol;
    EXPECT_EQ(std::stoi(m[1]), k.chains) << k.symbol;
    EXPECT_EQ(std::stoi(m[2]), k.unroll) << k.symbol;
  }
}

TEST(ScaleIterations, ProportionalToTimeInMultiplesOfTheUnroll) {
  // 1000 iterations in 1 ms, 20 ms wanted: 20000 (a multiple of 32).
  EXPECT_EQ(ScaleIterations(1000, 1e-3, 20e-3, 32, int64_t{1} << 32), 20000);
  // 66666.7 rounds down to a multiple of 32.
  EXPECT_EQ(ScaleIterations(1000, 0.3e-3, 20e-3, 32, int64_t{1} << 32), 66656);
  // Never below one unroll, never above the cap (rounded to the unroll).
  EXPECT_EQ(ScaleIterations(1000, 1.0, 1e-6, 32, 1 << 20), 32);
  EXPECT_EQ(ScaleIterations(1000, 1e-9, 1.0, 32, 1000), 992);
  // A trial too fast to time, or a broken one, goes to the cap.
  EXPECT_EQ(ScaleIterations(1000, 0, 1.0, 16, 4096), 4096);
  EXPECT_EQ(ScaleIterations(1000, std::numeric_limits<double>::quiet_NaN(), 1.0, 16, 4096), 4096);
  EXPECT_EQ(ScaleIterations(5, 1e-3, 20e-3, 1, 256), 100);  // copies per repetition
}

TEST(WorkingSets, DramAtLeastEightL2sAndL2Half) {
  // H200: 60 MiB L2. Full run: 1 GiB (more than 8 x L2); quick: 8 x L2 = 480 MiB.
  EXPECT_EQ(DramWorkingSetBytes(60 * kMiB, 140 * kGiB, false), kGiB);
  EXPECT_EQ(DramWorkingSetBytes(60 * kMiB, 140 * kGiB, true), 480 * kMiB);
  // T4: 4 MiB L2; quick: the 256 MiB floor.
  EXPECT_EQ(DramWorkingSetBytes(4 * kMiB, 15 * kGiB, true), 256 * kMiB);
  // A quarter of free memory at most, and never below 4 x L2.
  EXPECT_EQ(DramWorkingSetBytes(60 * kMiB, kGiB, false), 256 * kMiB);
  EXPECT_EQ(DramWorkingSetBytes(60 * kMiB, 800 * kMiB, false), 0u);
  EXPECT_EQ(DramWorkingSetBytes(0, 16 * kGiB, true), 256 * kMiB);  // unknown L2
  EXPECT_EQ(DramWorkingSetBytes(60 * kMiB + 12345, 140 * kGiB, true) % kMiB, 0u);

  EXPECT_EQ(L2WorkingSetBytes(60 * kMiB), 30 * kMiB);
  EXPECT_EQ(L2WorkingSetBytes(40 * kMiB + 1000), 20 * kMiB);
  EXPECT_EQ(L2WorkingSetBytes(0), 0u);
}

TEST(ByteConventions, CopyCountsReadPlusWrittenReadCountsPasses) {
  EXPECT_DOUBLE_EQ(CopyBytes(kGiB), 2.0 * kGiB);
  EXPECT_DOUBLE_EQ(ReadBytes(30 * kMiB, 200), 200.0 * 30 * kMiB);
  EXPECT_DOUBLE_EQ(ReadBytes(kGiB, 0), 0);
}

TEST(GemmCases, TypesAndMinimumComputeCapabilities) {
  std::set<std::string_view> ids;
  for (const GemmCase& g : GemmCases()) ids.insert(g.id);
  EXPECT_EQ(ids.size(), GemmCases().size());
  EXPECT_EQ(Gemm("gemm_bf16").path, ComputePath::kBf16Tensor);
  EXPECT_EQ(Gemm("gemm_fp8").input_bytes, 1);
  EXPECT_EQ(Gemm("gemm_int8").output_bytes, 4);
  EXPECT_EQ(Gemm("gemm_fp64").input_bytes, 8);

  const GemmCase& fp8 = Gemm("gemm_fp8");
  EXPECT_TRUE(SupportsComputeCapability(9, 0, fp8.min_cc_major, fp8.min_cc_minor));
  EXPECT_TRUE(SupportsComputeCapability(8, 9, fp8.min_cc_major, fp8.min_cc_minor));
  EXPECT_FALSE(SupportsComputeCapability(8, 6, fp8.min_cc_major, fp8.min_cc_minor));
  EXPECT_FALSE(SupportsComputeCapability(8, 0, fp8.min_cc_major, fp8.min_cc_minor));
  const GemmCase& bf16 = Gemm("gemm_bf16");
  EXPECT_FALSE(SupportsComputeCapability(7, 5, bf16.min_cc_major, bf16.min_cc_minor));
  EXPECT_TRUE(SupportsComputeCapability(10, 0, bf16.min_cc_major, bf16.min_cc_minor));
}

TEST(GemmCases, Fp64RunsOnTensorCoresOnlyWhereThereAreAny) {
  const GemmCase& fp64 = Gemm("gemm_fp64");
  const auto* h100 = FindKnownDeviceByKey("h100-sxm5");
  const auto* t4 = FindKnownDeviceByKey("t4");
  ASSERT_NE(h100, nullptr);
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(GemmPathOnDevice(fp64, RoofsFromSpec(*h100)), ComputePath::kFp64Tensor);
  EXPECT_EQ(GemmPathOnDevice(fp64, RoofsFromSpec(*t4)), ComputePath::kFp64);
  EXPECT_EQ(GemmPathOnDevice(Gemm("gemm_bf16"), RoofsFromSpec(*t4)), ComputePath::kBf16Tensor);
}

TEST(GemmSize, LongEnoughAlignedAndWithinMemory) {
  const GemmCase& bf16 = Gemm("gemm_bf16");
  const GemmCase& fp64 = Gemm("gemm_fp64");
  // H200 bf16 (989.5 TFLOP/s): 20 ms would need n = 21.5k; capped at 8192.
  EXPECT_EQ(GemmSize(989.5e12, 0.02, 1024, 8192, bf16, 100 * kGiB), 8192);
  // T4 fp64 (0.254 TFLOP/s): cbrt(0.02 x 0.254e12 / 2) = 1364 -> 1280.
  EXPECT_EQ(GemmSize(0.254e12, 0.02, 1024, 8192, fp64, 100 * kGiB), 1280);
  // Slower still: the floor.
  EXPECT_EQ(GemmSize(1e9, 0.02, 1024, 8192, fp64, 100 * kGiB), 1024);
  // Unknown peak: the largest.
  EXPECT_EQ(GemmSize(0, 0.02, 1024, 8192, bf16, 0), 8192);
  // fp64 8192^2 x 3 matrices = 1.5 GiB; with 1 GiB free it halves to 4096 (384 MiB).
  EXPECT_EQ(GemmBytes(8192, fp64), 3 * 512 * kMiB);
  EXPECT_EQ(GemmSize(67e12, 0.02, 1024, 8192, fp64, kGiB), 4096);
  EXPECT_EQ(GemmSize(67e12, 0.02, 1024, 8192, fp64, 10 * kMiB), 0);
  EXPECT_EQ(GemmSize(989.5e12, 0.02, 1000, 8000, bf16, 0) % 256, 0);
  EXPECT_DOUBLE_EQ(GemmFlops(8192, 8192, 8192), 2.0 * 8192 * 8192 * 8192);
}

TEST(SummariseTimes, BestAndMedianOfTheValidRepetitions) {
  TimingSummary s = SummariseTimes({3e-3, 1e-3, 2e-3});
  EXPECT_EQ(s.repetitions, 3);
  EXPECT_DOUBLE_EQ(s.best_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(s.median_seconds, 2e-3);
  s = SummariseTimes({4e-3, 1e-3, 2e-3, 3e-3});
  EXPECT_DOUBLE_EQ(s.median_seconds, 2.5e-3);
  // A failed event (0, negative, NaN, infinity) is not a repetition.
  s = SummariseTimes({0, -1, std::numeric_limits<double>::quiet_NaN(),
                      std::numeric_limits<double>::infinity(), 5e-3});
  EXPECT_EQ(s.repetitions, 1);
  EXPECT_DOUBLE_EQ(s.best_seconds, 5e-3);
  EXPECT_EQ(SummariseTimes({}).repetitions, 0);
  EXPECT_DOUBLE_EQ(RatePerSecond(2e12, 1e-3), 2e15);
  EXPECT_DOUBLE_EQ(RatePerSecond(2e12, 0), 0);
}

TEST(SmClockMhz, MedianCyclesPerBlockOverTheKernelTime) {
  // Three blocks counted 1.98e6, 1.97e6 and 1.5e6 cycles in 1 ms: median 1970 MHz.
  const std::vector<int64_t> pairs{100, 100 + 1'980'000, 5, 5 + 1'970'000, 0, 1'500'000};
  const auto mhz = SmClockMhz(pairs, 1e-3);
  ASSERT_TRUE(mhz.has_value());
  EXPECT_NEAR(*mhz, 1970, 1e-9);
  EXPECT_FALSE(SmClockMhz(pairs, 0).has_value());
  EXPECT_FALSE(SmClockMhz(std::vector<int64_t>{}, 1e-3).has_value());
  EXPECT_FALSE(SmClockMhz(std::vector<int64_t>{10, 5}, 1e-3).has_value());  // not a count
}

}  // namespace
}  // namespace flopspy::gpuroof
