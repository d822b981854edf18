// Fixture locations for the cpu_roofline tests.
#pragma once

#include <string>

#include "flopspy/cpu_roofline/cpu_identity.h"

namespace flopspy::cpuroof::testing {

inline std::string DataDir() {
  return std::string(FLOPSPY_TEST_DATA_DIR) + "/cpu_roofline";
}

// A fake sysfs tree from tests/data/cpu_roofline/sysfs/<name> (make_sysfs_fixtures.py).
inline HostPaths FakeHost(const std::string& sysfs_tree, const std::string& proc_tree = "zen4_vm") {
  HostPaths p;
  p.sysfs_root = DataDir() + "/sysfs/" + sysfs_tree;
  p.procfs_root = DataDir() + "/proc/" + proc_tree;
  return p;
}

}  // namespace flopspy::cpuroof::testing
