// Reducing GPU benchmark results to ceilings, and printing them as a table or JSON.
#include "flopspy/gpu_roofline/ceilings_results.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <system_error>

#include "flopspy/gpu_roofline/ceilings_plan.h"

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
using analyzers::MemoryLevel;
using analyzers::RoofPreference;
using nlohmann::json;

std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string Percent(double part, double whole) {
  return whole > 0 ? Fixed(100.0 * part / whole, 1) + "%" : "";
}

std::string Pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

json ResultJson(const GpuBenchResult& r, const analyzers::DeviceRoofs& roofs) {
  json j = {{"id", r.id}, {"name", r.name}};
  if (r.path) {
    j["kind"] = "flops";
    j["path"] = std::string(analyzers::ComputePathName(*r.path));
  } else if (r.level) {
    j["kind"] = "bandwidth";
    j["level"] = std::string(analyzers::MemoryLevelName(*r.level));
  }
  if (!r.detail.empty()) j["detail"] = r.detail;
  if (!r.Measured()) {
    j["skipped"] = r.skipped;
    return j;
  }
  const TimingSummary t = SummariseTimes(r.seconds);
  j["work_per_repetition"] = r.work;
  j["repetitions"] = t.repetitions;
  j["seconds"] = r.seconds;
  j["best_seconds"] = t.best_seconds;
  j["median_seconds"] = t.median_seconds;
  j["best_rate"] = r.BestRate();
  j["median_rate"] = r.MedianRate();
  if (const auto nominal = NominalFor(r, roofs)) {
    j["nominal"] = nominal->value;
    j["nominal_source"] = std::string(analyzers::RoofSourceName(nominal->source));
    j["nominal_of"] = nominal->what;
    j["fraction_of_nominal"] = r.BestRate() / nominal->value;
  }
  return j;
}

json EntryJson(const MeasuredCeilings& entry) {
  CeilingsFile one;
  one.devices.push_back(entry);
  const json file = json::parse(SerializeCeilings(one), nullptr, false);
  return file.is_object() && file.contains("devices") && !file["devices"].empty()
             ? file["devices"][0]
             : json::object();
}

}  // namespace

bool GpuBenchResult::Measured() const {
  return skipped.empty() && SummariseTimes(seconds).repetitions > 0 && work > 0;
}

double GpuBenchResult::BestRate() const {
  return Measured() ? RatePerSecond(work, SummariseTimes(seconds).best_seconds) : 0;
}

double GpuBenchResult::MedianRate() const {
  return Measured() ? RatePerSecond(work, SummariseTimes(seconds).median_seconds) : 0;
}

MeasuredCeilings CeilingsFromRun(const GpuCeilingsRun& run, const std::string& measured_at,
                                 const std::string& tool, const std::string& driver_fallback) {
  MeasuredCeilings c;
  c.uuid = run.device.uuid;
  c.driver_version =
      run.device.driver_version.empty() ? driver_fallback : run.device.driver_version;
  c.name = run.device.name;
  c.measured_at = measured_at;
  c.tool = tool;
  c.sm_clock_mhz = run.sm_clock_mhz;
  for (const GpuBenchResult& r : run.results) {
    const double rate = r.BestRate();
    if (!(rate > 0)) continue;
    if (r.path) {
      auto& v = c.flops[*r.path];
      if (rate > v.value) v = MeasuredValue{rate, r.name};
    } else if (r.level) {
      auto& v = c.bandwidth[*r.level];
      if (rate > v.value) v = MeasuredValue{rate, r.name};
    }
  }
  return c;
}

std::optional<NominalFigure> NominalFor(const GpuBenchResult& result,
                                        const analyzers::DeviceRoofs& roofs) {
  if (result.path) {
    const auto peak = analyzers::ResolvePeak(roofs, *result.path, RoofPreference::kNominalOnly);
    if (!peak || !(peak->flops_per_s > 0)) return std::nullopt;
    NominalFigure out{peak->flops_per_s, peak->source,
                      std::string(analyzers::ComputePathName(peak->path))};
    if (peak->FellBack()) {
      out.what += " (fallback for " + std::string(analyzers::ComputePathName(*result.path)) + ")";
    }
    return out;
  }
  if (result.level) {
    const analyzers::Roof& roof = roofs.Bandwidth(*result.level);
    if (!(roof.nominal > 0)) return std::nullopt;
    return NominalFigure{roof.nominal, roof.nominal_source,
                         std::string(analyzers::MemoryLevelName(*result.level))};
  }
  return std::nullopt;
}

std::string FormatRate(const GpuBenchResult& result, double rate) {
  if (result.level) return Fixed(rate / 1e9, 0) + " GB/s";
  const bool ops = result.path && *result.path == ComputePath::kInt8Tensor;
  if (rate >= 1e12) return Fixed(rate / 1e12, 2) + " " + (ops ? "TOP/s" : "TFLOP/s");
  return Fixed(rate / 1e9, 1) + " " + (ops ? "GOP/s" : "GFLOP/s");
}

