#include "flopspy/analyzers/display_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "compact_kernel_name.h"

namespace flopspy::analyzers {
namespace {

// Fixed-point with `decimals` digits (0 to 2), then `unit`: the formats stay literals.
std::string Fixed(double value, int decimals, const char* unit) {
  char buf[48];
  if (decimals <= 0) {
    std::snprintf(buf, sizeof buf, "%.0f%s", value, unit);
  } else if (decimals == 1) {
    std::snprintf(buf, sizeof buf, "%.1f%s", value, unit);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f%s", value, unit);
  }
  return buf;
}

// Three significant digits, then `unit`.
std::string Sig3(double value, const char* unit) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g%s", value, unit);
  return buf;
}

}  // namespace

std::string PercentText(double pct) {
  if (!std::isfinite(pct)) return "-";
  // Small shares keep two decimals: "0%" would hide a kernel at 0.43% of its roof.
  const double v = std::fabs(pct);
  if (v > 0 && v < 0.01) return pct < 0 ? ">-0.01%" : "<0.01%";
  return Fixed(pct, v >= 10 || v == 0 ? 0 : v >= 1 ? 1 : 2, "%");
}

std::string WholePercentText(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", 100 * fraction);
  return buf;
}

std::string DurationText(double ns) {
  if (!std::isfinite(ns)) return "-";
  // Units change where three digits would round up to 1000 ("1 ms", never "1e+03 us").
  const double v = std::fabs(ns);
  if (v < 999.5) return Fixed(ns, 0, " ns");
  if (v < 999.5e3) return Sig3(ns / 1e3, " us");
  if (v < 999.5e6) return Sig3(ns / 1e6, " ms");
  return Sig3(ns / 1e9, " s");
}

namespace {

// Kernel names: "at::native::(anonymous namespace)::f<...>" reads as "f<...>" everywhere.
bool IdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string DropNamespaces(std::string_view name) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  std::string out;
  size_t i = 0;
  while (i < name.size()) {
    if (name.substr(i).starts_with(kAnonymous)) {
      i += kAnonymous.size();
    } else if (IdentChar(name[i])) {
      size_t j = i;
      while (j < name.size() && IdentChar(name[j])) ++j;
      if (!name.substr(j).starts_with("::")) out.append(name.substr(i, j - i));
      i = name.substr(j).starts_with("::") ? j + 2 : j;
    } else {
      out.push_back(name[i++]);
    }
  }
  return out;
}

// Tile sizes and other "AxB[xC]" runs of digits: what tells GEMM kernels apart.
std::vector<std::string> TileSizes(std::string_view s) {
  std::vector<std::string> found;
  size_t i = 0;
  while (i < s.size()) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])) ||
        (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1])))) {
      ++i;
      continue;
    }
    size_t j = i, parts = 0;
    while (true) {
      size_t k = j;
      while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
      if (k == j) break;
      ++parts;
      j = k;
      if (j + 1 < s.size() && s[j] == 'x' && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
        ++j;
      } else {
        break;
      }
    }
    if (parts >= 2) {
      std::string tile(s.substr(i, j - i));
      if (std::find(found.begin(), found.end(), tile) == found.end()) found.push_back(tile);
    }
    i = std::max(j, i + 1);
  }
  return found;
}

// A cut that does not split a UTF-8 character ("·" in labels).
size_t CharStart(std::string_view s, size_t at) {
  while (at > 0 && at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

std::string ShortenKernelName(std::string_view name, size_t max_chars) {
  // Return type, parameter list and plumbing arguments go first (compact_kernel_name.h).
  std::string s = DropNamespaces(CompactKernelName(name));
  if (s.size() > max_chars) s = DropNamespaces(CompactKernelName(name, /*terse=*/true));
  max_chars = std::max<size_t>(max_chars, 16);
  if (s.size() <= max_chars) return s;
  const size_t budget = max_chars - 3;  // "..."
  // The tail: the tile sizes the head would lose, else the name's end (template arguments).
  std::string tail;
  size_t head = budget - budget / 3;
  for (const std::string& tile : TileSizes(s)) {
    if (s.find(tile) + tile.size() <= head) continue;  // the head keeps it
    if (tail.size() + tile.size() + 1 > budget / 2) break;
    tail += (tail.empty() ? "" : " ") + tile;
  }
  if (tail.empty()) {
    tail = s.substr(CharStart(s, s.size() - (budget - head)));
  } else {
    head = budget - tail.size();
  }
  return s.substr(0, CharStart(s, head)) + "..." + tail;
}

std::string RoofLabel(ComputePath path) {
  std::string name(ComputePathName(path));
  std::replace(name.begin(), name.end(), '_', '-');
  if (path != ComputePath::kUnknown && !IsTensorPath(path)) name += "-cuda";
  return name;
}

}  // namespace flopspy::analyzers
