#include "flopspy/analyzers/run_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "flopspy/analyzers/blas_types.h"
#include "flopspy/analyzers/display_text.h"
#include "flopspy/analyzers/stragglers.h"

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;

struct Side {
  DiffFigures figures;
  double flops = 0;  // timed FLOPs with a known figure
  bool flops_known = false;
  std::set<int32_t> models;
  double pct_weighted = 0;  // share of the roof x GPU time, over the placed groups
  double pct_ns = 0;
  std::string label, name;
  std::string detail;  // tells apart groups with one label: "grid 8x1x1 block 256x1x1"
};

void Add(Side& s, int32_t model, uint64_t count, uint64_t launches, bool timed, double gpu_ns,
         double flops, bool flops_known, const std::optional<Placement>& placement) {
  DiffFigures& f = s.figures;
  f.present = true;
  f.count += count;
  f.launches += launches;
  f.executions += timed ? count : 0;
  f.gpu_time_known = f.gpu_time_known || timed;
  f.gpu_ns += gpu_ns;
  ++f.signatures;
  s.models.insert(model);
  if (flops_known) {
    s.flops += flops;
    s.flops_known = true;
  }
  if (placement && placement->pct_of_attainable && gpu_ns > 0) {
    s.pct_weighted += *placement->pct_of_attainable * gpu_ns;
    s.pct_ns += gpu_ns;
  }
}

void Finish(Side& s, bool kernels) {
  DiffFigures& f = s.figures;
  // A kernel with no GPU record anywhere counts its launches.
  if (kernels && f.executions == 0) f.count = f.launches;
  if (f.count > 0 && f.gpu_ns > 0) f.mean_ns = f.gpu_ns / static_cast<double>(f.count);
  if (s.flops_known && f.gpu_ns > 0) f.flops_per_s = s.flops / f.gpu_ns * 1e9;
  f.models = static_cast<uint32_t>(s.models.size());
  // A share of the roof means something only against one set of roofs.
  if (f.models == 1 && s.pct_ns > 0) f.pct_of_roof = s.pct_weighted / s.pct_ns;
}

std::optional<double> ChangePct(double a, double b) {
  if (a <= 0) return std::nullopt;
  return 100 * (b - a) / a;
}

std::optional<double> ChangePct(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return std::nullopt;
  return ChangePct(*a, *b);
}

std::vector<DiffRow> Rows(const std::map<std::string, Side>& a,
                          const std::map<std::string, Side>& b) {
  std::map<std::string, DiffRow> rows;
  std::map<std::string, std::string> details;
  const auto take = [&](const std::map<std::string, Side>& sides, bool is_a) {
    for (const auto& [key, side] : sides) {
      DiffRow& row = rows[key];
      row.key = key;
      if (row.label.empty()) row.label = side.label;
      if (row.name.empty()) row.name = side.name;
      details[key] = side.detail;
      (is_a ? row.a : row.b) = side.figures;
    }
  };
  take(a, true);
  take(b, false);
  // Two rows with one label (a kernel whose launch shape changed) are told apart.
  std::map<std::string, int> uses;
  for (const auto& [key, row] : rows) ++uses[row.label];
  for (auto& [key, row] : rows) {
    if (uses[row.label] > 1 && !details[key].empty()) row.label += " (" + details[key] + ")";
  }
  std::vector<DiffRow> out;
  for (auto& [key, row] : rows) {
    row.presence = row.a.present && row.b.present ? DiffPresence::kBoth
                   : row.a.present                ? DiffPresence::kOnlyA
                                                  : DiffPresence::kOnlyB;
    row.change_ns = row.b.gpu_ns - row.a.gpu_ns;
    row.change_known =
        (!row.a.present || row.a.gpu_time_known) && (!row.b.present || row.b.gpu_time_known);
    if (!row.change_known) row.change_ns = 0;
    if (row.presence == DiffPresence::kBoth && row.change_known) {
      row.change_pct = ChangePct(row.a.gpu_ns, row.b.gpu_ns);
      if (row.a.mean_ns > 0 && row.b.mean_ns > 0) {
        row.mean_change_pct = ChangePct(row.a.mean_ns, row.b.mean_ns);
        row.mean_change_ns = row.b.mean_ns - row.a.mean_ns;
      }
      row.rate_change_pct = ChangePct(row.a.flops_per_s, row.b.flops_per_s);
    }
    if (row.presence == DiffPresence::kBoth) {
      row.count_change_pct =
          ChangePct(static_cast<double>(row.a.count), static_cast<double>(row.b.count));
    }
    out.push_back(std::move(row));
  }
  return out;
}

