// The device peak table: lookups by the names the CUDA runtime returns, the roofs an entry
// yields, and ridge points per unit. Expected values are docs/gpu-peaks.md's figures.
#include "flopspy/gpu_roofline/device_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
using analyzers::MemoryLevel;
using analyzers::RoofSource;
using P = ComputePath;

DeviceProperties Named(std::string name, int major = 0, int minor = 0) {
  DeviceProperties p;
  p.name = std::move(name);
  p.cc_major = major;
  p.cc_minor = minor;
  return p;
}

std::string KeyOf(const DeviceProperties& props) {
  const DeviceSpec* spec = FindKnownDevice(props);
  return spec == nullptr ? "(none)" : spec->key;
}

TEST(DeviceTable, EntriesAreWellFormed) {
  std::set<std::string> keys;
  for (const DeviceSpec& spec : KnownDevices()) {
    SCOPED_TRACE(spec.key);
    EXPECT_TRUE(keys.insert(spec.key).second) << "duplicate key";
    EXPECT_FALSE(spec.require_tokens.empty());
    EXPECT_GT(spec.cc_major, 0);
    EXPECT_GT(spec.sm_count, 0);
    EXPECT_GT(spec.boost_clock_mhz, 0);
    EXPECT_GT(spec.dram_bytes_per_s, 0);
    EXPECT_GT(spec.peak[static_cast<size_t>(P::kFp32)], 0);
    // Every part in the table has tensor cores with an FP16 figure.
    EXPECT_GT(spec.peak[static_cast<size_t>(P::kFp16Tensor)], 0);
    EXPECT_EQ(FindKnownDeviceByKey(spec.key), &spec);
  }
  // The brief's list: T4, V100 x2, A10, A100 x4, L4, L40S, H100 x2, H200 x2, B200, 3090, 4090 (17).
  EXPECT_EQ(keys.size(), 17u);
}

TEST(NameTokens, SplitsOnPunctuationAndLowercases) {
  EXPECT_EQ(NameTokens("NVIDIA A100-SXM4-80GB"),
            (std::vector<std::string>{"nvidia", "a100", "sxm4", "80gb"}));
  EXPECT_EQ(NameTokens("  Tesla T4 "), (std::vector<std::string>{"tesla", "t4"}));
  EXPECT_TRUE(NameTokens("").empty());
}

TEST(Matching, RuntimeNames) {
  EXPECT_EQ(KeyOf(Named("Tesla T4", 7, 5)), "t4");
  EXPECT_EQ(KeyOf(Named("Tesla V100-SXM2-16GB", 7, 0)), "v100-sxm2");
  EXPECT_EQ(KeyOf(Named("Tesla V100-SXM2-32GB")), "v100-sxm2");
  EXPECT_EQ(KeyOf(Named("Tesla V100-PCIE-32GB", 7, 0)), "v100-pcie");
  EXPECT_EQ(KeyOf(Named("NVIDIA A10", 8, 6)), "a10");
  EXPECT_EQ(KeyOf(Named("NVIDIA A100-SXM4-80GB", 8, 0)), "a100-sxm4-80gb");
  EXPECT_EQ(KeyOf(Named("NVIDIA A100-SXM4-40GB", 8, 0)), "a100-sxm4-40gb");
  EXPECT_EQ(KeyOf(Named("NVIDIA A100-PCIE-40GB", 8, 0)), "a100-pcie-40gb");
  EXPECT_EQ(KeyOf(Named("NVIDIA A100 80GB PCIe", 8, 0)), "a100-pcie-80gb");
  EXPECT_EQ(KeyOf(Named("NVIDIA L4", 8, 9)), "l4");
  EXPECT_EQ(KeyOf(Named("NVIDIA L40S", 8, 9)), "l40s");
  EXPECT_EQ(KeyOf(Named("NVIDIA H100 80GB HBM3", 9, 0)), "h100-sxm5");
  EXPECT_EQ(KeyOf(Named("NVIDIA H100 PCIe", 9, 0)), "h100-pcie");
  EXPECT_EQ(KeyOf(Named("NVIDIA H200", 9, 0)), "h200-sxm");
  EXPECT_EQ(KeyOf(Named("NVIDIA H200 NVL", 9, 0)), "h200-nvl");
  EXPECT_EQ(KeyOf(Named("NVIDIA B200", 10, 0)), "b200");
  EXPECT_EQ(KeyOf(Named("NVIDIA GeForce RTX 3090", 8, 6)), "rtx-3090");
  EXPECT_EQ(KeyOf(Named("NVIDIA GeForce RTX 4090", 8, 9)), "rtx-4090");
}

