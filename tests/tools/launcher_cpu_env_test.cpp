// The CPU roofline's FLOPSPY_* variables seen from a real program with libflopspy.so preloaded:
// a bad value is one line and the default, only a valid source named on purpose lists what it
// cannot measure, a replay file that is a device or a FIFO is refused at once in one line, and
// FLOPSPY_CPU_RECORD never follows a planted link.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

namespace fs = std::filesystem;

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;

struct Traced {
  ChildResult result;
  std::vector<std::string> lines;  // flopspy's own lines on stderr
};

Traced RunTraced(const std::map<std::string, std::string>& variables) {
  TempDir out;
  ChildOptions options;
  options.env = variables;
  options.env["LD_PRELOAD"] = kLibrary;
  options.env["FLOPSPY_OUT"] = out.path();
  options.env["FLOPSPY_QUIET"] = "1";  // warnings only, not where the trace went
  options.timeout = std::chrono::milliseconds(20000);
  Traced t;
  t.result = RunChild({kProbe, "regions", "2"}, options);
  std::istringstream in(t.result.err);
  for (std::string line; std::getline(in, line);) {
    if (line.find("flopspy") != std::string::npos) t.lines.push_back(line);
  }
  return t;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

TEST(CpuRooflineVariables, AnUnknownSourceIsOneLine) {
  const Traced t = RunTraced({{"FLOPSPY_CPU_ROOFLINE", "abc"}});
  EXPECT_EQ(t.result.exit_code, 0);
  EXPECT_EQ(t.result.out, "regions done\n");
  ASSERT_EQ(t.lines.size(), 1u) << Joined(t.lines);
  EXPECT_NE(t.lines[0].find("FLOPSPY_CPU_ROOFLINE=\"abc\" is not valid"), std::string::npos)
      << t.lines[0];
}

TEST(CpuRooflineVariables, AnEmptySourceIsTheDefaultAndSilent) {
  const Traced t = RunTraced({{"FLOPSPY_CPU_ROOFLINE", ""}});
  EXPECT_EQ(t.result.exit_code, 0);
  EXPECT_TRUE(t.lines.empty()) << Joined(t.lines);
}

TEST(CpuRooflineVariables, EachBadNumberIsOneLine) {
  const Traced t = RunTraced({{"FLOPSPY_CPU_INTERVAL_MS", " 50"},
                              {"FLOPSPY_CPU_PEAK_GFLOPS", "1e3"},
                              {"FLOPSPY_CPU_MIN_MS", "0x10"}});
  EXPECT_EQ(t.result.exit_code, 0);
  ASSERT_EQ(t.lines.size(), 3u) << Joined(t.lines);
  for (const char* variable :
       {"FLOPSPY_CPU_INTERVAL_MS", "FLOPSPY_CPU_PEAK_GFLOPS", "FLOPSPY_CPU_MIN_MS"}) {
    EXPECT_NE(Joined(t.lines).find(variable), std::string::npos) << variable;
  }
}

// Before main: a device never ends and a FIFO without a writer blocks the open for ever.
TEST(CpuRooflineVariables, AReplayFromADeviceOrAFifoIsRefusedAtOnce) {
  TempDir dir;
  const std::string fifo = dir.path() + "/replay.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/zero"), fifo}) {
    SCOPED_TRACE(path);
    const Traced t = RunTraced({{"FLOPSPY_CPU_ROOFLINE", "replay:" + path}});
    ASSERT_FALSE(t.result.timed_out) << "the program hung before main";
    EXPECT_EQ(t.result.exit_code, 0);
    EXPECT_EQ(t.result.out, "regions done\n");
    ASSERT_EQ(t.lines.size(), 1u) << Joined(t.lines);
    EXPECT_NE(t.lines[0].find(path + " is a"), std::string::npos) << t.lines[0];
    EXPECT_NE(t.lines[0].find("no CPU roofline for this process"), std::string::npos);
  }
}

TEST(CpuRooflineVariables, TheRecordingNeverFollowsAPlantedLink) {
  TempDir dir;
  const std::string victim = dir.path() + "/victim.txt";
  std::ofstream(victim) << "precious\n";
  const std::string planted = dir.path() + "/cpu.jsonl";
  fs::create_symlink(victim, planted);
  const Traced t = RunTraced({{"FLOPSPY_CPU_RECORD", planted}});
  EXPECT_EQ(t.result.exit_code, 0);
  std::ifstream in(victim);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "precious\n");
  EXPECT_TRUE(fs::is_symlink(planted));
  // Where no counter opens at all, nothing is recorded and nothing is said.
  EXPECT_LE(t.lines.size(), 1u) << Joined(t.lines);
  for (const auto& line : t.lines) {
    EXPECT_NE(line.find("already exists"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace flopspy::testing