std::string FormatGpuCeilingsTable(const GpuCeilingsRun& run, const analyzers::DeviceRoofs& roofs) {
  const DeviceProperties& d = run.device;
  std::string out = "GPU " + std::to_string(run.device_index) + ": " + d.name + ", sm_" +
                    std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ", " +
                    std::to_string(d.sm_count) + " SMs, " + (d.uuid.empty() ? "no UUID" : d.uuid) +
                    ", driver " + (d.driver_version.empty() ? "unknown" : d.driver_version) + "\n";
  if (!roofs.table_key.empty()) {
    out += "nominal figures: device table entry " + roofs.table_key + " (" + roofs.name + ")\n";
  } else {
    out += "nominal figures: computed from the device's properties (not in the device table)\n";
  }
  if (run.sm_clock_mhz > 0) {
    out += "SM clock during the FP32 FMA run: " + Fixed(run.sm_clock_mhz, 0) + " MHz";
    if (roofs.boost_clock_mhz > 0) {
      out += " (nominal boost " + Fixed(roofs.boost_clock_mhz, 0) + " MHz)";
    }
    out += "\n";
  }
  out += "\n";
  constexpr size_t kId = 19, kRate = 16, kNominal = 27, kPct = 8;
  out += Pad("benchmark", kId) + Pad("best", kRate) + Pad("median", kRate) +
         Pad("nominal (source)", kNominal) + Pad("best %", kPct) + "what ran\n";
  for (const GpuBenchResult& r : run.results) {
    std::string line = Pad(r.id, kId);
    if (!r.Measured()) {
      line += "skipped: " + (r.skipped.empty() ? std::string("no timed repetition") : r.skipped);
      out += line + "\n";
      continue;
    }
    line += Pad(FormatRate(r, r.BestRate()), kRate) + Pad(FormatRate(r, r.MedianRate()), kRate);
    if (const auto nominal = NominalFor(r, roofs)) {
      line += Pad(FormatRate(r, nominal->value) + " (" +
                      std::string(analyzers::RoofSourceName(nominal->source)) + ")",
                  kNominal) +
              Pad(Percent(r.BestRate(), nominal->value), kPct);
    } else {
      line += Pad("none", kNominal) + Pad("", kPct);
    }
    out += line + r.name + "\n";
  }
  for (const std::string& note : run.notes) out += "note: " + note + "\n";
  return out;
}

std::string GpuCeilingsRunJson(const GpuCeilingsRun& run, const analyzers::DeviceRoofs& roofs,
                               const MeasuredCeilings& entry, const std::string& saved_to) {
  const DeviceProperties& d = run.device;
  json device = {{"index", run.device_index},
                 {"name", d.name},
                 {"uuid", d.uuid},
                 {"driver_version", d.driver_version},
                 {"cc_major", d.cc_major},
                 {"cc_minor", d.cc_minor},
                 {"sm_count", d.sm_count},
                 {"clock_khz", d.clock_khz},
                 {"memory_clock_khz", d.memory_clock_khz},
                 {"memory_bus_width_bits", d.memory_bus_width_bits},
                 {"l2_bytes", d.l2_bytes},
                 {"total_memory_bytes", d.total_memory_bytes},
                 {"table_key", roofs.table_key}};
  json results = json::array();
  for (const GpuBenchResult& r : run.results) results.push_back(ResultJson(r, roofs));
  json j = {{"format", "flopspy-gpu-ceilings-run"},
            {"device", std::move(device)},
            {"quick", run.quick},
            {"seconds", run.seconds},
            {"results", std::move(results)},
            {"notes", run.notes},
            {"ceilings", EntryJson(entry)},
            {"saved_to", saved_to}};
  if (run.sm_clock_mhz > 0) j["sm_clock_mhz"] = run.sm_clock_mhz;
  if (!run.error.empty()) j["error"] = run.error;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

bool SaveCeilingsEntry(const std::string& path, const MeasuredCeilings& entry,
                       platform::Destination destination, std::string* note, std::string* error) {
  if (!platform::PrepareFolderFor(path, destination, error)) return false;
  CeilingsFile file;
  // What is there already is kept. In the cache only a regular file at the name itself is read
  // (never a link); a name the user chose is followed, as they asked.
  struct stat st {};
  const bool private_cache = destination == platform::Destination::kPrivateCache;
  const bool exists = (private_cache ? lstat(path.c_str(), &st) : stat(path.c_str(), &st)) == 0;
  if (exists && S_ISREG(st.st_mode)) {
    CeilingsLoad load = LoadCeilingsFile(path);
    if (load.file) {
      file = std::move(*load.file);
    } else {
      // Lose nothing: keep the unreadable file beside the new one.
      const std::string aside = path + ".unreadable";
      if (std::rename(path.c_str(), aside.c_str()) != 0) {
        if (error) *error = load.error + "; and it cannot be moved aside: " + std::strerror(errno);
        return false;
      }
      if (note) *note = load.error + "; moved it to " + aside + " and started a new file";
    }
  }
  UpsertCeilings(file, entry);
  return SaveCeilingsFile(path, file, destination, error);
}

}  // namespace flopspy::gpuroof
