#include "report/text_labels.h"

#include <fmt/format.h>

#include <algorithm>

#include "flopspy/analyzers/display_text.h"
#include "report/format.h"

namespace flopspy::tools {

std::string RegimeShareText(const RollupRow& r) {
  if (r.gpu_ns <= 0) return "-";
  const analyzers::Regime regime = r.DominantRegime();
  analyzers::Placement p;
  p.regime = regime;
  return fmt::format("{} {:.0f}", RegimeTag(p),
                     100 * r.regime_ns[static_cast<size_t>(regime)] / r.gpu_ns);
}

std::string PctText(std::optional<double> percent) {
  return percent ? analyzers::PercentText(*percent) : "-";  // as the advice writes it
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
  std::vector<std::string> lines;
  if (tail.empty()) {
    lines = {name};
  } else if (DisplayWidth(name) + 2 + DisplayWidth(tail) <= width) {
    lines = {name + "  " + tail};
  } else {
    lines = {name, "  " + tail};
  }
  // What the rates stand on when only some launches have FLOPs, and why a regime is "?".
  if (const std::string note = g.placement ? PlacementNote(*g.placement) : ""; !note.empty()) {
    if (DisplayWidth(lines.back()) + 2 + DisplayWidth(note) <= width) {
      lines.back() += "  " + note;
    } else {
      lines.push_back("  " + note);
    }
  }
  return lines;
}

}  // namespace flopspy::tools
