// What flopspy-report writes (docs/flopspy-report.md, "Outputs" and "Exit status"): a write that
// fails, stdout included, exits 1 with one line naming the output and the reason; a symlink
// planted at an output's name is replaced, never followed; devices (/dev/null, /dev/stdout) are
// written into; an output that is one of the inputs is refused (exit 2).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "subprocess.h"
#include "test_programs.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

constexpr std::string_view kFull = "No space left on device";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

class ReportOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override { WriteStepTrace(trace_); }

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  // The report with stdout sent to `stdout_path` (a shell does the redirection).
  ChildResult ReportTo(const std::string& stdout_path, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/bin/sh", "-c", "exec \"$0\" \"$@\" > " + stdout_path, kReport};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunChild(argv);
  }
  ChildResult Report(const std::vector<std::string>& args) {
    std::vector<std::string> argv{kReport};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunChild(argv);
  }

  TempDir dir_;
  const std::string trace_ = dir_.path() + "/ok.fspy";
};

TEST_F(ReportOutputsTest, TextToAFullDeviceExitsOneAndSaysSo) {
  const ChildResult r = ReportTo("/dev/full", {trace_});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "flopspy-report: cannot write the report to standard output: " +
                       std::string(kFull) + "\n");
}

TEST_F(ReportOutputsTest, JsonToAFullDeviceExitsOneAndSaysSo) {
  const ChildResult r = ReportTo("/dev/full", {trace_, "--json"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "flopspy-report: cannot write the report to standard output: " +
                       std::string(kFull) + "\n");
}

TEST_F(ReportOutputsTest, DiffToAFullDeviceExitsOne) {
  const ChildResult r = ReportTo("/dev/full", {"--diff", trace_, trace_});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write the report to standard output"), std::string::npos) << r.err;
}

TEST_F(ReportOutputsTest, ChromeToAFullDeviceExitsOneAndSaysSo) {
  const ChildResult r = Report({trace_, "--chrome", "/dev/full"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "flopspy-report: cannot write /dev/full: " + std::string(kFull) + "\n");
}

TEST_F(ReportOutputsTest, HtmlToAFullDeviceExitsOneAndSaysSo) {
  const ChildResult r = Report({trace_, "--html", "/dev/full"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "flopspy-report: cannot write /dev/full: " + std::string(kFull) + "\n");
}

// P10: these said so on stderr and still exited 0, which a script cannot see.
TEST_F(ReportOutputsTest, OutputsThatCannotBeWrittenExitOne) {
  std::ofstream(Path("a-file")) << "not a folder";
  for (const auto& [option, path] :
       std::vector<std::pair<std::string, std::string>>{{"--html", Path("missing/report.html")},
                                                        {"--chrome", Path("missing/timeline.json")},
                                                        {"--chrome", dir_.path()},
                                                        {"--csv", Path("a-file")}}) {
    const ChildResult r = Report({trace_, option, path});
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 1) << option << " " << path << ": " << r.err;
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("flopspy-report: cannot ", 0), 0u) << r.err;
  }
}

TEST_F(ReportOutputsTest, OutputThatIsAnInputIsRefused) {
  const std::string before = ReadAll(trace_);
  for (const std::string option : {"--html", "--chrome"}) {
    const ChildResult r = Report({trace_, option, trace_});
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "flopspy-report: " + option + " " + trace_ +
                         " is one of the traces to read: refusing to overwrite it\n");
    EXPECT_EQ(ReadAll(trace_), before);
  }
  // The same file by another name, and through a folder.
  ASSERT_EQ(symlink(trace_.c_str(), Path("other-name.html").c_str()), 0);
  const ChildResult r = Report({dir_.path(), "--html", Path("other-name.html")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(ReadAll(trace_), before);
}

// A trace named like a CSV table, in the folder --csv writes to.
TEST_F(ReportOutputsTest, CsvTableThatIsAnInputIsNotWritten) {
  ASSERT_EQ(rename(trace_.c_str(), Path("traces.csv").c_str()), 0);
  const std::string before = ReadAll(Path("traces.csv"));
  const ChildResult r = Report({Path("traces.csv"), "--csv", dir_.path()});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("it is one of the traces being read"), std::string::npos) << r.err;
  EXPECT_EQ(ReadAll(Path("traces.csv")), before);
}

// Someone planted links at the names the report will write: each link is replaced by the
// report's file and the file it pointed to is untouched.
TEST_F(ReportOutputsTest, PlantedSymlinksAreReplacedNotFollowed) {
  const std::string victim = Path("victim.txt");
  std::ofstream(victim) << "precious";
  ASSERT_EQ(mkdir(Path("tables").c_str(), 0755), 0);
  for (const std::string name : {"report.html", "timeline.json", "tables/traces.csv"}) {
    ASSERT_EQ(symlink(victim.c_str(), Path(name).c_str()), 0) << name;
  }
  const ChildResult r = Report({trace_, "--html", Path("report.html"), "--chrome",
                                Path("timeline.json"), "--csv", Path("tables")});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadAll(victim), "precious");
  for (const std::string name : {"report.html", "timeline.json", "tables/traces.csv"}) {
    struct stat st {};
    ASSERT_EQ(lstat(Path(name).c_str(), &st), 0) << name;
    EXPECT_TRUE(S_ISREG(st.st_mode)) << name << " is still a link";
  }
  EXPECT_NE(ReadAll(Path("report.html")).find("<html"), std::string::npos);
  EXPECT_NE(ReadAll(Path("timeline.json")).find("traceEvents"), std::string::npos);
  // No temporary file is left beside them.
  for (const auto& folder : {dir_.path(), Path("tables")}) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      EXPECT_EQ(entry.path().filename().string().rfind(".flopspy-", 0), std::string::npos)
          << entry.path();
    }
  }
}

TEST_F(ReportOutputsTest, DevicesAreWrittenIntoNotReplaced) {
  const ChildResult r =
      Report({trace_, "--json", "--html", "/dev/null", "--chrome", "/dev/stdout"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"schema\": \"flopspy-report\""), std::string::npos);
  EXPECT_NE(r.out.find("traceEvents"), std::string::npos);  // the Chrome trace, after the JSON
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

// With stdout redirected to a file, /dev/stdout leads to a regular file: it is written into, and
// the name /dev/stdout is never replaced (that would mean creating files in /dev).
TEST_F(ReportOutputsTest, DevStdoutLeadingToAFileIsWrittenInto) {
  const std::string file = Path("stdout.txt");
  for (const std::string option : {"--html", "--chrome"}) {
    const ChildResult r = ReportTo(file, {trace_, "--color", "never", option, "/dev/stdout"});
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 0) << option << ": " << r.err;
    EXPECT_NE(ReadAll(file).find(option == "--html" ? "<html" : "traceEvents"), std::string::npos)
        << option;
    struct stat st {};
    ASSERT_EQ(lstat("/dev/stdout", &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << "/dev/stdout was replaced";
  }
}

}  // namespace
}  // namespace flopspy::testing
