#include "flopspy/analyzers/display_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

std::string DurationText(double ns) {
  if (!std::isfinite(ns)) return "-";
  // Units change where three digits would round up to 1000 ("1 ms", never "1e+03 us").
  const double v = std::fabs(ns);
  if (v < 999.5) return Fixed(ns, 0, " ns");
  if (v < 999.5e3) return Sig3(ns / 1e3, " us");
  if (v < 999.5e6) return Sig3(ns / 1e6, " ms");
  return Sig3(ns / 1e9, " s");
}

std::string RoofLabel(ComputePath path) {
  std::string name(ComputePathName(path));
  std::replace(name.begin(), name.end(), '_', '-');
  if (path != ComputePath::kUnknown && !IsTensorPath(path)) name += "-cuda";
  return name;
}

}  // namespace flopspy::analyzers
