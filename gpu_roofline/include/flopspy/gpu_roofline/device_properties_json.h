// DeviceProperties to and from the JSON of a trace's "devices" metadata.
#pragma once

#include <nlohmann/json.hpp>

#include "flopspy/gpu_roofline/device_properties.h"

namespace flopspy::gpuroof {

nlohmann::json DevicePropertiesToJson(const DeviceProperties& props);
// Missing or mistyped fields keep their defaults (0, "").
DeviceProperties DevicePropertiesFromJson(const nlohmann::json& json);

}  // namespace flopspy::gpuroof
