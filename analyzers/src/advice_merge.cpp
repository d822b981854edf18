// After the rules: near-identical findings merged into one with a list, findings whose gains
// come from the same kernel time marked, and the list ranked by estimated gain (docs/advice.md).
#include <algorithm>
#include <string_view>

#include "advice_internal.h"

namespace flopspy::analyzers::advice_detail {
namespace {

double TimeOf(const TraceAnalysis& run, uint64_t key) {
  if (key & kLibraryKey) {
    const uint64_t i = key & ~kLibraryKey;
    return i < run.libraries.size() ? run.libraries[i].gpu_ns : 0;
  }
  return key < run.kernels.size() ? run.kernels[key].gpu_ns : 0;
}

// How the text names another finding (the JSON has the kinds themselves in `overlaps`).
std::string_view KindTitle(AdviceKind kind) {
  switch (kind) {
    case AdviceKind::kMemoryBoundExplained:
      return "the memory-bound finding";
    case AdviceKind::kFuseElementwise:
      return "the fusion advice";
    case AdviceKind::kTensorCores:
      return "the tensor-core advice";
    case AdviceKind::kGemmShapes:
      return "the GEMM-shape advice";
    case AdviceKind::kPinnedMemory:
      return "the pinned-memory advice";
    case AdviceKind::kLaunchBound:
      return "the launch-overhead advice";
    case AdviceKind::kFarFromRoof:
      return "the far-from-roof advice";
    case AdviceKind::kNoGpuTiming:
      return "the no-GPU-times finding";
    case AdviceKind::kUnknownFigures:
      return "the unknown-FLOPs finding";
  }
  return "another finding";
}

std::string KindList(const std::vector<AdviceKind>& kinds) {
  std::string s;
  for (size_t i = 0; i < kinds.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ") + std::string(KindTitle(kinds[i]));
  }
  return s;
}

}  // namespace

void MergeExplained(Findings& f) {
  // Each memory_bound_explained finding is one set of ops at one rate; the sets differ only in
  // their numbers, so the largest keeps its sentence and the others become its list.
  std::vector<size_t> same;
  for (size_t i = 0; i < f.list.size(); ++i) {
    if (f.list[i].kind == AdviceKind::kMemoryBoundExplained) same.push_back(i);
  }
  if (same.size() < 2) return;
  std::stable_sort(same.begin(), same.end(),
                   [&](size_t a, size_t b) { return f.list[a].share > f.list[b].share; });
  Advice& lead = f.list[same[0]];
  std::vector<std::string> others;
  double pct_ns = lead.pct_of_roof.value_or(0) * lead.gpu_ns;
  for (size_t k = 1; k < same.size(); ++k) {
    const Advice& a = f.list[same[k]];
    others.insert(others.end(), a.items.begin(), a.items.end());
    lead.share += a.share;
    lead.gpu_ns += a.gpu_ns;
    lead.launches += a.launches;
    pct_ns += a.pct_of_roof.value_or(0) * a.gpu_ns;
  }
  lead.items.insert(lead.items.end(), others.begin(), others.end());
  if (lead.gpu_ns > 0) lead.pct_of_roof = pct_ns / lead.gpu_ns;
  lead.finding += " The same holds for " +
                  Count(others.size(), "more set of ops", "more sets of ops") + ": " +
                  ListWithMore(others, 3, "; ") + ".";
  // Drop the merged ones, from the back so that the indices stay valid.
  std::vector<size_t> drop(same.begin() + 1, same.end());
  std::sort(drop.rbegin(), drop.rend());
  for (size_t i : drop) {
    f.list.erase(f.list.begin() + static_cast<std::ptrdiff_t>(i));
    f.gains.erase(f.gains.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

// Findings whose gains share kernel time form one cluster (transitively); each member learns
// the others' kinds and the cluster's combined bound: per kernel, the sum of the members' gains
// capped at the kernel's time.
void MarkOverlaps(const TraceAnalysis& run, Findings& f) {
  const size_t n = f.list.size();
  std::vector<size_t> cluster(n);
  for (size_t i = 0; i < n; ++i) cluster[i] = i;
  const auto root = [&](size_t i) {
    while (cluster[i] != i) i = cluster[i] = cluster[cluster[i]];
    return i;
  };
  std::map<uint64_t, size_t> first_user;
  for (size_t i = 0; i < n; ++i) {
    for (const auto& [key, gain] : f.gains[i]) {
      if (gain <= 0) continue;
      const auto [it, added] = first_user.try_emplace(key, i);
      if (!added) cluster[root(i)] = root(it->second);
    }
  }
  std::map<size_t, std::vector<size_t>> members;
  for (size_t i = 0; i < n; ++i) {
    if (!f.gains[i].empty()) members[root(i)].push_back(i);
  }
  for (const auto& [r, group] : members) {
    if (group.size() < 2) continue;
    GainMap summed;
    for (size_t i : group) {
      for (const auto& [key, gain] : f.gains[i]) summed[key] += std::max(0.0, gain);
    }
    double combined = 0, time = 0;
    for (const auto& [key, gain] : summed) {
      combined += std::min(gain, TimeOf(run, key));
      time += TimeOf(run, key);
    }
    for (size_t i : group) {
      Advice& a = f.list[i];
      for (size_t j : group) {
        if (j != i) a.overlaps.push_back(f.list[j].kind);
      }
      a.combined_gain_ns = combined;
      const std::string note =
          "overlaps " + KindList(a.overlaps) + " on the same " + Time(time) +
          " of kernel time: the gains do not add up; together they can save at most " +
          Time(combined);
      a.gain_basis = a.gain_basis.empty() ? note : a.gain_basis + "; " + note;
    }
  }
}

std::vector<Advice> Rank(std::vector<Advice> list, size_t limit) {
  // An estimate ranks above no estimate; among findings without one, the larger share first.
  std::stable_sort(list.begin(), list.end(), [](const Advice& a, const Advice& b) {
    if (a.gain_ns.has_value() != b.gain_ns.has_value()) return a.gain_ns.has_value();
    const double ga = a.gain_ns.value_or(0), gb = b.gain_ns.value_or(0);
    if (ga != gb) return ga > gb;
    return a.share > b.share;
  });
  if (list.size() > limit) list.resize(limit);
  return list;
}

}  // namespace flopspy::analyzers::advice_detail
