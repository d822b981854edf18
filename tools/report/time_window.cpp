#include "report/time_window.h"

#include <charconv>
#include <cmath>
#include <utility>

namespace flopspy::tools {
namespace {

// "1500ms" in nanoseconds; nullopt without a known unit or a finite, non-negative number.
std::optional<double> ParseTime(std::string_view text) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"min", 60e9}, {"s", 1e9}};
  for (const auto& [unit, scale] : kUnits) {
    if (text.size() <= unit.size() || !text.ends_with(unit)) continue;
    const std::string_view number = text.substr(0, text.size() - unit.size());
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size()) return std::nullopt;
    if (!std::isfinite(value) || value < 0) return std::nullopt;
    return value * scale;
  }
  return std::nullopt;
}

}  // namespace

std::optional<TimeWindow> ParseTimeWindow(std::string_view text, std::string* error) {
  const size_t colon = text.find(':');
  const std::string shown = "--window " + std::string(text);
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
    *error = shown + ": expected START:END, e.g. 2s:5s or 1500ms:2500ms";
    return std::nullopt;
  }
  TimeWindow window;
  const std::string_view start = text.substr(0, colon), end = text.substr(colon + 1);
  if (start.empty() && end.empty()) {
    *error = shown + ": give a start, an end or both (2s:5s, 2s:, :5s)";
    return std::nullopt;
  }
  for (const auto& [part, into] : {std::pair{start, &window.start_ns}, {end, &window.end_ns}}) {
    if (part.empty()) continue;
    const std::optional<double> ns = ParseTime(part);
    if (!ns) {
      *error = shown + ": '" + std::string(part) +
               "' is not a time with a unit (ns, us, ms, s, min), e.g. 1500ms";
      return std::nullopt;
    }
    *into = *ns;
  }
  if (window.end_ns <= window.start_ns) {
    *error = shown + ": the end must come after the start";
    return std::nullopt;
  }
  return window;
}

}  // namespace flopspy::tools
