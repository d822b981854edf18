// The ceilings file: JSON keyed by CPU model, ~/.cache/flopspy/ceilings-cpu-<key>.json.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "flopspy/cpu_roofline/ceilings.h"
#include "flopspy/platform/safe_file.h"

namespace flopspy::cpuroof {

namespace {

constexpr const char* kKind = "flopspy-cpu-ceilings";

nlohmann::json ToJ(const TheoreticalPeak& t) {
  nlohmann::json j;
  j["basis"] = t.basis;
  j["fma_pipes"] = t.fma_pipes;
  j["datapath_bits"] = t.datapath_bits;
  j["fma_latency"] = t.fma_latency;
  j["fma"] = t.fma;
  j["nominal_ghz"] = t.nominal_ghz;
  j["max_ghz"] = t.max_ghz;
  j["cores"] = t.cores;
  j["isas"] = nlohmann::json::array();
  for (const TheoreticalIsaPeak& p : t.isas) {
    j["isas"].push_back({{"isa", IsaName(p.isa)},
                         {"dp_flops_per_cycle", p.dp_flops_per_cycle},
                         {"sp_flops_per_cycle", p.sp_flops_per_cycle},
                         {"dp_gflops_core", p.dp_gflops_core},
                         {"sp_gflops_core", p.sp_gflops_core},
                         {"dp_gflops_all", p.dp_gflops_all},
                         {"sp_gflops_all", p.sp_gflops_all}});
  }
  return j;
}

template <class T>
T Get(const nlohmann::json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (...) {
    return fallback;
  }
}

}  // namespace

std::string CeilingsToJson(const CpuCeilings& c) {
  nlohmann::json j;
  j["kind"] = kKind;
  j["version"] = c.version;
  j["cpu_key"] = c.cpu_key;
  j["cpu_model"] = c.cpu_model;
  j["cpu"] = c.cpu;
  j["created"] = c.created;
  j["quick"] = c.quick;
  j["seconds"] = c.seconds;
  j["threads_all"] = c.threads_all;
  j["caches"] = {{"l1d", c.caches.l1d}, {"l2", c.caches.l2}, {"l3", c.caches.l3}};
  j["theoretical"] = ToJ(c.theoretical);
  j["flops"] = nlohmann::json::array();
  for (const FlopsCeiling& f : c.flops) {
    j["flops"].push_back({{"isa", IsaName(f.isa)},
                          {"precision", PrecisionName(f.precision)},
                          {"threads", f.threads},
                          {"accumulators", f.accumulators},
                          {"gflops", f.gflops},
                          {"theoretical_gflops", f.theoretical_gflops}});
  }
  j["bandwidth"] = nlohmann::json::array();
  for (const BandwidthCeiling& b : c.bandwidth) {
    j["bandwidth"].push_back({{"level", b.level},
                              {"kernel", b.kernel},
                              {"threads", b.threads},
                              {"gbytes_per_s", b.gbytes_per_s},
                              {"working_set_bytes", b.working_set_bytes}});
  }
  j["sweep"] = nlohmann::json::array();
  for (const BandwidthSample& s : c.sweep) {
    j["sweep"].push_back({{"kernel", s.kernel},
                          {"working_set_bytes", s.working_set_bytes},
                          {"threads", s.threads},
                          {"gbytes_per_s", s.gbytes_per_s}});
  }
  j["notes"] = c.notes;
  return j.dump(1);
}

std::optional<CpuCeilings> CeilingsFromJson(std::string_view json, std::string* error) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object() || Get<std::string>(j, "kind", "") != kKind) {
    *error = "not a flopspy CPU ceilings file";
    return std::nullopt;
  }
  CpuCeilings c;
  c.version = Get<int>(j, "version", 0);
  if (c.version != 1) {
    *error = "unsupported CPU ceilings version " + std::to_string(c.version);
    return std::nullopt;
  }
  c.cpu_key = Get<std::string>(j, "cpu_key", "");
  c.cpu_model = Get<std::string>(j, "cpu_model", "");
  c.cpu = Get<std::string>(j, "cpu", "");
  c.created = Get<std::string>(j, "created", "");
  c.quick = Get<bool>(j, "quick", false);
  c.seconds = Get<double>(j, "seconds", 0);
  c.threads_all = Get<int>(j, "threads_all", 1);
  if (auto it = j.find("caches"); it != j.end() && it->is_object()) {
    c.caches.l1d = Get<uint64_t>(*it, "l1d", 0);
    c.caches.l2 = Get<uint64_t>(*it, "l2", 0);
    c.caches.l3 = Get<uint64_t>(*it, "l3", 0);
  }
  if (auto it = j.find("theoretical"); it != j.end() && it->is_object()) {
    const auto& t = *it;
    c.theoretical.basis = Get<std::string>(t, "basis", "");
    c.theoretical.fma_pipes = Get<int>(t, "fma_pipes", 2);
    c.theoretical.datapath_bits = Get<int>(t, "datapath_bits", 128);
    c.theoretical.fma_latency = Get<int>(t, "fma_latency", 4);
    c.theoretical.fma = Get<bool>(t, "fma", true);
    c.theoretical.nominal_ghz = Get<double>(t, "nominal_ghz", 0);
    c.theoretical.max_ghz = Get<double>(t, "max_ghz", 0);
    c.theoretical.cores = Get<int>(t, "cores", 1);
    if (auto is = t.find("isas"); is != t.end() && is->is_array()) {
      for (const auto& p : *is) {
        auto isa = IsaFromName(Get<std::string>(p, "isa", ""));
        if (!isa) continue;
        TheoreticalIsaPeak q;
        q.isa = *isa;
        q.dp_flops_per_cycle = Get<double>(p, "dp_flops_per_cycle", 0);
        q.sp_flops_per_cycle = Get<double>(p, "sp_flops_per_cycle", 0);
        q.dp_gflops_core = Get<double>(p, "dp_gflops_core", 0);
        q.sp_gflops_core = Get<double>(p, "sp_gflops_core", 0);
        q.dp_gflops_all = Get<double>(p, "dp_gflops_all", 0);
        q.sp_gflops_all = Get<double>(p, "sp_gflops_all", 0);
        c.theoretical.isas.push_back(q);
      }
    }
  }
  if (auto it = j.find("flops"); it != j.end() && it->is_array()) {
    for (const auto& f : *it) {
      auto isa = IsaFromName(Get<std::string>(f, "isa", ""));
      const std::string p = Get<std::string>(f, "precision", "");
      if (!isa || (p != "dp" && p != "sp")) continue;
      FlopsCeiling fc;
      fc.isa = *isa;
      fc.precision = p == "dp" ? Precision::kDp : Precision::kSp;
      fc.threads = Get<int>(f, "threads", 1);
      fc.accumulators = Get<int>(f, "accumulators", 0);
      fc.gflops = Get<double>(f, "gflops", 0);
      fc.theoretical_gflops = Get<double>(f, "theoretical_gflops", 0);
      c.flops.push_back(fc);
    }
  }
  if (auto it = j.find("bandwidth"); it != j.end() && it->is_array()) {
    for (const auto& b : *it) {
      c.bandwidth.push_back(
          BandwidthCeiling{Get<std::string>(b, "level", ""), Get<std::string>(b, "kernel", ""),
                           Get<int>(b, "threads", 1), Get<double>(b, "gbytes_per_s", 0),
                           Get<uint64_t>(b, "working_set_bytes", 0)});
    }
  }
  if (auto it = j.find("sweep"); it != j.end() && it->is_array()) {
    for (const auto& s : *it) {
      c.sweep.push_back(BandwidthSample{
          Get<std::string>(s, "kernel", ""), Get<uint64_t>(s, "working_set_bytes", 0),
          Get<int>(s, "threads", 1), Get<double>(s, "gbytes_per_s", 0)});
    }
  }
  c.notes = Get<std::vector<std::string>>(j, "notes", {});
  return c;
}

std::string DefaultCeilingsPath(const CpuIdentity& cpu) {
  return CeilingsPathForKey(CpuModelKey(cpu));
}

std::string CeilingsPathForKey(const std::string& cpu_key) {
  std::string dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = x;
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = std::string(h) + "/.cache";
  } else {
    dir = "/tmp";
  }
  return dir + "/flopspy/ceilings-cpu-" + cpu_key + ".json";
}

bool SaveCeilings(const CpuCeilings& ceilings, const std::string& path, std::string* error,
                  platform::Destination destination) {
  return platform::SaveFile(path, CeilingsToJson(ceilings) + "\n", destination, error);
}

std::optional<CpuCeilings> LoadCeilings(const std::string& path, std::string* error) {
  std::string text;
  if (!platform::ReadRegularFile(path, platform::kMaxSettingsFileBytes, &text, error))
    return std::nullopt;
  auto c = CeilingsFromJson(text, error);
  if (!c) *error = path + ": " + *error;
  return c;
}

}  // namespace flopspy::cpuroof
