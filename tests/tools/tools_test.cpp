// `flopspy run` and `flopspy info` from the outside, as a user runs them.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "subprocess.h"
#include "test_programs.h"
#include "trace_facts.h"

namespace flopspy::testing {
namespace {

TEST(FlopspyRun, KeepsOutputAndExitStatusAndSummarisesOnStderr) {
  TempDir dir;
  const auto plain = RunChild({kProbe, "regions", "25", "3"});
  const auto r = RunChild({kLauncher, "run", "-o", dir.path(), "--", kProbe, "regions", "25", "3"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, plain.out);  // stdout untouched: flopspy's lines go to stderr
  EXPECT_NE(r.err.find("flopspy: 1 trace in " + dir.path()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("flopspy: full report: flopspy-report " + dir.path()), std::string::npos);
  const auto traces = dir.Files(".fspy");
  ASSERT_EQ(traces.size(), 1u);
  const TraceFacts t = ReadTraceFacts(traces[0]);
  EXPECT_EQ(t.Regions("work"), 25u);
  EXPECT_NE(t.header.run_id, 0u);
}

TEST(FlopspyRun, CommandWithoutDashesAndWithItsOwnOptions) {
  TempDir dir;
  const auto r = RunChild({kLauncher, "run", "-o", dir.path(), kProbe, "regions", "2"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "regions done\n");
}

TEST(FlopspyRun, DiesOfTheProgramsSignal) {
  TempDir dir;
  const auto r = RunChild({kLauncher, "run", "-o", dir.path(), "--", kProbe, "segv"});
  ASSERT_TRUE(r.signaled) << r.err;
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(r.err.find("flopspy: 1 trace"), std::string::npos) << r.err;
}

TEST(FlopspyRun, MissingCommandIs127) {
  TempDir dir;
  const auto r = RunChild({kLauncher, "run", "-o", dir.path(), "--", "/no/such/program"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot run '/no/such/program'"), std::string::npos) << r.err;
}

TEST(FlopspyRun, OptionsBecomeEnvironmentVariables) {
  TempDir dir;
  const auto r =
      RunChild({kLauncher, "run", "-o", dir.path(), "--no-follow-fork", "--", kProbe, "fork"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(dir.Files(".fspy").size(), 1u);  // the child wrote none
}

TEST(FlopspyRun, RejectsOutOfRangeOptions) {
  const auto r = RunChild({kLauncher, "run", "--buffer-kb", "1", "--", kProbe, "regions"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 2);  // a usage error (launcher_usage_test.cpp), not CLI11's 105
  EXPECT_EQ(r.out, "");       // the program never ran
  EXPECT_NE(r.err.find("buffer-kb"), std::string::npos) << r.err;
}

TEST(FlopspyRun, SummaryListsOnlyThisRunsTraces) {
  TempDir dir;
  RunChild({kLauncher, "run", "-o", dir.path(), "--", kProbe, "regions", "1"});
  const auto r = RunChild({kLauncher, "run", "-o", dir.path(), "--", kProbe, "regions", "1"});
  EXPECT_EQ(dir.Files(".fspy").size(), 2u);
  EXPECT_NE(r.err.find("flopspy: 1 trace in"), std::string::npos) << r.err;
}

TEST(FlopspyInfo, ReportsCpuAndCudaSections) {
  const auto r = RunChild({kLauncher, "info"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  for (const char* heading : {"CPU\n", "CUDA\n", "GPUs", "perf_event_paranoid", "hardware counters",
                              "driver (libcuda.so.1)", "CUPTI"}) {
    EXPECT_NE(r.out.find(heading), std::string::npos) << heading << "\n" << r.out;
  }
}

TEST(FlopspyInfo, JsonIsOneObject) {
  const auto r = RunChild({kLauncher, "info", "--json"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_NE(r.out.find("\"perf_event_paranoid\""), std::string::npos);
  EXPECT_NE(r.out.find("\"gpus\""), std::string::npos);
}

}  // namespace
}  // namespace flopspy::testing
