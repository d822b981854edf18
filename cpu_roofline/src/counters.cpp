#include "flopspy/cpu_roofline/counters.h"

#include <nlohmann/json.hpp>

#include "flopspy/cpu_roofline/roofline_method.h"

namespace flopspy::cpuroof {

std::string_view QuantityName(Quantity q) {
  switch (q) {
    case Quantity::kFlops:
      return "flops";
    case Quantity::kBytes:
      return "bytes";
    case Quantity::kCycles:
      return "cycles";
    case Quantity::kRefCycles:
      return "ref_cycles";
    case Quantity::kInstructions:
      return "instructions";
    case Quantity::kTaskClock:
      return "task_clock";
  }
  return "unknown";
}

std::string_view PrecisionName(Precision p) {
  switch (p) {
    case Precision::kAny:
      return "any";
    case Precision::kDp:
      return "dp";
    case Precision::kSp:
      return "sp";
    case Precision::kHp:
      return "hp";
  }
  return "any";
}

std::string_view DirectionName(Direction d) {
  switch (d) {
    case Direction::kAny:
      return "any";
    case Direction::kRead:
      return "read";
    case Direction::kWrite:
      return "write";
  }
  return "any";
}

std::vector<std::string> Capabilities::Lines() const {
  std::vector<std::string> lines;
  if (backend == "off") return lines;
  if (!failure.empty()) {
    lines.push_back("flopspy: CPU roofline (" + backend + ") unavailable: " + failure +
                    "; no CPU roofline for this process");
    return lines;
  }
  auto yes = [](const QuantityStatus& s) { return s.available ? "yes" : "no"; };
  lines.push_back("flopspy: CPU roofline (" + backend + ", " + cpu + "): time " + yes(time) +
                  ", cycles " + yes(cycles) + ", FLOPs " + yes(work) + ", memory traffic " +
                  yes(traffic));
  auto add = [&](const char* label, const QuantityStatus& s) {
    if (!s.available) {
      lines.push_back(std::string("flopspy: CPU ") + label +
                      " unavailable: " + (s.reason.empty() ? "unknown reason" : s.reason));
    } else if (!s.reason.empty()) {
      lines.push_back(std::string("flopspy: CPU ") + label + ": " + s.reason);
    }
  };
  add("time", time);
  add("cycles", cycles);
  add("FLOPs (W)", work);
  add("memory traffic (Q)", traffic);
  for (const std::string& n : notes) lines.push_back("flopspy: CPU roofline: " + n);
  return lines;
}

std::string Capabilities::ToJson() const {
  auto q = [](const QuantityStatus& s) {
    nlohmann::json j;
    j["available"] = s.available;
    j["source"] = s.source;
    j["reason"] = s.reason;
    return j;
  };
  nlohmann::json j;
  j["backend"] = backend;
  j["cpu"] = cpu;
  j["family"] = family;
  j["cpu_key"] = cpu_key;
  j["time"] = q(time);
  j["cycles"] = q(cycles);
  j["work"] = q(work);
  j["traffic"] = q(traffic);
  j["work_flags"] = FlagNameList(work_flags);
  j["traffic_flags"] = FlagNameList(traffic_flags);
  j["valid"] = ValidNameList(valid_mask);
  if (perf_event_paranoid != -100) j["perf_event_paranoid"] = perf_event_paranoid;
  j["notes"] = notes;
  if (!failure.empty()) j["failure"] = failure;
  return j.dump();
}

}  // namespace flopspy::cpuroof
