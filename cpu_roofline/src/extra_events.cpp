#include "flopspy/cpu_roofline/extra_events.h"

#include <dlfcn.h>
#include <linux/perf_event.h>
#include <string.h>

#include <algorithm>
#include <cstdlib>

#include "flopspy/trace/schema.h"
#include "text_util.h"

namespace flopspy::cpuroof {

namespace {

// Same layout as libpfm4's pfm_perf_encode_arg_t (pfmlib_perf_event.h); its `size` field is how
// the library checks the caller's idea of the struct.
struct PfmPerfEncodeArg {
  perf_event_attr* attr;
  char** fstr;
  size_t size;
  int idx;
  int cpu;
  int flags;
  int pad0;
};
constexpr int kPfmSuccess = 0;
constexpr int kPfmPlm3 = 0x08;         // PFM_PLM3: user level
constexpr int kPfmOsPerfEventExt = 2;  // PFM_OS_PERF_EVENT_EXT

struct Role {
  std::string_view name;
  Quantity quantity;
  Precision precision;
  Direction direction;
};
constexpr Role kRoles[] = {
    {"flops", Quantity::kFlops, Precision::kAny, Direction::kAny},
    {"flops_dp", Quantity::kFlops, Precision::kDp, Direction::kAny},
    {"flops_sp", Quantity::kFlops, Precision::kSp, Direction::kAny},
    {"flops_hp", Quantity::kFlops, Precision::kHp, Direction::kAny},
    {"bytes", Quantity::kBytes, Precision::kAny, Direction::kAny},
    {"bytes_read", Quantity::kBytes, Precision::kAny, Direction::kRead},
    {"bytes_write", Quantity::kBytes, Precision::kAny, Direction::kWrite},
    {"cycles", Quantity::kCycles, Precision::kAny, Direction::kAny},
    {"instructions", Quantity::kInstructions, Precision::kAny, Direction::kAny},
};

}  // namespace

std::vector<ExtraEventSpec> ParseExtraEvents(std::string_view text,
                                             std::vector<std::string>* warnings) {
  // Split on commas that are not inside a "pmu/.../" term list.
  std::vector<std::string> items;
  std::string cur;
  int slashes = 0;
  for (char c : text) {
    if (c == '/') ++slashes;
    if (c == ',' && slashes % 2 == 0) {
      items.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  items.push_back(cur);

  std::vector<ExtraEventSpec> out;
  for (const std::string& raw : items) {
    const std::string_view item = Trim(raw);
    if (item.empty()) continue;
    const size_t at = item.rfind('@');
    if (at == std::string_view::npos) {
      warnings->push_back("FLOPSPY_CPU_EVENTS: '" + std::string(item) +
                          "' has no role (@flops, @bytes_read, ...); ignored");
      continue;
    }
    ExtraEventSpec spec;
    spec.event = std::string(Trim(item.substr(0, at)));
    std::string_view role = Trim(item.substr(at + 1));
    const size_t star = role.find('*');
    if (star != std::string_view::npos) {
      auto w = ParseDouble(role.substr(star + 1));
      if (!w || !(*w > 0)) {
        warnings->push_back("FLOPSPY_CPU_EVENTS: bad weight in '" + std::string(item) +
                            "'; ignored");
        continue;
      }
      spec.weight = *w;
      role = Trim(role.substr(0, star));
    }
    const Role* found = nullptr;
    for (const Role& r : kRoles) {
      if (r.name == role) found = &r;
    }
    if (!found || spec.event.empty()) {
      warnings->push_back("FLOPSPY_CPU_EVENTS: unknown role '" + std::string(role) + "' in '" +
                          std::string(item) + "'; ignored");
      continue;
    }
    spec.quantity = found->quantity;
    spec.precision = found->precision;
    spec.direction = found->direction;
    if (spec.quantity == Quantity::kBytes && star == std::string_view::npos) spec.weight = 64;
    out.push_back(spec);
  }
  return out;
}

std::unique_ptr<Libpfm> Libpfm::Load(std::string* error) {
  void* h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    *error = std::string("libpfm4 is not installed (") + (e ? e : "dlopen failed") +
             "); install libpfm4 to use named events";
    return nullptr;
  }
  std::unique_ptr<Libpfm> lib(new Libpfm());
  lib->handle_ = h;
  lib->initialize_ = reinterpret_cast<int (*)()>(dlsym(h, "pfm_initialize"));
  lib->encode_ = reinterpret_cast<int (*)(const char*, int, int, void*)>(
      dlsym(h, "pfm_get_os_event_encoding"));
  lib->strerror_ = reinterpret_cast<const char* (*)(int)>(dlsym(h, "pfm_strerror"));
  if (!lib->initialize_ || !lib->encode_ || !lib->strerror_) {
    *error = "libpfm.so.4 lacks pfm_initialize/pfm_get_os_event_encoding";
    return nullptr;
  }
  const int rc = lib->initialize_();
  if (rc != kPfmSuccess) {
    *error = std::string("pfm_initialize failed: ") + lib->strerror_(rc);
    return nullptr;
  }
  return lib;
}

Libpfm::~Libpfm() {
  // libpfm keeps global tables; it stays loaded for the life of the process (no dlclose).
}

std::optional<Libpfm::Encoding> Libpfm::Encode(const std::string& event, std::string* error) const {
  perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  char* fstr = nullptr;
  PfmPerfEncodeArg arg;
  memset(&arg, 0, sizeof arg);
  arg.attr = &attr;
  arg.fstr = &fstr;
  arg.size = sizeof arg;
  const int rc = encode_(event.c_str(), kPfmPlm3, kPfmOsPerfEventExt, &arg);
  if (rc != kPfmSuccess) {
    *error = "libpfm4 cannot encode '" + event + "': " + strerror_(rc);
    if (fstr) free(fstr);
    return std::nullopt;
  }
  Encoding enc;
  enc.type = attr.type;
  enc.config = attr.config;
  enc.config1 = attr.config1;
  enc.config2 = attr.config2;
  if (fstr) {
    enc.fstr = fstr;
    free(fstr);
  }
  return enc;
}

void AddExtraEvents(const std::vector<ExtraEventSpec>& specs, const SysfsView& sysfs,
                    EventPlan* plan, std::vector<std::string>* warnings) {
  if (specs.empty()) return;
  std::unique_ptr<Libpfm> pfm;
  std::string pfm_error;
  bool pfm_tried = false;
  std::vector<PlannedEvent> added;
  int group = 200;
  for (const ExtraEventSpec& s : specs) {
    PlannedEvent e;
    e.name = s.event;
    e.kind = EventTypeKind::kRaw;
    e.quantity = s.quantity;
    e.precision = s.precision;
    e.direction = s.direction;
    e.weight = s.weight;
    e.from_user = true;
    std::vector<int> cpus{-1};
    const size_t slash = s.event.find('/');
    if (slash != std::string::npos && s.event.size() > slash + 1 && s.event.back() == '/') {
      // perf-style "pmu/terms/": encoded with the PMU's sysfs format.
      const std::string pmu_name = s.event.substr(0, slash);
      const std::string terms_text = s.event.substr(slash + 1, s.event.size() - slash - 2);
      std::optional<PmuInfo> pmu = sysfs.ReadPmu(pmu_name);
      if (!pmu) {
        warnings->push_back("FLOPSPY_CPU_EVENTS: no PMU '" + pmu_name + "' in " +
                            sysfs.DevicesDir() + "; '" + s.event + "' ignored");
        continue;
      }
      auto terms = ParseEventTerms(terms_text);
      EncodedConfig enc;
      std::string error;
      if (terms) {
        // An alias name alone ("pmu/cas_count_read/") expands to its terms.
        if (terms->size() == 1 && terms->front().second == 1) {
          auto it = pmu->events.find(terms->front().first);
          if (it != pmu->events.end()) terms = ParseEventTerms(it->second.terms);
        }
      }
      if (!terms || !EncodeTerms(*pmu, *terms, &enc, &error)) {
        warnings->push_back("FLOPSPY_CPU_EVENTS: cannot encode '" + s.event +
                            "': " + (error.empty() ? "bad terms" : error) + "; ignored");
        continue;
      }
      e.type = pmu->type;
      e.config = enc.config;
      e.config1 = enc.config1;
      e.config2 = enc.config2;
      if (!pmu->cpumask.empty()) cpus = pmu->cpumask;
    } else {
      if (!pfm_tried) {
        pfm = Libpfm::Load(&pfm_error);
        pfm_tried = true;
      }
      if (!pfm) {
        warnings->push_back("FLOPSPY_CPU_EVENTS: '" + s.event + "' ignored: " + pfm_error);
        continue;
      }
      std::string error;
      auto enc = pfm->Encode(s.event, &error);
      if (!enc) {
        warnings->push_back("FLOPSPY_CPU_EVENTS: " + error + "; ignored");
        continue;
      }
      e.type = enc->type;
      e.config = enc->config;
      e.config1 = enc->config1;
      e.config2 = enc->config2;
      e.pfm = s.event;
      if (s.quantity == Quantity::kBytes) cpus = {0};  // memory events count system-wide
    }
    ++group;
    for (int c : cpus) {
      PlannedEvent one = e;
      one.cpu = c;
      one.group = group;
      if (c >= 0 && cpus.size() > 1) one.name += "@cpu" + std::to_string(c);
      added.push_back(one);
      if (cpus.size() > 1) ++group;
    }
  }
  auto replaces = [&](Quantity q) {
    return std::any_of(added.begin(), added.end(),
                       [q](const PlannedEvent& e) { return e.quantity == q; });
  };
  for (Quantity q :
       {Quantity::kFlops, Quantity::kBytes, Quantity::kCycles, Quantity::kInstructions}) {
    if (!replaces(q)) continue;
    plan->events.erase(
        std::remove_if(plan->events.begin(), plan->events.end(),
                       [q](const PlannedEvent& e) { return e.quantity == q && !e.from_user; }),
        plan->events.end());
    if (q == Quantity::kFlops) {
      plan->work_missing.clear();
      plan->work_flags = 0;
      plan->notes.push_back("W from FLOPSPY_CPU_EVENTS (weights as given by the user)");
    }
    if (q == Quantity::kBytes) {
      plan->traffic_missing.clear();
      plan->traffic_flags = trace::kCpuSystemWideMemory;
      plan->notes.push_back("Q from FLOPSPY_CPU_EVENTS (bytes per count as given by the user)");
    }
  }
  for (PlannedEvent& e : added) plan->events.push_back(std::move(e));
}

}  // namespace flopspy::cpuroof
