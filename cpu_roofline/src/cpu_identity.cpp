#include "flopspy/cpu_roofline/cpu_identity.h"

#include <unistd.h>

#include <set>
#include <utility>

#include "flopspy/cpu_roofline/sysfs_pmu.h"
#include "text_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

namespace flopspy::cpuroof {

std::string_view CpuVendorName(CpuVendor vendor) {
  switch (vendor) {
    case CpuVendor::kIntel:
      return "Intel";
    case CpuVendor::kAmd:
      return "AMD";
    case CpuVendor::kArm:
      return "Arm";
    case CpuVendor::kUnknown:
      break;
  }
  return "unknown";
}

static CpuVendor VendorFromString(std::string_view v) {
  if (v == "GenuineIntel") return CpuVendor::kIntel;
  if (v == "AuthenticAMD" || v == "HygonGenuine") return CpuVendor::kAmd;
  if (v == "ARM" || v == "Arm" || v == "arm") return CpuVendor::kArm;
  return CpuVendor::kUnknown;
}

std::optional<CpuIdentity> ParseCpuIdOverride(std::string_view spec, std::string* error) {
  const auto parts = Split(Trim(spec), ':');
  CpuIdentity cpu;
  cpu.vendor_string = std::string(parts[0]);
  cpu.vendor = VendorFromString(parts[0]);
  if (cpu.vendor == CpuVendor::kUnknown) {
    *error = "unknown vendor '" + std::string(parts[0]) +
             "' (expected GenuineIntel, AuthenticAMD or ARM)";
    return std::nullopt;
  }
  if (cpu.vendor == CpuVendor::kArm) {
    if (parts.size() < 3 || parts.size() > 4) {
      *error = "expected ARM:<implementer>:<part>[:<sve bits>]";
      return std::nullopt;
    }
    auto impl = ParseUint(parts[1]);
    auto part = ParseUint(parts[2]);
    auto vl = parts.size() == 4 ? ParseUint(parts[3]) : std::optional<uint64_t>(0);
    if (!impl || !part || !vl) {
      *error = "bad number in '" + std::string(spec) + "'";
      return std::nullopt;
    }
    cpu.arm_implementer = static_cast<uint32_t>(*impl);
    cpu.arm_part = static_cast<uint32_t>(*part);
    cpu.sve_vector_bits = static_cast<uint32_t>(*vl);
    cpu.features.neon = true;
    cpu.features.sve = *vl != 0;
    return cpu;
  }
  if (parts.size() < 3 || parts.size() > 4) {
    *error = "expected <vendor>:<family>:<model>[:<stepping>]";
    return std::nullopt;
  }
  auto fam = ParseUint(parts[1]);
  auto model = ParseUint(parts[2]);
  auto step = parts.size() == 4 ? ParseUint(parts[3]) : std::optional<uint64_t>(0);
  if (!fam || !model || !step) {
    *error = "bad number in '" + std::string(spec) + "'";
    return std::nullopt;
  }
  cpu.family = static_cast<uint32_t>(*fam);
  cpu.model = static_cast<uint32_t>(*model);
  cpu.stepping = static_cast<uint32_t>(*step);
  return cpu;
}

CpuIdentity ParseProcCpuinfo(std::string_view text) {
  CpuIdentity cpu;
  std::set<std::string> packages;
  std::set<std::pair<std::string, std::string>> cores;
  std::string physical_id;
  int processors = 0;
  bool first_mhz = true;
  for (std::string_view line : Split(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = Trim(line.substr(0, colon));
    const std::string_view value = Trim(line.substr(colon + 1));
    if (key == "processor") {
      ++processors;
    } else if (key == "vendor_id") {
      if (cpu.vendor_string.empty()) {
        cpu.vendor_string = std::string(value);
        cpu.vendor = VendorFromString(value);
      }
    } else if (key == "cpu family") {
      cpu.family = static_cast<uint32_t>(ParseUint(value).value_or(0));
    } else if (key == "model") {
      cpu.model = static_cast<uint32_t>(ParseUint(value).value_or(0));
    } else if (key == "stepping") {
      cpu.stepping = static_cast<uint32_t>(ParseUint(value).value_or(0));
    } else if (key == "model name") {
      if (cpu.model_name.empty()) cpu.model_name = std::string(value);
    } else if (key == "cpu MHz") {
      if (first_mhz) cpu.nominal_mhz = ParseDouble(value).value_or(0);
      first_mhz = false;
    } else if (key == "physical id") {
      physical_id = std::string(value);
      packages.insert(physical_id);
    } else if (key == "core id") {
      cores.emplace(physical_id, std::string(value));
    } else if (key == "CPU implementer") {
      cpu.arm_implementer = static_cast<uint32_t>(ParseUint(value).value_or(0));
      cpu.vendor = CpuVendor::kArm;
      if (cpu.vendor_string.empty()) cpu.vendor_string = "ARM";
    } else if (key == "CPU part") {
      cpu.arm_part = static_cast<uint32_t>(ParseUint(value).value_or(0));
    } else if (key == "flags" || key == "Features") {
      std::set<std::string_view> flags;
      for (std::string_view f : Split(value, ' ')) flags.insert(f);
      CpuFeatures& ft = cpu.features;
      ft.sse2 = flags.count("sse2") > 0;
      ft.avx = flags.count("avx") > 0;
      ft.avx2 = flags.count("avx2") > 0;
      ft.fma = flags.count("fma") > 0;
      ft.avx512f = flags.count("avx512f") > 0;
      ft.neon = flags.count("asimd") > 0;
      ft.sve = flags.count("sve") > 0;
    }
  }
  cpu.logical_cpus = processors;
  cpu.sockets = static_cast<int>(packages.size());
  cpu.physical_cores = static_cast<int>(cores.size());
  return cpu;
}

// Intel model names end in "@ 2.60GHz": the nominal frequency.
static double MhzFromModelName(std::string_view name) {
  const size_t at = name.rfind('@');
  if (at == std::string_view::npos) return 0;
  std::string_view rest = Trim(name.substr(at + 1));
  if (!EndsWith(rest, "GHz")) return 0;
  return ParseDouble(rest.substr(0, rest.size() - 3)).value_or(0) * 1000.0;
}

CpuIdentity DetectCpuIdentity(const HostPaths& paths) {
  CpuIdentity cpu;
  if (auto text = ReadSmallFile(paths.procfs_root + "/cpuinfo")) cpu = ParseProcCpuinfo(*text);

#if defined(__x86_64__) || defined(__i386__)
  if (paths.procfs_root == "/proc") {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0, &a, &b, &c, &d)) {
      char vendor[13];
      __builtin_memcpy(vendor + 0, &b, 4);
      __builtin_memcpy(vendor + 4, &d, 4);
      __builtin_memcpy(vendor + 8, &c, 4);
      vendor[12] = '\0';
      cpu.vendor_string = vendor;
      cpu.vendor = VendorFromString(vendor);
    }
    if (__get_cpuid(1, &a, &b, &c, &d)) {
      const uint32_t base_family = (a >> 8) & 0xF;
      const uint32_t ext_family = (a >> 20) & 0xFF;
      const uint32_t base_model = (a >> 4) & 0xF;
      const uint32_t ext_model = (a >> 16) & 0xF;
      cpu.family = base_family == 0xF ? base_family + ext_family : base_family;
      cpu.model =
          (base_family == 0x6 || base_family == 0xF) ? base_model + (ext_model << 4) : base_model;
      cpu.stepping = a & 0xF;
    }
    // What the OS enabled, as the kernels of the ceilings will see it.
    __builtin_cpu_init();
    cpu.features.sse2 = __builtin_cpu_supports("sse2");
    cpu.features.avx = __builtin_cpu_supports("avx");
    cpu.features.avx2 = __builtin_cpu_supports("avx2");
    cpu.features.fma = __builtin_cpu_supports("fma");
    cpu.features.avx512f = __builtin_cpu_supports("avx512f");
  }
#endif
#if defined(__aarch64__)
  if (paths.procfs_root == "/proc") {
    cpu.features.neon = true;
#ifdef PR_SVE_GET_VL
    const int vl = prctl(PR_SVE_GET_VL);
    if (vl > 0) {
      cpu.features.sve = true;
      cpu.sve_vector_bits = static_cast<uint32_t>((vl & PR_SVE_VL_LEN_MASK) * 8);
    }
#endif
  }
#endif

