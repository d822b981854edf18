#include "flopspy/cpu_roofline/replay_backend.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "flopspy/cpu_roofline/roofline_method.h"
#include "flopspy/platform/safe_file.h"
#include "flopspy/trace/schema.h"
#include "text_util.h"

namespace flopspy::cpuroof {

namespace {

std::optional<Quantity> QuantityFromName(std::string_view n) {
  for (Quantity q : {Quantity::kFlops, Quantity::kBytes, Quantity::kCycles, Quantity::kRefCycles,
                     Quantity::kInstructions, Quantity::kTaskClock}) {
    if (QuantityName(q) == n) return q;
  }
  return std::nullopt;
}

std::optional<Precision> PrecisionFromName(std::string_view n) {
  for (Precision p : {Precision::kAny, Precision::kDp, Precision::kSp, Precision::kHp}) {
    if (PrecisionName(p) == n) return p;
  }
  return std::nullopt;
}

std::optional<Direction> DirectionFromName(std::string_view n) {
  for (Direction d : {Direction::kAny, Direction::kRead, Direction::kWrite}) {
    if (DirectionName(d) == n) return d;
  }
  return std::nullopt;
}

uint32_t Flags(const nlohmann::json& j, std::string* error) {
  uint32_t flags = 0;
  if (!j.is_array()) return 0;
  for (const auto& f : j) {
    const uint32_t bit = f.is_string() ? FlagFromName(f.get<std::string>()) : 0;
    if (!bit && error->empty()) *error = "unknown flag " + f.dump();
    flags |= bit;
  }
  return flags;
}

// What a set of recorded channels can measure.
Capabilities CapabilitiesOf(const ReplayData& d, const nlohmann::json& unavailable,
                            uint32_t work_flags, uint32_t traffic_flags) {
  Capabilities c;
  c.backend = "replay";
  c.cpu = d.cpu;
  c.family = d.family;
  uint32_t mask = 0;
  for (const Channel& ch : d.channels) {
    if (!ch.counted) continue;
    switch (ch.quantity) {
      case Quantity::kFlops:
        mask |= trace::kCpuFlopsAny;
        if (ch.precision == Precision::kDp) mask |= trace::kCpuFlopsDp;
        if (ch.precision == Precision::kSp) mask |= trace::kCpuFlopsSp;
        if (ch.precision == Precision::kHp) mask |= trace::kCpuFlopsHp;
        break;
      case Quantity::kBytes:
        mask |= trace::kCpuBytesAny;
        if (ch.direction == Direction::kRead) mask |= trace::kCpuBytesRead;
        if (ch.direction == Direction::kWrite) mask |= trace::kCpuBytesWrite;
        break;
      case Quantity::kCycles:
        mask |= trace::kCpuCycles;
        break;
      case Quantity::kRefCycles:
        mask |= trace::kCpuRefCycles;
        break;
      case Quantity::kInstructions:
        mask |= trace::kCpuInstructions;
        break;
      case Quantity::kTaskClock:
        mask |= trace::kCpuTaskClock;
        break;
    }
  }
  c.valid_mask = mask;
  c.work_flags = work_flags;
  c.traffic_flags = traffic_flags;
  auto status = [&](QuantityStatus* s, bool ok, const char* key, const char* source) {
    s->available = ok;
    s->source = ok ? std::string("replay: ") + source : "";
    if (unavailable.is_object() && unavailable.contains(key) && unavailable[key].is_string()) {
      s->reason = unavailable[key].get<std::string>();
    } else if (!ok) {
      s->reason = std::string("not in the recording (") + d.source + ")";
    }
  };
  status(&c.time, true, "time", "recorded timestamps");
  status(&c.cycles, (mask & trace::kCpuCycles) != 0, "cycles", "recorded cycles");
  status(&c.work, (mask & trace::kCpuFlopsAny) != 0, "work", "recorded FP counters");
  status(&c.traffic, (mask & trace::kCpuBytesAny) != 0, "traffic", "recorded memory counters");
  return c;
}

}  // namespace

std::optional<ReplayData> ParseReplay(std::string_view text, std::string* error) {
  ReplayData d;
  int line_no = 0;
  bool header = false;
  nlohmann::json unavailable;
  uint32_t work_flags = 0, traffic_flags = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    line = Trim(line);
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    const std::string where = "replay line " + std::to_string(line_no) + ": ";
    if (j.is_discarded() || !j.is_object()) {
      *error = where + "not a JSON object";
      return std::nullopt;
    }
    if (!header) {
      if (j.value("flopspy_cpu_replay", 0) != 1) {
        *error = where + "expected the header {\"flopspy_cpu_replay\": 1, ...}";
        return std::nullopt;
      }
      header = true;
      d.cpu = j.value("cpu", "");
      d.family = j.value("family", "");
      d.source = j.value("source", "");
      if (!j.contains("channels") || !j["channels"].is_array()) {
        *error = where + "no \"channels\" array";
        return std::nullopt;
      }
      for (const auto& c : j["channels"]) {
        Channel ch;
        ch.name = c.value("name", "");
        auto q = QuantityFromName(c.value("quantity", ""));
        auto p = PrecisionFromName(c.value("precision", "any"));
        auto dir = DirectionFromName(c.value("direction", "any"));
        if (!q || !p || !dir) {
          *error = where + "bad channel " + c.dump();
          return std::nullopt;
        }
        ch.quantity = *q;
        ch.precision = *p;
        ch.direction = *dir;
        ch.weight = c.value("weight", 1.0);
        ch.system_wide = c.value("system_wide", false);
        ch.wrap_bits = static_cast<uint8_t>(c.value("wrap_bits", 64));
        ch.scale = c.value("scale", true);
        ch.counted = c.value("counted", true);
        d.channels.push_back(ch);
      }
      std::string flag_error;
      if (j.contains("work_flags")) work_flags = Flags(j["work_flags"], &flag_error);
      if (j.contains("traffic_flags")) traffic_flags = Flags(j["traffic_flags"], &flag_error);
      if (!flag_error.empty()) {
        *error = where + flag_error;
        return std::nullopt;
      }
      if (j.contains("unavailable")) unavailable = j["unavailable"];
      continue;
    }
    ReplayEntry e;
    if (!j.contains("t_ns") || !j["t_ns"].is_number_unsigned() || !j.contains("values") ||
        !j["values"].is_array() || j["values"].size() != d.channels.size()) {
      *error = where + "expected {\"t_ns\": N, \"values\": [" + std::to_string(d.channels.size()) +
               " readings]}";
      return std::nullopt;
    }
    e.snapshot.t_ns = j["t_ns"].get<uint64_t>();
    for (const auto& v : j["values"]) {
      ChannelValue cv;
      if (v.is_number()) {
        cv.raw = v.get<uint64_t>();
      } else if (v.is_array() && v.size() == 3 && v[0].is_number() && v[1].is_number() &&
                 v[2].is_number()) {
        cv.raw = v[0].get<uint64_t>();
        cv.enabled = v[1].get<uint64_t>();
        cv.running = v[2].get<uint64_t>();
      } else if (v.is_null()) {
        cv.ok = false;  // a failed read
      } else {
        *error = where + "bad reading " + v.dump();
        return std::nullopt;
      }
      e.snapshot.values.push_back(cv);
    }
    e.begin_region = j.value("begin", "");
    e.end_region = j.value("end", "");
    if (j.contains("gpu_copy") && j["gpu_copy"].is_array() && j["gpu_copy"].size() == 2) {
      e.gpu_copy =
          std::make_pair(j["gpu_copy"][0].get<uint64_t>(), j["gpu_copy"][1].get<uint64_t>());
    }
    d.entries.push_back(std::move(e));
  }
  if (!header) {
    *error = "empty replay file";
    return std::nullopt;
  }
  // Markers read on application threads may be written after a later sampler reading.
  std::stable_sort(
      d.entries.begin(), d.entries.end(),
      [](const ReplayEntry& a, const ReplayEntry& b) { return a.snapshot.t_ns < b.snapshot.t_ns; });
  d.capabilities = CapabilitiesOf(d, unavailable, work_flags, traffic_flags);
  return d;
}

