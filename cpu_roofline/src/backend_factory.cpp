#include "flopspy/cpu_roofline/backend_factory.h"

#include <time.h>

#include "flopspy/cpu_roofline/cpu_identity.h"
#include "flopspy/cpu_roofline/event_catalog.h"
#include "flopspy/cpu_roofline/extra_events.h"
#include "flopspy/cpu_roofline/pcm_source.h"
#include "flopspy/cpu_roofline/replay_backend.h"
#include "flopspy/trace/schema.h"

namespace flopspy::cpuroof {

uint64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

CompositeBackend::CompositeBackend(std::unique_ptr<CounterBackend> core,
                                   std::unique_ptr<CounterBackend> memory)
    : core_(std::move(core)), memory_(std::move(memory)) {
  name_ = std::string(core_->name()) + "+" + std::string(memory_->name());
  channels_ = core_->channels();
  for (const Channel& c : memory_->channels()) channels_.push_back(c);
}

bool CompositeBackend::Read(uint64_t now_ns, bool fast, Snapshot* out) {
  Snapshot mem;
  const bool core_ok = core_->Read(now_ns, fast, out);
  const bool mem_ok = memory_->Read(now_ns, fast, &mem);
  out->values.resize(core_->channels().size());
  if (mem_ok && mem.values.size() == memory_->channels().size()) {
    out->values.insert(out->values.end(), mem.values.begin(), mem.values.end());
  } else {
    out->values.resize(channels_.size(), ChannelValue{0, 0, 0, false});
  }
  out->t_ns = now_ns;
  return core_ok || mem_ok;
}

std::string CompositeBackend::LostReason() const {
  std::string why = core_->LostReason();
  return why.empty() ? memory_->LostReason() : why;
}

bool CompositeBackend::ReopenInChild(std::string* why) {
  const bool core_ok = core_->ReopenInChild(why);
  std::string mem_why;
  const bool mem_ok = memory_->ReopenInChild(&mem_why);
  channels_ = core_->channels();
  for (const Channel& c : memory_->channels()) channels_.push_back(c);
  if (!mem_ok && why->empty()) *why = mem_why;
  return core_ok || mem_ok;
}

namespace {

void AllUnavailable(Capabilities* caps, const std::string& reason) {
  caps->time.available = true;
  caps->time.source = "CLOCK_MONOTONIC";
  for (QuantityStatus* s : {&caps->cycles, &caps->work, &caps->traffic}) {
    s->available = false;
    s->reason = reason;
  }
}

// Replaces Q with a PCM source.
void UsePcm(std::unique_ptr<CounterBackend> pcm, const std::string& source,
            std::unique_ptr<CounterBackend>* backend, Capabilities* caps) {
  caps->traffic.available = true;
  caps->traffic.source = source;
  caps->traffic.reason.clear();
  caps->traffic_flags = trace::kCpuSystemWideMemory | trace::kCpuMemoryFromPcm;
  caps->valid_mask |= trace::kCpuBytesRead | trace::kCpuBytesWrite | trace::kCpuBytesAny;
  *backend = std::make_unique<CompositeBackend>(std::move(*backend), std::move(pcm));
}

}  // namespace

OpenedBackend OpenBackend(const SamplerConfig& config, const BackendDeps& deps) {
  OpenedBackend out;
  Capabilities& caps = out.capabilities;
  caps.backend = std::string(BackendModeName(config.mode));
  const auto now = deps.clock ? deps.clock : std::function<uint64_t()>(MonotonicNowNs);

  if (config.mode == BackendMode::kOff) {
    AllUnavailable(&caps, "FLOPSPY_CPU_ROOFLINE=off");
    caps.time.available = false;
    caps.time.reason = "FLOPSPY_CPU_ROOFLINE=off";
    return out;
  }
  if (config.mode == BackendMode::kReplay) {
    std::string error;
    auto data = LoadReplay(config.replay_path, &error);
    if (!data) {
      caps.cpu = "unknown";
      AllUnavailable(&caps, error);
      caps.failure = error;
      return out;
    }
    caps = data->capabilities;
    out.backend = std::make_unique<ReplayBackend>(std::move(*data), true, now());
    return out;
  }

  const CpuIdentity cpu =
      config.cpu_override ? *config.cpu_override : DetectCpuIdentity(config.paths);
  const std::optional<int> paranoid = ReadPerfEventParanoid(config.paths);
  SysfsView sysfs(config.paths);
  PlanOptions plan_options;
  plan_options.precision = config.precision;
  plan_options.traffic = config.mode == BackendMode::kAuto || config.mode == BackendMode::kPerf;
  EventPlan plan = BuildEventPlan(cpu, sysfs, plan_options);
  std::vector<std::string> warnings;
  if (!config.extra_events.empty()) {
    AddExtraEvents(ParseExtraEvents(config.extra_events, &warnings), sysfs, &plan, &warnings);
  }

  PerfEventBackend::Options perf_options;
  perf_options.paranoid = paranoid;
  std::unique_ptr<PerfEventBackend> perf = PerfEventBackend::Open(plan, deps.perf, perf_options);
  caps.cpu = DescribeCpu(cpu) + ", " + std::string(plan.family.name);
  caps.family = std::string(plan.family.key);
  caps.cpu_key = CpuModelKey(cpu);
  caps.perf_event_paranoid = paranoid ? *paranoid : -100;
  perf->Describe(&caps);
  for (const std::string& n : plan.notes) caps.notes.push_back(n);
  for (const std::string& w : warnings) caps.notes.push_back(w);
  std::unique_ptr<CounterBackend> backend = std::move(perf);

  const bool want_http = config.mode == BackendMode::kPcmHttp ||
                         (config.mode == BackendMode::kAuto && !caps.traffic.available);
  const bool is_intel = cpu.vendor == CpuVendor::kIntel;
  if (config.mode == BackendMode::kPcmHttp || config.mode == BackendMode::kPcmCsv) {
    caps.traffic.reason.clear();
  }
  if (want_http) {
    if (!is_intel) {
      const std::string why = "Intel PCM supports only Intel CPUs (this is " +
                              std::string(CpuVendorName(cpu.vendor)) + ")";
      caps.traffic.reason = config.mode == BackendMode::kPcmHttp
                                ? why
                                : caps.traffic.reason + "; Intel PCM not tried: " + why;
    } else {
      std::string error, why;
      auto url = ParseHttpUrl(config.pcm_url, &error);
      std::unique_ptr<PcmSensorBackend> pcm;
      if (url) pcm = PcmSensorBackend::Open(*url, config.pcm_timeout_ms, &why);
      if (!url) why = error;
      if (pcm) {
        UsePcm(std::move(pcm), "pcm-sensor-server " + config.pcm_url, &backend, &caps);
      } else {
        caps.traffic.reason = config.mode == BackendMode::kPcmHttp
                                  ? why
                                  : caps.traffic.reason + "; no Intel PCM: " + why;
      }
    }
  }
  if (config.mode == BackendMode::kPcmCsv) {
    if (!is_intel) {
      caps.traffic.reason = "Intel PCM supports only Intel CPUs (this is " +
                            std::string(CpuVendorName(cpu.vendor)) + ")";
    } else if (config.pcm_csv_path.empty()) {
      caps.traffic.reason = "pcm-csv needs a file: FLOPSPY_CPU_ROOFLINE=pcm-csv:FILE";
    } else {
      std::string why;
      auto pcm = PcmCsvBackend::Open(config.pcm_csv_path, &why);
      if (pcm) {
        UsePcm(std::move(pcm), "pcm-memory CSV " + config.pcm_csv_path, &backend, &caps);
      } else {
        caps.traffic.reason = why;
      }
    }
  }
  if (!backend->channels().empty()) out.backend = std::move(backend);
  if (!out.backend) caps.time.source = "CLOCK_MONOTONIC";
  const std::string used = out.backend ? std::string(out.backend->name()) : "none";
  caps.backend = config.mode == BackendMode::kAuto ? "auto: " + used : used;
  return out;
}

}  // namespace flopspy::cpuroof
