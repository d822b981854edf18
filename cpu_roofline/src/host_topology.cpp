#include "host_topology.h"

#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "flopspy/cpu_roofline/sysfs_pmu.h"
#include "text_util.h"

namespace flopspy::cpuroof {

CacheSizes DetectCacheSizes(const HostPaths& paths) {
  CacheSizes c;
  const std::string base = paths.sysfs_root + "/devices/system/cpu/cpu0/cache";
  for (int i = 0; i < 8; ++i) {
    const std::string dir = base + "/index" + std::to_string(i) + "/";
    auto level = ReadSmallFile(dir + "level");
    auto type = ReadSmallFile(dir + "type");
    auto size = ReadSmallFile(dir + "size");
    if (!level || !type || !size) continue;
    std::string_view s = Trim(*size);
    uint64_t mult = 1;
    if (EndsWith(s, "K")) mult = 1024;
    if (EndsWith(s, "M")) mult = 1024 * 1024;
    if (mult != 1) s.remove_suffix(1);
    const uint64_t bytes = ParseUint(s).value_or(0) * mult;
    if (*level == "1" && *type == "Data") c.l1d = bytes;
    if (*level == "2" && *type != "Instruction") c.l2 = bytes;
    if (*level == "3") c.l3 = bytes;
  }
  if (paths.sysfs_root == "/sys") {
    if (!c.l1d) c.l1d = static_cast<uint64_t>(std::max(0L, sysconf(_SC_LEVEL1_DCACHE_SIZE)));
    if (!c.l2) c.l2 = static_cast<uint64_t>(std::max(0L, sysconf(_SC_LEVEL2_CACHE_SIZE)));
    if (!c.l3) c.l3 = static_cast<uint64_t>(std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE)));
  }
  if (!c.l1d) c.l1d = 32 << 10;
  if (!c.l2) c.l2 = 1 << 20;
  if (!c.l3) c.l3 = 8 << 20;
  return c;
}

std::vector<int> CoreCpus(const HostPaths& paths) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> allowed;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) allowed.push_back(c);
    }
  }
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<int> out;
  for (int c : allowed) {
    const std::string topo =
        paths.sysfs_root + "/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    auto pkg = ReadSmallFile(topo + "physical_package_id");
    auto core = ReadSmallFile(topo + "core_id");
    if (pkg && core && !seen.emplace(*pkg, *core).second) continue;  // an SMT sibling
    out.push_back(c);
  }
  if (out.empty()) out.push_back(0);
  return out;
}

void PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

uint64_t PhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

}  // namespace flopspy::cpuroof
