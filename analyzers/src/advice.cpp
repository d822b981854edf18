#include "flopspy/analyzers/advice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "flopspy/analyzers/display_text.h"

namespace flopspy::analyzers {
namespace {

// Three significant digits: "1.23", "45.6", "7.89e+03".
std::string Sig3(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", value);
  return buf;
}

// 1.5e9 -> "1.5 G"
std::string Si(double v) {
  static const char* const kPrefix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 999.5 && i < 5) v /= 1000, ++i;  // "1 k", never "1e+03"

  return Sig3(v) + " " + kPrefix[i];
}

std::string Time(double ns) {
  return DurationText(ns);
}

// 24000 -> "24,000 runs", 1 -> "1 run".
std::string Count(uint64_t n, const char* singular, const char* plural) {
  std::string digits = std::to_string(n), grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped + " " + (n == 1 ? singular : plural);
}

std::string Percent(double fraction) {
  return PercentText(100 * fraction);
}

// A share of a roof as every output writes it: "43%", "0.43%".
std::string PercentValue(double pct) {
  return PercentText(pct);
}

bool IsStreamingFamily(const std::string& family) {
  return family.starts_with("elementwise") || family == "reduce" || family == "copy" ||
         family == "fill" || family == "softmax" || family == "layer_norm" || family == "index" ||
         family == "scatter_gather" || family == "demo";
}

// The GPU time a gain comes from: a kernel group (its index), or, for a library group whose
// kernels are not known, the group itself (kLibraryKey | its index).
constexpr uint64_t kLibraryKey = uint64_t{1} << 32;
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

// A library group's gain spread over the kernels that ran its calls, by their time.
void AddLibraryGain(const LibraryGroup& g, uint32_t index, double gain, GainMap& out) {
  double total = 0;
  for (const auto& [kernel, ns] : g.kernel_time) total += ns;
  if (total <= 0) {
    out[kLibraryKey | index] += gain;
    return;
  }
  for (const auto& [kernel, ns] : g.kernel_time) out[kernel] += gain * ns / total;
}

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

double KernelTime(const TraceAnalysis& run) {
  double total = 0;
  for (const KernelGroup& g : run.kernels) total += g.gpu_ns;
  return total;
}

void MemoryBoundExplained(const TraceAnalysis& run, double total, Findings& out) {
  // Memory-bound catalog kernels with different functors that move their bytes at the same rate:
  // the seed notes' "why does sin cost as much as mul". Either the same bytes per call in about
  // the same time, or different bytes at the same bandwidth (time follows bytes, not FLOPs).
  struct Entry {
    const KernelGroup* g;
    double bytes, ns;
  };
  std::vector<Entry> entries;
  for (const KernelGroup& g : run.kernels) {
    if (!g.placement || g.placement->regime != Regime::kMemoryBound || g.functor.empty() ||
        g.executions == 0 || g.timed.launches_with_bytes == 0) {
      continue;
    }
    entries.push_back({&g, g.timed.bytes / static_cast<double>(g.timed.launches_with_bytes),
                       g.gpu_ns / static_cast<double>(g.executions)});
  }
  const auto rate = [](const Entry& e) { return e.ns > 0 ? e.bytes / e.ns : 0.0; };
  std::vector<bool> used(entries.size(), false);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (used[i] || rate(entries[i]) <= 0) continue;
    std::vector<size_t> same = {i};
    bool same_bytes = true;
    for (size_t j = i + 1; j < entries.size(); ++j) {
      if (used[j] || entries[j].g->functor == entries[i].g->functor) continue;
      const bool bytes_close =
          std::fabs(entries[j].bytes - entries[i].bytes) <= 0.05 * entries[i].bytes;
      const bool time_close = std::fabs(entries[j].ns - entries[i].ns) <= 0.15 * entries[i].ns;
      const bool rate_close =
          std::fabs(rate(entries[j]) - rate(entries[i])) <= 0.15 * rate(entries[i]);
      if ((bytes_close && time_close) || rate_close) {
        same.push_back(j);
        same_bytes = same_bytes && bytes_close;
      }
    }
    std::set<std::string> functors;
    for (size_t k : same) functors.insert(entries[k].g->functor);
    if (functors.size() < 2) continue;
    double ns = 0, bytes = 0, max_intensity = 0, bandwidth_pct = 0, group_total = 0;
    std::string names;
    for (size_t k : same) {
      used[k] = true;
      const KernelGroup& g = *entries[k].g;
      ns += entries[k].ns;
      bytes += entries[k].bytes;
      group_total += g.gpu_ns;
      max_intensity = std::max(max_intensity, g.placement->intensity.value_or(0));
      bandwidth_pct += g.placement->pct_of_bandwidth.value_or(0);
    }
    for (const std::string& f : functors) names += (names.empty() ? "" : ", ") + f;
    const KernelGroup& first = *entries[i].g;
    const double calls = static_cast<double>(same.size());
    const std::string roof = "about " + Percent(bandwidth_pct / 100.0 / calls) +
                             " of the DRAM roof (" + Si(first.placement->bandwidth) + "B/s)";
    const std::string intensity = ", with at most " + Sig3(max_intensity) +
                                  " FLOP per byte against a ridge of " +
                                  Sig3(first.placement->ridge.value_or(0)) +
                                  " FLOP/B. Their time is the bytes they move, not their "
                                  "arithmetic.";
    Advice a;
    a.kind = AdviceKind::kMemoryBoundExplained;
    if (same_bytes) {
      a.finding = names + " each take about " + Time(ns / calls) + " per call although their " +
                  "arithmetic differs: all are memory bound, each moving " + Si(entries[i].bytes) +
                  "B at " + roof + intensity;
    } else {
      std::string each;
      for (size_t k : same) {
        each += (each.empty() ? "" : ", ") + entries[k].g->functor + " " + Si(entries[k].bytes) +
                "B in " + Time(entries[k].ns);
      }
      a.finding = names + " are memory bound and move their bytes at the same rate, " +
                  Si(bytes / ns * 1e9) + "B/s, " + roof + ", whatever their arithmetic: each " +
                  "call's time follows its bytes (" + each + ")" + intensity;
    }
    a.action =
        "Fuse chains of such operations into one pass (torch.compile, or a fused custom kernel) "
        "so that each tensor is read and written once.";
    a.share = total > 0 ? group_total / total : 0;
    out.Add(std::move(a));
  }
}

