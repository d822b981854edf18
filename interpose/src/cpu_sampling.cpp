#include "cpu_sampling.h"

#include <atomic>
#include <string>

#include "clock.h"
#include "flopspy/cpu_roofline/sampler.h"
#include "flopspy/cpu_roofline/sampler_config.h"
#include "log.h"
#include "raw_events.h"
#include "recorder.h"

namespace flopspy::interpose {
namespace {

// Never destroyed: its thread and the hooks may use it while the process exits.
std::atomic<cpuroof::Sampler*> g_sampler{nullptr};

void OnPoint(const trace::CpuSampleRecord& point, std::string_view region) {
  RawCpuSample raw;
  raw.Set(point, region);
  EmitBytes(&raw, raw.record.h.size());
}

std::string_view WithoutPrefix(std::string_view line) {
  constexpr std::string_view kPrefix = "flopspy: ";
  return line.starts_with(kPrefix) ? line.substr(kPrefix.size()) : line;
}

}  // namespace

void StartCpuSampling(Recorder& recorder) {
  const cpuroof::ParsedSamplerConfig parsed = cpuroof::ParseSamplerConfigFromEnvironment();
  for (const std::string& w : parsed.warnings) {
    ReportOnce("cpu-config-" + w, trace::WarningCode::kBadConfig, w);
  }
  if (parsed.config.mode == cpuroof::BackendMode::kOff) {
    recorder.AddMetadata(R"({"cpu_roofline":{"mode":"off"}})");
    return;
  }
  // The default (auto) stays silent about missing counters: most VMs and containers have none,
  // and the trace records why. A valid source asked for by name says so on stderr; a bad value
  // was one warning above and falls back to auto.
  const bool explicit_source = parsed.config.mode_explicit;
  cpuroof::Sampler::Options options;
  options.thread_only_with_counters = true;
  // Once each: the counters' descriptors taken by the program, FLOPSPY_CPU_RECORD refused or
  // ended.
  options.warn = [](const std::string& line) {
    ReportOnce("cpu-" + line, trace::WarningCode::kCountersUnavailable, line);
  };
  std::unique_ptr<cpuroof::Sampler> sampler =
      cpuroof::Sampler::Start(parsed.config, OnPoint, std::move(options));
  if (sampler == nullptr) {
    ReportOnce("cpu-sampler", trace::WarningCode::kCountersUnavailable,
               "the CPU roofline sampler could not start; no CPU roofline for this process");
    return;
  }
  recorder.AddMetadata(R"({"cpu_roofline":)" + sampler->MetadataJson() + "}");
  for (const std::string& line : sampler->capabilities().Lines()) {
    if (explicit_source) {
      ReportOnce("cpu-" + line, trace::WarningCode::kCountersUnavailable, WithoutPrefix(line));
    } else {
      recorder.AddWarning(trace::WarningCode::kCountersUnavailable, WithoutPrefix(line),
                          /*standalone=*/false);
    }
  }
  if (!sampler->counts_roofline()) {
    // Nothing to place on a roofline: keep no thread and write no points. The sampler is left
    // alone rather than destroyed, because destroying it would emit its closing points.
    (void)sampler.release();
    return;
  }
  g_sampler.store(sampler.release(), std::memory_order_release);
}

void StopCpuSampling() {
  if (cpuroof::Sampler* s = g_sampler.exchange(nullptr, std::memory_order_acq_rel)) s->Stop();
}

void CpuRegionBegin(std::string_view name, uint64_t now_ns) {
  if (cpuroof::Sampler* s = g_sampler.load(std::memory_order_acquire)) s->RegionBegin(name, now_ns);
}

void CpuRegionEnd(std::string_view name, uint64_t now_ns) {
  if (cpuroof::Sampler* s = g_sampler.load(std::memory_order_acquire)) s->RegionEnd(name, now_ns);
}

void CpuNoteGpuCopy(uint64_t begin_ns, uint64_t end_ns) {
  if (cpuroof::Sampler* s = g_sampler.load(std::memory_order_acquire)) {
    s->NoteGpuCopy(begin_ns, end_ns);
  }
}

void CpuSamplingAfterForkInChild(bool traced) {
  cpuroof::Sampler* s = g_sampler.load(std::memory_order_acquire);
  if (s == nullptr) return;
  s->AfterForkInChild(NowNs());
  if (!traced) StopCpuSampling();
}

}  // namespace flopspy::interpose
