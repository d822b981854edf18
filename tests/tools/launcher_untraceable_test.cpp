// `flopspy run` on a program libflopspy.so cannot reach (statically linked, set-user-ID or
// set-group-ID to someone else): the program runs unchanged, and flopspy says in one line that it
// ran untraced and why, instead of "nothing was recorded". Scripts are judged by their
// interpreter, so a shell script is traced as before.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> FlopspyLines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flopspy", 0) == 0) lines.push_back(line);
  }
  return lines;
}

std::string WriteScript(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  return path;
}

#ifdef FLOPSPY_STATIC_PROBE_PATH
const std::string kStaticProbe = FLOPSPY_STATIC_PROBE_PATH;

TEST(FlopspyRunUntraceable, AStaticProgramRunsAndIsSaidToBeUntraced) {
  TempDir out;
  const ChildResult r = RunChild({kLauncher, "run", "-o", out.path(), "--", kStaticProbe, "7"});
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.out, "static probe ran\n");
  const auto lines = FlopspyLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0], "flopspy: " + kStaticProbe +
                          " ran untraced: it is statically linked (it has no ELF interpreter, the "
                          "loader that preloads libflopspy.so); no trace was written");
  EXPECT_TRUE(out.Files(".fspy").empty());
}

TEST(FlopspyRunUntraceable, TheProgramIsFoundOnThePathAsExecvpFindsIt) {
  TempDir out;
  const fs::path probe(kStaticProbe);
  ChildOptions options;
  options.env["PATH"] = "/nonexistent:" + probe.parent_path().string() + ":/usr/bin:/bin";
  const ChildResult r =
      RunChild({kLauncher, "run", "-o", out.path(), "--", probe.filename().string()}, options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto lines = FlopspyLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("flopspy: " + kStaticProbe + " ran untraced", 0), 0u) << lines[0];
}

TEST(FlopspyRunUntraceable, AScriptIsJudgedByItsInterpreter) {
  TempDir dir, out;
  const std::string script = WriteScript(dir, "static.sh", "#!" + kStaticProbe + "\n");
  const ChildResult r = RunChild({kLauncher, "run", "-o", out.path(), "--", script});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // the probe's status is atoi(script path): 0
  EXPECT_EQ(r.out, "static probe ran\n");
  const auto lines = FlopspyLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find(script + " ran untraced: it is a script whose interpreter " +
                          kStaticProbe + " is statically linked"),
            std::string::npos)
      << lines[0];
}
#else
TEST(FlopspyRunUntraceable, AStaticProgramRunsAndIsSaidToBeUntraced) {
  GTEST_SKIP() << "no static C library here (libc.a): the static probe was not built";
}
#endif

TEST(FlopspyRunUntraceable, AShellScriptIsTracedAndNotMisreported) {
  TempDir dir, out;
  const std::string script =
      WriteScript(dir, "probe.sh", "#!/bin/sh\nexec " + kProbe + " regions 3\n");
  const ChildResult r = RunChild({kLauncher, "run", "-o", out.path(), "--", script});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "regions done\n");
  EXPECT_EQ(r.err.find("untraced"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("flopspy: 1 trace in"), std::string::npos) << r.err;
}

TEST(FlopspyRunUntraceable, ADynamicProgramIsNotMisreported) {
  TempDir out;
  const ChildResult r = RunChild({kLauncher, "run", "-o", out.path(), "--", kProbe, "regions"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("untraced"), std::string::npos) << r.err;
}

// A copy of the (dynamic) probe that runs as another user or group than the caller's: the kernel
// sets AT_SECURE and the loader ignores LD_PRELOAD. Needs root to give the file away and a
// mount that honours set-ID bits.
class SetIdProgram : public ::testing::TestWithParam<mode_t> {};

TEST_P(SetIdProgram, RunsUntracedAndSaysWhy) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to make a program set-ID to another user";
  TempDir dir, out;
  struct statvfs mount {};
  if (statvfs(dir.path().c_str(), &mount) == 0 && (mount.f_flag & ST_NOSUID) != 0) {
    GTEST_SKIP() << dir.path() << " is on a nosuid mount";
  }
  const std::string copy = dir.path() + "/setid_probe";
  fs::copy_file(kProbe, copy);
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  ASSERT_EQ(chown(copy.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(copy.c_str(), 0755 | GetParam()), 0);

  const ChildResult r = RunChild({kLauncher, "run", "-o", out.path(), "--", copy, "regions", "2"});
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "regions done\n");
  const auto lines = FlopspyLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  const std::string kind = GetParam() == S_ISUID ? "set-user-ID" : "set-group-ID";
  EXPECT_EQ(lines[0].rfind("flopspy: " + copy + " ran untraced: it is " + kind, 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("secure mode and ignores LD_PRELOAD; no trace was written"),
            std::string::npos)
      << lines[0];
  EXPECT_TRUE(out.Files(".fspy").empty());
}

INSTANTIATE_TEST_SUITE_P(FlopspyRunUntraceable, SetIdProgram, ::testing::Values(S_ISUID, S_ISGID));

}  // namespace
}  // namespace flopspy::testing
