// Advice that names the line (docs/advice.md, "Call sites"): the findings about launch-bound and
// memory-bound kernels say which call sites launched them, and a site whose own kernels are
// mostly launch-bound, or the site holding the most memory-bound time, gets a finding of its own
// when no finding covers those kernels yet.
#include <algorithm>
#include <string>
#include <vector>

#include "advice_internal.h"
#include "flopspy/analyzers/advice.h"
#include "flopspy/analyzers/call_sites.h"

namespace flopspy::analyzers {
namespace {

using namespace advice_detail;

// A site with this much of its GPU time launch-bound, and this many launches, is worth a
// finding: the launch_bound rule's own count (docs/advice.md).
constexpr double kLaunchBoundSiteShare = 0.5;
constexpr double kLaunchBoundSiteLaunches = 100;
// The memory-bound site is named when its memory-bound time is this share of kernel time: the
// fuse_elementwise rule's threshold.
constexpr double kMemorySiteShare = 0.05;
// Sites named in an existing finding.
constexpr size_t kSitesNamed = 3;

double MemoryNs(const CallSite& s) {
  return s.regime_ns[static_cast<size_t>(Regime::kMemoryBound)];
}

bool IsLine(const CallSite& s) {
  return s.kind == CallSiteKind::kFrame || s.kind == CallSiteKind::kNoUserFrame;
}

uint64_t Launches(const CallSite& s) {
  return static_cast<uint64_t>(std::max(0.0, s.launches) + 0.5);
}

// The sites by `value`, largest first, that have any of it; only real lines.
std::vector<const CallSite*> SitesBy(const CallSiteReport& r, double (*value)(const CallSite&)) {
  std::vector<const CallSite*> sites;
  for (const CallSite& s : r.sites) {
    if (IsLine(s) && value(s) > 0) sites.push_back(&s);
  }
  std::stable_sort(sites.begin(), sites.end(),
                   [value](const CallSite* a, const CallSite* b) { return value(*a) > value(*b); });
  return sites;
}

double LaunchBoundNs(const CallSite& s) {
  return s.launch_bound_ns;
}

// "model.py:88 (Block.forward) 1.2 ms of 3.4 ms", for the sentence added to a finding.
std::string SiteList(const std::vector<const CallSite*>& sites, double (*value)(const CallSite&)) {
  std::vector<std::string> parts;
  for (const CallSite* s : sites) {
    parts.push_back(s->label + " (" + Time(value(*s)) + " of its " + Time(s->gpu_ns) + ")");
  }
  return ListWithMore(parts, kSitesNamed, "; ");
}

Advice* Find(std::vector<Advice>& advice, AdviceKind kind) {
  const auto it = std::find_if(advice.begin(), advice.end(),
                               [kind](const Advice& a) { return a.kind == kind; });
  return it != advice.end() ? &*it : nullptr;
}

std::string PerStep(uint64_t launches, size_t steps) {
  if (steps == 0) return "";
  return ", " + Sig3(static_cast<double>(launches) / static_cast<double>(steps)) + " per step,";
}

void LaunchBoundSites(std::vector<Advice>& advice, const CallSiteReport& r, size_t steps) {
  std::vector<const CallSite*> sites = SitesBy(r, LaunchBoundNs);
  if (sites.empty()) return;
  if (Advice* a = Find(advice, AdviceKind::kLaunchBound)) {
    a->finding += " Launched from: " + SiteList(sites, LaunchBoundNs) + " launch-bound.";
    return;
  }
  // No finding over the kernels yet: the largest site whose own launches are mostly too short.
  const auto it = std::find_if(sites.begin(), sites.end(), [](const CallSite* s) {
    return s->gpu_ns > 0 && s->launch_bound_ns >= kLaunchBoundSiteShare * s->gpu_ns &&
           s->launches >= kLaunchBoundSiteLaunches;
  });
  if (it == sites.end()) return;
  const CallSite& s = **it;
  Advice a;
  a.kind = AdviceKind::kLaunchBound;
  a.title = "tiny kernels launched from " + s.label;
  a.items = {s.label};
  a.gpu_ns = s.launch_bound_ns;
  a.launches = Launches(s);
  a.share = r.kernel_ns > 0 ? s.launch_bound_ns / r.kernel_ns : 0;
  a.finding = s.label + " launches " + Count(a.launches, "kernel", "kernels") +
              PerStep(a.launches, steps) + " that are mostly shorter than their launch (" +
              Time(s.launch_bound_ns) + " of its " + Time(s.gpu_ns) + " GPU time launch-bound).";
  a.action =
      "Fuse them: torch.compile the code on that line, or capture it in a CUDA graph "
      "(torch.cuda.CUDAGraph, torch.compile(mode='reduce-overhead')).";
  advice.push_back(std::move(a));
}

void MemoryBoundSite(std::vector<Advice>& advice, const CallSiteReport& r) {
  std::vector<const CallSite*> sites = SitesBy(r, MemoryNs);
  if (sites.empty() || r.kernel_ns <= 0) return;
  for (const AdviceKind kind : {AdviceKind::kFuseElementwise, AdviceKind::kMemoryBoundExplained}) {
    if (Advice* a = Find(advice, kind)) {
      a->finding += " Launched from: " + SiteList(sites, MemoryNs) + " memory-bound.";
      return;
    }
  }
  const CallSite& s = *sites.front();
  if (MemoryNs(s) < kMemorySiteShare * r.kernel_ns) return;
  Advice a;
  a.kind = AdviceKind::kFuseElementwise;
  a.title = "memory-bound kernels launched from " + s.label;
  a.items = {s.label};
  a.gpu_ns = MemoryNs(s);
  a.launches = Launches(s);
  a.share = MemoryNs(s) / r.kernel_ns;
  a.finding = s.label + " holds the most memory-bound kernel time: " + Time(MemoryNs(s)) + " (" +
              Percent(a.share) + " of kernel time) of its " + Time(s.gpu_ns) + ", over " +
              Count(a.launches, "launch", "launches") + ".";
  a.action =
      "Fuse the operations on that line so that intermediate tensors are not written and read "
      "again (torch.compile, a fused kernel).";
  advice.push_back(std::move(a));
}

}  // namespace

void AddCallSiteAdvice(std::vector<Advice>& advice, const CallSiteReport& sites, size_t steps) {
  if (sites.empty()) return;
  LaunchBoundSites(advice, sites, steps);
  MemoryBoundSite(advice, sites);
  advice = advice_detail::Rank(std::move(advice), kMaxAdvice);
}

}  // namespace flopspy::analyzers
