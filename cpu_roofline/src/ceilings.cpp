// `flopspy ceilings --cpu`: runs the measurements (ceilings_measure.cpp) over the ISAs, thread
// counts and working-set sizes, and names what each figure measured.
#include "flopspy/cpu_roofline/ceilings.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <string>

#include "ceilings_kernels.h"
#include "ceilings_measure.h"
#include "host_topology.h"
#include "text_util.h"

namespace flopspy::cpuroof {
namespace {

std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Which cache level a sample measures, by where its data lives.
std::string LevelOf(const BandwidthSample& s, const CacheSizes& c) {
  const uint64_t ws = s.working_set_bytes;
  const uint64_t total = ws * static_cast<uint64_t>(s.threads);
  if (ws * 2 <= c.l1d) return "L1";
  if (ws >= 2 * c.l1d && ws * 2 <= c.l2) return "L2";
  if (ws >= 2 * c.l2 && total * 2 <= c.l3) return "L3";
  if (ws >= 4 * c.l3 && total >= 4 * c.l3) return "DRAM";
  return "";
}

// The FMA roofs: per ISA and precision, one core (the best accumulator count) and all cores.
void AddFlopsCeilings(CpuCeilings& out, const CeilingsOptions& options, const std::vector<int>& all,
                      double seconds, int repeats) {
  for (Isa isa : SupportedIsas()) {
    for (bool dp : {true, false}) {
      const std::vector<int> choices = kernels::AccumulatorChoices(isa);
      const int needed = out.theoretical.AccumulatorsFor(isa);
      // The smallest compiled count that covers latency x pipes; in full mode also the others.
      int sized = choices.back();
      for (int c : choices) {
        if (c >= needed) {
          sized = c;
          break;
        }
      }
      std::vector<int> tries{sized};
      if (!options.quick) tries = choices;
      FlopsCeiling single;
      single.isa = isa;
      single.precision = dp ? Precision::kDp : Precision::kSp;
      for (int acc : tries) {
        const double g = MeasureFma(isa, dp, acc, {all.front()}, seconds, repeats);
        if (g > single.gflops) {
          single.gflops = g;
          single.accumulators = acc;
        }
      }
      if (single.gflops <= 0) continue;
      const TheoreticalIsaPeak* th = out.theoretical.Find(isa);
      single.theoretical_gflops = th ? (dp ? th->dp_gflops_core : th->sp_gflops_core) : 0;
      out.flops.push_back(single);
      if (all.size() > 1) {
        FlopsCeiling multi = single;
        multi.threads = out.threads_all;
        multi.gflops = MeasureFma(isa, dp, single.accumulators, all, seconds, repeats);
        multi.theoretical_gflops = th ? (dp ? th->dp_flops_per_cycle : th->sp_flops_per_cycle) *
                                            out.theoretical.nominal_ghz * out.threads_all
                                      : 0;
        out.flops.push_back(multi);
      }
    }
  }
  // The turbo caveat of Ofenbeck et al.: a nominal-frequency peak can be exceeded.
  for (const FlopsCeiling& f : out.flops) {
    if (f.threads == 1 && f.precision == Precision::kDp && f.theoretical_gflops > 0 &&
        f.gflops > 1.05 * f.theoretical_gflops) {
      const TheoreticalIsaPeak* th = out.theoretical.Find(f.isa);
      const double ghz = th && th->dp_flops_per_cycle > 0 ? f.gflops / th->dp_flops_per_cycle : 0;
      out.notes.push_back(std::string(IsaName(f.isa)) + " FP64 measured " + FormatG(f.gflops) +
                          " GFLOP/s, above the nominal-frequency peak " +
                          FormatG(f.theoretical_gflops) + ": the core ran at about " +
                          FormatG(ghz, 3) + " GHz (turbo)");
    }
  }
}

// The bandwidth sweep over working-set sizes on one core and all cores, and a roof per level.
void AddBandwidthCeilings(CpuCeilings& out, const CeilingsOptions& options,
                          const CacheSizes& caches, const std::vector<int>& all, double seconds,
                          int repeats) {
  uint64_t max_ws = options.max_working_set;
  if (max_ws == 0) {
    max_ws = std::max<uint64_t>(4 * caches.l3, 64ull << 20);
    // Quick mode stays quick where the reported L3 is huge (a VM may report the whole
    // socket's): the DRAM roof then comes from the fallback below, with a note.
    if (options.quick) max_ws = std::min<uint64_t>(max_ws, kQuickMaxWorkingSet);
  }
  const uint64_t mem = PhysicalMemory();
  if (mem > 0) max_ws = std::min<uint64_t>(max_ws, mem / 8 / std::max<size_t>(1, all.size()));
  max_ws = std::min<uint64_t>(max_ws, 2ull << 30);
  std::vector<uint64_t> sizes;
  if (options.quick) {
    sizes = {caches.l1d / 2, std::max(caches.l2 / 2, 2 * caches.l1d),
             std::max(caches.l3 / 4 / std::max<size_t>(1, all.size()), 2 * caches.l2), max_ws};
  } else {
    for (uint64_t s = 8 << 10; s <= max_ws; s *= 2) sizes.push_back(s);
    if (sizes.empty() || sizes.back() != max_ws) sizes.push_back(max_ws);
  }
  for (uint64_t& s : sizes) s = std::min(s, max_ws);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<std::vector<int>> thread_sets{{all.front()}};
  if (all.size() > 1) thread_sets.push_back(all);
  for (const auto& cpus : thread_sets) {
    for (uint64_t ws : sizes) {
      for (const BandwidthSample& s : MeasureBandwidth(ws, cpus, seconds, repeats)) {
        out.sweep.push_back(s);
      }
    }
  }
  // Level roofs: the best sample inside each level's window, per kernel and thread count.
  std::map<std::tuple<std::string, std::string, int>, BandwidthCeiling> best;
  for (const BandwidthSample& s : out.sweep) {
    const std::string level = LevelOf(s, caches);
    if (level.empty()) continue;
    auto& b = best[{level, s.kernel, s.threads}];
    if (s.gbytes_per_s > b.gbytes_per_s) {
      b = BandwidthCeiling{level, s.kernel, s.threads, s.gbytes_per_s, s.working_set_bytes};
    }
  }
  // No set reached 4 x L3 (memory or quick mode capped it): the largest one, well beyond L2,
  // gives the DRAM roof, said to be an upper bound.
  const bool dram_in_window = std::any_of(best.begin(), best.end(), [](const auto& entry) {
    return std::get<0>(entry.first) == "DRAM";
  });
  if (!dram_in_window && !sizes.empty() && sizes.back() >= 4 * caches.l2) {
    for (const BandwidthSample& s : out.sweep) {
      if (s.working_set_bytes != sizes.back()) continue;
      auto& b = best[{"DRAM", s.kernel, s.threads}];
      if (s.gbytes_per_s > b.gbytes_per_s) {
        b = BandwidthCeiling{"DRAM", s.kernel, s.threads, s.gbytes_per_s, s.working_set_bytes};
      }
    }
    out.notes.push_back("DRAM roof from the largest working set, " +
                        FormatG(static_cast<double>(sizes.back()) / (1 << 20)) +
                        " MiB per thread, below 4 x L3 (" +
                        FormatG(static_cast<double>(caches.l3) / (1 << 20)) + " MiB as reported" +
                        (options.quick ? ", quick mode" : "") +
                        "): it is too high if part of the set stayed in L3");
  }
  for (const char* level : {"L1", "L2", "L3", "DRAM"}) {
    bool found = false;
    for (const auto& [key, b] : best) {
      if (std::get<0>(key) == level) {
        out.bandwidth.push_back(b);
        found = true;
      }
    }
    if (!found) {
      out.notes.push_back(std::string("no working set fell in the ") + level +
                          " window; that roof is missing");
    }
  }
}

}  // namespace

CpuCeilings RunCpuCeilings(const CeilingsOptions& options) {
  return RunCpuCeilings(options, DetectCpuIdentity(), DetectCacheSizes());
}

CpuCeilings RunCpuCeilings(const CeilingsOptions& options, const CpuIdentity& cpu,
                           const CacheSizes& caches) {
  const auto start = std::chrono::steady_clock::now();
  CpuCeilings out;
  out.cpu_key = CpuModelKey(cpu);
  out.cpu_model = cpu.model_name;
  out.cpu = DescribeCpu(cpu);
  out.created = UtcNow();
  out.quick = options.quick;
  out.caches = caches;
  out.theoretical = ComputeTheoreticalPeak(cpu);
  const double seconds = options.seconds_per_point > 0 ? options.seconds_per_point
                         : options.quick               ? 0.01
                                                       : 0.1;
  const int repeats = options.repeats > 0 ? options.repeats : options.quick ? 1 : 3;
  std::vector<int> all = CoreCpus(HostPaths{});
  if (options.max_threads > 0 && static_cast<int>(all.size()) > options.max_threads) {
    all.resize(static_cast<size_t>(options.max_threads));
  }
  out.threads_all = static_cast<int>(all.size());

  if (options.flops) AddFlopsCeilings(out, options, all, seconds, repeats);
  if (options.bandwidth) AddBandwidthCeilings(out, options, caches, all, seconds, repeats);
  out.seconds = Seconds(start, std::chrono::steady_clock::now());
  return out;
}

std::optional<double> CpuCeilings::PeakGflops(Precision precision, int threads) const {
  std::optional<double> best;
  const int want = threads == 0 ? threads_all : threads;
  for (const FlopsCeiling& f : flops) {
    if (f.precision != precision || f.threads != want) continue;
    if (!best || f.gflops > *best) best = f.gflops;
  }
  return best;
}

std::optional<double> CpuCeilings::Bandwidth(std::string_view level, std::string_view kernel,
                                             int threads) const {
  std::optional<double> best;
  const int want = threads == 0 ? threads_all : threads;
  for (const BandwidthCeiling& b : bandwidth) {
    if (b.level != level || b.threads != want) continue;
    if (!kernel.empty() && b.kernel != kernel) continue;
    if (!best || b.gbytes_per_s > *best) best = b.gbytes_per_s;
  }
  return best;
}

}  // namespace flopspy::cpuroof
