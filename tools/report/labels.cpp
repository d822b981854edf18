#include "report/labels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "flopspy/analyzers/demangle.h"
#include "flopspy/analyzers/display_text.h"
#include "flopspy/analyzers/dnn_formulas.h"
#include "report/format.h"

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
  const std::string far = p->proximity == analyzers::RoofProximity::kFar ? " far" : "";
  switch (p->regime) {
    case analyzers::Regime::kComputeBound:
      return "compute" + far;
    case analyzers::Regime::kMemoryBound:
      return "memory" + far;
    case analyzers::Regime::kOverheadBound:
      return "overhead";
    case analyzers::Regime::kUnknown:
      break;
  }
  return "?";
}

std::string UnplacedText(analyzers::UnplacedReason reason) {
  using R = analyzers::UnplacedReason;
  switch (reason) {
    case R::kNone:
      return "";
    case R::kNoGpuTime:
      return "no GPU time";
    case R::kNoFlops:
      return "no FLOPs known";
    case R::kNoBytes:
      return "no DRAM bytes known";
    case R::kNoPath:
      return "data types unknown (merged rows may differ)";
    case R::kNoComputeRoof:
      return "no roof for its data type on this GPU";
    case R::kNoBandwidthRoof:
      return "no DRAM roof for this GPU";
    case R::kNoRoofs:
      return "no roofs for this GPU";
  }
  return "";
}

std::string UnplacedText(std::string_view reason_name) {
  for (uint8_t i = 0; i <= static_cast<uint8_t>(analyzers::UnplacedReason::kNoRoofs); ++i) {
    const auto reason = static_cast<analyzers::UnplacedReason>(i);
    if (analyzers::UnplacedReasonName(reason) == reason_name) return UnplacedText(reason);
  }
  return "";
}

std::string FlopsBasisText(uint64_t calls_with_flops, uint64_t calls) {
  if (calls_with_flops == 0 || calls_with_flops >= calls) return "";
  return fmt::format("FLOPs for {} of {} launches", Grouped(calls_with_flops), Grouped(calls));
}

std::string FlopsBasisText(const analyzers::Placement& p) {
  return FlopsBasisText(p.calls_with_flops, p.calls);
}

std::string PlacementNote(const analyzers::Placement& p) {
  std::string note = FlopsBasisText(p);
  if (const std::string why = UnplacedText(p.unplaced_reason); !why.empty()) {
    note += (note.empty() ? "" : "; ") + ("regime ?: " + why);
  }
  return note;
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
  return analyzers::RoofLabel(path);  // the analyzers' sentences name roofs the same way
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

std::string KernelShortName(std::string_view name) {
  if (name.empty()) return "(unnamed kernel)";
  const analyzers::FunctionNameParts parts = analyzers::SplitFunctionName(name);
  const std::string_view base = parts.base;
  // A base with no letter or digit ("[6]", "<>") names nothing: the whole name does.
  const bool named = std::any_of(base.begin(), base.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
  return std::string(named ? base : name);
}

std::string KernelLabel(std::string_view name, std::string_view functor, std::string_view shape) {
  if (name.empty()) return "(unnamed kernel)";
  std::string label;
  if (!functor.empty()) label = std::string(functor) + " ";
  if (!shape.empty()) label += "[" + std::string(shape) + "] ";
  if (!label.empty()) label += "· ";
  return label + KernelShortName(name);
}

std::string KernelLabel(const analyzers::KernelGroup& g) {
  // The op first: it is the functor, or says more (a Triton kernel's kind and fused operations).
  return KernelLabel(g.name, g.op.empty() ? g.functor : g.op, g.shape_key);
}

std::string LibraryDims(int64_t m, int64_t n, int64_t k, int64_t batch) {
  std::string text = fmt::format("{}x{}x{}", m, n, k);
  if (batch > 1) text += fmt::format(" b{}", batch);
  return text;
}

std::string LibraryShapeText(const analyzers::LibraryGroup& g) {
  const trace::LibraryCallRecord& s = g.shape;
  if (analyzers::IsDnnRoutine(analyzers::BlasRoutineFromId(s.routine))) {
    return analyzers::DnnShapeText(s);
  }
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
