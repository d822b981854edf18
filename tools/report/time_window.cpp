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

// "12" as a step number (from 1); nullopt otherwise.
std::optional<uint32_t> ParseStepNumber(std::string_view text) {
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0) return std::nullopt;
  return value;
}

std::optional<TimeWindow> ParseStepWindow(std::string_view steps, std::string* error) {
  const std::string shown = "--window step:" + std::string(steps);
  const size_t dash = steps.find('-');
  const std::optional<uint32_t> first = ParseStepNumber(steps.substr(0, dash));
  const std::optional<uint32_t> last =
      dash == std::string_view::npos ? first : ParseStepNumber(steps.substr(dash + 1));
  if (!first || !last) {
    *error = shown + ": expected step:N or step:N-M with step numbers from 1, e.g. step:3-5";
    return std::nullopt;
  }
  if (*last < *first) {
    *error = shown + ": the last step must not come before the first";
    return std::nullopt;
  }
  TimeWindow window;
  window.first_step = *first;
  window.last_step = *last;
  return window;
}

}  // namespace

std::optional<TimeWindow> ParseTimeWindow(std::string_view text, std::string* error) {
  if (text.starts_with("step:")) return ParseStepWindow(text.substr(5), error);
  const size_t colon = text.find(':');
  const std::string shown = "--window " + std::string(text);
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
    *error = shown + ": expected START:END (2s:5s, 1500ms:2500ms) or step:N[-M]";
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