TEST(Matching, LookAlikesAreNotMatched) {
  EXPECT_EQ(KeyOf(Named("NVIDIA A10G", 8, 6)), "(none)");  // AWS part, other clocks
  EXPECT_EQ(KeyOf(Named("NVIDIA L40", 8, 9)), "(none)");
  EXPECT_EQ(KeyOf(Named("NVIDIA H100 NVL", 9, 0)), "(none)");
  EXPECT_EQ(KeyOf(Named("Tesla V100S-PCIE-32GB", 7, 0)), "(none)");
  EXPECT_EQ(KeyOf(Named("Tesla V100-SXM3-32GB", 7, 0)), "(none)");
  EXPECT_EQ(KeyOf(Named("NVIDIA GeForce RTX 3090 Ti", 8, 6)), "(none)");
  EXPECT_EQ(KeyOf(Named("NVIDIA GeForce RTX 4090 D", 8, 9)), "(none)");
  EXPECT_EQ(KeyOf(Named("NVIDIA GeForce RTX 4090 Laptop GPU", 8, 9)), "(none)");
  // A name that matches with a compute capability that does not is not the part.
  EXPECT_EQ(KeyOf(Named("Tesla T4", 8, 0)), "(none)");
}

TEST(Matching, PropertiesBreakTies) {
  DeviceProperties a100 = Named("NVIDIA A100", 8, 0);
  a100.total_memory_bytes = 42'405'855'232;  // what a 40 GB board reports
  EXPECT_EQ(KeyOf(a100), "a100-sxm4-40gb");
  a100.total_memory_bytes = 85'198'045'184;  // an 80 GB board
  EXPECT_EQ(KeyOf(a100), "a100-sxm4-80gb");

  DeviceProperties h100 = Named("NVIDIA H100", 9, 0);
  h100.sm_count = 114;
  EXPECT_EQ(KeyOf(h100), "h100-pcie");
  h100.sm_count = 132;
  EXPECT_EQ(KeyOf(h100), "h100-sxm5");
}

TEST(Roofs, DatasheetSparseFiguresAreHalved) {
  const auto roofs = RoofsFromSpec(*FindKnownDeviceByKey("h100-sxm5"));
  // Datasheet: BF16 1,979 TFLOPS* (with sparsity) -> 989.5 dense.
  EXPECT_DOUBLE_EQ(roofs.Flops(P::kBf16Tensor).nominal, 989.5e12);
  EXPECT_EQ(roofs.Flops(P::kBf16Tensor).nominal_source, RoofSource::kDatasheet);
  EXPECT_DOUBLE_EQ(roofs.Flops(P::kFp8Tensor).nominal, 1979e12);  // 3,958* / 2
  EXPECT_DOUBLE_EQ(roofs.Flops(P::kFp64Tensor).nominal, 67e12);   // no sparsity on FP64
  EXPECT_DOUBLE_EQ(roofs.Bandwidth(MemoryLevel::kDram).nominal, 3.35e12);
}

TEST(Roofs, CudaCoreGapsAreComputedAndLabelled) {
  const auto t4 = RoofsFromSpec(*FindKnownDeviceByKey("t4"));
  // FP64 on a T4: 40 SMs x 1590 MHz x 2 FMA/clk x 2 = 254.4 GFLOP/s (1/32 of FP32).
  EXPECT_NEAR(t4.Flops(P::kFp64).nominal, 254.4e9, 1e6);
  EXPECT_EQ(t4.Flops(P::kFp64).nominal_source, RoofSource::kComputed);
  // FP16 (half2) on CUDA cores: 40 x 1590e6 x 128 x 2 = 16.28 TFLOP/s.
  EXPECT_NEAR(t4.Flops(P::kFp16).nominal, 16.2816e12, 1e6);
  // No BF16 arithmetic on Turing, and tensor gaps are never filled by the formula.
  EXPECT_EQ(t4.Flops(P::kBf16).nominal, 0);
  EXPECT_EQ(t4.Flops(P::kFp16TensorHalfAcc).nominal, 0);
  EXPECT_EQ(t4.Flops(P::kTf32Tensor).nominal, 0);

  const auto h100p = RoofsFromSpec(*FindKnownDeviceByKey("h100-pcie"));
  // 114 SMs x 1755 MHz x 256 FMA/clk x 2 = 102.4 TFLOP/s FP16 on CUDA cores.
  EXPECT_NEAR(h100p.Flops(P::kFp16).nominal, 102.43584e12, 1e6);
  EXPECT_EQ(h100p.Flops(P::kFp16).nominal_source, RoofSource::kComputed);
}

