// The measured-ceilings file: JSON reading, writing and merging into DeviceRoofs.
#include "flopspy/gpu_roofline/ceilings.h"

#include <cmath>
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
using analyzers::MemoryLevel;
using nlohmann::json;

std::string StringField(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<MemoryLevel> MemoryLevelFromName(std::string_view name) {
  for (size_t i = 0; i < analyzers::kMemoryLevelCount; ++i) {
    const auto level = static_cast<MemoryLevel>(i);
    if (analyzers::MemoryLevelName(level) == name) return level;
  }
  return std::nullopt;
}

// One {"<name>": {"value": <number>, "method": "..."}} map; bad entries become warnings.
template <class Key, class FromName>
void ReadValues(const json& device, const char* section, const std::string& where,
                FromName from_name, std::map<Key, MeasuredValue>& out,
                std::vector<std::string>& warnings) {
  const auto it = device.find(section);
  if (it == device.end()) return;
  if (!it->is_object()) {
    warnings.push_back(where + ": \"" + section + "\" is not an object; skipped");
    return;
  }
  for (const auto& [name, entry] : it->items()) {
    const auto key = from_name(name);
    if (!key) {
      warnings.push_back(where + ": unknown " + section + " name \"" + name + "\"; skipped");
      continue;
    }
    const json* value = nullptr;
    std::string method;
    if (entry.is_object()) {
      const auto v = entry.find("value");
      if (v != entry.end()) value = &*v;
      method = StringField(entry, "method");
    } else {
      value = &entry;  // a bare number is accepted too
    }
    if (value == nullptr || !value->is_number() || !std::isfinite(value->get<double>()) ||
        value->get<double>() <= 0) {
      warnings.push_back(where + ": " + section + "." + name +
                         " has no positive finite value; skipped");
      continue;
    }
    out[*key] = MeasuredValue{value->get<double>(), method};
  }
}

CeilingsLoad Fail(std::string error) {
  CeilingsLoad out;
  out.error = std::move(error);
  return out;
}

CeilingsLoad ParseJson(const json& root) {
  if (!root.is_object()) return Fail("the top level is not a JSON object");
  if (StringField(root, "format") != kCeilingsFormat) {
    return Fail("not a flopspy GPU ceilings file (\"format\" is not \"" +
                std::string(kCeilingsFormat) + "\")");
  }
  const auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer()) {
    return Fail("\"version\" is missing or not an integer");
  }
  if (version->get<int64_t>() != kCeilingsVersion) {
    return Fail("version " + std::to_string(version->get<int64_t>()) +
                " is not readable by this flopspy (reads version " +
                std::to_string(kCeilingsVersion) + ")");
  }
  const auto devices = root.find("devices");
  if (devices == root.end() || !devices->is_array()) return Fail("\"devices\" is not an array");

  CeilingsLoad out;
  CeilingsFile file;
  size_t index = 0;
  for (const json& device : *devices) {
    const std::string where = "devices[" + std::to_string(index++) + "]";
    if (!device.is_object()) {
      out.warnings.push_back(where + " is not an object; skipped");
      continue;
    }
    MeasuredCeilings c;
    c.uuid = StringField(device, "uuid");
    c.driver_version = StringField(device, "driver_version");
    if (c.uuid.empty() || c.driver_version.empty()) {
      out.warnings.push_back(where + " lacks \"uuid\" or \"driver_version\"; skipped");
      continue;
    }
    c.name = StringField(device, "name");
    c.measured_at = StringField(device, "measured_at");
    c.tool = StringField(device, "tool");
    if (const auto clk = device.find("sm_clock_mhz"); clk != device.end() && clk->is_number()) {
      c.sm_clock_mhz = clk->get<double>();
    }
    ReadValues<ComputePath>(device, "flops", where, analyzers::ComputePathFromName, c.flops,
                            out.warnings);
    ReadValues<MemoryLevel>(device, "bandwidth", where, MemoryLevelFromName, c.bandwidth,
                            out.warnings);
    c.flops.erase(ComputePath::kUnknown);
    file.devices.push_back(std::move(c));
  }
  out.file = std::move(file);
  return out;
}

json ToJson(const MeasuredValue& v) {
  json j = {{"value", v.value}};
  if (!v.method.empty()) j["method"] = v.method;
  return j;
}

}  // namespace

CeilingsLoad ParseCeilings(std::string_view json_text) {
  // nlohmann::json reports errors by exception; none may leave this library.
  try {
    const json root = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
    if (root.is_discarded()) return Fail("not valid JSON");
    return ParseJson(root);
  } catch (const std::exception& e) {
    return Fail(std::string("unreadable: ") + e.what());
  }
}

