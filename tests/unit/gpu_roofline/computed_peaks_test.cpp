// The computed-peak formula, the per-compute-capability rates, and their agreement with every
// datasheet figure in the table.
#include "flopspy/gpu_roofline/computed_peaks.h"

#include <gtest/gtest.h>

#include "flopspy/gpu_roofline/device_table.h"

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
using analyzers::ComputePathName;
using analyzers::MemoryLevel;
using analyzers::RoofSource;
using P = ComputePath;

TEST(ComputedPeaks, A100Fp32FromTheFormula) {
  // 108 SMs x 1410 MHz x 64 FP32 lanes x 2 FLOP per FMA = 19.49 TFLOP/s (datasheet: 19.5).
  EXPECT_DOUBLE_EQ(PeakFromRate(108, 1410, 64), 19.49184e12);
  EXPECT_NEAR(PeakFromRate(108, 1410, 64), 19.5e12, 0.01e12);
  const ArchRates* ampere = FindArchRates(8, 0, false);
  ASSERT_NE(ampere, nullptr);
  EXPECT_DOUBLE_EQ(ampere->fma_per_clk_per_sm[static_cast<size_t>(P::kFp32)], 64);
  EXPECT_EQ(PeakFromRate(0, 1410, 64), 0);
  EXPECT_EQ(PeakFromRate(108, 0, 64), 0);
}

TEST(ComputedPeaks, DramBandwidthFromMemoryClockAndBus) {
  // A100 40 GB reports 1215 MHz and 5120 bits: 1215e6 x 2 x 640 B = 1555.2 GB/s.
  EXPECT_DOUBLE_EQ(DramBandwidthFromClock(1'215'000, 5120), 1555.2e9);
  // A100 80 GB: 1593 MHz -> 1593e6 x 2 x 640 = 2039.04 GB/s.
  EXPECT_DOUBLE_EQ(DramBandwidthFromClock(1'593'000, 5120), 2039.04e9);
  // T4: 5001 MHz (GDDR6 as CUDA reports it) x 2 x 256 / 8 = 320.064 GB/s.
  EXPECT_DOUBLE_EQ(DramBandwidthFromClock(5'001'000, 256), 320.064e9);
  EXPECT_EQ(DramBandwidthFromClock(0, 256), 0);
}

// Every datasheet figure in the table against SMs x boost x per-CC rate x 2. A wrong rate is
// off by a factor of two or more; NVIDIA's Hopper and Blackwell tensor figures assume a clock
// 7-15% under the boost clock, hence the band.
TEST(ComputedPeaks, RatesReproduceEveryDatasheetFigure) {
  for (const DeviceSpec& spec : KnownDevices()) {
    const ArchRates* rates = FindArchRates(spec.cc_major, spec.cc_minor, spec.consumer);
    ASSERT_NE(rates, nullptr) << spec.key;
    EXPECT_EQ(rates->cc_minor, spec.cc_minor) << spec.key;
    for (int i = 1; i < analyzers::kComputePathCount; ++i) {
      if (spec.peak[i] <= 0) continue;
      const double computed =
          PeakFromRate(spec.sm_count, spec.boost_clock_mhz, rates->fma_per_clk_per_sm[i]);
      const double ratio = computed / spec.peak[i];
      EXPECT_GE(ratio, 0.97) << spec.key << " " << ComputePathName(static_cast<P>(i));
      EXPECT_LE(ratio, 1.16) << spec.key << " " << ComputePathName(static_cast<P>(i));
    }
  }
}

TEST(ArchRates, Lookup) {
  EXPECT_EQ(FindArchRates(8, 6, true)->consumer, true);
  EXPECT_EQ(FindArchRates(8, 6, false)->consumer, false);
  EXPECT_EQ(FindArchRates(8, 0, true)->cc_minor, 0);   // only a data-centre row: used
  EXPECT_EQ(FindArchRates(8, 7, false)->cc_minor, 6);  // Orin: nearest lower minor
  EXPECT_EQ(FindArchRates(10, 3, false)->cc_minor, 0);
  EXPECT_EQ(FindArchRates(11, 0, false), nullptr);
  EXPECT_EQ(FindArchRates(5, 2, false), nullptr);
}

