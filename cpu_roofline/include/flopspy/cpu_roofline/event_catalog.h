// Built-in event tables per CPU family (docs/cpu-counters-notes.md) and the plan of what to
// open on this host: core events (W, cycles, instructions, task-clock) and memory-controller
// events (Q) found in sysfs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/cpu_roofline/cpu_identity.h"
#include "flopspy/cpu_roofline/sysfs_pmu.h"

namespace flopspy::cpuroof {

enum class CpuFamily : uint8_t {
  kUnknown = 0,
  kIntelSnb,     // Sandy Bridge, Ivy Bridge (client and server): executed, not retired
  kIntelHsw,     // Haswell: no FP arithmetic counter
  kIntelBdw,     // Broadwell (client and server)
  kIntelSkl,     // Skylake, Kaby Lake, Coffee Lake, Comet Lake client
  kIntelSkx,     // Skylake-SP, Cascade Lake, Cooper Lake
  kIntelIcl,     // Ice Lake, Tiger Lake, Rocket Lake client
  kIntelIcx,     // Ice Lake-SP
  kIntelSpr,     // Sapphire Rapids, Emerald Rapids
  kIntelGnr,     // Granite Rapids
  kIntelHybrid,  // Alder/Raptor/Meteor/Arrow Lake: P-cores only
  kIntelSrf,     // Sierra Forest (E-cores, FP_FLOPS_RETIRED)
  kAmdZen1,
  kAmdZen2,
  kAmdZen3,
  kAmdZen4,
  kAmdZen5,
  kArmNeoverseN1,
  kArmNeoverseN2,
  kArmNeoverseV1,
  kArmNeoverseV2,
  kArmNeoverseV3,
  kArmNeoverseN3,
  kArmOther,
  kIntelOther,
  kAmdOther,
};

struct FamilyInfo {
  CpuFamily family = CpuFamily::kUnknown;
  std::string_view key;   // "zen4", "spr", "neoverse-v1"
  std::string_view name;  // "AMD Zen 4"
};
FamilyInfo IdentifyFamily(const CpuIdentity& cpu);

// One row of a W table: a raw core event and what one count is worth.
struct FpEventSpec {
  std::string_view name;  // perf-style lower-case name
  uint64_t config;        // umask << 8 | event (x86), event number (Arm)
  double weight;          // flops per count (Arm SCALE: per 128 bits, scaled by VL at plan time)
  Precision precision;
  std::string pfm;          // libpfm4 4.13 name for the cross-check; "" where 4.13 lacks the PMU
  bool sve_scaled = false;  // weight x SVE_VL/128
};

struct FpTable {
  std::vector<FpEventSpec> events;
  uint32_t flags = 0;         // trace::CpuSampleFlags for W (speculative, executed, no split)
  std::string_view core_pmu;  // sysfs PMU whose type the events use ("cpu", "cpu_core", "armv8")
  std::string_view missing;   // non-empty: the family has no usable FP counter, and why
  std::vector<std::string_view> notes;
};
FpTable BuiltinFpTable(CpuFamily family);

// One memory-controller event per PMU instance, as sysfs alias names or format terms.
struct MemEventSpec {
  std::string_view pmu_prefix;  // "uncore_imc_" (numbered instances) or "uncore_imc" (exact)
  bool numbered = true;         // instances are <prefix><N>
  std::string_view alias;       // preferred: events/<alias>
  std::string_view terms;       // fallback: format terms, e.g. "event=0x04,umask=0x03"
  Direction direction;
  double bytes_per_count;  // used when the alias carries no scale/unit
};

struct MemTable {
  std::vector<MemEventSpec> events;
  std::string_view missing;  // non-empty: no Q source known for this CPU, and why
  std::string_view caveat;   // e.g. "approximate: reads and writes not separated"
};
MemTable BuiltinMemTable(const CpuIdentity& cpu, CpuFamily family);

// Where an event is opened.
enum class EventTypeKind : uint8_t {
  kHardware = 0,  // PERF_TYPE_HARDWARE generic (cycles, instructions, ref-cycles)
  kSoftware = 1,  // PERF_TYPE_SOFTWARE (task-clock)
  kRaw = 2,       // `type` as given (the core PMU's sysfs type, or PERF_TYPE_RAW)
};

struct PlannedEvent {
  std::string name;
  EventTypeKind kind = EventTypeKind::kRaw;
  uint32_t type = 0;  // for kRaw; for kHardware/kSoftware the PERF_COUNT_* id goes in config
  uint64_t config = 0, config1 = 0, config2 = 0;
  Quantity quantity = Quantity::kFlops;
  double weight = 1;
  Precision precision = Precision::kAny;
  Direction direction = Direction::kAny;
  int group = 0;           // events with the same group number open as one perf group
  int cpu = -1;            // >= 0: system-wide on that CPU (uncore); -1: this process
  std::string pfm;         // libpfm4 name, for cross-checks
  bool from_user = false;  // from FLOPSPY_CPU_EVENTS
  bool scale = true;       // extrapolate by enabled/running (false: hybrid P-core-only events)
};

enum class PrecisionSelect : uint8_t { kAll = 0, kDp = 1, kSp = 2 };

struct PlanOptions {
  PrecisionSelect precision = PrecisionSelect::kAll;
  bool traffic = true;  // plan memory-controller events
};

struct EventPlan {
  FamilyInfo family;
  std::string cpu;                   // DescribeCpu
  std::vector<PlannedEvent> events;  // core events first, then uncore
  uint32_t work_flags = 0;
  uint32_t traffic_flags = 0;
  std::string work_missing;     // why no W events were planned ("" if some were)
  std::string traffic_missing;  // why no Q events were planned
  std::string core_pmu;         // sysfs name of the core PMU used for raw events ("" if none)
  bool core_pmu_present = false;
  std::vector<std::string> notes;
};

// W/cycles/instructions/task-clock from the tables, Q from sysfs PMUs. Never fails: what cannot
// be planned is said in *_missing.
EventPlan BuildEventPlan(const CpuIdentity& cpu, const SysfsView& sysfs, const PlanOptions& opts);

// A deterministic text dump of a plan (golden tests, `flopspy info`).
std::string DescribePlan(const EventPlan& plan);

}  // namespace flopspy::cpuroof