CeilingsLoad LoadCeilingsFile(const std::string& path) {
  std::string text, error;
  if (!platform::ReadRegularFile(path, platform::kMaxSettingsFileBytes, &text, &error)) {
    return Fail(error);
  }
  CeilingsLoad out = ParseCeilings(text);
  if (!out.error.empty()) out.error = path + ": " + out.error;
  return out;
}

std::string SerializeCeilings(const CeilingsFile& file) {
  json devices = json::array();
  for (const MeasuredCeilings& c : file.devices) {
    json d = {{"uuid", c.uuid}, {"driver_version", c.driver_version}};
    if (!c.name.empty()) d["name"] = c.name;
    if (!c.measured_at.empty()) d["measured_at"] = c.measured_at;
    if (!c.tool.empty()) d["tool"] = c.tool;
    if (c.sm_clock_mhz > 0) d["sm_clock_mhz"] = c.sm_clock_mhz;
    json flops = json::object();
    for (const auto& [path, v] : c.flops) flops[std::string(ComputePathName(path))] = ToJson(v);
    json bandwidth = json::object();
    for (const auto& [level, v] : c.bandwidth) {
      bandwidth[std::string(MemoryLevelName(level))] = ToJson(v);
    }
    d["flops"] = std::move(flops);
    d["bandwidth"] = std::move(bandwidth);
    devices.push_back(std::move(d));
  }
  const json root = {
      {"format", kCeilingsFormat}, {"version", kCeilingsVersion}, {"devices", std::move(devices)}};
  // Replace rather than throw on text that is not UTF-8 (a device name read from a driver).
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

bool SaveCeilingsFile(const std::string& path, const CeilingsFile& file,
                      platform::Destination destination, std::string* error) {
  std::string text;
  try {
    text = SerializeCeilings(file);
  } catch (const std::exception& e) {
    if (error != nullptr) *error = std::string("cannot serialise ceilings: ") + e.what();
    return false;
  }
  return platform::SaveFile(path, text, destination, error);
}

void UpsertCeilings(CeilingsFile& file, MeasuredCeilings entry) {
  for (MeasuredCeilings& c : file.devices) {
    if (c.uuid == entry.uuid && c.driver_version == entry.driver_version) {
      c = std::move(entry);
      return;
    }
  }
  file.devices.push_back(std::move(entry));
}

const MeasuredCeilings* FindCeilings(const CeilingsFile& file, std::string_view uuid,
                                     std::string_view driver_version) {
  for (const MeasuredCeilings& c : file.devices) {
    if (c.uuid == uuid && c.driver_version == driver_version) return &c;
  }
  return nullptr;
}

const MeasuredCeilings* FindCeilingsAnyDriver(const CeilingsFile& file, std::string_view uuid) {
  const MeasuredCeilings* last = nullptr;
  for (const MeasuredCeilings& c : file.devices) {
    if (c.uuid == uuid) last = &c;
  }
  return last;
}

int MergeMeasuredCeilings(analyzers::DeviceRoofs& roofs, const MeasuredCeilings& ceilings) {
  int merged = 0;
  auto merge = [&](analyzers::Roof& roof, double value, std::string_view what) {
    if (!std::isfinite(value) || value <= 0) return;
    roof.measured = value;
    ++merged;
    // A measurement well above the nominal roof usually means a wrong FLOP count or a wrong
    // table entry; say so rather than silently raising the roof.
    if (roof.nominal > 0 && value > 1.05 * roof.nominal) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "measured %.*s roof is %.0f%% of the %.*s figure",
                    static_cast<int>(what.size()), what.data(), 100.0 * value / roof.nominal,
                    static_cast<int>(RoofSourceName(roof.nominal_source).size()),
                    RoofSourceName(roof.nominal_source).data());
      roofs.notes.emplace_back(buf);
    }
  };
  for (const auto& [path, v] : ceilings.flops) {
    if (path == ComputePath::kUnknown || path == ComputePath::kCount) continue;
    merge(roofs.Flops(path), v.value, ComputePathName(path));
  }
  for (const auto& [level, v] : ceilings.bandwidth) {
    if (level == MemoryLevel::kCount) continue;
    merge(roofs.Bandwidth(level), v.value, MemoryLevelName(level));
  }
  if (merged > 0) {
    std::string note = "measured ceilings";
    if (!ceilings.measured_at.empty()) note += " of " + ceilings.measured_at;
    note += " (driver " + ceilings.driver_version + ") preferred over nominal roofs";
    roofs.notes.push_back(std::move(note));
  }
  return merged;
}

}  // namespace flopspy::gpuroof
