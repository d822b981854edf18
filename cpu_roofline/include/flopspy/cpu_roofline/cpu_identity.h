// Which CPU this is: vendor, family/model (x86 CPUID) or MIDR part (Arm), features, topology and
// frequency. Everything is injectable so tests describe any CPU (FLOPSPY_CPUID, fake /proc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace flopspy::cpuroof {

// Where to read system files; tests point these at fixture trees.
struct HostPaths {
  std::string sysfs_root = "/sys";
  std::string procfs_root = "/proc";
};

enum class CpuVendor : uint8_t { kUnknown = 0, kIntel = 1, kAmd = 2, kArm = 3 };

struct CpuFeatures {
  bool sse2 = false, avx = false, avx2 = false, fma = false, avx512f = false;
  bool neon = false, sve = false;
};

struct CpuIdentity {
  CpuVendor vendor = CpuVendor::kUnknown;
  std::string vendor_string;  // "GenuineIntel", "AuthenticAMD", "ARM"
  uint32_t family = 0;        // x86 display family (base + extended)
  uint32_t model = 0;         // x86 display model (base + extended << 4)
  uint32_t stepping = 0;
  uint32_t arm_implementer = 0;  // MIDR implementer (0x41 = Arm Ltd)
  uint32_t arm_part = 0;         // MIDR part number (0xd40 = Neoverse V1)
  uint32_t sve_vector_bits = 0;  // 0: no SVE or unknown
  std::string model_name;        // "AMD EPYC 9654 96-Core Processor"
  CpuFeatures features;
  bool hybrid = false;  // Intel P + E cores (cpu_core and cpu_atom PMUs)
  int logical_cpus = 0;
  int physical_cores = 0;
  int sockets = 0;
  double nominal_mhz = 0;  // base frequency (or the current one when no base is published)
  double max_mhz = 0;      // highest boost frequency when published, else 0
};

// "GenuineIntel:6:0x8F:8", "AuthenticAMD:0x19:0x11:1", "ARM:0x41:0xd40[:<sve bits>]".
std::optional<CpuIdentity> ParseCpuIdOverride(std::string_view spec, std::string* error);

// Fills what /proc/cpuinfo says: vendor, family, model, stepping, model name, flags, MHz, Arm
// implementer/part, sockets and cores (physical id / core id).
CpuIdentity ParseProcCpuinfo(std::string_view text);

// /proc/cpuinfo, plus sysfs topology, frequency and hybrid PMUs. CPUID (x86) and the SVE vector
// length (Arm) are read only when procfs_root is the real /proc: fixture trees describe another
// CPU.
CpuIdentity DetectCpuIdentity(const HostPaths& paths = {});

// "AMD EPYC (AuthenticAMD family 0x19 model 0x11 stepping 1)".
std::string DescribeCpu(const CpuIdentity& cpu);

// A file-name-safe key: "authenticamd-19-11-amd-epyc".
std::string CpuModelKey(const CpuIdentity& cpu);

// Reads <procfs_root>/sys/kernel/perf_event_paranoid.
std::optional<int> ReadPerfEventParanoid(const HostPaths& paths);

std::string_view CpuVendorName(CpuVendor vendor);

}  // namespace flopspy::cpuroof
