#include "report/labels.h"

#include <fmt/format.h>

#include <algorithm>

#include "flopspy/analyzers/demangle.h"

namespace flopspy::tools {

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

std::string_view RegimeColor(std::string_view regime) {
  if (regime == analyzers::RegimeName(analyzers::Regime::kComputeBound)) return "#2b6cb0";
  if (regime == analyzers::RegimeName(analyzers::Regime::kMemoryBound)) return "#dd6b20";
  if (regime == analyzers::RegimeName(analyzers::Regime::kOverheadBound)) return "#805ad5";
  return "#718096";
}

std::string RegimeText(std::string_view regime) {
  if (regime.empty()) return "-";
  std::string out(regime);
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
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

std::string KernelLabel(std::string_view name, std::string_view functor, std::string_view shape) {
  if (name.empty()) return "(unnamed kernel)";
  const analyzers::FunctionNameParts parts = analyzers::SplitFunctionName(name);
  std::string label;
  if (!functor.empty()) label = std::string(functor) + " ";
  if (!shape.empty()) label += "[" + std::string(shape) + "] ";
  if (!label.empty()) label += "· ";
  return label + std::string(parts.base.empty() ? name : parts.base);
}

std::string KernelLabel(const analyzers::KernelGroup& g) {
  return KernelLabel(g.name, g.functor, g.shape_key);
}

std::string LibraryDims(int64_t m, int64_t n, int64_t k, int64_t batch) {
  std::string text = fmt::format("{}x{}x{}", m, n, k);
  if (batch > 1) text += fmt::format(" b{}", batch);
  return text;
}

std::string LibraryShapeText(const analyzers::LibraryGroup& g) {
  const trace::LibraryCallRecord& s = g.shape;
  if (!(s.flags & trace::kLibGrouped)) return LibraryDims(s.m, s.n, s.k, s.batch);
  const std::string groups = fmt::format("{} group{}", s.batch, s.batch == 1 ? "" : "s");
  if (s.m < 0 || s.n < 0 || s.k < 0) return groups + ", shapes not read";
  if (!g.groups_known)
    return fmt::format("{}, the first {}", groups, LibraryDims(s.m, s.n, s.k, 1));
  trace::LibraryGroupsCut sums = g.groups_cut;  // the unlisted groups, then the listed ones
  for (const auto& group : g.groups) trace::AddGroup(sums, group);
  const int64_t problems = sums.problems;
  std::string text = fmt::format("{}, {} problem{}:", groups, problems, problems == 1 ? "" : "s");
  const size_t shown = std::min(g.groups.size(), kShownGroups);
  for (size_t i = 0; i < shown; ++i) {
    const auto& group = g.groups[i];
    text += (i == 0 ? " " : ", ") + LibraryDims(group.m, group.n, group.k, group.count);
  }
  if (s.batch > static_cast<int64_t>(shown)) {
    text += fmt::format(" and {} more", s.batch - static_cast<int64_t>(shown));
  }
  if (g.groups_vary) text += " (first call; others differ)";
  return text;
}

std::string_view CopyDirectionText(trace::CopyKind kind) {
  switch (kind) {
    case trace::CopyKind::kHostToDevice:
      return "host to device";
    case trace::CopyKind::kDeviceToHost:
      return "device to host";
    case trace::CopyKind::kDeviceToDevice:
      return "device to device";
    case trace::CopyKind::kHostToHost:
      return "host to host";
    case trace::CopyKind::kPeer:
      return "peer";
    case trace::CopyKind::kDefault:
      return "by pointer (default)";
    case trace::CopyKind::kUnknown:
      break;
  }
  return "?";
}

std::string_view MemoryText(trace::MemoryKind kind) {
  const std::string_view name = trace::MemoryKindName(kind);
  return name == "unknown" ? "?" : name;
}

}  // namespace flopspy::tools
