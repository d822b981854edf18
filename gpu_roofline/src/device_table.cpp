// The device peak table. Every figure is dense and comes from the part's datasheet or
// architecture whitepaper; where the datasheet prints only a sparse figure (marked with an
// asterisk there) the value here is half of it. docs/gpu-peaks.md gives the source of each number.
#include "flopspy/gpu_roofline/device_table.h"

#include <utility>
#include <vector>

namespace flopspy::gpuroof {
namespace {

using P = analyzers::ComputePath;

constexpr double kT = 1e12;  // tera
constexpr double kG = 1e9;   // giga
constexpr uint64_t kMebibyte = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// Fills one entry; the chained setters keep each entry readable as a datasheet column.
class Spec {
 public:
  Spec(std::string key, std::string name) {
    s_.key = std::move(key);
    s_.name = std::move(name);
  }
  Spec& Require(std::vector<std::string> t) {
    s_.require_tokens = std::move(t);
    return *this;
  }
  Spec& Forbid(std::vector<std::string> t) {
    s_.forbid_tokens = std::move(t);
    return *this;
  }
  Spec& MemoryGb(double lo, double hi) {
    s_.min_memory_gb = lo;
    s_.max_memory_gb = hi;
    return *this;
  }
  Spec& Cc(int major, int minor) {
    s_.cc_major = major;
    s_.cc_minor = minor;
    return *this;
  }
  Spec& Sms(int n) {
    s_.sm_count = n;
    return *this;
  }
  Spec& BoostMhz(double mhz) {
    s_.boost_clock_mhz = mhz;
    return *this;
  }
  Spec& Consumer() {
    s_.consumer = true;
    return *this;
  }
  Spec& L2(uint64_t bytes) {
    s_.l2_bytes = bytes;
    return *this;
  }
  Spec& Memory(uint64_t bytes) {
    s_.memory_bytes = bytes;
    return *this;
  }
  Spec& Dram(double bytes_per_s) {
    s_.dram_bytes_per_s = bytes_per_s;
    return *this;
  }
  Spec& L2BytesPerClk(double b) {
    s_.l2_bytes_per_clk = b;
    return *this;
  }
  Spec& Peak(P path, double flops) {
    s_.peak[static_cast<size_t>(path)] = flops;
    return *this;
  }
  DeviceSpec Build() const { return s_; }

