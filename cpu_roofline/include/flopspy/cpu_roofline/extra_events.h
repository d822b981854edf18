// Events named by the user (FLOPSPY_CPU_EVENTS): libpfm4 strings, loaded with dlopen at run time
// (no link-time dependency), or perf-style "pmu/term=value,.../" strings encoded with sysfs.
//
//   FLOPSPY_CPU_EVENTS="<event>[@<role>[*<weight>]],..."
//   role: flops | flops_dp | flops_sp | flops_hp | bytes | bytes_read | bytes_write |
//         cycles | instructions
// e.g.
// "amd64_fam19h_zen4::RETIRED_SSE_AVX_FLOPS:ANY@flops,amd_umc_0/event=0xa,rdwrmask=1/@bytes_read*64".
// Events with a flops role replace the built-in W events (and bytes roles the built-in Q events),
// so a CPU the tables do not know can still be measured.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/cpu_roofline/counters.h"
#include "flopspy/cpu_roofline/event_catalog.h"
#include "flopspy/cpu_roofline/sysfs_pmu.h"

namespace flopspy::cpuroof {

struct ExtraEventSpec {
  std::string event;
  Quantity quantity = Quantity::kFlops;
  Precision precision = Precision::kAny;
  Direction direction = Direction::kAny;
  double weight = 1;
};

// Splits on commas outside "pmu/.../"; bad entries are skipped with a warning each.
std::vector<ExtraEventSpec> ParseExtraEvents(std::string_view text,
                                             std::vector<std::string>* warnings);

// libpfm4 through dlopen("libpfm.so.4").
class Libpfm {
 public:
  struct Encoding {
    uint32_t type = 0;
    uint64_t config = 0, config1 = 0, config2 = 0;
    std::string fstr;  // fully qualified event string
  };

  // Loads and initialises the library; nullptr with *error when it is not installed.
  // LIBPFM_ENCODE_INACTIVE=1 in the environment (before the first Load) lets it encode events
  // of PMUs this host does not have.
  static std::unique_ptr<Libpfm> Load(std::string* error);
  ~Libpfm();

  // pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT, PFM_PLM3): user-level counting.
  std::optional<Encoding> Encode(const std::string& event, std::string* error) const;

 private:
  Libpfm() = default;
  void* handle_ = nullptr;
  int (*initialize_)() = nullptr;
  int (*encode_)(const char*, int, int, void*) = nullptr;
  const char* (*strerror_)(int) = nullptr;
};

// Appends the user's events to the plan (replacing built-in W or Q events where a role says
// so). Events that cannot be encoded are skipped with a warning each.
void AddExtraEvents(const std::vector<ExtraEventSpec>& specs, const SysfsView& sysfs,
                    EventPlan* plan, std::vector<std::string>* warnings);

}  // namespace flopspy::cpuroof
