// The rules over one trace's kernels, libraries and copies (docs/advice.md); the rules over
// kernel families and names are in advice_groups.cpp, the coverage rule in advice_coverage.cpp.
#include <algorithm>
#include <cmath>
#include <set>

#include "advice_internal.h"
#include "flopspy/analyzers/display_text.h"

namespace flopspy::analyzers::advice_detail {
namespace {

bool IsStreamingFamily(const std::string& family) {
  return family.starts_with("elementwise") || family == "reduce" || family == "copy" ||
         family == "fill" || family == "softmax" || family == "layer_norm" || family == "index" ||
         family == "scatter_gather" || family == "demo";
}

// Kernel rows summed by name, then the names largest first.
void AddByName(std::vector<std::pair<double, std::string>>& by_name, const std::string& name,
               double ns) {
  for (auto& [t, n] : by_name) {
    if (n == name) {
      t += ns;
      return;
    }
  }
  by_name.emplace_back(ns, name);
}

std::vector<std::string> NamesByTime(std::vector<std::pair<double, std::string>> by_name) {
  std::stable_sort(by_name.begin(), by_name.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> names;
  for (auto& [t, n] : by_name) names.push_back(std::move(n));
  return names;
}

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

}  // namespace

void NoGpuTiming(const TraceAnalysis& run, Findings& out) {
  if (run.launches == 0 || run.gpu_timing) return;
  Advice a;
  a.kind = AdviceKind::kNoGpuTiming;
  a.title = "no GPU times recorded";
  a.finding = Count(run.launches, "kernel launch was", "kernel launches were") +
              " recorded but no GPU times: CUPTI was off or unavailable "
              "(the warnings say why), so no kernel can be placed on a roofline.";
  a.action =
      "Run `flopspy info` to see whether CUPTI and the driver are available, and make sure no "
      "other profiler (nsys, ncu, another CUPTI user) holds CUPTI during the run.";
  a.launches = run.launches;
  out.Add(std::move(a));
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
    uint64_t runs = 0;
    std::string names;
    for (size_t k : same) {
      used[k] = true;
      const KernelGroup& g = *entries[k].g;
      ns += entries[k].ns;
      bytes += entries[k].bytes;
      group_total += g.gpu_ns;
      runs += g.executions;
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
    a.title = "memory-bound ops cost their bytes, not their arithmetic";
    a.items = {names + " (" + Time(ns / calls) + " per call)"};
    a.gpu_ns = group_total;
    a.launches = runs;
    a.pct_of_roof = bandwidth_pct / calls;
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
  std::vector<std::pair<double, std::string>> by_name;  // GPU time, name
  for (uint32_t i = 0; i < run.kernels.size(); ++i) {
    const KernelGroup& g = run.kernels[i];
    if (!g.placement || g.placement->regime != Regime::kMemoryBound ||
        !IsStreamingFamily(g.family)) {
      continue;
    }
    AddByName(by_name, KernelKeyName(g), g.gpu_ns);
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
  std::vector<std::string> names = NamesByTime(std::move(by_name));
  Advice a;
  a.kind = AdviceKind::kFuseElementwise;
  a.title = "fuse memory-bound kernels";
  a.gpu_ns = ns;
  a.launches = launches;
  a.pct_of_roof = pct / ns;
  a.items = std::move(names);
  a.finding = Count(kernels, "memory-bound elementwise, reduction or normalisation kernel",
                    "memory-bound elementwise, reduction and normalisation kernels") +
              " (" + Count(launches, "run", "runs") + (kernels == 1 ? ") takes " : ") take ") +
              Time(ns) + ", " + Percent(ns / total) + " of the GPU time, moving " + Si(bytes) +
              "B at " + PercentText(pct / ns) + " of the DRAM roof on average" +
              (a.items.size() > 1 ? ": " + ListWithMore(a.items, 5) : "") + ".";
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
  a.title = "FP32 GEMMs could use TF32 tensor cores";
  a.gpu_ns = ns;
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
  a.title = "GEMM shapes waste tiles or waves";
  a.gpu_ns = ns;
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
  a.title = "copies from pageable host memory";
  a.gpu_ns = pageable_ns;
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
  std::vector<std::pair<double, std::string>> by_name;
  for (const KernelGroup& g : run.kernels) {
    if (!g.placement || g.placement->regime != Regime::kOverheadBound || g.launches == 0) continue;
    AddByName(by_name, KernelKeyName(g), g.gpu_ns);
    ++kernels;
    runs += g.executions;
    gpu_ns += g.gpu_ns;
    // Without first launches (module loading), as the regime was decided: trace_analysis.h.
    launch_ns += SteadyLaunchNs(g) * static_cast<double>(g.launches);
  }
  if (kernels == 0 || runs < 100) return;
  Advice a;
  a.kind = AdviceKind::kLaunchBound;
  a.title = "kernels shorter than their launch";
  a.items = NamesByTime(std::move(by_name));
  a.gpu_ns = gpu_ns;
  a.launches = runs;
  a.finding =
      Count(runs, "run", "runs") + " of " + Count(kernels, "kernel", "kernels") +
      (a.items.size() > 1 ? " (" + ListWithMore(a.items, 5) + ")" : "") +
      " are shorter than it takes to launch them: " + Time(gpu_ns / static_cast<double>(runs)) +
      " on the GPU against " + Time(launch_ns / static_cast<double>(runs)) + " of CPU per launch.";
  a.action =
      "Launch fewer, larger kernels: capture the loop in a CUDA graph (torch.cuda.CUDAGraph, "
      "torch.compile(mode='reduce-overhead')) or fuse the small kernels; batch more work per "
      "step.";
  a.share = total > 0 ? gpu_ns / total : 0;
  out.Add(std::move(a));
}

}  // namespace flopspy::analyzers::advice_detail