void FuseElementwise(const TraceAnalysis& run, double total, Findings& out) {
  double ns = 0, bytes = 0, above_roof = 0, pct = 0;
  uint64_t kernels = 0, launches = 0;
  GainMap gains;
  for (uint32_t i = 0; i < run.kernels.size(); ++i) {
    const KernelGroup& g = run.kernels[i];
    if (!g.placement || g.placement->regime != Regime::kMemoryBound ||
        !IsStreamingFamily(g.family)) {
      continue;
    }
    ++kernels;
    launches += g.executions;
    ns += g.gpu_ns;
    bytes += g.timed.bytes;
    pct += g.placement->pct_of_bandwidth.value_or(0) * g.gpu_ns;
    if (g.placement->roof_time_ns) {
      const double above = std::max(0.0, g.gpu_ns - *g.placement->roof_time_ns);
      above_roof += above;
      if (above > 0) gains[i] = above;
    }
  }
  if (total <= 0 || ns < 0.05 * total) return;
  Advice a;
  a.kind = AdviceKind::kFuseElementwise;
  a.finding = Count(kernels, "memory-bound elementwise, reduction or normalisation kernel",
                    "memory-bound elementwise, reduction and normalisation kernels") +
              " (" + Count(launches, "run", "runs") + (kernels == 1 ? ") takes " : ") take ") +
              Time(ns) + ", " + Percent(ns / total) + " of the GPU time, moving " + Si(bytes) +
              "B at " + PercentText(pct / ns) + " of the DRAM roof on average.";
  a.action =
      "Fuse them: torch.compile (or torch.jit) merges chains of elementwise ops into single "
      "kernels that keep intermediate values in registers instead of writing and re-reading "
      "them.";
  if (above_roof > 0) {
    a.gain_ns = above_roof;
    a.gain_basis =
        "time above the DRAM bandwidth roof, if each kernel moved its bytes at the roof; "
        "fusion can save more by not moving intermediate tensors at all";
  }
  a.share = ns / total;
  out.Add(std::move(a), std::move(gains));
}

