#include "report/format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <vector>

#include "flopspy/analyzers/display_text.h"
#include "flopspy/platform/terminal_text.h"

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
  return analyzers::DurationText(ns);  // the analyzers' sentences write durations the same way
}

std::string GroupedCount(double value) {
  // 2^64 as a double: the first value a uint64_t cannot hold.
  constexpr double kPastMax = 18446744073709551616.0;
  if (!(value > 0)) return Grouped(0);
  if (value >= kPastMax) return Grouped(UINT64_MAX);
  return Grouped(static_cast<uint64_t>(value));
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
  while (v >= 999.5 && i < 6) {  // 999.7 reads "1 k", never "1e+03"
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.3g} {}", value < 0 ? -v : v, kPrefixes[i]);
}

std::string Significant(double value) {
  if (!std::isfinite(value)) return "-";
  const double v = std::fabs(value);
  if (v >= 999.5e3) {
    std::string s = SiValue(value);  // "1.5 M"
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }
  if (v >= 999.5) {
    const std::string whole = GroupedCount(std::round(v));
    return value < 0 ? "-" + whole : whole;
  }
  if (v == 0 || v >= 0.001) return fmt::format("{:.3g}", value);
  if (v < 1e-9) return value < 0 ? ">-0.000000001" : "<0.000000001";
  // Small values in fixed notation with three significant digits: "0.0000667".
  const int decimals = 2 - static_cast<int>(std::floor(std::log10(v)));
  std::string s = fmt::format("{:.{}f}", value, decimals);
  while (s.back() == '0') s.pop_back();
  return s;
}

std::string Counted(uint64_t n, std::string_view singular, std::string_view plural) {
  return Grouped(n) + " " + std::string(n == 1 ? singular : plural);
}

std::string MoreLine(uint64_t n, std::string_view singular, std::string_view plural) {
  return "  ... " + Grouped(n) + " more " + std::string(n == 1 ? singular : plural) +
         " (--json has all)\n";
}

size_t DisplayWidth(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

namespace {

// The longest prefix of `text` that is at most `width` columns wide, not cutting a character.
size_t PrefixBytes(std::string_view text, size_t width) {
  size_t shown = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((text[i] & 0xC0) != 0x80) {
      if (shown == width) break;
      ++shown;
    }
  }
  return i;
}

// Splits `text` into lines whose widths are given by `room(line_index)`, at spaces where it
// can and inside a word where one word is too long for a line.
std::vector<std::string> BreakLines(std::string_view raw,
                                    const std::function<size_t(size_t)>& room) {
  // Names, messages and command lines come from traces: a raw ESC or CR would reach the
  // terminal, a LF would break the layout. Made visible before the widths are measured.
  const std::string visible = platform::EscapeControls(raw);
  const std::string_view text = visible;
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    while (true) {
      const size_t limit = std::max<size_t>(room(lines.size()), 1);
      const size_t used = DisplayWidth(line);
      const size_t need = DisplayWidth(word) + (line.empty() ? 0 : 1);
      if (used + need <= limit) {
        line += (line.empty() ? "" : " ") + std::string(word);
        break;
      }
      if (!line.empty()) {
        lines.push_back(std::move(line));
        line.clear();
        continue;
      }
      // A word wider than a whole line: cut it.
      const size_t cut = PrefixBytes(word, limit);
      lines.emplace_back(word.substr(0, cut));
      word = word.substr(cut);
      if (word.empty()) break;
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

}  // namespace

std::string Wrap(const std::string& text, size_t width, size_t indent) {
  const std::vector<std::string> lines = BreakLines(
      text, [&](size_t i) { return i == 0 ? width : (width > indent ? width - indent : 1); });
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\n" + std::string(indent, ' ');
    out += lines[i];
  }
  return out;
}

std::string Paragraph(std::string_view text, std::string_view first, std::string_view rest,
                      size_t width) {
  const auto room = [&](size_t i) {
    const size_t prefix = DisplayWidth(i == 0 ? first : rest);
    return width > prefix ? width - prefix : 1;
  };
  std::string out;
  const std::vector<std::string> lines = BreakLines(text, room);
  for (size_t i = 0; i < lines.size(); ++i) {
    out += std::string(i == 0 ? first : rest) + lines[i];
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  return out;
}

}  // namespace flopspy::tools
