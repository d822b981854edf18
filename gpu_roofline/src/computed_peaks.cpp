// Per-compute-capability operation rates and the computed-peak formula.
#include "flopspy/gpu_roofline/computed_peaks.h"

#include <cmath>
#include <string>
#include <vector>

#include "flopspy/gpu_roofline/device_table.h"

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
using analyzers::DeviceRoofs;
using analyzers::RoofSource;

// Multiply-adds per clock per SM, in ComputePath order after kUnknown:
//   fp64 fp32 fp16 bf16 | fp64_t tf32_t fp16_t fp16_t(f16acc) bf16_t fp8_t int8_t fp4_t
// CUDA-core rows follow the CUDA Programming Guide's arithmetic-throughput table; every row
// reproduces the dense datasheet figures of the parts named in `basis` (SMs x boost clock x
// rate x 2; tests/unit/gpu_roofline/computed_peaks_test.cpp checks each table entry).
struct Row {
  int major, minor;
  bool consumer;
  double r[12];
  const char* basis;
};

// clang-format off
constexpr Row kRows[] = {
  //  cc     consumer  fp64 fp32 fp16 bf16 | f64t tf32t  f16t f16t/h bf16t  fp8t int8t  fp4t
  { 6, 0, false, {  32,  64, 128,   0,     0,    0,    0,    0,    0,    0,    0,     0}, "CUDA guide, cc 6.0"},
  { 6, 1, false, {   4, 128,   2,   0,     0,    0,    0,    0,    0,    0,    0,     0}, "CUDA guide, cc 6.1"},
  { 7, 0, false, {  32,  64, 128,   0,     0,    0,  512,  512,    0,    0,    0,     0}, "V100"},
  { 7, 5, false, {   2,  64, 128,   0,     0,    0,  512,  512,    0,    0, 1024,     0}, "T4"},
  { 7, 5, true,  {   2,  64, 128,   0,     0,    0,  256,  512,    0,    0, 1024,     0}, "GeForce Turing"},
  { 8, 0, false, {  32,  64, 256, 128,    64,  512, 1024, 1024, 1024,    0, 2048,     0}, "A100"},
  { 8, 6, false, {   2, 128, 128, 128,     0,  256,  512,  512,  512,    0, 1024,     0}, "A10"},
  { 8, 6, true,  {   2, 128, 128, 128,     0,  128,  256,  512,  256,    0, 1024,     0}, "RTX 3090"},
  { 8, 9, false, {   2, 128, 128, 128,     0,  256,  512,  512,  512, 1024, 1024,     0}, "L4, L40S"},
  { 8, 9, true,  {   2, 128, 128, 128,     0,  128,  256,  512,  256,  512, 1024,     0}, "RTX 4090"},
  // Hopper tensor figures assume a clock below the boost clock (1830 of 1980 MHz on H100 SXM5).
  { 9, 0, false, {  64, 128, 256, 256,   128, 1024, 2048, 2048, 2048, 4096, 4096,     0}, "H100, H200"},
  // CUDA-core fp16/bf16 assumed as on Hopper (no published figure).
  {10, 0, false, {  64, 128, 256, 256,    64, 2048, 4096, 4096, 4096, 8192, 8192, 16384}, "B200"},
  // Third-party figures for the RTX PRO 5000 Blackwell; low confidence.
  {12, 0, false, {   2, 128, 128, 128,     0,  128,  256,  512,  256,  512, 1024,  2048}, "RTX Blackwell"},
};
// clang-format on

std::vector<ArchRates> BuildRates() {
  std::vector<ArchRates> out;
  for (const Row& row : kRows) {
    ArchRates rates;
    rates.cc_major = row.major;
    rates.cc_minor = row.minor;
    rates.consumer = row.consumer;
    for (int i = 0; i < 12; ++i) rates.fma_per_clk_per_sm[i + 1] = row.r[i];
    rates.basis = row.basis;
    out.push_back(rates);
  }
  return out;
}

const std::vector<ArchRates>& AllRates() {
  static const std::vector<ArchRates> rates = BuildRates();
  return rates;
}

}  // namespace

const ArchRates* FindArchRates(int cc_major, int cc_minor, bool consumer) {
  const ArchRates* best = nullptr;
  for (const ArchRates& r : AllRates()) {
    if (r.cc_major != cc_major || r.cc_minor > cc_minor) continue;
    // Prefer the highest minor version not above the one asked for, then the asked variant.
    if (best == nullptr || r.cc_minor > best->cc_minor ||
        (r.cc_minor == best->cc_minor && r.consumer == consumer && best->consumer != consumer)) {
      best = &r;
    }
  }
  return best;
}

bool IsConsumerName(std::string_view name) {
  for (const std::string& token : NameTokens(name)) {
    if (token == "geforce" || token == "titan") return true;
  }
  return false;
}

double PeakFromRate(int sm_count, double clock_mhz, double fma_per_clk_per_sm) {
  if (sm_count <= 0 || !(clock_mhz > 0) || !(fma_per_clk_per_sm > 0)) return 0;
  return static_cast<double>(sm_count) * clock_mhz * 1e6 * fma_per_clk_per_sm * 2.0;
}

double DramBandwidthFromClock(int memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return 0;
  return static_cast<double>(memory_clock_khz) * 1e3 * 2.0 * bus_width_bits / 8.0;
}

DeviceRoofs ComputedRoofs(const DeviceProperties& props) {
  DeviceRoofs roofs;
  roofs.name = props.name;
  roofs.cc_major = props.cc_major;
  roofs.cc_minor = props.cc_minor;
  roofs.sm_count = props.sm_count;
  roofs.boost_clock_mhz = props.clock_khz / 1000.0;
  roofs.l2_bytes = props.l2_bytes;
  roofs.memory_bytes = props.total_memory_bytes;
  roofs.notes.push_back("not in the device table: roofs computed from the device's properties");

  const ArchRates* rates =
      FindArchRates(props.cc_major, props.cc_minor, IsConsumerName(props.name));
  if (rates == nullptr) {
    roofs.notes.push_back("no operation rates known for compute capability " +
                          std::to_string(props.cc_major) + "." + std::to_string(props.cc_minor) +
                          ": compute roofs unknown");
  } else {
    if (rates->cc_minor != props.cc_minor) {
      roofs.notes.push_back("rates of compute capability " + std::to_string(rates->cc_major) + "." +
                            std::to_string(rates->cc_minor) + " assumed for " +
                            std::to_string(props.cc_major) + "." + std::to_string(props.cc_minor));
    }
    for (int i = 1; i < analyzers::kComputePathCount; ++i) {
      const double peak =
          PeakFromRate(props.sm_count, roofs.boost_clock_mhz, rates->fma_per_clk_per_sm[i]);
      if (peak > 0) roofs.flops[i] = {peak, RoofSource::kComputed, 0};
    }
  }
  const double dram = DramBandwidthFromClock(props.memory_clock_khz, props.memory_bus_width_bits);
  if (dram > 0) roofs.Bandwidth(analyzers::MemoryLevel::kDram) = {dram, RoofSource::kComputed, 0};
  return roofs;
}

}  // namespace flopspy::gpuroof
