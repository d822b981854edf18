#include "flopspy/gpu_roofline/device_properties_json.h"

namespace flopspy::gpuroof {
namespace {

template <class T>
void Read(const nlohmann::json& j, const char* key, T& out) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  if constexpr (std::is_same_v<T, std::string>) {
    if (it->is_string()) out = it->get<std::string>();
  } else {
    if (it->is_number()) out = it->get<T>();
  }
}

}  // namespace

nlohmann::json DevicePropertiesToJson(const DeviceProperties& p) {
  return {{"name", p.name},
          {"cc_major", p.cc_major},
          {"cc_minor", p.cc_minor},
          {"sm_count", p.sm_count},
          {"clock_khz", p.clock_khz},
          {"memory_clock_khz", p.memory_clock_khz},
          {"memory_bus_width_bits", p.memory_bus_width_bits},
          {"l2_bytes", p.l2_bytes},
          {"total_memory_bytes", p.total_memory_bytes},
          {"uuid", p.uuid},
          {"driver_version", p.driver_version}};
}

DeviceProperties DevicePropertiesFromJson(const nlohmann::json& j) {
  DeviceProperties p;
  if (!j.is_object()) return p;
  Read(j, "name", p.name);
  Read(j, "cc_major", p.cc_major);
  Read(j, "cc_minor", p.cc_minor);
  Read(j, "sm_count", p.sm_count);
  Read(j, "clock_khz", p.clock_khz);
  Read(j, "memory_clock_khz", p.memory_clock_khz);
  Read(j, "memory_bus_width_bits", p.memory_bus_width_bits);
  Read(j, "l2_bytes", p.l2_bytes);
  Read(j, "total_memory_bytes", p.total_memory_bytes);
  Read(j, "uuid", p.uuid);
  Read(j, "driver_version", p.driver_version);
  return p;
}

}  // namespace flopspy::gpuroof
