// The launcher's usage errors: status 2 (CLI11's own codes, 105 or 114, could be mistaken for
// the program's status), one "flopspy:" line, and a misspelt option is never run as the command.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "flopspy/trace/schema.h"
#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct UsageCase {
  std::vector<std::string> args;
  std::string said;  // part of the line
};

TEST(FlopspyUsage, EveryUsageErrorIsOneLineWithStatus2) {
  const std::vector<UsageCase> cases = {
      {{"run", "--buffer-kb", "5", "--", kProbe, "regions", "1"}, "--buffer-kb"},
      {{"run", "--cpu-interval-ms", "abc", "--", kProbe}, "--cpu-interval-ms"},
      {{"run", "-o"}, "--output"},
      {{"run", "--bogus", "--", kProbe, "regions", "1"}, "unknown option --bogus"},
      {{"run", "--bogus", kProbe, "regions", "1"}, "unknown option --bogus"},
      {{"run", "-x", kProbe}, "unknown option -x"},
      {{"run", "--delay", "soon", "--", kProbe}, "--delay: must be a number of seconds"},
      {{"run", "--duration", "-2", "--", kProbe}, "--duration: must be a number of seconds"},
      {{"run", "--capture-range", "layer3", "--", kProbe}, "must be region:NAME or nvtx:NAME"},
      {{"run", "--capture-range", "step:1-3", "--", kProbe}, "step ranges are not supported"},
      {{"run", "--capture-range", "region:a", "--delay", "1", "--", kProbe},
       "cannot be used together"},
      {{"run", "--color", "maybe", "--", kProbe}, "--color: must be auto, always or never"},
      {{"run", "--gpu-join", "order", "--", kProbe}, "--gpu-join"},
      {{"run"}, "no command given"},
      {{"run", "--"}, "no command given"},
      {{"info", "--bogus"}, "--bogus"},
      {{"info", "--", kProbe}, "nothing may follow --"},
      {{"ceilings", "--bogus"}, "--bogus"},
      {{"ceilings", "--device", "x"}, "--device"},
      {{"ceilings", "-o", "x.json"}, "-o names one file"},
      {{"ceilings", "--gpu", "--svg", "x.svg"}, "--svg draws the CPU roofs"},
      {{"--bogus"}, "--bogus"},
      {{"bogus"}, "unknown command bogus"},
  };
  for (const UsageCase& c : cases) {
    std::vector<std::string> argv{kLauncher};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    SCOPED_TRACE("flopspy " + shown);
    const ChildResult r = RunChild(argv);
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "") << "the command ran";
    const std::vector<std::string> lines = Lines(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_EQ(lines[0].rfind("flopspy: ", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find(c.said), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("--help for usage)"), std::string::npos) << lines[0];
  }
}

// `flopspy` alone prints a short usage (not CLI11's "A subcommand is required") and exits 2.
TEST(FlopspyUsage, NoArgumentsPrintsAShortUsageAndExits2) {
  const ChildResult r = RunChild({kLauncher});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("usage: flopspy run [options] -- CMD ARGS", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("flopspy info"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--help"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("subcommand"), std::string::npos) << r.err;
  EXPECT_LE(Lines(r.err).size(), 5u) << r.err;
}

// A trace folder that cannot be made is one line and status 1, and the program never runs.
TEST(FlopspyUsage, AnOutputFolderThatCannotBeMadeExitsOne) {
  const ChildResult r =
      RunChild({kLauncher, "run", "-o", "/dev/null/traces", "--", kProbe, "regions", "1"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "") << "the program ran";
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("flopspy run: cannot write traces to /dev/null/traces"), std::string::npos)
      << r.err;
}

// A value with a newline is echoed on the same line, made visible.
TEST(FlopspyUsage, AnEchoedValueCannotSplitTheLine) {
  const ChildResult r = RunChild({kLauncher, "run", "--buffer-kb", "5\n\x1b[2J", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("5\\n\\x1b[2J"), std::string::npos) << r.err;
}

TEST(FlopspyUsage, HelpAndVersionAreNotErrors) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--help"}, {"run", "--help"}, {"ceilings", "--help"}, {"--version"}}) {
    std::vector<std::string> argv{kLauncher};
    argv.insert(argv.end(), args.begin(), args.end());
    const ChildResult r = RunChild(argv);
    EXPECT_EQ(r.exit_code, 0) << args.front() << "\n" << r.err;
    EXPECT_NE(r.out, "") << args.front();
  }
}

// `flopspy -o DIR -- CMD` and `flopspy -- CMD` are read as `flopspy run ...`, not refused.
TEST(FlopspyUsage, RunsOptionsOrDashesFirstMeanRun) {
  TempDir dir;
  const ChildResult short_form =
      RunChild({kLauncher, "-o", dir.path() + "/short", "--", kProbe, "regions", "1"});
  ASSERT_TRUE(short_form.exited);
  EXPECT_EQ(short_form.exit_code, 0) << short_form.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/short")) << short_form.err;
  const ChildResult long_form =
      RunChild({kLauncher, "--output=" + dir.path() + "/long", "--", kProbe, "regions", "1"});
  EXPECT_EQ(long_form.exit_code, 0) << long_form.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/long")) << long_form.err;
  // Only "--" first: the default folder, relative to the working directory.
  ChildOptions in_dir;
  in_dir.cwd = dir.path();
  const ChildResult bare = RunChild({kLauncher, "--", kProbe, "regions", "1"}, in_dir);
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/flopspy-out")) << bare.err;
  // An option run does not know is still an error, and names the option.
  const ChildResult bogus = RunChild({kLauncher, "--bogus", "--", kProbe});
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("unknown option --bogus"), std::string::npos) << bogus.err;
}

TEST(FlopspyUsage, AProgramNamedAsACommandSaysWhatToType) {
  const ChildResult r = RunChild({kLauncher, "python3", "train.py"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("flopspy run -- python3"), std::string::npos) << r.err;
}

TEST(FlopspyUsage, VersionSaysTheTraceFormatAndCuda) {
  const ChildResult r = RunChild({kLauncher, "--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("flopspy ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("(trace format " + std::to_string(trace::kFormatVersion)), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("CUDA "), std::string::npos) << r.out;
}

// Without "--" the first word flopspy does not know is the command, and everything after it is
// the command's own, options included.
TEST(FlopspyUsage, TheCommandsOwnOptionsAreNotFlopspys) {
  TempDir dir;
  const ChildResult r =
      RunChild({kLauncher, "run", "-o", dir.path(), "sh", "-c", "echo \"$0 $1\"", "--bogus", "-o"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "--bogus -o\n");
}

}  // namespace
}  // namespace flopspy::testing
