// How the advice words its numbers: the report's own formatters (display_text.h), plus counts,
// SI prefixes and lists with "(+N)".
#include <cmath>
#include <cstdio>

#include "advice_internal.h"
#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/display_text.h"

namespace flopspy::analyzers::advice_detail {

std::string Sig3(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", value);
  return buf;
}

std::string Si(double v) {
  static const char* const kPrefix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 999.5 && i < 5) v /= 1000, ++i;  // "1 k", never "1e+03"
  return Sig3(v) + " " + kPrefix[i];
}

std::string Time(double ns) {
  return DurationText(ns);
}

std::string Percent(double fraction) {
  return PercentText(100 * fraction);
}

std::string Count(uint64_t n, const char* singular, const char* plural) {
  std::string digits = std::to_string(n), grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped + " " + (n == 1 ? singular : plural);
}

std::string ListWithMore(const std::vector<std::string>& items, size_t shown,
                         const char* separator) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < shown; ++i) s += (i ? separator : "") + items[i];
  if (items.size() > shown) s += " (+" + std::to_string(items.size() - shown) + ")";
  return s;
}

std::string KernelKeyName(const KernelGroup& g) {
  if (!g.op.empty()) return g.op;
  if (g.name.empty()) return "(unnamed kernel)";
  const std::string_view base = SplitFunctionName(g.name).base;
  return std::string(base.empty() ? std::string_view(g.name) : base);
}

double KernelTime(const TraceAnalysis& run) {
  double total = 0;
  for (const KernelGroup& g : run.kernels) total += g.gpu_ns;
  return total;
}

}  // namespace flopspy::analyzers::advice_detail
