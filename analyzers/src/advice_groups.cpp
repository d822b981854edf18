// far_from_roof over groups: compute-bound kernels far below their roof, summed by kernel family
// (kernel_category.cpp) and listed by name, so that 120 GEMM signatures of 0.6% each are one
// finding of 64% rather than none (docs/advice.md, "Groups").
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "advice_internal.h"
#include "flopspy/analyzers/display_text.h"
#include "flopspy/analyzers/run_regime.h"

namespace flopspy::analyzers::advice_detail {
namespace {

constexpr double kMinShare = 0.05;  // of the kernel time, for a group to be worth a finding

std::string FamilyTitle(const std::string& category) {
  if (category == "gemm") return "GEMM";
  if (category == "triton") return "Triton";
  if (category.empty() || category == "unknown" || category == "other") return "Compute-bound";
  return std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(category[0])))) +
         category.substr(1);
}

struct Member {
  uint32_t index;
  const KernelGroup* g;
};

std::string LibraryAction(bool plural) {
  return plural ? "These kernels are cuBLAS's own: see their calls' shape diagnostics and data "
                  "types in the cuBLAS section (dimensions the tensor cores want, tiles and "
                  "waves that fill the GPU, a faster data type), and profile the largest with "
                  "Nsight Compute (ncu -k regex:<name>) if those are fine."
                : "This kernel is cuBLAS's own: see its call's shape diagnostics and data "
                  "types in the cuBLAS section (dimensions the tensor cores want, tiles and "
                  "waves that fill the GPU, a faster data type), and profile it with Nsight "
                  "Compute (ncu -k regex:<name>) if those are fine.";
}

constexpr const char* kOwnAction =
    "Look at occupancy, tile sizes and instruction mix with Nsight Compute "
    "(ncu -k regex:<name>), or use a library kernel for the operation.";

// One signature: the finding names the kernel itself.
Advice OneKernel(const KernelGroup& g, double total) {
  Advice a;
  a.kind = AdviceKind::kFarFromRoof;
  a.title = KernelKeyName(g) + " far from its roof";
  a.finding = (g.name.empty() ? std::string("a kernel") : g.name) + " is compute bound but " +
              "reaches " + PercentText(g.placement->pct_of_attainable.value_or(0)) + " of its " +
              RoofLabel(g.placement->roof_path) + " roof over " + Time(g.gpu_ns) + " (" +
              Percent(g.gpu_ns / total) + " of GPU time).";
  // A library's own kernel runs on the roof its call's types choose (the placement above uses
  // them); what is left to change is the call, not the kernel.
  a.action = g.inside_library ? LibraryAction(false) : kOwnAction;
  if (g.placement->roof_time_ns) {
    a.gain_ns = std::max(0.0, g.gpu_ns - *g.placement->roof_time_ns);
    a.gain_basis = "time above the roof: the most that reaching the roof could save";
  }
  a.items = {KernelKeyName(g)};
  a.pct_of_roof = g.placement->pct_of_attainable;
  return a;
}

// Several signatures of one family: their sum, time-weighted position and names.
Advice Group(const std::string& category, const std::vector<Member>& members, double total) {
  double ns = 0, placed = 0, weighted_pct = 0, library_ns = 0, gain = 0;
  bool any_roof_time = false;
  uint64_t runs = 0;
  std::set<ComputePath> roofs;
  std::map<std::string, double> by_name;
  for (const Member& m : members) {
    const KernelGroup& g = *m.g;
    ns += g.gpu_ns;
    runs += g.executions;
    // The launches whose FLOPs are known: the basis of the run's regime shares.
    const double basis = RegimeTimeNs(g);
    placed += basis;
    weighted_pct += g.placement->pct_of_attainable.value_or(0) * basis;
    if (g.inside_library) library_ns += g.gpu_ns;
    roofs.insert(g.placement->roof_path);
    by_name[KernelKeyName(g)] += g.gpu_ns;
    if (g.placement->roof_time_ns) {
      gain += std::max(0.0, g.gpu_ns - *g.placement->roof_time_ns);
      any_roof_time = true;
    }
  }
  std::vector<std::pair<std::string, double>> names(by_name.begin(), by_name.end());
  std::stable_sort(names.begin(), names.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  Advice a;
  a.kind = AdviceKind::kFarFromRoof;
  std::vector<std::string> shown;
  for (const auto& [name, t] : names) {
    a.items.push_back(name);
    // Shortened for the sentence (tile sizes kept); `items` keeps the full names.
    shown.push_back(ShortenKernelName(name, 60) + " " + Percent(t / total));
  }
  // One name: the name is the group ("mul: 12 signatures"); several: the family.
  const std::string subject = names.size() == 1 ? names[0].first : FamilyTitle(category);
  const double pct = placed > 0 ? weighted_pct / placed : 0;
  std::string roof;
  for (const ComputePath p : roofs) roof += (roof.empty() ? "" : ", ") + RoofLabel(p);
  a.title = subject + " kernels far from their roof";
  a.finding = subject + " kernels: " + Count(members.size(), "signature", "signatures") +
              (names.size() > 1 ? " of " + Count(names.size(), "name", "names") : "") + " (" +
              Count(runs, "run", "runs") + ") take " + Time(ns) + ", " + Percent(ns / total) +
              " of GPU time, compute bound at " + PercentText(pct) + " of the " + roof +
              (roofs.size() == 1 ? " roof" : " roofs") + " (time-weighted over the " +
              Percent(ns > 0 ? placed / ns : 0) + " of their time whose FLOPs are known)" +
              (names.size() > 1 ? "; largest: " + ListWithMore(shown) : "") + ".";
  a.action = library_ns >= ns / 2 ? LibraryAction(true) : kOwnAction;
  if (any_roof_time) {
    a.gain_ns = gain;
    a.gain_basis =
        "time above the roof, each signature's launches at the work of those whose FLOPs are "
        "known: the most that reaching the roof could save";
  }
  a.pct_of_roof = pct;
  return a;
}

}  // namespace

void FarFromRoof(const TraceAnalysis& run, double total, Findings& out) {
  if (total <= 0) return;
  std::map<std::string, std::vector<Member>> families;
  for (uint32_t i = 0; i < run.kernels.size(); ++i) {
    const KernelGroup& g = run.kernels[i];
    if (!g.placement || g.placement->regime != Regime::kComputeBound ||
        g.placement->proximity != RoofProximity::kFar) {
      continue;
    }
    families[g.category].push_back({i, &g});
  }
  for (const auto& [category, members] : families) {
    double ns = 0;
    uint64_t runs = 0;
    GainMap gains;
    for (const Member& m : members) {
      ns += m.g->gpu_ns;
      runs += m.g->executions;
      if (m.g->placement->roof_time_ns) {
        gains[m.index] = std::max(0.0, m.g->gpu_ns - *m.g->placement->roof_time_ns);
      }
    }
    if (ns < kMinShare * total) continue;
    Advice a =
        members.size() == 1 ? OneKernel(*members[0].g, total) : Group(category, members, total);
    a.share = ns / total;
    a.gpu_ns = ns;
    a.launches = runs;
    out.Add(std::move(a), std::move(gains));
  }
}

}  // namespace flopspy::analyzers::advice_detail