void TensorCores(const TraceAnalysis& run, const std::map<int32_t, DeviceRoofs>& roofs,
                 double total, Findings& out) {
  double ns = 0, gain = 0;
  uint64_t calls = 0;
  double ratio = 0;
  GainMap gains;
  for (uint32_t i = 0; i < run.libraries.size(); ++i) {
    const LibraryGroup& g = run.libraries[i];
    if (g.path != ComputePath::kFp32 || !g.placement || g.gpu_ns <= 0) continue;
    const auto r = roofs.find(g.device);
    if (r == roofs.end()) continue;
    const double fp32 = r->second.Flops(ComputePath::kFp32).Value();
    const double tf32 = r->second.Flops(ComputePath::kTf32Tensor).Value();
    if (fp32 <= 0 || tf32 <= fp32) continue;
    ns += g.gpu_ns;
    calls += g.calls;
    ratio = tf32 / fp32;
    // Same share of the roof on the TF32 tensor path: time shrinks by fp32 / tf32, but never
    // below the time it takes to move its bytes.
    const double bytes_ns =
        g.placement->bandwidth > 0 ? g.timed_bytes / g.placement->bandwidth * 1e9 : 0;
    const double group_gain = std::max(0.0, g.gpu_ns - std::max(g.gpu_ns * fp32 / tf32, bytes_ns));
    gain += group_gain;
    AddLibraryGain(g, i, group_gain, gains);
  }
  if (ns <= 0) return;
  Advice a;
  a.kind = AdviceKind::kTensorCores;
  a.finding = Count(calls, "FP32 matrix multiplication takes", "FP32 matrix multiplications take") +
              " " + Time(ns) + (total > 0 ? " (" + Percent(ns / total) + " of GPU time)" : "") +
              " on the CUDA cores, while this GPU's TF32 tensor cores are " + Sig3(ratio) +
              " times faster.";
  a.action =
      "Allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, or "
      "torch.set_float32_matmul_precision('high')), or compute in bf16 with torch.autocast.";
  if (gain > 0) {
    a.gain_ns = gain;
    a.gain_basis =
        "the same share of the TF32 tensor roof as now of the FP32 roof, but no less "
        "time than moving the operands takes";
  }
  a.share = total > 0 ? ns / total : 0;
  out.Add(std::move(a), std::move(gains));
}

void GemmShapes(const TraceAnalysis& run, double total, Findings& out) {
  double lost = 0, ns = 0;
  std::vector<std::string> examples;
  GainMap gains;
  for (uint32_t i = 0; i < run.libraries.size(); ++i) {
    const LibraryGroup& g = run.libraries[i];
    double group_lost = 0;
    for (const GemmFinding& f : g.findings) {
      if (f.severity == FindingSeverity::kInfo) continue;
      if (f.lost_fraction && g.gpu_ns > 0)
        group_lost = std::max(group_lost, *f.lost_fraction * g.gpu_ns);
      if (examples.size() < 3) examples.push_back(f.sentence);
    }
    if (group_lost > 0) {
      lost += group_lost;
      ns += g.gpu_ns;
      AddLibraryGain(g, i, group_lost, gains);
    }
  }
  if (examples.empty()) return;
  Advice a;
  a.kind = AdviceKind::kGemmShapes;
  a.finding = "GEMM shapes fit the hardware badly. ";
  for (size_t i = 0; i < examples.size(); ++i) a.finding += (i ? " " : "") + examples[i];
  a.action =
      "Pad matrix dimensions to multiples of 8 (16-bit types) or 16 (8-bit types), and pick "
      "sizes whose tile count fills whole waves of the GPU's SMs (e.g. hidden sizes that are "
      "multiples of 64 or 128).";
  if (lost > 0) {
    a.gain_ns = lost;
    a.gain_basis = "the largest time lost each GEMM shape's diagnostics estimate";
  }
  a.share = total > 0 ? ns / total : 0;
  out.Add(std::move(a), std::move(gains));
}

