// Modules the symbolizer cannot use: missing, not ELF, not a file, cut short, damaged. It must
// say why, give empty symbols, never throw, crash or block.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "flopspy/symbols/symbolizer.h"

namespace flopspy::symbols {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;
using ::testing::StartsWith;

class BadModule : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("flopspy_symbols_bad_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static std::string Library() {
    std::ifstream in(FLOPSPY_SYMBOLS_TESTLIB, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // What a module at `path` resolves to, and the one line the symbolizer says about it.
  static std::vector<std::string> ProblemsOf(const std::string& path, std::string build_id = "") {
    Symbolizer symbolizer;
    Module module{path, std::move(build_id), 0x10000};
    for (uint64_t offset : {0x1000u, 0x1100u, 0x1200u, 0x4000u}) {
      Symbol symbol = symbolizer.Resolve(module, 0x10000 + offset);
      EXPECT_EQ(symbol.line, 0);
    }
    return symbolizer.ModulesWithoutSymbols();
  }

  std::filesystem::path dir_;
};

TEST_F(BadModule, AMissingFileIsNotFound) {
  std::string path = (dir_ / "libgone.so").string();
  EXPECT_THAT(ProblemsOf(path), ElementsAre(path + ": not found"));
  EXPECT_THAT(ProblemsOf(path + "/under-a-file"), SizeIs(1));
}

TEST_F(BadModule, AFileThatIsNotElfIsSaidToBeSo) {
  std::string path = Write("notes.txt", "these are not the bytes you are looking for\n");
  EXPECT_THAT(ProblemsOf(path), ElementsAre(path + ": not an ELF file"));
  std::string empty = Write("empty.so", "");
  EXPECT_THAT(ProblemsOf(empty), ElementsAre(empty + ": not an ELF file"));
}

TEST_F(BadModule, AFolderOrAFifoIsRefusedWithoutBlocking) {
  EXPECT_THAT(ProblemsOf(dir_.string()), ElementsAre(dir_.string() + ": not a regular file"));
  std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(ProblemsOf(fifo), ElementsAre(fifo + ": not a regular file"));
}

TEST_F(BadModule, FilesOfProcAndSysAreRefused) {
  // Such as /proc/kcore (an ELF image of all memory, absent in containers); these files are
  // always there and look just as regular to stat().
  EXPECT_THAT(ProblemsOf("/proc/self/maps"), ElementsAre("/proc/self/maps: not a regular file"));
  EXPECT_THAT(ProblemsOf("/proc/self/environ"),
              ElementsAre("/proc/self/environ: not a regular file"));
}

TEST_F(BadModule, AnElfFileCutShortIsListed) {
  std::string bytes = Library();
  ASSERT_GT(bytes.size(), 4096u);
  for (size_t size : {size_t{4}, size_t{64}, size_t{700}, size_t{4096}, bytes.size() / 2}) {
    std::string path = Write("cut" + std::to_string(size) + ".so", bytes.substr(0, size));
    EXPECT_THAT(ProblemsOf(path), ElementsAre(StartsWith(path + ": "))) << size;
  }
}

// Damaged copies of a real library: random bytes changed all over it. Whatever libdw makes of
// them, the symbolizer returns (the test fails by crashing or hanging).
TEST_F(BadModule, DamagedElfFilesNeverCrashTheSymbolizer) {
  const std::string bytes = Library();
  std::mt19937 random(19);
  std::uniform_int_distribution<size_t> where(0, bytes.size() - 1);
  std::uniform_int_distribution<int> value(0, 255);
  for (int copy = 0; copy < 60; ++copy) {
    std::string damaged = bytes;
    int changes = copy < 30 ? 4 : 64;
    for (int i = 0; i < changes; ++i) {
      size_t at = copy % 3 == 0 ? where(random) % 4096 : where(random);  // headers, often
      damaged[at] = static_cast<char>(value(random));
    }
    std::string path = Write("damaged" + std::to_string(copy) + ".so", damaged);
    Symbolizer symbolizer;
    Module module{path, "", 0x10000};
    for (uint64_t offset = 0x1000; offset < 0x1400; offset += 0x40) {
      symbolizer.Resolve(module, 0x10000 + offset);
    }
    symbolizer.ModulesWithoutSymbols();
    symbolizer.ModulesWithoutDebugInfo();
  }
}

}  // namespace
}  // namespace flopspy::symbols