  // Topology from sysfs: one package id and core id per online CPU.
  const std::string cpu_dir = paths.sysfs_root + "/devices/system/cpu";
  if (auto online = ReadSmallFile(cpu_dir + "/online")) {
    std::set<std::string> packages;
    std::set<std::pair<std::string, std::string>> cores;
    const std::vector<int> cpus = ParseCpuList(*online);
    for (int c : cpus) {
      const std::string topo = cpu_dir + "/cpu" + std::to_string(c) + "/topology/";
      auto pkg = ReadSmallFile(topo + "physical_package_id");
      auto core = ReadSmallFile(topo + "core_id");
      if (!pkg || !core) continue;
      packages.insert(*pkg);
      cores.emplace(*pkg, *core);
    }
    if (!cpus.empty()) cpu.logical_cpus = static_cast<int>(cpus.size());
    if (!packages.empty()) cpu.sockets = static_cast<int>(packages.size());
    if (!cores.empty()) cpu.physical_cores = static_cast<int>(cores.size());
  }
  if (cpu.logical_cpus <= 0) cpu.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (cpu.physical_cores <= 0) cpu.physical_cores = cpu.logical_cpus;
  if (cpu.sockets <= 0) cpu.sockets = 1;

  const std::string freq = cpu_dir + "/cpu0/cpufreq/";
  if (auto base = ReadSmallFile(freq + "base_frequency")) {
    cpu.nominal_mhz = ParseDouble(*base).value_or(0) / 1000.0;
  } else if (double m = MhzFromModelName(cpu.model_name); m > 0) {
    cpu.nominal_mhz = m;
  }
  if (auto mx = ReadSmallFile(freq + "cpuinfo_max_freq")) {
    cpu.max_mhz = ParseDouble(*mx).value_or(0) / 1000.0;
  }

