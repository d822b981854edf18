#include "flopspy/cpu_roofline/cpu_roofline_report.h"

#include <algorithm>

#include "flopspy/cpu_roofline/roofline_method.h"
#include "text_util.h"

namespace flopspy::cpuroof {

namespace {

std::string ScopeName(uint8_t scope) {
  switch (static_cast<trace::CpuSampleScope>(scope)) {
    case trace::CpuSampleScope::kInterval:
      return "interval";
    case trace::CpuSampleScope::kRegion:
      return "region";
    case trace::CpuSampleScope::kRun:
      return "run";
  }
  return "unknown";
}

std::string PrecisionOf(const trace::CpuSampleRecord& r) {
  using trace::kCpuFlopsAny;
  using trace::kCpuFlopsDp;
  using trace::kCpuFlopsHp;
  using trace::kCpuFlopsSp;
  if (!(r.valid & kCpuFlopsAny)) return "";
  if (!(r.valid & (kCpuFlopsDp | kCpuFlopsSp | kCpuFlopsHp))) return "any";
  const bool dp = (r.valid & kCpuFlopsDp) && r.flops_dp > 0;
  const bool sp = (r.valid & kCpuFlopsSp) && r.flops_sp > 0;
  const bool hp = (r.valid & kCpuFlopsHp) && r.flops_hp > 0;
  const int n = dp + sp + hp;
  if (n > 1) return "mixed";
  if (dp) return "dp";
  if (sp) return "sp";
  if (hp) return "hp";
  return "any";
}

const CpuRoof* FindRoof(const std::vector<CpuRoof>& roofs, bool compute, std::string_view level,
                        std::string_view source) {
  const CpuRoof* best = nullptr;
  for (const CpuRoof& r : roofs) {
    if (r.compute != compute || r.level != level || r.source != source) continue;
    if (!best || r.value > best->value) best = &r;
  }
  return best;
}

// The roof a point is held to: configured, else measured, else theoretical.
const CpuRoof* PreferredRoof(const std::vector<CpuRoof>& roofs, bool compute,
                             std::string_view level) {
  for (std::string_view src : {"configured", "measured", "theoretical"}) {
    if (const CpuRoof* r = FindRoof(roofs, compute, level, src)) return r;
  }
  return nullptr;
}

std::string Pad(std::string s, size_t width, bool left = false) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return left ? s + fill : fill + s;
}

}  // namespace

size_t FlagPointsOverlappingGpuCopies(std::vector<LabeledSample>& samples,
                                      std::vector<std::pair<uint64_t, uint64_t>> copies) {
  if (copies.empty()) return 0;
  for (auto& c : copies) {
    if (c.second < c.first) std::swap(c.first, c.second);
  }
  std::sort(copies.begin(), copies.end());
  // Running maximum of the ends, so one binary search finds whether any copy meets a span.
  std::vector<uint64_t> max_end(copies.size());
  uint64_t running = 0;
  for (size_t i = 0; i < copies.size(); ++i)
    max_end[i] = running = std::max(running, copies[i].second);
  size_t flagged = 0;
  for (LabeledSample& s : samples) {
    trace::CpuSampleRecord& r = s.record;
    if ((r.flags & trace::kCpuOverlapsGpuCopies) != 0) continue;
    bool overlap = r.scope == static_cast<uint8_t>(trace::CpuSampleScope::kRun);
    if (!overlap) {
      // Copies starting at or before the span's end; the latest-ending of them must reach it.
      const auto last =
          std::upper_bound(copies.begin(), copies.end(), std::make_pair(r.end_ns, UINT64_MAX));
      overlap = last != copies.begin() &&
                max_end[static_cast<size_t>(last - copies.begin()) - 1] >= r.begin_ns;
    }
    if (overlap) {
      r.flags |= trace::kCpuOverlapsGpuCopies;
      ++flagged;
    }
  }
  return flagged;
}

