#include "report/text_labels.h"

#include <fmt/format.h>

#include <algorithm>

#include "flopspy/analyzers/demangle.h"
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

std::string SourceTag(trace::FigureSource source) {
  switch (source) {
    case trace::FigureSource::kAnalytic:
      return "anl";
    case trace::FigureSource::kCatalog:
      return "cat";
    case trace::FigureSource::kCounters:
      return "ctr";
    case trace::FigureSource::kUnknown:
      break;
  }
  return "?";
}

std::string SourcesTag(const analyzers::WorkFigures& w) {
  if (w.flops_source == w.bytes_source) return SourceTag(w.flops_source);
  return SourceTag(w.flops_source) + "/" + SourceTag(w.bytes_source);
}

std::string RegimeTag(const std::optional<analyzers::Placement>& p) {
  if (!p) return "-";
  switch (p->regime) {
    case analyzers::Regime::kComputeBound:
      return "compute";
    case analyzers::Regime::kMemoryBound:
      return "memory";
    case analyzers::Regime::kOverheadBound:
      return "overhead";
    case analyzers::Regime::kUnknown:
      break;
  }
  return "?";
}

std::string RoofPathLabel(analyzers::ComputePath path) {
  std::string name(analyzers::ComputePathName(path));
  std::replace(name.begin(), name.end(), '_', '-');
  if (path != analyzers::ComputePath::kUnknown && !analyzers::IsTensorPath(path)) name += "-cuda";
  return name;
}

std::string RoofText(const analyzers::Placement& p) {
  if (p.peak_source == analyzers::RoofSource::kNone) return "";
  std::string text = "roof " + RoofPathLabel(p.roof_path) + " " +
                     std::string(analyzers::RoofSourceName(p.peak_source));
  if (p.bandwidth_source != analyzers::RoofSource::kNone && p.bandwidth_source != p.peak_source) {
    text += ", dram " + std::string(analyzers::RoofSourceName(p.bandwidth_source));
  }
  return text;
}

std::string LaunchShape(const std::array<uint32_t, 3>& grid, const std::array<uint32_t, 3>& block) {
  const auto dims = [](const std::array<uint32_t, 3>& d) {
    if (d[2] != 1) return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
    if (d[1] != 1) return fmt::format("{}x{}", d[0], d[1]);
    return fmt::format("{}", d[0]);
  };
  if (grid[0] == 0) return "";
  return "<<<" + dims(grid) + ", " + dims(block) + ">>>";
}

std::string KernelLabel(const analyzers::KernelGroup& g) {
  if (g.name.empty()) return "(unnamed kernel)";
  const analyzers::FunctionNameParts parts = analyzers::SplitFunctionName(g.name);
  std::string label;
  if (!g.functor.empty()) label = g.functor + " ";
  if (!g.shape_key.empty()) label += "[" + g.shape_key + "] ";
  if (!label.empty()) label += "· ";
  return label + (parts.base.empty() ? g.name : std::string(parts.base));
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

std::string LibraryShapeText(const analyzers::LibraryGroup& g) {
  const trace::LibraryCallRecord& s = g.shape;
  const auto dims = [](int64_t m, int64_t n, int64_t k, int64_t batch) {
    std::string text = fmt::format("{}x{}x{}", m, n, k);
    if (batch > 1) text += fmt::format(" b{}", batch);
    return text;
  };
  if (!(s.flags & trace::kLibGrouped)) return dims(s.m, s.n, s.k, s.batch);
  const std::string groups = fmt::format("{} group{}", s.batch, s.batch == 1 ? "" : "s");
  if (s.m < 0 || s.n < 0 || s.k < 0) return groups + ", shapes not read";
  if (!g.groups_known) return fmt::format("{}, the first {}", groups, dims(s.m, s.n, s.k, 1));
  trace::LibraryGroupsCut sums = g.groups_cut;  // the unlisted groups, then the listed ones
  for (const auto& group : g.groups) trace::AddGroup(sums, group);
  const int64_t problems = sums.problems;
  std::string text = fmt::format("{}, {} problem{}:", groups, problems, problems == 1 ? "" : "s");
  const size_t shown = std::min(g.groups.size(), kShownGroups);
  for (size_t i = 0; i < shown; ++i) {
    const auto& group = g.groups[i];
    text += (i == 0 ? " " : ", ") + dims(group.m, group.n, group.k, group.count);
  }
  if (s.batch > static_cast<int64_t>(shown)) {
    text += fmt::format(" and {} more", s.batch - static_cast<int64_t>(shown));
  }
  if (g.groups_vary) text += " (first call; others differ)";
  return text;
}

}  // namespace flopspy::tools