TEST(Roofs, L2RoofFromPublishedBytesPerClock) {
  const auto a100 = RoofsFromSpec(*FindKnownDeviceByKey("a100-sxm4-40gb"));
  // 5120 B/clk x 1410 MHz = 7.2192 TB/s (Ampere whitepaper: "A100 L2 read bandwidth is 5120
  // Bytes/clk"), labelled computed.
  EXPECT_DOUBLE_EQ(a100.Bandwidth(MemoryLevel::kL2).nominal, 7.2192e12);
  EXPECT_EQ(a100.Bandwidth(MemoryLevel::kL2).nominal_source, RoofSource::kComputed);
  // 312e12 / 7.2192e12 = 43.22 FLOP/B against L2
  EXPECT_NEAR(*analyzers::RidgePoint(a100, P::kFp16Tensor, MemoryLevel::kL2), 43.2180851, 1e-6);
  // Unpublished elsewhere: no L2 roof until one is measured.
  const auto h100 = RoofsFromSpec(*FindKnownDeviceByKey("h100-sxm5"));
  EXPECT_FALSE(h100.Bandwidth(MemoryLevel::kL2).Available());
}

// Seed note 000: T4 at 0.32 TB/s; ridge = peak / bandwidth per unit.
TEST(RidgePoints, T4) {
  const auto t4 = RoofsForDevice(Named("Tesla T4", 7, 5));
  EXPECT_EQ(t4.table_key, "t4");
  EXPECT_NEAR(*analyzers::RidgePoint(t4, P::kFp32), 25.3125, 1e-9);        // 8.1e12 / 320e9
  EXPECT_NEAR(*analyzers::RidgePoint(t4, P::kFp16Tensor), 203.125, 1e-9);  // 65e12 / 320e9
  EXPECT_NEAR(*analyzers::RidgePoint(t4, P::kInt8Tensor), 406.25, 1e-9);   // 130e12 / 320e9
  EXPECT_NEAR(*analyzers::RidgePoint(t4, P::kFp64), 0.795, 1e-9);          // 254.4e9 / 320e9
  EXPECT_NEAR(*analyzers::RidgePoint(t4, P::kFp16), 50.88, 1e-9);          // 16.2816e12 / 320e9
  // 8192 x 8192 fp32 read: 268,435,456 B / 320e9 B/s = 0.8389 ms
  EXPECT_NEAR(*analyzers::MinSecondsToMove(t4, 4.0 * 8192 * 8192) * 1e3, 0.8388608, 1e-12);
}

TEST(RidgePoints, A100) {
  const auto a40 = RoofsForDevice(Named("NVIDIA A100-SXM4-40GB", 8, 0));
  EXPECT_NEAR(*analyzers::RidgePoint(a40, P::kFp64), 6.237942122, 1e-6);          // 9.7 / 1.555
  EXPECT_NEAR(*analyzers::RidgePoint(a40, P::kFp64Tensor), 12.540192926, 1e-6);   // 19.5 / 1.555
  EXPECT_NEAR(*analyzers::RidgePoint(a40, P::kFp32), 12.540192926, 1e-6);         // 19.5 / 1.555
  EXPECT_NEAR(*analyzers::RidgePoint(a40, P::kTf32Tensor), 100.321543408, 1e-6);  // 156 / 1.555
  EXPECT_NEAR(*analyzers::RidgePoint(a40, P::kFp16Tensor), 200.643086817, 1e-6);  // 312 / 1.555
  EXPECT_NEAR(*analyzers::RidgePoint(a40, P::kBf16Tensor), 200.643086817, 1e-6);
  EXPECT_NEAR(*analyzers::RidgePoint(a40, P::kInt8Tensor), 401.286173633, 1e-6);  // 624 / 1.555
  EXPECT_NEAR(*analyzers::RidgePoint(a40, P::kFp16), 50.160771704, 1e-6);         // 78 / 1.555
  // The 80 GB SXM board: same peaks, 2039 GB/s: 312e12 / 2039e9 = 153.02 FLOP/B
  const auto a80 = RoofsForDevice(Named("NVIDIA A100-SXM4-80GB", 8, 0));
  EXPECT_NEAR(*analyzers::RidgePoint(a80, P::kFp16Tensor), 153.016184404, 1e-6);
}

