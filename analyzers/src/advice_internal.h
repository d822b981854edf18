// Shared by the advice rules (advice_*.cpp): how a finding words its numbers, where its gain
// comes from (for the overlap accounting), and the rules themselves. docs/advice.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "flopspy/analyzers/advice.h"

namespace flopspy::analyzers::advice_detail {

std::string Sig3(double value);                                           // "1.23", "45.6"
std::string Si(double v);                                                 // 1.5e9 -> "1.5 G"
std::string Time(double ns);                                              // "1.91 ms"
std::string Percent(double fraction);                                     // 0.43 -> "43%"
std::string Count(uint64_t n, const char* singular, const char* plural);  // "24,000 runs"
// "a, b, c (+9)": the first `shown` items, then how many more.
std::string ListWithMore(const std::vector<std::string>& items, size_t shown = 3,
                         const char* separator = ", ");

// The name a kernel row goes by in a finding and in the rollup by name: its operation ("gelu"),
// else its function's base name.
std::string KernelKeyName(const KernelGroup& g);

// The GPU time a gain comes from: a kernel group (its index), or, for a library group whose
// kernels are not known, the group itself (kLibraryKey | its index).
inline constexpr uint64_t kLibraryKey = uint64_t{1} << 32;
using GainMap = std::map<uint64_t, double>;

// Findings with, beside each, where its estimated gain comes from.
struct Findings {
  std::vector<Advice> list;
  std::vector<GainMap> gains;
  void Add(Advice a, GainMap g = {}) {
    list.push_back(std::move(a));
    gains.push_back(std::move(g));
  }
};

double KernelTime(const TraceAnalysis& run);

// The rules, in advice_rules.cpp (one trace's kernels, libraries and copies), advice_groups.cpp
// (over kernel families and names) and advice_coverage.cpp.
void NoGpuTiming(const TraceAnalysis& run, Findings& out);
void MemoryBoundExplained(const TraceAnalysis& run, double total, Findings& out);
void FuseElementwise(const TraceAnalysis& run, double total, Findings& out);
void TensorCores(const TraceAnalysis& run, const std::map<int32_t, DeviceRoofs>& roofs,
                 double total, Findings& out);
void GemmShapes(const TraceAnalysis& run, double total, Findings& out);
void PinnedMemory(const TraceAnalysis& run, Findings& out);
void LaunchBound(const TraceAnalysis& run, double total, Findings& out);
void FarFromRoof(const TraceAnalysis& run, double total, Findings& out);
void Coverage(const TraceAnalysis& run, double total, Findings& out);

// advice_merge.cpp: near-identical findings become one with a list; overlapping gains are marked.
void MergeExplained(Findings& f);
void MarkOverlaps(const TraceAnalysis& run, Findings& f);
// Largest estimated gain first, then findings without an estimate by share; at most `limit`.
std::vector<Advice> Rank(std::vector<Advice> list, size_t limit);

}  // namespace flopspy::analyzers::advice_detail
