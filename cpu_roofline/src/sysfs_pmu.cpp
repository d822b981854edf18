#include "flopspy/cpu_roofline/sysfs_pmu.h"

#include <dirent.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "text_util.h"

namespace flopspy::cpuroof {

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<FormatField> ParseFormatField(std::string_view text) {
  text = Trim(text);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  FormatField f;
  const std::string_view word = text.substr(0, colon);
  if (word == "config") {
    f.word = 0;
  } else if (word == "config1") {
    f.word = 1;
  } else if (word == "config2") {
    f.word = 2;
  } else {
    return std::nullopt;
  }
  for (std::string_view part : Split(text.substr(colon + 1), ',')) {
    part = Trim(part);
    const size_t dash = part.find('-');
    auto lo = ParseUint(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : ParseUint(part.substr(dash + 1));
    if (!lo || !hi || *lo > *hi || *hi > 63) return std::nullopt;
    f.ranges.emplace_back(static_cast<int>(*lo), static_cast<int>(*hi));
  }
  if (f.ranges.empty()) return std::nullopt;
  return f;
}

std::optional<std::vector<std::pair<std::string, uint64_t>>> ParseEventTerms(
    std::string_view text) {
  std::vector<std::pair<std::string, uint64_t>> terms;
  for (std::string_view part : Split(Trim(text), ',')) {
    part = Trim(part);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      terms.emplace_back(std::string(part), 1);
      continue;
    }
    auto value = ParseUint(Trim(part.substr(eq + 1)));
    if (!value) return std::nullopt;  // e.g. "config=?" parameters: not usable as-is
    terms.emplace_back(std::string(Trim(part.substr(0, eq))), *value);
  }
  return terms;
}

double EventAlias::BytesPerCount() const {
  if (scale <= 0) return 0;
  static const std::pair<std::string_view, double> kUnits[] = {
      {"B", 1},        {"Bytes", 1},       {"bytes", 1},
      {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
      {"KB", 1e3},     {"MB", 1e6},        {"GB", 1e9},
  };
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) return scale * factor;
  }
  return 0;
}

bool EncodeTerms(const PmuInfo& pmu, const std::vector<std::pair<std::string, uint64_t>>& terms,
                 EncodedConfig* out, std::string* error) {
  EncodedConfig enc;
  for (const auto& [term, value] : terms) {
    uint64_t* word = nullptr;
    uint64_t remaining = value;
    if (term == "config" || term == "config1" || term == "config2") {
      word = term == "config" ? &enc.config : term == "config1" ? &enc.config1 : &enc.config2;
      *word |= value;
      continue;
    }
    auto it = pmu.formats.find(term);
    if (it == pmu.formats.end()) {
      *error = "PMU " + pmu.name + " has no format field '" + term + "'";
      return false;
    }
    const FormatField& f = it->second;
    word = f.word == 0 ? &enc.config : f.word == 1 ? &enc.config1 : &enc.config2;
    for (const auto& [lo, hi] : f.ranges) {
      const int width = hi - lo + 1;
      const uint64_t mask = width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
      *word |= (remaining & mask) << lo;
      remaining = width >= 64 ? 0 : remaining >> width;
    }
    if (remaining != 0) {
      *error = "value " + Hex(value) + " does not fit format field '" + term + "' of " + pmu.name;
      return false;
    }
  }
  *out = enc;
  return true;
}

std::vector<int> ParseCpuList(std::string_view text) {
  std::vector<int> cpus;
  for (std::string_view part : Split(Trim(text), ',')) {
    part = Trim(part);
    if (part.empty()) continue;
    const size_t dash = part.find('-');
    auto lo = ParseUint(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : ParseUint(part.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi - *lo > 65536) continue;
    for (uint64_t c = *lo; c <= *hi; ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

SysfsView::SysfsView(HostPaths paths) : paths_(std::move(paths)) {}

std::string SysfsView::DevicesDir() const {
  return paths_.sysfs_root + "/bus/event_source/devices";
}

static std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    names.emplace_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> SysfsView::ListPmus() const {
  return ListDir(DevicesDir());
}

bool SysfsView::HasPmu(std::string_view name) const {
  return ReadSmallFile(DevicesDir() + "/" + std::string(name) + "/type").has_value();
}

std::optional<PmuInfo> SysfsView::ReadPmu(std::string_view name) const {
  const std::string dir = DevicesDir() + "/" + std::string(name);
  auto type = ReadSmallFile(dir + "/type");
  if (!type) return std::nullopt;
  auto type_value = ParseUint(Trim(*type));
  if (!type_value) return std::nullopt;
  PmuInfo pmu;
  pmu.name = std::string(name);
  pmu.type = static_cast<uint32_t>(*type_value);
  if (auto mask = ReadSmallFile(dir + "/cpumask")) pmu.cpumask = ParseCpuList(*mask);
  for (const std::string& field : ListDir(dir + "/format")) {
    auto text = ReadSmallFile(dir + "/format/" + field);
    if (!text) continue;
    if (auto f = ParseFormatField(*text)) pmu.formats[field] = *f;
  }
  const std::vector<std::string> events = ListDir(dir + "/events");
  for (const std::string& ev : events) {
    if (EndsWith(ev, ".scale") || EndsWith(ev, ".unit") || EndsWith(ev, ".snapshot") ||
        EndsWith(ev, ".per-pkg")) {
      continue;
    }
    auto text = ReadSmallFile(dir + "/events/" + ev);
    if (!text) continue;
    EventAlias alias;
    alias.terms = std::string(Trim(*text));
    if (auto s = ReadSmallFile(dir + "/events/" + ev + ".scale")) {
      alias.scale = ParseDouble(Trim(*s)).value_or(0);
    }
    if (auto u = ReadSmallFile(dir + "/events/" + ev + ".unit")) alias.unit = std::string(Trim(*u));
    pmu.events[ev] = alias;
  }
  return pmu;
}

}  // namespace flopspy::cpuroof