void PinnedMemory(const TraceAnalysis& run, Findings& out) {
  double pageable_ns = 0, pageable_bytes = 0, pinned_ns = 0, pinned_bytes = 0;
  for (const CopyGroup& c : run.copies) {
    if (!c.from_gpu || c.is_set) continue;
    if (c.kind != trace::CopyKind::kHostToDevice && c.kind != trace::CopyKind::kDeviceToHost)
      continue;
    if (c.src == trace::MemoryKind::kPageable || c.dst == trace::MemoryKind::kPageable) {
      pageable_ns += c.ns;
      pageable_bytes += c.bytes;
    } else if (c.src == trace::MemoryKind::kPinned || c.dst == trace::MemoryKind::kPinned) {
      pinned_ns += c.ns;
      pinned_bytes += c.bytes;
    }
  }
  if (pageable_ns <= 0) return;
  Advice a;
  a.kind = AdviceKind::kPinnedMemory;
  a.finding = "Host-device copies from pageable memory take " + Time(pageable_ns) + " for " +
              Si(pageable_bytes) + "B (" + Si(pageable_bytes / pageable_ns * 1e9) + "B/s); " +
              "the driver stages them through a pinned buffer and they cannot overlap compute.";
  a.action =
      "Use pinned host memory: DataLoader(pin_memory=True) or tensor.pin_memory(), then "
      ".to(device, non_blocking=True); in CUDA, cudaHostAlloc or cudaHostRegister.";
  if (pinned_ns > 0 && pinned_bytes > 0) {
    const double pinned_rate = pinned_bytes / pinned_ns;
    const double gain = pageable_ns - pageable_bytes / pinned_rate;
    if (gain > 0) {
      a.gain_ns = gain;
      a.gain_basis = "the pageable bytes moved at the pinned copies' measured rate in this run (" +
                     Si(pinned_rate * 1e9) + "B/s)";
    }
  }
  out.Add(std::move(a));
}

void LaunchBound(const TraceAnalysis& run, double total, Findings& out) {
  uint64_t kernels = 0, runs = 0;
  double gpu_ns = 0, launch_ns = 0;
  for (const KernelGroup& g : run.kernels) {
    if (!g.placement || g.placement->regime != Regime::kOverheadBound || g.launches == 0) continue;
    ++kernels;
    runs += g.executions;
    gpu_ns += g.gpu_ns;
    // Without first launches (module loading), as the regime was decided: trace_analysis.h.
    launch_ns += SteadyLaunchNs(g) * static_cast<double>(g.launches);
  }
  if (kernels == 0 || runs < 100) return;
  Advice a;
  a.kind = AdviceKind::kLaunchBound;
  a.finding =
      Count(runs, "run", "runs") + " of " + Count(kernels, "kernel", "kernels") +
      " are shorter than it takes to launch them: " + Time(gpu_ns / static_cast<double>(runs)) +
      " on the GPU against " + Time(launch_ns / static_cast<double>(runs)) + " of CPU per launch.";
  a.action =
      "Launch fewer, larger kernels: capture the loop in a CUDA graph (torch.cuda.CUDAGraph, "
      "torch.compile(mode='reduce-overhead')) or fuse the small kernels; batch more work per "
      "step.";
  a.share = total > 0 ? gpu_ns / total : 0;
  out.Add(std::move(a));
}

