#include "report/text_labels.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/format.h"

namespace flopspy::tools {

std::string PctText(std::optional<double> percent) {
  if (!percent) return "-";
  // Small shares keep two significant digits: "0%" would hide a kernel at 0.43% of its roof.
  const double v = *percent;
  if (v > 0 && v < 0.01) return "<0.01%";
  return fmt::format("{:.{}f}%", v, v >= 10 || v == 0 ? 0 : v >= 1 ? 1 : 2);
}

std::string RateText(std::optional<double> value) {
  return value ? SiValue(*value) : "-";
}

std::string FigureText(double value, trace::FigureSource source) {
  return source == trace::FigureSource::kUnknown ? "-" : SiValue(value);
}

std::vector<std::string> KernelDetailLines(const analyzers::KernelGroup& g, size_t width) {
  std::string tail = LaunchShape(g.grid, g.block);
  if (g.placement) {
    if (const std::string roof = RoofText(*g.placement); !roof.empty()) {
      tail += (tail.empty() ? "" : "  ") + roof;
    }
  }
  const std::string name = KernelLabel(g);
  if (tail.empty()) return {name};
  if (DisplayWidth(name) + 2 + DisplayWidth(tail) <= width) return {name + "  " + tail};
  return {name, "  " + tail};
}

}  // namespace flopspy::tools
