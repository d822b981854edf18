#include "flopspy/cpu_roofline/event_catalog.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <initializer_list>
#include <map>

#include "flopspy/trace/schema.h"
#include "text_util.h"

namespace flopspy::cpuroof {

using trace::kCpuExecutedNotRetired;
using trace::kCpuNoPrecisionSplit;
using trace::kCpuSpeculative;
using trace::kCpuSystemWideMemory;

static bool In(uint32_t v, std::initializer_list<uint32_t> set) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

FamilyInfo IdentifyFamily(const CpuIdentity& cpu) {
  auto f = [](CpuFamily fam, std::string_view key, std::string_view name) {
    return FamilyInfo{fam, key, name};
  };
  const uint32_t m = cpu.model;
  switch (cpu.vendor) {
    case CpuVendor::kIntel:
      if (cpu.family != 6) return f(CpuFamily::kIntelOther, "intel", "Intel (unknown family)");
      if (In(m, {0x2A, 0x2D, 0x3A, 0x3E})) {
        return f(CpuFamily::kIntelSnb, "snb", "Intel Sandy Bridge / Ivy Bridge");
      }
      if (In(m, {0x3C, 0x3F, 0x45, 0x46})) return f(CpuFamily::kIntelHsw, "hsw", "Intel Haswell");
      if (In(m, {0x3D, 0x47, 0x4F, 0x56})) {
        return f(CpuFamily::kIntelBdw, "bdw", "Intel Broadwell");
      }
      if (In(m, {0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6})) {
        return f(CpuFamily::kIntelSkl, "skl", "Intel Skylake client");
      }
      if (m == 0x55) return f(CpuFamily::kIntelSkx, "skx", "Intel Skylake-SP / Cascade Lake");
      if (In(m, {0x7D, 0x7E, 0x8C, 0x8D, 0xA7})) {
        return f(CpuFamily::kIntelIcl, "icl", "Intel Ice Lake / Tiger Lake client");
      }
      if (In(m, {0x6A, 0x6C})) return f(CpuFamily::kIntelIcx, "icx", "Intel Ice Lake-SP");
      if (In(m, {0x8F, 0xCF})) {
        return f(CpuFamily::kIntelSpr, "spr", "Intel Sapphire Rapids / Emerald Rapids");
      }
      if (In(m, {0xAD, 0xAE})) return f(CpuFamily::kIntelGnr, "gnr", "Intel Granite Rapids");
      if (In(m, {0x97, 0x9A, 0xB7, 0xBA, 0xBF, 0xAA, 0xAC, 0xC5, 0xC6})) {
        return f(CpuFamily::kIntelHybrid, "intel-hybrid", "Intel hybrid (P-cores)");
      }
      if (m == 0xAF) return f(CpuFamily::kIntelSrf, "srf", "Intel Sierra Forest");
      return f(CpuFamily::kIntelOther, "intel", "Intel (unknown model)");
    case CpuVendor::kAmd:
      if (cpu.family == 0x17) {
        return m < 0x30 ? f(CpuFamily::kAmdZen1, "zen1", "AMD Zen 1")
                        : f(CpuFamily::kAmdZen2, "zen2", "AMD Zen 2");
      }
      if (cpu.family == 0x19) {
        if (m <= 0x0F || (m >= 0x20 && m <= 0x5F))
          return f(CpuFamily::kAmdZen3, "zen3", "AMD Zen 3");
        if ((m >= 0x10 && m <= 0x1F) || (m >= 0x60 && m <= 0x7F) || (m >= 0xA0 && m <= 0xAF)) {
          return f(CpuFamily::kAmdZen4, "zen4", "AMD Zen 4");
        }
      }
      if (cpu.family == 0x1A) return f(CpuFamily::kAmdZen5, "zen5", "AMD Zen 5");
      return f(CpuFamily::kAmdOther, "amd", "AMD (unknown family)");
    case CpuVendor::kArm:
      if (cpu.arm_implementer == 0x41) {
        switch (cpu.arm_part) {
          case 0xD0C:
            return f(CpuFamily::kArmNeoverseN1, "neoverse-n1", "Arm Neoverse N1");
          case 0xD49:
            return f(CpuFamily::kArmNeoverseN2, "neoverse-n2", "Arm Neoverse N2");
          case 0xD40:
            return f(CpuFamily::kArmNeoverseV1, "neoverse-v1", "Arm Neoverse V1");
          case 0xD4F:
            return f(CpuFamily::kArmNeoverseV2, "neoverse-v2", "Arm Neoverse V2");
          case 0xD84:
            return f(CpuFamily::kArmNeoverseV3, "neoverse-v3", "Arm Neoverse V3");
          case 0xD8E:
            return f(CpuFamily::kArmNeoverseN3, "neoverse-n3", "Arm Neoverse N3");
          default:
            break;
        }
      }
      return f(CpuFamily::kArmOther, "arm", "Arm (unknown core)");
    case CpuVendor::kUnknown:
      break;
  }
  return f(CpuFamily::kUnknown, "unknown", "unknown CPU");
}

namespace {

constexpr Precision kDp = Precision::kDp;
constexpr Precision kSp = Precision::kSp;
constexpr Precision kHp = Precision::kHp;
constexpr Precision kAny = Precision::kAny;

// FP_ARITH_INST_RETIRED (0xC7, Broadwell and later) and FP_ARITH_INST_RETIRED2 (0xCF, FP16 on
// Sapphire Rapids and later); `pfm_pmu` names the libpfm4 table for the cross-check.
std::vector<FpEventSpec> IntelFpArith(std::string_view pfm_pmu, bool avx512, bool half) {
  struct Row {
    std::string_view name, pfm_event, pfm_umask;
    uint64_t config;
    double weight;
    Precision precision;
    bool needs512, half_row;
  };
  static const Row kRows[] = {
      {"fp_arith_inst_retired.scalar_double", "FP_ARITH_INST_RETIRED", "SCALAR_DOUBLE", 0x01c7, 1,
       kDp, false, false},
      {"fp_arith_inst_retired.128b_packed_double", "FP_ARITH_INST_RETIRED", "128B_PACKED_DOUBLE",
       0x04c7, 2, kDp, false, false},
      {"fp_arith_inst_retired.256b_packed_double", "FP_ARITH_INST_RETIRED", "256B_PACKED_DOUBLE",
       0x10c7, 4, kDp, false, false},
      {"fp_arith_inst_retired.512b_packed_double", "FP_ARITH_INST_RETIRED", "512B_PACKED_DOUBLE",
       0x40c7, 8, kDp, true, false},
      {"fp_arith_inst_retired.scalar_single", "FP_ARITH_INST_RETIRED", "SCALAR_SINGLE", 0x02c7, 1,
       kSp, false, false},
      {"fp_arith_inst_retired.128b_packed_single", "FP_ARITH_INST_RETIRED", "128B_PACKED_SINGLE",
       0x08c7, 4, kSp, false, false},
      {"fp_arith_inst_retired.256b_packed_single", "FP_ARITH_INST_RETIRED", "256B_PACKED_SINGLE",
       0x20c7, 8, kSp, false, false},
      {"fp_arith_inst_retired.512b_packed_single", "FP_ARITH_INST_RETIRED", "512B_PACKED_SINGLE",
       0x80c7, 16, kSp, true, false},
      {"fp_arith_inst_retired2.scalar_half", "FP_ARITH_INST_RETIRED2", "SCALAR_HALF", 0x01cf, 1,
       kHp, false, true},
      {"fp_arith_inst_retired2.complex_scalar_half", "FP_ARITH_INST_RETIRED2",
       "COMPLEX_SCALAR_HALF", 0x02cf, 2, kHp, false, true},
      {"fp_arith_inst_retired2.128b_packed_half", "FP_ARITH_INST_RETIRED2", "128B_PACKED_HALF",
       0x04cf, 8, kHp, false, true},
      {"fp_arith_inst_retired2.256b_packed_half", "FP_ARITH_INST_RETIRED2", "256B_PACKED_HALF",
       0x08cf, 16, kHp, false, true},
      {"fp_arith_inst_retired2.512b_packed_half", "FP_ARITH_INST_RETIRED2", "512B_PACKED_HALF",
       0x10cf, 32, kHp, false, true},
  };
  std::vector<FpEventSpec> out;
  for (const Row& r : kRows) {
    if (r.needs512 && !avx512) continue;
    if (r.half_row && !half) continue;
    std::string pfm;
    if (!pfm_pmu.empty()) {
      pfm = std::string(pfm_pmu) + "::" + std::string(r.pfm_event) + ":" + std::string(r.pfm_umask);
    }
    out.push_back(FpEventSpec{r.name, r.config, r.weight, r.precision, std::move(pfm)});
  }
  return out;
}

}  // namespace

FpTable BuiltinFpTable(CpuFamily family) {
  FpTable t;
  t.core_pmu = "cpu";
  switch (family) {
    case CpuFamily::kIntelSnb:
      t.events = {
          {"fp_comp_ops_exe.sse_scalar_double", 0x8010, 1, kDp,
           "snb::FP_COMP_OPS_EXE:SSE_SCALAR_DOUBLE"},
          {"fp_comp_ops_exe.sse_packed_double", 0x1010, 2, kDp,
           "snb::FP_COMP_OPS_EXE:SSE_FP_PACKED_DOUBLE"},
          {"simd_fp_256.packed_double", 0x0211, 4, kDp, "snb::SIMD_FP_256:PACKED_DOUBLE"},
          {"fp_comp_ops_exe.sse_scalar_single", 0x2010, 1, kSp,
           "snb::FP_COMP_OPS_EXE:SSE_FP_SCALAR_SINGLE"},
          {"fp_comp_ops_exe.sse_packed_single", 0x4010, 4, kSp,
           "snb::FP_COMP_OPS_EXE:SSE_PACKED_SINGLE"},
          {"simd_fp_256.packed_single", 0x0111, 8, kSp, "snb::SIMD_FP_256:PACKED_SINGLE"},
      };
      t.flags = kCpuExecutedNotRetired;
      t.notes.push_back(
          "Sandy/Ivy Bridge FP events count executed operations: W may be over-counted "
          "(Ofenbeck et al. measured up to 1.19x for dgemv)");
      break;
    case CpuFamily::kIntelHsw:
      t.missing =
          "Haswell has no floating-point arithmetic counter (AVX_INSTS.ALL is approximate and "
          "counts non-FP instructions)";
      break;
    case CpuFamily::kIntelBdw:
      t.events = IntelFpArith("bdw", false, false);
      break;
    case CpuFamily::kIntelSkl:
      t.events = IntelFpArith("skl", false, false);
      break;
    case CpuFamily::kIntelSkx:
      t.events = IntelFpArith("skx", true, false);
      break;
    case CpuFamily::kIntelIcl:
      t.events = IntelFpArith("icl", true, false);
      break;
    case CpuFamily::kIntelIcx:
      t.events = IntelFpArith("icx", true, false);
      break;
    case CpuFamily::kIntelSpr:
      t.events = IntelFpArith("spr", true, true);
      break;
    case CpuFamily::kIntelGnr:
      // libpfm4 4.13 has no GNR table; intel/perfmon gives GNR the SPR codes, checked against spr.
      t.events = IntelFpArith("spr", true, true);
      t.notes.push_back("Granite Rapids: encodings as Sapphire Rapids (intel/perfmon GNR v1.20)");
      break;
    case CpuFamily::kIntelHybrid:
      t.events = IntelFpArith("", false, false);
      t.core_pmu = "cpu_core";
      t.notes.push_back(
          "hybrid CPU: FP_ARITH exists only on P-cores (cpu_core); work on E-cores is not counted "
          "and P-core counts are not extrapolated to E-core time");
      break;
    case CpuFamily::kIntelSrf:
      t.events = {
          {"fp_flops_retired.fp64", 0x01c8, 1, kDp, ""},
          {"fp_flops_retired.fp32", 0x02c8, 1, kSp, ""},
      };
      break;
    case CpuFamily::kAmdZen1:
      t.events = {
          {"fp_ret_sse_avx_ops.dp", 0xf003, 1, kDp,
           "amd64_fam17h_zen1::RETIRED_SSE_AVX_OPERATIONS:DP_MULT_ADD_FLOPS:DP_DIV_FLOPS:DP_"
           "MULT_FLOPS:DP_ADD_SUB_FLOPS"},
          {"fp_ret_sse_avx_ops.sp", 0x0f03, 1, kSp,
           "amd64_fam17h_zen1::RETIRED_SSE_AVX_OPERATIONS:SP_MULT_ADD_FLOPS:SP_DIV_FLOPS:SP_"
           "MULT_FLOPS:SP_ADD_SUB_FLOPS"},
      };
      break;
    case CpuFamily::kAmdZen2:
      t.events = {{"fp_ret_sse_avx_ops.all", 0x0f03, 1, kAny,
                   "amd64_fam17h_zen2::RETIRED_SSE_AVX_FLOPS:ANY"}};
      t.flags = kCpuNoPrecisionSplit;
      break;
    case CpuFamily::kAmdZen3:
      t.events = {{"fp_ret_sse_avx_ops.all", 0x0f03, 1, kAny,
                   "amd64_fam19h_zen3::RETIRED_SSE_AVX_FLOPS:ANY"}};
      t.flags = kCpuNoPrecisionSplit;
      break;
    case CpuFamily::kAmdZen4:
      // 0x0F, not ANY (0x1F): bfloat16 MACs are left out.
      t.events = {{"fp_ret_sse_avx_ops.all", 0x0f03, 1, kAny,
                   "amd64_fam19h_zen4::RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS:MULT_FLOPS:DIV_FLOPS:"
                   "MAC_FLOPS"}};
      t.flags = kCpuNoPrecisionSplit;
      break;
    case CpuFamily::kAmdZen5:
      t.events = {
          {"fp_ret_sse_avx_ops.dp_scalar", 0x8f03, 1, kDp, ""},
          {"fp_ret_sse_avx_ops.dp_packed", 0xaf03, 1, kDp, ""},
          {"fp_ret_sse_avx_ops.sp_scalar", 0x4f03, 1, kSp, ""},
          {"fp_ret_sse_avx_ops.sp_packed", 0x6f03, 1, kSp, ""},
      };
      t.notes.push_back("Zen 5 FP umasks (0x8F/0xAF/0x4F/0x6F) are not yet confirmed on hardware");
      break;
    case CpuFamily::kArmNeoverseN2:
    case CpuFamily::kArmNeoverseV1:
    case CpuFamily::kArmNeoverseV2:
    case CpuFamily::kArmNeoverseV3:
    case CpuFamily::kArmNeoverseN3: {
      FpEventSpec fixed{"fp_fixed_ops_spec", 0x80c1, 1, kAny, ""};
      FpEventSpec scale{"fp_scale_ops_spec", 0x80c0, 1, kAny, ""};
      scale.sve_scaled = true;
      t.events = {fixed, scale};
      t.flags = kCpuSpeculative | kCpuNoPrecisionSplit;
      t.core_pmu = "armv8_pmuv3";
      break;
    }
    case CpuFamily::kArmNeoverseN1:
    case CpuFamily::kArmOther:
      t.core_pmu = "armv8_pmuv3";
      t.missing =
          "this Arm core has no FP operation counter (VFP_SPEC/ASE_SPEC count instructions, not "
          "operations)";
      break;
    case CpuFamily::kIntelOther:
    case CpuFamily::kAmdOther:
    case CpuFamily::kUnknown:
      t.missing = "no built-in FP events for this CPU; name them with FLOPSPY_CPU_EVENTS";
      break;
  }
  return t;
}

MemTable BuiltinMemTable(const CpuIdentity& cpu, CpuFamily family) {
  MemTable t;
  const uint32_t m = cpu.model;
  auto imc = [](std::string_view alias, std::string_view terms, Direction d) {
    return MemEventSpec{"uncore_imc_", true, alias, terms, d, 64};
  };
  if (cpu.vendor == CpuVendor::kIntel && cpu.family == 6) {
    if (In(m, {0x2D, 0x3E, 0x3F, 0x4F, 0x56, 0x55})) {
      t.events = {imc("cas_count_read", "event=0x04,umask=0x03", Direction::kRead),
                  imc("cas_count_write", "event=0x04,umask=0x0c", Direction::kWrite)};
    } else if (In(m, {0x6A, 0x6C})) {
      t.events = {imc("cas_count_read", "event=0x04,umask=0x0f", Direction::kRead),
                  imc("cas_count_write", "event=0x04,umask=0x30", Direction::kWrite)};
    } else if (In(m, {0x8F, 0xCF})) {
      t.events = {imc("cas_count_read", "event=0x05,umask=0xcf", Direction::kRead),
                  imc("cas_count_write", "event=0x05,umask=0xf0", Direction::kWrite)};
    } else if (In(m, {0xAD, 0xAE, 0xAF})) {
      // DDR5 sub-channels 0 and 1 (event 0x05 and 0x06); no Linux alias names relied on.
      t.events = {imc("", "event=0x05,umask=0xcf", Direction::kRead),
                  imc("", "event=0x06,umask=0xcf", Direction::kRead),
                  imc("", "event=0x05,umask=0xf0", Direction::kWrite),
                  imc("", "event=0x06,umask=0xf0", Direction::kWrite)};
      t.caveat = "Granite Rapids / Sierra Forest IMC sub-channel events are not yet confirmed";
    } else if (family != CpuFamily::kIntelOther) {
      // Clients: free-running MMIO counters with aliases only.
      t.events = {{"uncore_imc", false, "data_reads", "", Direction::kRead, 64},
                  {"uncore_imc", false, "data_writes", "", Direction::kWrite, 64},
                  {"uncore_imc_free_running_", true, "data_read", "", Direction::kRead, 64},
                  {"uncore_imc_free_running_", true, "data_write", "", Direction::kWrite, 64}};
    } else {
      t.missing = "no built-in memory-controller events for this Intel model";
    }
    return t;
  }
  switch (family) {
    case CpuFamily::kAmdZen1:
    case CpuFamily::kAmdZen2:
    case CpuFamily::kAmdZen3: {
      static constexpr std::string_view kChannels[] = {
          "event=0x07,umask=0x38",  "event=0x47,umask=0x38",  "event=0x87,umask=0x38",
          "event=0xc7,umask=0x38",  "event=0x107,umask=0x38", "event=0x147,umask=0x38",
          "event=0x187,umask=0x38", "event=0x1c7,umask=0x38"};
      for (std::string_view terms : kChannels) {
        t.events.push_back({"amd_df", false, "", terms, Direction::kAny, 64});
      }
      t.caveat = "AMD data-fabric DRAM channel beats: approximate, reads and writes not separated";
      break;
    }
    case CpuFamily::kAmdZen4:
    case CpuFamily::kAmdZen5:
      t.events = {{"amd_umc_", true, "", "event=0x0a,rdwrmask=0x1", Direction::kRead, 64},
                  {"amd_umc_", true, "", "event=0x0a,rdwrmask=0x2", Direction::kWrite, 64}};
      break;
    default:
      if (cpu.vendor == CpuVendor::kArm) {
        t.missing =
            "Arm has no architected DRAM traffic event; Q needs a vendor memory PMU (not built in)";
      } else {
        t.missing = "no built-in memory-controller events for this CPU";
      }
      break;
  }
  return t;
}

namespace {

std::string FlagNames(uint32_t flags) {
  static const std::pair<uint32_t, std::string_view> kNames[] = {
      {trace::kCpuMultiplexed, "multiplexed"},
      {trace::kCpuSpeculative, "speculative"},
      {trace::kCpuExecutedNotRetired, "executed_not_retired"},
      {trace::kCpuNoPrecisionSplit, "no_precision_split"},
      {trace::kCpuSystemWideMemory, "system_wide_memory"},
      {trace::kCpuOverlapsGpuCopies, "overlaps_gpu_copies"},
      {trace::kCpuTooShort, "too_short"},
      {trace::kCpuMemoryFromPcm, "memory_from_pcm"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (flags & bit) out += (out.empty() ? "" : ",") + std::string(name);
  }
  return out.empty() ? "none" : out;
}

// The core PMU to use: its sysfs name (prefix match for Arm's armv8_pmuv3_0, ...).
std::optional<PmuInfo> FindCorePmu(const SysfsView& sysfs, std::string_view wanted) {
  if (auto p = sysfs.ReadPmu(wanted)) return p;
  for (const std::string& name : sysfs.ListPmus()) {
    if (StartsWith(name, wanted)) return sysfs.ReadPmu(name);
  }
  return std::nullopt;
}

bool PrecisionWanted(Precision p, PrecisionSelect sel) {
  switch (sel) {
    case PrecisionSelect::kAll:
      return true;
    case PrecisionSelect::kDp:
      return p == Precision::kDp || p == Precision::kAny;
    case PrecisionSelect::kSp:
      return p == Precision::kSp || p == Precision::kAny;
  }
  return true;
}

// Instances of a PMU spec present in sysfs, in numeric order.
std::vector<std::string> MatchPmus(const std::vector<std::string>& all, const MemEventSpec& s) {
  std::vector<std::pair<uint64_t, std::string>> found;
  for (const std::string& name : all) {
    if (!s.numbered) {
      if (name == s.pmu_prefix) found.emplace_back(0, name);
      continue;
    }
    if (!StartsWith(name, s.pmu_prefix)) continue;
    auto n = ParseUint(std::string_view(name).substr(s.pmu_prefix.size()));
    if (n) found.emplace_back(*n, name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

}  // namespace

EventPlan BuildEventPlan(const CpuIdentity& cpu, const SysfsView& sysfs, const PlanOptions& opts) {
  EventPlan plan;
  plan.family = IdentifyFamily(cpu);
  plan.cpu = DescribeCpu(cpu);
  const FpTable fp = BuiltinFpTable(plan.family.family);
  for (std::string_view n : fp.notes) plan.notes.emplace_back(n);

  // Group 0: CPU time (a software event opens wherever perf_event_open exists at all).
  PlannedEvent task_clock;
  task_clock.name = "task-clock";
  task_clock.kind = EventTypeKind::kSoftware;
  task_clock.config = PERF_COUNT_SW_TASK_CLOCK;
  task_clock.quantity = Quantity::kTaskClock;
  task_clock.group = 0;
  plan.events.push_back(task_clock);

  // Group 1: generic cycles, instructions and (Intel) reference cycles.
  auto generic = [](std::string name, uint64_t config, Quantity q) {
    PlannedEvent e;
    e.name = std::move(name);
    e.kind = EventTypeKind::kHardware;
    e.config = config;
    e.quantity = q;
    e.group = 1;
    return e;
  };
  plan.events.push_back(generic("cycles", PERF_COUNT_HW_CPU_CYCLES, Quantity::kCycles));
  plan.events.push_back(
      generic("instructions", PERF_COUNT_HW_INSTRUCTIONS, Quantity::kInstructions));
  if (cpu.vendor == CpuVendor::kIntel) {
    plan.events.push_back(
        generic("ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, Quantity::kRefCycles));
  }

  // W: raw events on the core PMU's type (PERF_TYPE_RAW when sysfs has no such PMU, so that the
  // open attempt reports the kernel's own errno).
  std::optional<PmuInfo> core = FindCorePmu(sysfs, fp.core_pmu);
  plan.core_pmu = core ? core->name : std::string(fp.core_pmu);
  plan.core_pmu_present = core.has_value();
  const uint32_t raw_type = core ? core->type : static_cast<uint32_t>(PERF_TYPE_RAW);
  if (!fp.missing.empty()) {
    plan.work_missing = std::string(fp.missing);
  } else {
    // SVE-scaled weights: SCALE counts per 128 bits of vector.
    double sve_factor = 1;
    if (cpu.sve_vector_bits >= 128) {
      sve_factor = cpu.sve_vector_bits / 128.0;
    } else if (plan.family.family == CpuFamily::kArmNeoverseV1) {
      sve_factor = 2;  // 256-bit SVE on every V1 part
      plan.notes.push_back("SVE vector length unknown; assumed 256 bits (Neoverse V1)");
    }
    // Four events per group fit every x86 core PMU with hyper-threading on; AMD's merged FP
    // event takes two counters, so two per group there.
    const size_t per_group = cpu.vendor == CpuVendor::kAmd ? 2 : 4;
    int group = 2;
    Precision last = Precision::kAny;
    size_t in_group = 0;
    bool first = true;
    for (const FpEventSpec& s : fp.events) {
      if (!PrecisionWanted(s.precision, opts.precision)) continue;
      if (!first && (s.precision != last || in_group == per_group)) {
        ++group;
        in_group = 0;
      }
      first = false;
      last = s.precision;
      ++in_group;
      PlannedEvent e;
      e.name = std::string(s.name);
      e.kind = EventTypeKind::kRaw;
      e.type = raw_type;
      e.config = s.config;
      e.quantity = Quantity::kFlops;
      e.weight = s.weight * (s.sve_scaled ? sve_factor : 1);
      e.precision = s.precision;
      e.group = group;
      e.pfm = std::string(s.pfm);
      // On hybrid CPUs the event stops while the thread runs on an E-core: enabled/running would
      // extrapolate P-core work to E-core time.
      e.scale = plan.family.family != CpuFamily::kIntelHybrid;
      plan.events.push_back(e);
    }
    plan.work_flags = fp.flags;
    if (opts.precision != PrecisionSelect::kAll)
      plan.notes.push_back("FLOPSPY_CPU_PRECISION limits W to one precision");
  }

  // Q: memory-controller PMUs described in sysfs.
  if (!opts.traffic) {
    plan.traffic_missing = "memory traffic from perf not requested";
    return plan;
  }
  const MemTable mem = BuiltinMemTable(cpu, plan.family.family);
  if (!mem.missing.empty()) {
    plan.traffic_missing = std::string(mem.missing);
    return plan;
  }
  if (!mem.caveat.empty()) plan.notes.emplace_back(mem.caveat);
  const std::vector<std::string> all = sysfs.ListPmus();
  int group = 100;
  std::vector<std::string> problems;
  bool any_pmu = false;
  // Specs of one PMU prefix form one alternative; the first prefix with instances wins.
  std::vector<std::string_view> prefixes;
  for (const MemEventSpec& s : mem.events) {
    if (std::find(prefixes.begin(), prefixes.end(), s.pmu_prefix) == prefixes.end()) {
      prefixes.push_back(s.pmu_prefix);
    }
  }
  for (std::string_view prefix : prefixes) {
    std::vector<const MemEventSpec*> specs;
    for (const MemEventSpec& s : mem.events) {
      if (s.pmu_prefix == prefix) specs.push_back(&s);
    }
    const std::vector<std::string> instances = MatchPmus(all, *specs.front());
    if (instances.empty()) continue;
    any_pmu = true;
    for (const std::string& inst : instances) {
      std::optional<PmuInfo> pmu = sysfs.ReadPmu(inst);
      if (!pmu) continue;
      std::vector<int> cpus = pmu->cpumask.empty() ? std::vector<int>{0} : pmu->cpumask;
      std::vector<PlannedEvent> inst_events;
      for (const MemEventSpec* s : specs) {
        PlannedEvent e;
        e.kind = EventTypeKind::kRaw;
        e.type = pmu->type;
        e.quantity = Quantity::kBytes;
        e.direction = s->direction;
        e.weight = s->bytes_per_count;
        bool encoded = false;
        std::string error;
        // Aliases first ("a|b" lists alternatives); their .scale/.unit give bytes per count,
        // applied here exactly once.
        for (std::string_view alias : Split(s->alias, '|')) {
          if (alias.empty()) continue;
          auto it = pmu->events.find(std::string(alias));
          if (it == pmu->events.end()) continue;
          auto terms = ParseEventTerms(it->second.terms);
          EncodedConfig enc;
          if (terms && EncodeTerms(*pmu, *terms, &enc, &error)) {
            e.name = inst + "/" + std::string(alias) + "/";
            e.config = enc.config;
            e.config1 = enc.config1;
            e.config2 = enc.config2;
            if (double b = it->second.BytesPerCount(); b > 0) e.weight = b;
            encoded = true;
            break;
          }
        }
        if (!encoded && !s->terms.empty()) {
          auto terms = ParseEventTerms(s->terms);
          EncodedConfig enc;
          if (terms && EncodeTerms(*pmu, *terms, &enc, &error)) {
            e.name = inst + "/" + std::string(s->terms) + "/";
            e.config = enc.config;
            e.config1 = enc.config1;
            e.config2 = enc.config2;
            encoded = true;
          }
        }
        if (!encoded) {
          problems.push_back(inst + ": " +
                             (error.empty() ? "no event " + std::string(s->alias) : error));
          continue;
        }
        inst_events.push_back(e);
      }
      if (inst_events.size() != specs.size()) continue;
      // An uncore PMU counts for the whole socket: one fd per CPU of its cpumask.
      for (int c : cpus) {
        size_t n = 0;
        for (PlannedEvent e : inst_events) {
          if (n++ % 4 == 0) ++group;  // a group never spans PMUs; four counters per box
          e.group = group;
          e.cpu = c;
          e.name += "@cpu" + std::to_string(c);
          plan.events.push_back(std::move(e));
        }
      }
    }
    break;
  }
  if (!any_pmu) {
    std::string names;
    for (std::string_view p : prefixes) {
      names += (names.empty() ? "" : ", ") + std::string(p) + (p.back() == '_' ? "*" : "");
    }
    plan.traffic_missing = "no memory-controller PMU (" + names + ") in " + sysfs.DevicesDir();
    if (plan.family.family == CpuFamily::kAmdZen4 || plan.family.family == CpuFamily::kAmdZen5) {
      plan.traffic_missing += "; amd_umc PMUs need Linux 6.7 or newer";
    }
  } else if (!problems.empty()) {
    // Counting only some controllers would under-count Q: none at all then.
    plan.events.erase(
        std::remove_if(plan.events.begin(), plan.events.end(),
                       [](const PlannedEvent& e) { return e.quantity == Quantity::kBytes; }),
        plan.events.end());
    plan.traffic_missing = "memory-controller events could not be encoded: " + problems.front();
  } else {
    plan.traffic_flags = kCpuSystemWideMemory;
  }
  return plan;
}

std::string DescribePlan(const EventPlan& plan) {
  std::string out;
  out += "family: " + std::string(plan.family.key) + " (" + std::string(plan.family.name) + ")\n";
  out += "core_pmu: " + plan.core_pmu + (plan.core_pmu_present ? " (present)" : " (absent)") + "\n";
  for (const PlannedEvent& e : plan.events) {
    const char* kind = e.kind == EventTypeKind::kHardware   ? "hardware"
                       : e.kind == EventTypeKind::kSoftware ? "software"
                                                            : "raw";
    out += "event: " + e.name + " kind=" + kind;
    if (e.kind == EventTypeKind::kRaw) out += " type=" + std::to_string(e.type);
    out += " config=" + Hex(e.config);
    if (e.config1) out += " config1=" + Hex(e.config1);
    if (e.config2) out += " config2=" + Hex(e.config2);
    out += " " + std::string(QuantityName(e.quantity));
    if (e.quantity == Quantity::kFlops) {
      out += " precision=" + std::string(PrecisionName(e.precision));
    }
    if (e.quantity == Quantity::kBytes) {
      out += " direction=" + std::string(DirectionName(e.direction));
    }
    out += " weight=" + FormatG(e.weight, 6) + " group=" + std::to_string(e.group);
    if (e.cpu >= 0) out += " cpu=" + std::to_string(e.cpu);
    if (!e.scale) out += " unscaled";
    out += "\n";
  }
  out += "work_flags: " + FlagNames(plan.work_flags) + "\n";
  out += "traffic_flags: " + FlagNames(plan.traffic_flags) + "\n";
  if (!plan.work_missing.empty()) out += "work_missing: " + plan.work_missing + "\n";
  if (!plan.traffic_missing.empty()) out += "traffic_missing: " + plan.traffic_missing + "\n";
  for (const std::string& n : plan.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace flopspy::cpuroof