CpuRooflineChart BuildCpuRoofline(const std::vector<LabeledSample>& samples,
                                  const CpuRooflineInputs& in) {
  CpuRooflineChart chart;
  const CpuCeilings* c = in.ceilings;
  if (c) {
    for (Precision p : {Precision::kDp, Precision::kSp}) {
      const char* level = p == Precision::kDp ? "fp64" : "fp32";
      const char* label = p == Precision::kDp ? "FP64" : "FP32";
      // Best measured all-core figure per precision, with its ISA.
      const FlopsCeiling* best = nullptr;
      for (const FlopsCeiling& f : c->flops) {
        if (f.precision == p && f.threads == c->threads_all && (!best || f.gflops > best->gflops)) {
          best = &f;
        }
      }
      if (best) {
        chart.roofs.push_back(CpuRoof{true,
                                      std::string(label) + " " + std::string(IsaName(best->isa)) +
                                          ", " + std::to_string(best->threads) + " threads",
                                      level, best->gflops, "measured", best->threads});
      }
      double th = 0;
      Isa th_isa = Isa::kScalar;
      for (const TheoreticalIsaPeak& t : c->theoretical.isas) {
        const double v = p == Precision::kDp ? t.dp_gflops_all : t.sp_gflops_all;
        if (v >= th) {  // ties: the widest ISA
          th = v;
          th_isa = t.isa;
        }
      }
      if (th > 0) {
        chart.roofs.push_back(CpuRoof{true,
                                      std::string(label) + " " + std::string(IsaName(th_isa)) +
                                          " at " + FormatG(c->theoretical.nominal_ghz, 3) +
                                          " GHz, " + std::to_string(c->theoretical.cores) +
                                          " cores",
                                      level, th, "theoretical", c->theoretical.cores});
      }
    }
    for (const char* level : {"L1", "L2", "L3", "DRAM"}) {
      // The paper's beta is a copy; other kernels stand in when copy is missing.
      std::optional<double> v = c->Bandwidth(level, "copy", 0);
      std::string kernel = "copy";
      if (!v) {
        v = c->Bandwidth(level, "", 0);
        kernel = "best kernel";
      }
      if (v) {
        chart.roofs.push_back(CpuRoof{
            false,
            std::string(level) + " " + kernel + ", " + std::to_string(c->threads_all) + " threads",
            level, *v, "measured", c->threads_all});
      }
    }
  } else {
    chart.notes.push_back("no CPU ceilings: run `flopspy ceilings --cpu` for measured roofs");
  }
  if (in.peak_gflops) {
    for (const char* level : {"fp64", "fp32"}) {
      chart.roofs.push_back(
          CpuRoof{true, "FLOPSPY_CPU_PEAK_GFLOPS", level, *in.peak_gflops, "configured", 0});
    }
  }
  if (in.bandwidth_gbs) {
    chart.roofs.push_back(
        CpuRoof{false, "FLOPSPY_CPU_BW_GBS", "DRAM", *in.bandwidth_gbs, "configured", 0});
  }

  const CpuRoof* dram = PreferredRoof(chart.roofs, false, "DRAM");
  const CpuRoof* fp64 = PreferredRoof(chart.roofs, true, "fp64");
  const CpuRoof* fp32 = PreferredRoof(chart.roofs, true, "fp32");
  const CpuRoof* top = fp32 ? fp32 : fp64;
  if (fp64 && fp32 && fp64->value > fp32->value) top = fp64;
  if (dram && top && dram->value > 0) chart.ridge_intensity = top->value / dram->value;

  for (const LabeledSample& s : samples) {
    const trace::CpuSampleRecord& r = s.record;
    if (!in.include_intervals &&
        r.scope == static_cast<uint8_t>(trace::CpuSampleScope::kInterval)) {
      continue;
    }
    const DerivedPoint d = Derive(r);
    CpuRooflinePoint p;
    p.label = s.label;
    p.scope = ScopeName(r.scope);
    p.begin_ns = r.begin_ns;
    p.end_ns = r.end_ns;
    p.seconds = d.seconds;
    p.precision = PrecisionOf(r);
    if (d.flops_per_s) p.gflops = *d.flops_per_s * 1e-9;
    if (d.bytes_per_s) p.gbytes_per_s = *d.bytes_per_s * 1e-9;
    p.intensity = d.intensity;
    p.intensity_read = d.intensity_read;
    p.intensity_write = d.intensity_write;
    p.flops_per_cycle = d.flops_per_cycle;
    p.ghz = d.ghz;
    p.flags = FlagNameList(r.flags);
    // A DP-only point is held to the FP64 roof; anything else to the highest one. Without Q only
    // the compute roof can bind.
    const CpuRoof* pi = p.precision == "dp" && fp64 ? fp64 : top;
    if (pi) {
      p.placement = analyzers::PlaceRate(pi->value * 1e9, dram ? dram->value * 1e9 : 0,
                                         d.flops_per_s, d.intensity);
    }
    chart.points.push_back(std::move(p));
  }
  return chart;
}

std::string FormatCeilingsTable(const CpuCeilings& c) {
  std::string out = "CPU ceilings: " + c.cpu + (c.quick ? " (quick)" : "") + "\n";
  out += "  theoretical: " + c.theoretical.basis + "; " + FormatG(c.theoretical.nominal_ghz, 3) +
         " GHz nominal";
  if (c.theoretical.max_ghz > 0) out += ", " + FormatG(c.theoretical.max_ghz, 3) + " GHz max";
  out += ", " + std::to_string(c.theoretical.cores) + " cores\n";
  out += "  " + Pad("isa", 7, true) + " " + Pad("prec", 4, true) + " " + Pad("threads", 7) + " " +
         Pad("acc", 4) + " " + Pad("GFLOP/s", 9) + " " + Pad("theory", 9) + " " + Pad("ratio", 6) +
         "\n";
  for (const FlopsCeiling& f : c.flops) {
    out += "  " + Pad(std::string(IsaName(f.isa)), 7, true) + " " +
           Pad(f.precision == Precision::kDp ? "fp64" : "fp32", 4, true) + " " +
           Pad(std::to_string(f.threads), 7) + " " + Pad(std::to_string(f.accumulators), 4) + " " +
           Pad(FormatG(f.gflops, 4), 9) + " " + Pad(FormatG(f.theoretical_gflops, 4), 9) + " " +
           Pad(f.theoretical_gflops > 0 ? FormatF(f.gflops / f.theoretical_gflops, 2) : "n/a", 6) +
           "\n";
  }
  out += "  " + Pad("level", 5, true) + " " + Pad("kernel", 6, true) + " " + Pad("threads", 7) +
         " " + Pad("GB/s", 9) + " " + Pad("set KiB", 9) + "\n";
  for (const BandwidthCeiling& b : c.bandwidth) {
    out += "  " + Pad(b.level, 5, true) + " " + Pad(b.kernel, 6, true) + " " +
           Pad(std::to_string(b.threads), 7) + " " + Pad(FormatG(b.gbytes_per_s, 4), 9) + " " +
           Pad(std::to_string(b.working_set_bytes >> 10), 9) + "\n";
  }
  for (const std::string& n : c.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace flopspy::cpuroof
