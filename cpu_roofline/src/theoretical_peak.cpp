// The theoretical peak of a CPU: ISA names and widths, FMA pipes per core, cores x clock x
// FLOPs per cycle.
#include <algorithm>
#include <cmath>
#include <string>

#include "flopspy/cpu_roofline/ceilings.h"
#include "flopspy/cpu_roofline/event_catalog.h"
#include "text_util.h"

namespace flopspy::cpuroof {

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kSse:
      return "sse";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kNeon:
      return "neon";
  }
  return "scalar";
}

std::optional<Isa> IsaFromName(std::string_view name) {
  for (Isa i : {Isa::kScalar, Isa::kSse, Isa::kAvx2, Isa::kAvx512, Isa::kNeon}) {
    if (IsaName(i) == name) return i;
  }
  return std::nullopt;
}

int IsaBits(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return 64;
    case Isa::kSse:
      return 128;
    case Isa::kAvx2:
      return 256;
    case Isa::kAvx512:
      return 512;
    case Isa::kNeon:
      return 128;
  }
  return 64;
}

std::vector<Isa> SupportedIsas() {
  std::vector<Isa> out{Isa::kScalar};
#if defined(__x86_64__)
  __builtin_cpu_init();
  out.push_back(Isa::kSse);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) out.push_back(Isa::kAvx2);
  if (__builtin_cpu_supports("avx512f")) out.push_back(Isa::kAvx512);
#elif defined(__aarch64__)
  out.push_back(Isa::kNeon);
#endif
  return out;
}

// --- theoretical peak ----------------------------------------------------------------------

namespace {

struct CoreModel {
  std::string_view name;
  int pipes;
  int datapath_bits;
  int latency;
  bool fma;
};

// FMA pipes, vector datapath and FMA latency per core (docs/cpu-counters-notes.md; vendor figures,
// verify per SKU: some Xeon SKUs have one AVX-512 FMA unit).
CoreModel ModelFor(CpuFamily f, const CpuIdentity& cpu) {
  switch (f) {
    case CpuFamily::kIntelSnb:
      return {"add + multiply ports, 256-bit, no FMA", 1, 256, 5, false};
    case CpuFamily::kIntelHsw:
      return {"2 FMA pipes x 256-bit", 2, 256, 5, true};
    case CpuFamily::kIntelBdw:
    case CpuFamily::kIntelSkl:
    case CpuFamily::kIntelHybrid:
      return {"2 FMA pipes x 256-bit", 2, 256, 4, true};
    case CpuFamily::kIntelIcl:
      return {"2 FMA pipes x 256-bit (AVX-512 fused)", 2, 256, 4, true};
    case CpuFamily::kIntelSkx:
    case CpuFamily::kIntelIcx:
    case CpuFamily::kIntelSpr:
    case CpuFamily::kIntelGnr:
      return {"2 FMA pipes x 512-bit", 2, 512, 4, true};
    case CpuFamily::kIntelSrf:
      return {"2 FMA pipes x 128-bit", 2, 128, 4, true};
    case CpuFamily::kAmdZen1:
      return {"2 FMA pipes x 128-bit", 2, 128, 5, true};
    case CpuFamily::kAmdZen2:
      return {"2 FMA pipes x 256-bit", 2, 256, 5, true};
    case CpuFamily::kAmdZen3:
    case CpuFamily::kAmdZen4:
      return {"2 FMA pipes x 256-bit", 2, 256, 4, true};
    case CpuFamily::kAmdZen5:
      return {"2 FMA pipes x 512-bit", 2, 512, 4, true};
    case CpuFamily::kArmNeoverseN1:
    case CpuFamily::kArmNeoverseN2:
    case CpuFamily::kArmNeoverseN3:
      return {"2 FMA pipes x 128-bit", 2, 128, 4, true};
    case CpuFamily::kArmNeoverseV1:
    case CpuFamily::kArmNeoverseV2:
    case CpuFamily::kArmNeoverseV3:
      return {"4 FMA pipes x 128-bit", 4, 128, 4, true};
    default:
      break;
  }
  const CpuFeatures& ft = cpu.features;
  const int widest = ft.avx512f ? 512 : ft.avx2 ? 256 : 128;
  return {"unknown core: assumed 2 FMA pipes x widest vector", 2, widest, 4, ft.fma || ft.neon};
}

}  // namespace

const TheoreticalIsaPeak* TheoreticalPeak::Find(Isa isa) const {
  for (const TheoreticalIsaPeak& p : isas) {
    if (p.isa == isa) return &p;
  }
  return nullptr;
}

int TheoreticalPeak::AccumulatorsFor(Isa isa) const {
  // A 512-bit op on a 256-bit datapath occupies two pipes: half as many in flight.
  int pipes = fma_pipes;
  if (IsaBits(isa) > datapath_bits) pipes = std::max(1, pipes * datapath_bits / IsaBits(isa));
  return std::max(1, fma_latency * pipes);
}

TheoreticalPeak ComputeTheoreticalPeak(const CpuIdentity& cpu) {
  TheoreticalPeak t;
  const FamilyInfo family = IdentifyFamily(cpu);
  const CoreModel m = ModelFor(family.family, cpu);
  t.basis = std::string(family.name) + ": " + std::string(m.name) + ", FMA latency " +
            std::to_string(m.latency);
  t.fma_pipes = m.pipes;
  t.datapath_bits = m.datapath_bits;
  t.fma_latency = m.latency;
  t.fma = m.fma;
  t.nominal_ghz = cpu.nominal_mhz / 1000.0;
  t.max_ghz = cpu.max_mhz / 1000.0;
  t.cores = std::max(1, cpu.physical_cores);
  std::vector<Isa> isas{Isa::kScalar};
  if (cpu.vendor == CpuVendor::kArm || cpu.features.neon) {
    isas.push_back(Isa::kNeon);
  } else {
    isas.push_back(Isa::kSse);
    if (cpu.features.avx2) isas.push_back(Isa::kAvx2);
    if (cpu.features.avx512f) isas.push_back(Isa::kAvx512);
  }
  for (Isa isa : isas) {
    TheoreticalIsaPeak p;
    p.isa = isa;
    const int bits = std::min(IsaBits(isa), m.datapath_bits);
    // Without FMA a multiply and an add issue side by side: still 2 flops per lane per cycle.
    p.dp_flops_per_cycle = m.pipes * (bits / 64.0) * 2;
    p.sp_flops_per_cycle = m.pipes * (bits / 32.0) * 2;
    if (isa == Isa::kScalar) {
      p.dp_flops_per_cycle = m.pipes * 2.0;
      p.sp_flops_per_cycle = m.pipes * 2.0;
    }
    p.dp_gflops_core = p.dp_flops_per_cycle * t.nominal_ghz;
    p.sp_gflops_core = p.sp_flops_per_cycle * t.nominal_ghz;
    p.dp_gflops_all = p.dp_gflops_core * t.cores;
    p.sp_gflops_all = p.sp_gflops_core * t.cores;
    t.isas.push_back(p);
  }
  return t;
}

}  // namespace flopspy::cpuroof
