// Peaks computed from a GPU's properties when the device table has no entry for it:
//   peak FLOP/s = SMs x SM clock x multiply-adds per clock per SM x 2
//   DRAM bytes/s = memory clock x 2 (double data rate) x bus width / 8
// The per-compute-capability rates and where each comes from: docs/gpu-peaks.md.
#pragma once

#include <array>
#include <string_view>

#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/gpu_roofline/device_properties.h"

namespace flopspy::gpuroof {

// Dense multiply-adds (FMA; an int8 MAC for int8) per clock per SM on each compute path, for one
// compute capability. 0 = the path does not exist there.
struct ArchRates {
  int cc_major = 0;
  int cc_minor = 0;
  bool consumer = false;  // GeForce/TITAN: tensor paths with FP32 accumulate at half rate
  std::array<double, analyzers::kComputePathCount> fma_per_clk_per_sm{};
  std::string_view basis;  // which parts' published figures the rates reproduce
};

// The rates for a compute capability: the exact row (preferring the consumer or data-centre
// variant as asked), else the nearest lower minor version of the same major. nullptr if none.
const ArchRates* FindArchRates(int cc_major, int cc_minor, bool consumer);

// GeForce and TITAN parts (by name) get the consumer tensor rates.
bool IsConsumerName(std::string_view name);

// SMs x clock (MHz) x multiply-adds per clock per SM x 2 FLOPs per multiply-add.
double PeakFromRate(int sm_count, double clock_mhz, double fma_per_clk_per_sm);

// Memory clock (kHz, as CUDA reports it) x 2 x bus width / 8. 0 when either input is not positive.
double DramBandwidthFromClock(int memory_clock_khz, int bus_width_bits);

// Roofs for a GPU the table does not know: every figure labelled computed.
analyzers::DeviceRoofs ComputedRoofs(const DeviceProperties& props);

}  // namespace flopspy::gpuroof