TEST(RidgePoints, HopperBf16) {
  // 989.5e12 / 3.35e12 = 295.4 FLOP/B on an H100 SXM; 989.5e12 / 4.8e12 = 206.1 on an H200.
  const auto h100 = RoofsForDevice(Named("NVIDIA H100 80GB HBM3", 9, 0));
  EXPECT_NEAR(*analyzers::RidgePoint(h100, P::kBf16Tensor), 295.373134328, 1e-6);
  const auto h200 = RoofsForDevice(Named("NVIDIA H200", 9, 0));
  EXPECT_NEAR(*analyzers::RidgePoint(h200, P::kBf16Tensor), 206.145833333, 1e-6);
}

TEST(FallbackOnTable, PerDevice) {
  using analyzers::ResolvePeak;
  const auto v100 = RoofsForDevice(Named("Tesla V100-SXM2-16GB", 7, 0));
  EXPECT_EQ(ResolvePeak(v100, P::kFp64Tensor)->path, P::kFp64);  // no FP64 tensor cores
  EXPECT_DOUBLE_EQ(ResolvePeak(v100, P::kFp64Tensor)->flops_per_s, 7.8e12);
  const auto a100 = RoofsForDevice(Named("NVIDIA A100-SXM4-80GB", 8, 0));
  EXPECT_EQ(ResolvePeak(a100, P::kFp16TensorHalfAcc)->path, P::kFp16Tensor);
  EXPECT_EQ(ResolvePeak(a100, P::kFp8Tensor)->path, P::kFp16Tensor);
  const auto rtx4090 = RoofsForDevice(Named("NVIDIA GeForce RTX 4090", 8, 9));
  // GeForce parts print a separate, faster FP16-accumulate figure: no fallback.
  EXPECT_EQ(ResolvePeak(rtx4090, P::kFp16TensorHalfAcc)->path, P::kFp16TensorHalfAcc);
  EXPECT_DOUBLE_EQ(ResolvePeak(rtx4090, P::kFp16TensorHalfAcc)->flops_per_s, 330.3e12);
  EXPECT_DOUBLE_EQ(ResolvePeak(rtx4090, P::kFp16Tensor)->flops_per_s, 165.2e12);
  const auto t4 = RoofsForDevice(Named("Tesla T4", 7, 5));
  EXPECT_EQ(ResolvePeak(t4, P::kBf16Tensor)->path, P::kFp32);
  const auto h100 = RoofsForDevice(Named("NVIDIA H100 80GB HBM3", 9, 0));
  EXPECT_EQ(ResolvePeak(h100, P::kFp4Tensor)->path, P::kFp8Tensor);
  const auto b200 = RoofsForDevice(Named("NVIDIA B200", 10, 0));
  EXPECT_EQ(ResolvePeak(b200, P::kFp4Tensor)->path, P::kFp4Tensor);
}

TEST(RuntimeAdjustments, MigInstanceScalesComputeRoofs) {
  DeviceProperties mig = Named("NVIDIA A100-SXM4-40GB MIG 3g.20gb", 8, 0);
  mig.sm_count = 42;
  mig.total_memory_bytes = 20ull << 30;
  const auto roofs = RoofsForDevice(mig);
  EXPECT_EQ(roofs.table_key, "a100-sxm4-40gb");  // the board's 40gb token, not the slice's 20gb
  // 19.5e12 x 42 / 108 = 7.5833e12, labelled computed
  EXPECT_NEAR(roofs.Flops(P::kFp32).nominal, 7.583333333e12, 1e3);
  EXPECT_EQ(roofs.Flops(P::kFp32).nominal_source, RoofSource::kComputed);
  EXPECT_EQ(roofs.sm_count, 42);
  EXPECT_DOUBLE_EQ(roofs.Bandwidth(MemoryLevel::kDram).nominal, 1555e9);
  ASSERT_FALSE(roofs.notes.empty());
  EXPECT_NE(roofs.notes.back().find("42 of 108"), std::string::npos);
}

TEST(RuntimeAdjustments, RuntimeL2AndMemoryWin) {
  DeviceProperties h200 = Named("NVIDIA H200", 9, 0);
  h200.sm_count = 132;
  h200.l2_bytes = 62'914'560;
  h200.total_memory_bytes = 150'754'820'096;
  const auto roofs = RoofsForDevice(h200);
  EXPECT_EQ(roofs.table_key, "h200-sxm");
  EXPECT_EQ(roofs.l2_bytes, 62'914'560u);
  EXPECT_EQ(roofs.memory_bytes, 150'754'820'096u);
  EXPECT_TRUE(roofs.notes.empty());
  EXPECT_DOUBLE_EQ(roofs.Flops(P::kBf16Tensor).nominal, 989.5e12);  // not scaled
}

}  // namespace
}  // namespace flopspy::gpuroof
