// The programs the tests run, at the paths the build gives them (each test target defines the
// macros it needs: tests/*/CMakeLists.txt), and reading what they wrote. One definition of each,
// shared by the test files of a target (unity builds put several in one translation unit).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace flopspy::testing {

#ifdef FLOPSPY_REPORT_PATH
inline const std::string kReport = FLOPSPY_REPORT_PATH;
#endif
#ifdef FLOPSPY_LAUNCHER_PATH
inline const std::string kLauncher = FLOPSPY_LAUNCHER_PATH;
#endif
#ifdef FLOPSPY_PROBE_PATH
inline const std::string kProbe = FLOPSPY_PROBE_PATH;
#endif

// The whole file, bytes as they are; "" when it cannot be read.
inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace flopspy::testing
