// The PMUs the kernel describes under <sysfs>/bus/event_source/devices/<pmu>/: type, cpumask,
// format fields (how event terms map onto config bits) and event aliases with scale and unit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/cpu_roofline/cpu_identity.h"

namespace flopspy::cpuroof {

// One "config:0-7,32-35" format file: which attr word, and its bit ranges, low bits first.
struct FormatField {
  int word = 0;                             // 0 config, 1 config1, 2 config2
  std::vector<std::pair<int, int>> ranges;  // inclusive [lo, hi]
};
std::optional<FormatField> ParseFormatField(std::string_view text);

// "event=0x04,umask=0x03" -> {{"event",4},{"umask",3}}; a bare term means 1.
std::optional<std::vector<std::pair<std::string, uint64_t>>> ParseEventTerms(std::string_view text);

struct EventAlias {
  std::string terms;  // as in events/<name>
  double scale = 0;   // events/<name>.scale, 0 when absent
  std::string unit;   // events/<name>.unit
  // Bytes per count implied by scale and unit (MiB, MB, KiB, B...), 0 when not a byte unit.
  double BytesPerCount() const;
};

struct PmuInfo {
  std::string name;
  uint32_t type = 0;
  std::vector<int> cpumask;  // empty: no cpumask file (core PMUs)
  std::map<std::string, FormatField> formats;
  std::map<std::string, EventAlias> events;
};

struct EncodedConfig {
  uint64_t config = 0, config1 = 0, config2 = 0;
};

// Encodes terms with the PMU's format fields. False (with *error) on an unknown term or a value
// that does not fit.
bool EncodeTerms(const PmuInfo& pmu, const std::vector<std::pair<std::string, uint64_t>>& terms,
                 EncodedConfig* out, std::string* error);

// "0,28" or "0-3,8" -> CPU list.
std::vector<int> ParseCpuList(std::string_view text);

class SysfsView {
 public:
  explicit SysfsView(HostPaths paths = {});
  const HostPaths& paths() const { return paths_; }
  std::string DevicesDir() const;             // <root>/bus/event_source/devices
  std::vector<std::string> ListPmus() const;  // sorted
  bool HasPmu(std::string_view name) const;
  std::optional<PmuInfo> ReadPmu(std::string_view name) const;

 private:
  HostPaths paths_;
};

// Whole file, trailing newline trimmed; nullopt when it cannot be read.
std::optional<std::string> ReadSmallFile(const std::string& path);

}  // namespace flopspy::cpuroof