// The ranking change of each row (DiffRow::rank_ns), then the rows by it, largest first.
void Rank(std::vector<DiffRow>& rows, const std::optional<DiffStep>& step_a,
          const std::optional<DiffStep>& step_b, DiffBasis basis) {
  for (DiffRow& r : rows) {
    if (basis == DiffBasis::kPerStep) {
      const double steps_a = static_cast<double>(step_a->count);
      const double steps_b = static_cast<double>(step_b->count);
      if (r.a.present && r.a.gpu_time_known) r.a.per_step_ns = r.a.gpu_ns / steps_a;
      if (r.b.present && r.b.gpu_time_known) r.b.per_step_ns = r.b.gpu_ns / steps_b;
      if (r.change_known) r.rank_ns = r.b.per_step_ns.value_or(0) - r.a.per_step_ns.value_or(0);
    } else if (r.change_known) {
      r.rank_ns = r.presence == DiffPresence::kBoth
                      ? r.mean_change_ns.value_or(0) * static_cast<double>(r.b.count)
                      : r.change_ns;
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const DiffRow& x, const DiffRow& y) {
    if (x.change_known != y.change_known) return x.change_known;
    if (x.change_known) return std::fabs(x.rank_ns) > std::fabs(y.rank_ns);
    return std::max(x.a.gpu_ns, x.b.gpu_ns) > std::max(y.a.gpu_ns, y.b.gpu_ns);
  });
}

// "mul · vectorized_elementwise_kernel" without the catalog shape, which a name row spans.
std::string NameLabel(const KernelGroup& g) {
  KernelGroup unshaped;
  unshaped.name = g.name;
  unshaped.functor = g.functor;
  unshaped.op = g.op;
  return KernelShortLabel(unshaped);
}

std::map<std::string, Side> KernelSides(const RunAggregate& run, DiffMatch match) {
  std::map<std::string, Side> sides;
  const auto dims = [](const std::array<uint32_t, 3>& d) {
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
  };
  for (const MergedKernel& k : run.kernels) {
    const KernelGroup& g = k.group;
    const bool by_name = match == DiffMatch::kName;
    Side& s = sides[by_name ? g.name : KernelKey(g)];
    s.label = by_name ? NameLabel(g) : KernelShortLabel(g);
    s.name = g.name;
    // Rows of one label: by name, kernels whose template arguments differ (the full name tells
    // them apart); by signature, launch shapes.
    s.detail = by_name ? ShortenKernelName(g.name, 72)
                       : "grid " + dims(g.grid) + " block " + dims(g.block);
    Add(s, g.device, g.executions, g.launches, g.executions > 0, g.gpu_ns, g.timed.flops,
        g.timed.flops_source != FigureSource::kUnknown, g.placement);
  }
  for (auto& [key, s] : sides) Finish(s, /*kernels=*/true);
  return sides;
}

std::map<std::string, Side> LibrarySides(const RunAggregate& run) {
  std::map<std::string, Side> sides;
  for (const MergedLibrary& l : run.libraries) {
    const LibraryGroup& g = l.group;
    Side& s = sides[LibraryKey(g)];
    s.label = LibraryShortLabel(g);
    s.name = g.routine;
    s.detail = "compute " + std::string(ComputeTypeName(g.shape.compute_type)) + ", trans " +
               std::to_string(g.shape.trans_a) + std::to_string(g.shape.trans_b) + ", epilogue " +
               std::string(EpilogueName(g.shape.epilogue));
    // A call's GPU time is its kernels': known when any of them has a GPU record.
    Add(s, g.device, g.calls, 0, g.gpu_ns > 0, g.gpu_ns, g.timed_flops,
        g.source != FigureSource::kUnknown, g.placement);
  }
  for (auto& [key, s] : sides) Finish(s, /*kernels=*/false);
  return sides;
}

std::string SignedPercent(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%+.1f%%", pct);
  return buf;
}

std::string Models(const RunAggregate& run) {
  std::string s;
  for (const DeviceModel& m : run.models) s += (s.empty() ? "" : ", ") + m.name;
  return s;
}

}  // namespace

std::string_view DiffMatchName(DiffMatch match) {
  return match == DiffMatch::kName ? "name" : "signature";
}

std::optional<DiffMatch> DiffMatchFromName(std::string_view name) {
  if (name == "name") return DiffMatch::kName;
  if (name == "signature") return DiffMatch::kSignature;
  return std::nullopt;
}

std::string_view DiffBasisName(DiffBasis basis) {
  return basis == DiffBasis::kPerStep ? "per_step" : "per_call";
}

std::string_view DiffPresenceName(DiffPresence presence) {
  switch (presence) {
    case DiffPresence::kBoth:
      return "both";
    case DiffPresence::kOnlyA:
      return "only_a";
    case DiffPresence::kOnlyB:
      return "only_b";
  }
  return "both";
}

DiffStep PooledStep(const RankTable& table) {
  DiffStep step;
  step.region = table.step_region;
  double total = 0;
  for (const RankRow& r : table.rows) {
    if (!r.step) continue;
    step.count += r.step->count;
    total += r.step->mean_ns * static_cast<double>(r.step->count);
    ++step.ranks;
  }
  if (step.count > 0) step.mean_ns = total / static_cast<double>(step.count);
  return step;
}