void FarFromRoof(const TraceAnalysis& run, double total, Findings& out) {
  for (uint32_t i = 0; i < run.kernels.size(); ++i) {
    const KernelGroup& g = run.kernels[i];
    if (!g.placement || g.placement->regime != Regime::kComputeBound ||
        g.placement->proximity != RoofProximity::kFar || total <= 0 || g.gpu_ns < 0.05 * total) {
      continue;
    }
    Advice a;
    a.kind = AdviceKind::kFarFromRoof;
    a.finding = (g.name.empty() ? std::string("a kernel") : g.name) + " is compute bound but " +
                "reaches " + PercentValue(g.placement->pct_of_attainable.value_or(0)) + " of its " +
                RoofLabel(g.placement->roof_path) + " roof over " + Time(g.gpu_ns) + " (" +
                Percent(g.gpu_ns / total) + " of GPU time).";
    // A library's own kernel runs on the roof its call's types choose (the placement above
    // uses them); what is left to change is the call, not the kernel.
    a.action = g.inside_library
                   ? "This kernel is cuBLAS's own: see its call's shape diagnostics and data "
                     "types in the cuBLAS section (dimensions the tensor cores want, tiles and "
                     "waves that fill the GPU, a faster data type), and profile it with Nsight "
                     "Compute (ncu -k regex:<name>) if those are fine."
                   : "Look at occupancy, tile sizes and instruction mix with Nsight Compute "
                     "(ncu -k regex:<name>), or use a library kernel for the operation.";
    GainMap gains;
    if (g.placement->roof_time_ns) {
      a.gain_ns = std::max(0.0, g.gpu_ns - *g.placement->roof_time_ns);
      a.gain_basis = "time above the roof: the most that reaching the roof could save";
      gains[i] = *a.gain_ns;
    }
    a.share = g.gpu_ns / total;
    out.Add(std::move(a), std::move(gains));
  }
}

}  // namespace

std::string_view AdviceKindName(AdviceKind kind) {
  switch (kind) {
    case AdviceKind::kMemoryBoundExplained:
      return "memory_bound_explained";
    case AdviceKind::kFuseElementwise:
      return "fuse_elementwise";
    case AdviceKind::kTensorCores:
      return "tensor_cores";
    case AdviceKind::kGemmShapes:
      return "gemm_shapes";
    case AdviceKind::kPinnedMemory:
      return "pinned_memory";
    case AdviceKind::kLaunchBound:
      return "launch_bound";
    case AdviceKind::kFarFromRoof:
      return "far_from_roof";
    case AdviceKind::kNoGpuTiming:
      return "no_gpu_timing";
  }
  return "unknown";
}

std::vector<Advice> AdviseRun(const TraceAnalysis& run,
                              const std::map<int32_t, DeviceRoofs>& roofs) {
  Findings found;
  const double total = KernelTime(run);
  if (run.launches > 0 && !run.gpu_timing) {
    Advice a;
    a.kind = AdviceKind::kNoGpuTiming;
    a.finding = Count(run.launches, "kernel launch was", "kernel launches were") +
                " recorded but no GPU times: CUPTI was off or unavailable "
                "(the warnings say why), so no kernel can be placed on a roofline.";
    a.action =
        "Run `flopspy info` to see whether CUPTI and the driver are available, and make sure no "
        "other profiler (nsys, ncu, another CUPTI user) holds CUPTI during the run.";
    found.Add(std::move(a));
  }
  MemoryBoundExplained(run, total, found);
  FuseElementwise(run, total, found);
  TensorCores(run, roofs, total, found);
  GemmShapes(run, total, found);
  PinnedMemory(run, found);
  LaunchBound(run, total, found);
  FarFromRoof(run, total, found);
  MarkOverlaps(run, found);
  std::vector<Advice> out = std::move(found.list);
  std::stable_sort(out.begin(), out.end(), [](const Advice& a, const Advice& b) {
    const double ga = a.gain_ns.value_or(0), gb = b.gain_ns.value_or(0);
    if (ga != gb) return ga > gb;
    return a.share > b.share;
  });
  return out;
}

}  // namespace flopspy::analyzers
