#include "flopspy/gpu_roofline/device_properties_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace flopspy::gpuroof {
namespace {

// A JSON number as T when T holds it. The metadata comes from a trace file, and converting a
// double outside T's range (1e300 as an int) is undefined behaviour: such a value is ignored.
template <class T>
bool NumberAs(const nlohmann::json& v, T& out) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
    out = static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < 0 && !std::is_signed_v<T>) return false;
    if (i > 0 && static_cast<uint64_t>(i) > static_cast<uint64_t>(std::numeric_limits<T>::max()))
      return false;
    if constexpr (std::is_signed_v<T>) {
      if (i < static_cast<int64_t>(std::numeric_limits<T>::min())) return false;
    }
    out = static_cast<T>(i);
  } else if (v.is_number_float()) {
    // Both bounds exact as doubles: min is 0 or -2^(bits-1), max + 1 is 2^bits or 2^(bits-1).
    const double d = std::trunc(v.get<double>());
    const double max_plus_one = 2.0 * static_cast<double>(std::numeric_limits<T>::max() / 2 + 1);
    if (!(d >= static_cast<double>(std::numeric_limits<T>::min()) && d < max_plus_one))
      return false;
    out = static_cast<T>(d);
  } else {
    return false;
  }
  return true;
}

template <class T>
void Read(const nlohmann::json& j, const char* key, T& out) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  if constexpr (std::is_same_v<T, std::string>) {
    if (it->is_string()) out = it->get<std::string>();
  } else {
    NumberAs(*it, out);
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