RunDiff DiffRuns(const RunAggregate& a, const RankTable& ranks_a, const RunAggregate& b,
                 const RankTable& ranks_b, DiffMatch match) {
  RunDiff diff;
  diff.match = match;
  diff.kernels = Rows(KernelSides(a, match), KernelSides(b, match));
  diff.libraries = Rows(LibrarySides(a), LibrarySides(b));
  diff.kernel_ns_a = a.kernel_gpu_ns;
  diff.kernel_ns_b = b.kernel_gpu_ns;
  for (const MergedKernel& k : a.kernels) diff.executions_a += k.group.executions;
  for (const MergedKernel& k : b.kernels) diff.executions_b += k.group.executions;
  const DiffStep step_a = PooledStep(ranks_a), step_b = PooledStep(ranks_b);
  if (step_a.count > 0) diff.step_a = step_a;
  if (step_b.count > 0) diff.step_b = step_b;
  if (diff.step_a && diff.step_b && diff.step_a->region == diff.step_b->region) {
    diff.basis = DiffBasis::kPerStep;
  }
  Rank(diff.kernels, diff.step_a, diff.step_b, diff.basis);
  Rank(diff.libraries, diff.step_a, diff.step_b, diff.basis);

  // A run with launches but no GPU records has an unknown kernel time, not zero.
  const bool a_unknown = diff.executions_a == 0 && a.launches > 0;
  const bool b_unknown = diff.executions_b == 0 && b.launches > 0;
  std::string s = "Kernel GPU time: A " +
                  (a_unknown ? std::string("unknown") : FormatDuration(diff.kernel_ns_a)) + ", B " +
                  (b_unknown ? std::string("unknown") : FormatDuration(diff.kernel_ns_b));
  if (const auto pct = ChangePct(diff.kernel_ns_a, diff.kernel_ns_b);
      pct && !a_unknown && !b_unknown) {
    s += " (" + SignedPercent(*pct) + ")";
  }
  s += ".";
  if (diff.step_a && diff.step_b && diff.step_a->region == diff.step_b->region) {
    s += " Step time (region \"" + diff.step_a->region + "\", mean over " +
         std::to_string(diff.step_a->count) + " and " + std::to_string(diff.step_b->count) +
         " steps): A " + FormatDuration(diff.step_a->mean_ns) + ", B " +
         FormatDuration(diff.step_b->mean_ns) + " (" +
         SignedPercent(*ChangePct(diff.step_a->mean_ns, diff.step_b->mean_ns)) + ").";
  } else if (diff.step_a && diff.step_b) {
    s += " Step time not compared: the runs mark different regions (\"" + diff.step_a->region +
         "\" and \"" + diff.step_b->region + "\").";
  } else {
    s += std::string(" Step time unknown: ") +
         (!diff.step_a && !diff.step_b ? "neither run marks"
          : !diff.step_a               ? "run A does not mark"
                                       : "run B does not mark") +
         " regions.";
  }
  diff.summary = s;
  // A run without GPU records has no GPU to compare: say that, not "different GPUs".
  bool untimed = false;
  for (const auto& [run, name, executions] :
       {std::tuple{&a, "A", diff.executions_a}, std::tuple{&b, "B", diff.executions_b}}) {
    if (executions > 0 || run->launches == 0) continue;
    untimed = true;
    diff.notes.push_back(std::string("Run ") + name + " has no GPU records (GPU timing was off, " +
                         "or CUPTI was unavailable): its kernels are counted by their launches " +
                         "and their GPU times are unknown, so no change of time is given for " +
                         "them.");
  }
  if (!untimed && !a.models.empty() && !b.models.empty() && Models(a) != Models(b)) {
    diff.notes.push_back("The runs used different GPUs (A: " + Models(a) + "; B: " + Models(b) +
                         "): times and rates compare across them, shares of the roof are each "
                         "against its own GPU's roofs.");
  } else if (!untimed && a.models.empty() != b.models.empty()) {
    diff.notes.push_back(std::string("Run ") + (a.models.empty() ? "A" : "B") +
                         " names no GPU (its traces carry no device description): its shares "
                         "of the roof are unknown.");
  }
  if (diff.executions_a != 0 && diff.executions_b != 0) {
    const double ratio =
        static_cast<double>(diff.executions_b) / static_cast<double>(diff.executions_a);
    if (ratio > 1.2 || ratio < 1 / 1.2) {
      char buf[160];
      std::snprintf(buf, sizeof(buf),
                    "B ran %.2fx as many kernels as A: totals differ for that alone, so the rows "
                    "are ranked by the change %s.",
                    ratio, diff.basis == DiffBasis::kPerStep ? "per step" : "per call");
      diff.notes.push_back(buf);
    }
  }
  return diff;
}

}  // namespace flopspy::analyzers