std::string ReplayHeaderLine(const std::vector<Channel>& channels, const Capabilities& caps,
                             std::string_view source) {
  nlohmann::json j;
  j["flopspy_cpu_replay"] = 1;
  j["cpu"] = caps.cpu;
  j["family"] = caps.family;
  j["source"] = source;
  j["channels"] = nlohmann::json::array();
  for (const Channel& c : channels) {
    nlohmann::json ch{{"name", c.name}, {"quantity", QuantityName(c.quantity)}};
    if (c.quantity == Quantity::kFlops) ch["precision"] = PrecisionName(c.precision);
    if (c.quantity == Quantity::kBytes) ch["direction"] = DirectionName(c.direction);
    if (c.weight != 1) ch["weight"] = c.weight;
    if (c.system_wide) ch["system_wide"] = true;
    if (c.wrap_bits != 64) ch["wrap_bits"] = c.wrap_bits;
    if (!c.scale) ch["scale"] = false;
    if (!c.counted) ch["counted"] = false;
    j["channels"].push_back(ch);
  }
  j["work_flags"] = FlagNameList(caps.work_flags);
  j["traffic_flags"] = FlagNameList(caps.traffic_flags);
  nlohmann::json unavailable = nlohmann::json::object();
  if (!caps.cycles.available) unavailable["cycles"] = caps.cycles.reason;
  if (!caps.work.available) unavailable["work"] = caps.work.reason;
  if (!caps.traffic.available) unavailable["traffic"] = caps.traffic.reason;
  j["unavailable"] = unavailable;
  return j.dump();
}