TEST(ArchRates, ConsumerNames) {
  EXPECT_TRUE(IsConsumerName("NVIDIA GeForce RTX 4080"));
  EXPECT_TRUE(IsConsumerName("NVIDIA TITAN RTX"));
  EXPECT_FALSE(IsConsumerName("NVIDIA RTX A6000"));
  EXPECT_FALSE(IsConsumerName("NVIDIA L40"));
}

TEST(ComputedRoofs, UnknownDataCentrePart) {
  // An A800 (CC 8.0, not in the table): 108 SMs at 1410 MHz, 1593 MHz x 5120-bit HBM2e.
  DeviceProperties props;
  props.name = "NVIDIA A800-SXM4-80GB";
  props.cc_major = 8;
  props.cc_minor = 0;
  props.sm_count = 108;
  props.clock_khz = 1'410'000;
  props.memory_clock_khz = 1'593'000;
  props.memory_bus_width_bits = 5120;
  props.l2_bytes = 40 << 20;
  ASSERT_EQ(FindKnownDevice(props), nullptr);
  const auto roofs = RoofsForDevice(props);
  EXPECT_TRUE(roofs.table_key.empty());
  EXPECT_EQ(roofs.name, "NVIDIA A800-SXM4-80GB");
  EXPECT_EQ(roofs.Flops(P::kFp32).nominal_source, RoofSource::kComputed);
  EXPECT_DOUBLE_EQ(roofs.Flops(P::kFp32).nominal, 19.49184e12);  // 108 x 1410e6 x 64 x 2
  // 108 x 1410e6 x 1024 x 2 = 311.87 TFLOP/s on BF16 tensor cores
  EXPECT_DOUBLE_EQ(roofs.Flops(P::kBf16Tensor).nominal, 311.86944e12);
  EXPECT_EQ(roofs.Flops(P::kFp8Tensor).nominal, 0);  // no FP8 on Ampere
  EXPECT_DOUBLE_EQ(roofs.Bandwidth(MemoryLevel::kDram).nominal, 2039.04e9);
  EXPECT_EQ(roofs.Bandwidth(MemoryLevel::kDram).nominal_source, RoofSource::kComputed);
  EXPECT_EQ(roofs.l2_bytes, 40u << 20);
  EXPECT_FALSE(roofs.notes.empty());
}

TEST(ComputedRoofs, UnknownGeForcePartGetsConsumerTensorRates) {
  // RTX 4080: 76 SMs at 2505 MHz. FP16 tensor with FP32 accumulate at the GeForce half rate:
  // 76 x 2505e6 x 256 x 2 = 97.47 TFLOP/s (the Ada whitepaper prints 97.5).
  DeviceProperties props;
  props.name = "NVIDIA GeForce RTX 4080";
  props.cc_major = 8;
  props.cc_minor = 9;
  props.sm_count = 76;
  props.clock_khz = 2'505'000;
  const auto roofs = ComputedRoofs(props);
  EXPECT_DOUBLE_EQ(roofs.Flops(P::kFp16Tensor).nominal, 97.47456e12);
  EXPECT_DOUBLE_EQ(roofs.Flops(P::kFp16TensorHalfAcc).nominal, 2 * 97.47456e12);
  EXPECT_FALSE(roofs.Bandwidth(MemoryLevel::kDram).Available());  // no memory clock given
}

TEST(ComputedRoofs, AssumedRatesAreNoted) {
  DeviceProperties props;
  props.name = "NVIDIA B300";
  props.cc_major = 10;
  props.cc_minor = 3;
  props.sm_count = 148;
  props.clock_khz = 1'900'000;
  const auto roofs = ComputedRoofs(props);
  EXPECT_GT(roofs.Flops(P::kFp4Tensor).nominal, 0);
  bool noted = false;
  for (const auto& n : roofs.notes) noted |= n.find("10.0 assumed for 10.3") != std::string::npos;
  EXPECT_TRUE(noted);

  props.cc_major = 42;
  const auto none = ComputedRoofs(props);
  EXPECT_FALSE(none.Flops(P::kFp32).Available());
}

}  // namespace
}  // namespace flopspy::gpuroof
