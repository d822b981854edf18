#include "report/kernel_rollup.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "flopspy/analyzers/run_regime.h"
#include "report/labels.h"

namespace flopspy::tools {
namespace {

using analyzers::KernelGroup;

void AddGroup(RollupRow& row, const KernelGroup& g) {
  row.gpu_ns += g.gpu_ns;
  row.count += g.executions ? g.executions : g.launches;
  ++row.signatures;
  if (g.timed.flops_source != trace::FigureSource::kUnknown) {
    row.flops += g.timed.flops;
    // The GPU time of the launches whose FLOPs are known: the basis of the run summary's
    // coverage line.
    row.flops_known_ns += std::min(g.timed.flops_ns, g.gpu_ns);
  }
  // The same basis as the run's regime shares: a compute or memory regime holds only the time of
  // the launches with known FLOPs, the rest of the row is unknown.
  const double placed = analyzers::RegimeTimeNs(g);
  const analyzers::Regime regime = g.placement ? g.placement->regime : analyzers::Regime::kUnknown;
  row.regime_ns[static_cast<size_t>(regime)] += placed;
  row.regime_ns[static_cast<size_t>(analyzers::Regime::kUnknown)] += g.gpu_ns - placed;
}

double SortValue(const RollupRow& r, SortKey key) {
  switch (key) {
    case SortKey::kCount:
      return static_cast<double>(r.count);
    case SortKey::kMean:
      return r.count ? r.gpu_ns / static_cast<double>(r.count) : 0;
    case SortKey::kFlops:
      return r.flops;
    case SortKey::kTime:
    case SortKey::kRoof:
      break;
  }
  return r.gpu_ns;
}

}  // namespace

std::vector<RollupRow> SortedRollupRows(std::map<std::string, RollupRow> by_key, double total,
                                        SortKey key) {
  std::vector<RollupRow> rows;
  for (auto& [k, row] : by_key) {
    row.key = k;
    row.share = total > 0 ? row.gpu_ns / total : 0;
    rows.push_back(std::move(row));
  }
  // Ties by time, then by key, so that every output lists the same order.
  std::stable_sort(rows.begin(), rows.end(), [key](const RollupRow& a, const RollupRow& b) {
    const double va = SortValue(a, key), vb = SortValue(b, key);
    if (va != vb) return va > vb;
    if (a.gpu_ns != b.gpu_ns) return a.gpu_ns > b.gpu_ns;
    return a.key < b.key;
  });
  return rows;
}

void CutRollupRows(std::vector<RollupRow>& rows, size_t keep, RollupRest& rest) {
  for (size_t i = keep; i < rows.size(); ++i) {
    ++rest.rows;
    rest.gpu_ns += rows[i].gpu_ns;
    rest.share += rows[i].share;
  }
  if (rows.size() > keep) rows.resize(keep);
}

analyzers::Regime RollupRow::DominantRegime() const {
  size_t best = static_cast<size_t>(analyzers::Regime::kUnknown);
  for (size_t i = 0; i < regime_ns.size(); ++i) {
    if (regime_ns[i] > regime_ns[best]) best = i;
  }
  return static_cast<analyzers::Regime>(best);
}

std::string RollupName(const KernelGroup& g) {
  if (!g.op.empty()) return g.op;
  return KernelShortName(g.name);
}

KernelRollup BuildKernelRollup(std::span<const KernelGroup> kernels, const ViewOptions& view) {
  KernelRollup r;
  std::map<std::string, RollupRow> families, names;
  for (const KernelGroup& g : kernels) {
    r.kernel_ns += g.gpu_ns;
    AddGroup(families[g.category.empty() ? "unknown" : g.category], g);
    AddGroup(names[RollupName(g)], g);
  }
  r.families = SortedRollupRows(std::move(families), r.kernel_ns, view.sort);
  r.names = SortedRollupRows(std::move(names), r.kernel_ns, view.sort);
  CutRollupRows(r.families, RowsShown(view, kRollupFamilies), r.more_families);
  CutRollupRows(r.names, RowsShown(view, kRollupNames), r.more_names);
  return r;
}

namespace {

nlohmann::json RowsJson(const std::vector<RollupRow>& rows, const char* key) {
  nlohmann::json out = nlohmann::json::array();
  for (const RollupRow& r : rows) {
    nlohmann::json regimes = nlohmann::json::object();
    for (size_t i = 0; i < r.regime_ns.size(); ++i) {
      regimes[std::string(analyzers::RegimeName(static_cast<analyzers::Regime>(i)))] =
          r.gpu_ns > 0 ? r.regime_ns[i] / r.gpu_ns : 0.0;
    }
    out.push_back({{key, r.key},
                   {"gpu_ns", r.gpu_ns},
                   {"gpu_share", r.share},
                   {"count", r.count},
                   {"signatures", r.signatures},
                   {"flops", r.flops},
                   {"flops_coverage", r.FlopsCoverage()},
                   {"regime", std::string(analyzers::RegimeName(r.DominantRegime()))},
                   {"regime_shares", regimes}});
    if (std::string_view(key) == "step") out.back()["warmup"] = r.warmup;
    if (std::string_view(key) != "family" && std::string_view(key) != "name") {
      out.back().erase("signatures");  // kernels are counted per range or step, not signatures
    }
  }
  return out;
}

nlohmann::json RestJson(const RollupRest& rest) {
  return {{"rows", rest.rows}, {"gpu_ns", rest.gpu_ns}, {"gpu_share", rest.share}};
}

}  // namespace

nlohmann::json KernelRollupJson(const KernelRollup& r) {
  nlohmann::json j = {{"kernel_ns", r.kernel_ns},
                      {"families", RowsJson(r.families, "family")},
                      {"more_families", RestJson(r.more_families)},
                      {"names", RowsJson(r.names, "name")},
                      {"more_names", RestJson(r.more_names)}};
  if (IsGroupRollup(r.groups_by)) {
    const bool ranges = r.groups_by == GroupBy::kRange;
    const bool sites = r.groups_by == GroupBy::kCallSite;
    const char* rows = sites ? "call_sites" : ranges ? "ranges" : "steps";
    j[rows] = RowsJson(r.groups, sites ? "call_site" : ranges ? "range" : "step");
    j[std::string("more_") + rows] = RestJson(r.more_groups);
    if (!r.groups_note.empty()) j["groups_note"] = r.groups_note;
  }
  return j;
}

}  // namespace flopspy::tools
