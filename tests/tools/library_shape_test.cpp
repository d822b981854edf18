// Promises about libflopspy.so itself: what it needs at load time, what it exports, and that the
// README documents every FLOPSPY_* variable the library reads.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "config.h"

namespace flopspy::testing {
namespace {

std::string Command(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(LibraryShape, NeedsOnlyTheSystemLibraries) {
  const std::string out = Command("readelf -d " + std::string(FLOPSPY_LIBRARY_PATH));
  ASSERT_NE(out.find("Dynamic section"), std::string::npos) << out;
  const std::set<std::string> allowed = {"libc.so.6",     "libstdc++.so.6", "libm.so.6",
                                         "libgcc_s.so.1", "libdl.so.2",     "libpthread.so.0"};
  const std::regex needed(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
  int count = 0;
  for (std::sregex_iterator it(out.begin(), out.end(), needed), end; it != end; ++it) {
    ++count;
    EXPECT_TRUE(allowed.contains((*it)[1].str())) << "unexpected NEEDED " << (*it)[1].str();
  }
  EXPECT_GT(count, 0);
}

TEST(LibraryShape, ExportsExactlyTheHooks) {
  // The version script (made from interpose/exports.map.in and the cuBLAS entry-point list)
  // lists every exported symbol; nothing else may leak.
  std::ifstream map(FLOPSPY_EXPORTS_MAP);
  std::stringstream text;
  text << map.rdbuf();
  std::set<std::string> listed;
  const std::string body = text.str().substr(text.str().find("global:"));
  const std::regex entry(R"(^\s+([A-Za-z_][A-Za-z0-9_]*);)", std::regex::multiline);
  for (std::sregex_iterator it(body.begin(), body.end(), entry), end; it != end; ++it) {
    listed.insert((*it)[1].str());
  }
  const std::string out = Command("nm -D --defined-only " + std::string(FLOPSPY_LIBRARY_PATH));
  std::set<std::string> exported;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    const std::string name = line.substr(space + 1);
    if (name.find('@') == std::string::npos) exported.insert(name);
  }
  EXPECT_FALSE(listed.empty());
  EXPECT_EQ(exported, listed);
  // The version node is anonymous: a named node would break versioned references
  // (cudaLaunchKernel@libcudart.so.13 must bind to the unversioned hook).
  EXPECT_EQ(Command("readelf -V " + std::string(FLOPSPY_LIBRARY_PATH)).find("Version definition"),
            std::string::npos);
}

TEST(LibraryShape, OwnCodeCallsOnlyTheRealDlsym) {
  // -Bsymbolic binds the library's own dlsym calls to its exported override (real_symbols.h):
  // code outside the override must call RealDlsym, or driver lookups come back wrapped.
  const std::regex call(R"((^|[^A-Za-z0-9_])dlsym\s*\()");
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(FLOPSPY_SOURCE_DIR) + "/interpose/src")) {
    const std::string name = entry.path().filename().string();
    if (name == "hooks_dlsym.cpp" || name == "real_symbols.cpp") continue;
    ++files;
    std::ifstream in(entry.path());
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      const auto comment = line.find("//");
      const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
      EXPECT_FALSE(std::regex_search(code, call)) << name << ":" << number << ": " << line;
    }
  }
  EXPECT_GT(files, 10);
}

TEST(Readme, DocumentsEveryVariableWithItsDefault) {
  std::ifstream readme(std::string(FLOPSPY_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << readme.rdbuf();
  for (const auto& v : interpose::ConfigVariables()) {
    const std::string row =
        "| `" + std::string(v.name) + "` | " + std::string(v.default_value) + " |";
    EXPECT_NE(text.str().find(row), std::string::npos) << "README lacks the row: " << row;
  }
}

// Every FLOPSPY_* name the shipped code reads (the library, the samplers, the tools) is in the
// README, so no variable a user may meet in a message or a doc page is undocumented there.
TEST(Readme, NamesEveryVariableTheCodeReads) {
  std::ifstream readme(std::string(FLOPSPY_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << readme.rdbuf();
  const std::regex name("\"(FLOPSPY_[A-Z0-9_]+)\"");
  std::set<std::string> names;
  for (const char* folder :
       {"trace", "analyzers", "interpose", "cpu_roofline", "gpu_roofline", "tools", "demo"}) {
    const std::filesystem::path root = std::filesystem::path(FLOPSPY_SOURCE_DIR) / folder;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".cu")) continue;
      std::ifstream in(entry.path());
      std::stringstream source;
      source << in.rdbuf();
      const std::string s = source.str();
      for (std::sregex_iterator it(s.begin(), s.end(), name), end; it != end; ++it) {
        names.insert((*it)[1].str());
      }
    }
  }
  EXPECT_GT(names.size(), 20u);  // the scan found the variables at all
  for (const std::string& n : names) {
    EXPECT_NE(text.str().find("`" + n + "`"), std::string::npos) << "README never names " << n;
  }
}

}  // namespace
}  // namespace flopspy::testing
