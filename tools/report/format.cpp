#include "report/format.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

namespace flopspy::tools {

std::string Grouped(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  const size_t first = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  out = digits.substr(0, first);
  for (size_t i = first; i < digits.size(); i += 3) out += "," + digits.substr(i, 3);
  return out;
}

std::string Duration(double ns) {
  if (!std::isfinite(ns)) return "-";
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.3g} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.3g} ms", ns / 1e6);
  return fmt::format("{:.3g} s", ns / 1e9);
}

std::string UtcTime(uint64_t realtime_ns) {
  const std::time_t seconds = static_cast<std::time_t>(realtime_ns / 1'000'000'000ull);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string SiValue(double value) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  double v = std::fabs(value);
  while (v >= 1000 && i < 6) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.3g} {}", value < 0 ? -v : v, kPrefixes[i]);
}

std::string Wrap(const std::string& text, size_t width, size_t indent) {
  std::string out, line;
  size_t start = 0;
  const auto flush = [&] {
    if (!out.empty()) out += "\n" + std::string(indent, ' ');
    out += line;
    line.clear();
  };
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const size_t limit = out.empty() ? width : width - indent;
    if (!line.empty() && line.size() + 1 + word.size() > limit) flush();
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) flush();
  return out;
}

}  // namespace flopspy::tools