  SysfsView sysfs(paths);
  cpu.hybrid = sysfs.HasPmu("cpu_core") && sysfs.HasPmu("cpu_atom");
  return cpu;
}

std::string DescribeCpu(const CpuIdentity& cpu) {
  std::string out =
      cpu.model_name.empty() ? std::string(CpuVendorName(cpu.vendor)) + " CPU" : cpu.model_name;
  if (cpu.vendor == CpuVendor::kArm) {
    out += " (MIDR implementer " + Hex(cpu.arm_implementer) + " part " + Hex(cpu.arm_part);
    if (cpu.sve_vector_bits) out += ", SVE " + std::to_string(cpu.sve_vector_bits) + " bits";
    out += ")";
  } else {
    out += " (" + (cpu.vendor_string.empty() ? std::string("unknown") : cpu.vendor_string) +
           " family " + Hex(cpu.family) + " model " + Hex(cpu.model) + " stepping " +
           std::to_string(cpu.stepping) + ")";
  }
  return out;
}

std::string CpuModelKey(const CpuIdentity& cpu) {
  std::string key = ToLower(cpu.vendor_string.empty() ? "unknown" : cpu.vendor_string);
  if (cpu.vendor == CpuVendor::kArm) {
    key += "-" + Hex(cpu.arm_implementer).substr(2) + "-" + Hex(cpu.arm_part).substr(2);
  } else {
    key += "-" + Hex(cpu.family).substr(2) + "-" + Hex(cpu.model).substr(2);
  }
  std::string slug;
  for (char c : ToLower(cpu.model_name)) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum) {
      slug += c;
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.size() > 48) slug.resize(48);
  if (!slug.empty()) key += "-" + slug;
  return key;
}

std::optional<int> ReadPerfEventParanoid(const HostPaths& paths) {
  auto text = ReadSmallFile(paths.procfs_root + "/sys/kernel/perf_event_paranoid");
  if (!text) return std::nullopt;
  auto v = ParseInt(*text);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace flopspy::cpuroof