 private:
  DeviceSpec s_;
};

// A100: the four boards share the GA100 peaks; they differ in memory and bandwidth.
Spec& A100Peaks(Spec& s) {
  return s.Cc(8, 0)
      .Sms(108)
      .BoostMhz(1410)
      .L2(40 * kMebibyte)
      .L2BytesPerClk(5120)
      .Peak(P::kFp64, 9.7 * kT)
      .Peak(P::kFp64Tensor, 19.5 * kT)
      .Peak(P::kFp32, 19.5 * kT)
      .Peak(P::kFp16, 78 * kT)
      .Peak(P::kBf16, 39 * kT)
      .Peak(P::kTf32Tensor, 156 * kT)   // 312* sparse
      .Peak(P::kFp16Tensor, 312 * kT)   // 624*
      .Peak(P::kBf16Tensor, 312 * kT)   // 624*
      .Peak(P::kInt8Tensor, 624 * kT);  // 1248*
}

// H100 SXM5 and H200 SXM share the GH100 SXM peaks.
Spec& HopperSxmPeaks(Spec& s) {
  return s.Cc(9, 0)
      .Sms(132)
      .BoostMhz(1980)
      .Peak(P::kFp64, 34 * kT)
      .Peak(P::kFp64Tensor, 67 * kT)
      .Peak(P::kFp32, 67 * kT)
      .Peak(P::kFp16, 133.8 * kT)  // whitepaper, non-tensor
      .Peak(P::kBf16, 133.8 * kT)
      .Peak(P::kTf32Tensor, 494.5 * kT)  // 989*
      .Peak(P::kFp16Tensor, 989.5 * kT)  // 1,979*
      .Peak(P::kBf16Tensor, 989.5 * kT)  // 1,979*
      .Peak(P::kFp8Tensor, 1979 * kT)    // 3,958*
      .Peak(P::kInt8Tensor, 1979 * kT);  // 3,958*
}

std::vector<DeviceSpec> Build() {
  std::vector<DeviceSpec> t;

  t.push_back(Spec("t4", "NVIDIA T4")
                  .Require({"t4"})
                  .Cc(7, 5)
                  .Sms(40)
                  .BoostMhz(1590)
                  .L2(4 * kMebibyte)
                  .Memory(16 * kGiB)
                  .Dram(320 * kG)
                  .Peak(P::kFp32, 8.1 * kT)
                  .Peak(P::kFp16Tensor, 65 * kT)  // "mixed precision (FP16/FP32)"
                  .Peak(P::kInt8Tensor, 130 * kT)
                  .Build());

  t.push_back(Spec("v100-sxm2", "NVIDIA V100 SXM2")
                  .Require({"v100"})
                  .Forbid({"pcie", "sxm3", "fhhl"})
                  .Cc(7, 0)
                  .Sms(80)
                  .BoostMhz(1530)
                  .L2(6 * kMebibyte)
                  .L2BytesPerClk(2048)
                  .Dram(900 * kG)
                  .Peak(P::kFp64, 7.8 * kT)
                  .Peak(P::kFp32, 15.7 * kT)
                  .Peak(P::kFp16Tensor, 125 * kT)
                  .Build());

  t.push_back(Spec("v100-pcie", "NVIDIA V100 PCIe")
                  .Require({"v100"})
                  .Forbid({"sxm2", "sxm3", "fhhl"})
                  .Cc(7, 0)
                  .Sms(80)
                  .BoostMhz(1380)
                  .L2(6 * kMebibyte)
                  .L2BytesPerClk(2048)
                  .Dram(900 * kG)
                  .Peak(P::kFp64, 7 * kT)
                  .Peak(P::kFp32, 14 * kT)
                  .Peak(P::kFp16Tensor, 112 * kT)
                  .Build());

  t.push_back(Spec("a10", "NVIDIA A10")
                  .Require({"a10"})
                  .Cc(8, 6)
                  .Sms(72)
                  .BoostMhz(1695)
                  .L2(6 * kMebibyte)
                  .Memory(24 * kGiB)
                  .Dram(600 * kG)
                  .Peak(P::kFp32, 31.2 * kT)
                  .Peak(P::kTf32Tensor, 62.5 * kT)  // 125*
                  .Peak(P::kFp16Tensor, 125 * kT)   // 250*
                  .Peak(P::kBf16Tensor, 125 * kT)   // 250*
                  .Peak(P::kInt8Tensor, 250 * kT)   // 500*
                  .Build());

  // Runtime names: "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe",
  // "NVIDIA A100-PCIE-40GB". When the memory size is unknown the 80 GB entry comes first.
  {
    Spec s("a100-sxm4-80gb", "NVIDIA A100 80GB SXM4");
    s.Require({"a100"}).Forbid({"pcie"}).MemoryGb(60, 0);
    t.push_back(A100Peaks(s).Memory(80 * kGiB).Dram(2039 * kG).Build());
  }
  {
    Spec s("a100-sxm4-40gb", "NVIDIA A100 40GB SXM4");
    s.Require({"a100"}).Forbid({"pcie"}).MemoryGb(0, 60);
    t.push_back(A100Peaks(s).Memory(40 * kGiB).Dram(1555 * kG).Build());
  }
  {
    Spec s("a100-pcie-80gb", "NVIDIA A100 80GB PCIe");
    s.Require({"a100"}).Forbid({"sxm4", "sxm"}).MemoryGb(60, 0);
    t.push_back(A100Peaks(s).Memory(80 * kGiB).Dram(1935 * kG).Build());
  }
  {
    Spec s("a100-pcie-40gb", "NVIDIA A100 40GB PCIe");
    s.Require({"a100"}).Forbid({"sxm4", "sxm"}).MemoryGb(0, 60);
    t.push_back(A100Peaks(s).Memory(40 * kGiB).Dram(1555 * kG).Build());
  }

  t.push_back(Spec("l4", "NVIDIA L4")
                  .Require({"l4"})
                  .Cc(8, 9)
                  .Sms(58)
                  .BoostMhz(2040)
                  .L2(48 * kMebibyte)
                  .Memory(24 * kGiB)
                  .Dram(300 * kG)
                  .Peak(P::kFp32, 30.3 * kT)
                  .Peak(P::kTf32Tensor, 60 * kT)     // 120*
                  .Peak(P::kFp16Tensor, 121 * kT)    // 242*
                  .Peak(P::kBf16Tensor, 121 * kT)    // 242*
                  .Peak(P::kFp8Tensor, 242.5 * kT)   // 485*
                  .Peak(P::kInt8Tensor, 242.5 * kT)  // 485*
                  .Build());

  t.push_back(Spec("l40s", "NVIDIA L40S")
                  .Require({"l40s"})
                  .Cc(8, 9)
                  .Sms(142)
                  .BoostMhz(2520)
                  .L2(48 * kMebibyte)
                  .Memory(48 * kGiB)
                  .Dram(864 * kG)
                  .Peak(P::kFp32, 91.6 * kT)
                  .Peak(P::kTf32Tensor, 183 * kT)     // 183 | 366*
                  .Peak(P::kFp16Tensor, 362.05 * kT)  // 362.05 | 733*
                  .Peak(P::kBf16Tensor, 362.05 * kT)  // 362.05 | 733*
                  .Peak(P::kFp8Tensor, 733 * kT)      // 733 | 1,466*
                  .Peak(P::kInt8Tensor, 733 * kT)     // 733 | 1,466*
                  .Build());

  // "NVIDIA H100 80GB HBM3" is the SXM5 board; "NVIDIA H100 PCIe" the PCIe card. The H100 NVL
  // ("NVIDIA H100 NVL") has no entry and gets computed roofs.
  {
    Spec s("h100-sxm5", "NVIDIA H100 SXM5 80GB");
    s.Require({"h100"}).Forbid({"pcie", "nvl"});
    t.push_back(HopperSxmPeaks(s).L2(50 * kMebibyte).Memory(80 * kGiB).Dram(3350 * kG).Build());
  }
  t.push_back(Spec("h100-pcie", "NVIDIA H100 PCIe 80GB")
                  .Require({"h100"})
                  .Forbid({"nvl", "sxm5", "sxm", "hbm3"})
                  .Cc(9, 0)
                  .Sms(114)
                  .BoostMhz(1755)
                  .L2(50 * kMebibyte)
                  .Memory(80 * kGiB)
                  .Dram(2000 * kG)
                  .Peak(P::kFp64, 26 * kT)
                  .Peak(P::kFp64Tensor, 51 * kT)
                  .Peak(P::kFp32, 51 * kT)
                  .Peak(P::kTf32Tensor, 378 * kT)    // 756*
                  .Peak(P::kFp16Tensor, 756.5 * kT)  // 1,513*
                  .Peak(P::kBf16Tensor, 756.5 * kT)  // 1,513*
                  .Peak(P::kFp8Tensor, 1513 * kT)    // 3,026*
                  .Peak(P::kInt8Tensor, 1513 * kT)   // 3,026*
                  .Build());

  // "NVIDIA H200" is the SXM board; "NVIDIA H200 NVL" the PCIe card with a lower power limit.
  {
    Spec s("h200-sxm", "NVIDIA H200 SXM 141GB");
    s.Require({"h200"}).Forbid({"nvl"});
    t.push_back(HopperSxmPeaks(s).L2(60 * kMebibyte).Memory(141 * kGiB).Dram(4800 * kG).Build());
  }
  t.push_back(Spec("h200-nvl", "NVIDIA H200 NVL 141GB")
                  .Require({"h200", "nvl"})
                  .Cc(9, 0)
                  .Sms(132)
                  .BoostMhz(1776)  // derived: 60 TFLOP/s FP32 / (132 SMs x 256 FLOP/clk)
                  .L2(60 * kMebibyte)
                  .Memory(141 * kGiB)
                  .Dram(4800 * kG)
                  .Peak(P::kFp64, 30 * kT)
                  .Peak(P::kFp64Tensor, 60 * kT)
                  .Peak(P::kFp32, 60 * kT)
                  .Peak(P::kTf32Tensor, 417.5 * kT)   // 835*
                  .Peak(P::kFp16Tensor, 835.5 * kT)   // 1,671*
                  .Peak(P::kBf16Tensor, 835.5 * kT)   // 1,671*
                  .Peak(P::kFp8Tensor, 1670.5 * kT)   // 3,341*
                  .Peak(P::kInt8Tensor, 1670.5 * kT)  // 3,341*
                  .Build());

  t.push_back(Spec("b200", "NVIDIA B200 (HGX, 1000 W)")
                  .Require({"b200"})
                  .Cc(10, 0)
                  .Sms(148)
                  .BoostMhz(1980)  // derived: 75 TFLOP/s FP32 / (148 SMs x 256 FLOP/clk)
                  .Memory(180 * kGiB)
                  .Dram(7700 * kG)
                  .Peak(P::kFp64, 37 * kT)
                  .Peak(P::kFp64Tensor, 37 * kT)
                  .Peak(P::kFp32, 75 * kT)
                  .Peak(P::kTf32Tensor, 1100 * kT)  // 2.2 PF*
                  .Peak(P::kFp16Tensor, 2250 * kT)  // 4.5 PF*
                  .Peak(P::kBf16Tensor, 2250 * kT)  // 4.5 PF*
                  .Peak(P::kFp8Tensor, 4500 * kT)   // 9 PF*
                  .Peak(P::kInt8Tensor, 4500 * kT)  // 9 POPS*
                  .Peak(P::kFp4Tensor, 9000 * kT)   // 18 PF*
                  .Build());

  t.push_back(Spec("rtx-3090", "NVIDIA GeForce RTX 3090")
                  .Require({"rtx", "3090"})
                  .Forbid({"ti", "laptop", "mobile"})
                  .Cc(8, 6)
                  .Sms(82)
                  .BoostMhz(1695)
                  .Consumer()
                  .L2(6 * kMebibyte)
                  .Memory(24 * kGiB)
                  .Dram(936 * kG)
                  .Peak(P::kFp32, 35.6 * kT)
                  .Peak(P::kTf32Tensor, 35.6 * kT)        // 71*
                  .Peak(P::kFp16Tensor, 71 * kT)          // FP32 accumulate, 142*
                  .Peak(P::kFp16TensorHalfAcc, 142 * kT)  // FP16 accumulate, 284*
                  .Peak(P::kBf16Tensor, 71 * kT)          // 142*
                  .Peak(P::kInt8Tensor, 284 * kT)         // 568*
                  .Build());

  t.push_back(Spec("rtx-4090", "NVIDIA GeForce RTX 4090")
                  .Require({"rtx", "4090"})
                  .Forbid({"ti", "d", "laptop", "mobile"})
                  .Cc(8, 9)
                  .Sms(128)
                  .BoostMhz(2520)
                  .Consumer()
                  .L2(72 * kMebibyte)
                  .Memory(24 * kGiB)
                  .Dram(1008 * kG)
                  .Peak(P::kFp32, 82.6 * kT)
                  .Peak(P::kTf32Tensor, 82.6 * kT)          // 165.2*
                  .Peak(P::kFp16Tensor, 165.2 * kT)         // FP32 accumulate, 330.4*
                  .Peak(P::kFp16TensorHalfAcc, 330.3 * kT)  // FP16 accumulate, 660.6*
                  .Peak(P::kBf16Tensor, 165.2 * kT)         // 330.4*
                  .Peak(P::kFp8Tensor, 330.3 * kT)          // FP32 accumulate (whitepaper v2.02)
                  .Peak(P::kInt8Tensor, 660.6 * kT)         // 1321.2*
                  .Build());
  return t;
}

}  // namespace

std::span<const DeviceSpec> KnownDevices() {
  static const std::vector<DeviceSpec> table = Build();
  return table;
}

const DeviceSpec* FindKnownDeviceByKey(std::string_view key) {
  for (const DeviceSpec& spec : KnownDevices()) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

}  // namespace flopspy::gpuroof
