// The device peak table: datasheet figures of the GPUs flopspy users run on, and matching of a
// runtime device to an entry. docs/gpu-peaks.md gives the source of every number.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/gpu_roofline/device_properties.h"

namespace flopspy::gpuroof {

struct DeviceSpec {
  std::string key;   // stable id: "h100-sxm5"
  std::string name;  // "NVIDIA H100 SXM5 80GB"

  // Matching against the tokens of the runtime name (NameTokens): all require_tokens present,
  // no forbid_tokens; among several candidates the one with the runtime's SM count wins, then
  // the first in table order.
  std::vector<std::string> require_tokens;
  std::vector<std::string> forbid_tokens;
  double min_memory_gb = 0;  // bounds on the memory size in decimal GB; 0 = none
  double max_memory_gb = 0;

  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  double boost_clock_mhz = 0;
  bool consumer = false;
  uint64_t l2_bytes = 0;      // 0 = unknown
  uint64_t memory_bytes = 0;  // 0 = several sizes share the entry
  double dram_bytes_per_s = 0;
  double l2_bytes_per_clk = 0;  // published L2 read bytes per clock; 0 = unpublished
  // Dense peaks as printed by the datasheet or whitepaper (sparse figures halved); 0 = not
  // printed. CUDA-core gaps are filled by the formula (labelled computed) in RoofsFromSpec.
  std::array<double, analyzers::kComputePathCount> peak{};
};

std::span<const DeviceSpec> KnownDevices();
const DeviceSpec* FindKnownDeviceByKey(std::string_view key);

// Lower-cased alphanumeric runs of a device name: "NVIDIA A100-SXM4-80GB" -> nvidia a100 sxm4 80gb.
std::vector<std::string> NameTokens(std::string_view name);

// The table entry for a runtime device, or nullptr (docs/gpu-peaks.md, "Matching").
const DeviceSpec* FindKnownDevice(const DeviceProperties& props);

// The roofs of a table entry: datasheet figures, CUDA-core gaps computed from the entry's SMs and
// boost clock, the L2 roof computed from published bytes per clock.
analyzers::DeviceRoofs RoofsFromSpec(const DeviceSpec& spec);

// The roofs of a runtime device: its table entry adjusted to what the runtime reports (L2 and
// memory size; compute roofs scaled to the SMs present for a MIG instance), else ComputedRoofs.
analyzers::DeviceRoofs RoofsForDevice(const DeviceProperties& props);

}  // namespace flopspy::gpuroof