std::string ReplayEntryLine(const Snapshot& snapshot, std::string_view begin_region,
                            std::string_view end_region,
                            std::optional<std::pair<uint64_t, uint64_t>> gpu_copy) {
  nlohmann::json j;
  j["t_ns"] = snapshot.t_ns;
  nlohmann::json values = nlohmann::json::array();
  for (const ChannelValue& v : snapshot.values) {
    if (!v.ok) {
      values.push_back(nullptr);
    } else {
      values.push_back({v.raw, v.enabled, v.running});
    }
  }
  j["values"] = std::move(values);
  if (!begin_region.empty()) j["begin"] = begin_region;
  if (!end_region.empty()) j["end"] = end_region;
  if (gpu_copy) j["gpu_copy"] = {gpu_copy->first, gpu_copy->second};
  return j.dump();
}

std::optional<ReplayData> LoadReplay(const std::string& path, std::string* error) {
  // Read before main: a FIFO would block the program and /dev/zero never ends, so only a
  // regular file of bounded size is read.
  std::string text, why;
  if (!platform::ReadRegularFile(path, kMaxReplayBytes, &text, &why)) {
    *error = "replay file: " + why;
    return std::nullopt;
  }
  auto d = ParseReplay(text, error);
  if (!d) *error = path + ": " + *error;
  return d;
}

ReplayBackend::ReplayBackend(ReplayData data, bool rebase, uint64_t start_ns)
    : data_(std::move(data)) {
  if (rebase && !data_.entries.empty()) {
    offset_ =
        static_cast<int64_t>(data_.entries.front().snapshot.t_ns) - static_cast<int64_t>(start_ns);
  }
}

bool ReplayBackend::Read(uint64_t now_ns, bool /*fast*/, Snapshot* out) {
  if (data_.entries.empty()) return false;
  const int64_t recorded = static_cast<int64_t>(now_ns) + offset_;
  // Last entry with t <= recorded.
  auto it = std::upper_bound(
      data_.entries.begin(), data_.entries.end(), recorded,
      [](int64_t t, const ReplayEntry& e) { return t < static_cast<int64_t>(e.snapshot.t_ns); });
  const ReplayEntry& e = it == data_.entries.begin() ? *it : *(it - 1);
  *out = e.snapshot;
  out->t_ns = now_ns;
  return true;
}

}  // namespace flopspy::cpuroof
