// flopspy-report's command line: every usage error exits 2 with one line on stderr and nothing on
// stdout (docs/flopspy-report.md, "Exit status"); --help and --version still exit 0; what a
// damaged file and a non-UTF-8 path give; the progress line on a terminal only.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rank_trace.h"
#include "subprocess.h"
#include "test_programs.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

class ReportCliTest : public ::testing::Test {
 protected:
  // A readable trace, so that only the arguments can be wrong.
  std::string GoodTrace() {
    const std::string path = dir_.path() + "/good.fspy";
    TraceBuilder b;
    trace::TraceEndRecord end{};
    end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
    b.Chunk(trace::ChunkSource::kProcess).Add(end);
    b.WriteTo(path);
    return path;
  }
  TempDir dir_;
};

void ExpectUsageError(const std::vector<std::string>& args, const std::string& mentions) {
  std::vector<std::string> argv{kReport};
  argv.insert(argv.end(), args.begin(), args.end());
  const ChildResult r = RunChild(argv);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("flopspy-report: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--help"), std::string::npos) << r.err;
}

// --inductor-cache: a Triton kernel takes the bytes inductor recorded for it; a folder that is
// not there costs one line and nothing else.
TEST_F(ReportCliTest, InductorCacheGivesTritonKernelsTheirRecordedBytes) {
  const std::string trace_path = dir_.path() + "/triton.fspy";
  TraceBuilder b;
  b.String(1, "triton_poi_fused_add_0").String(2, "worker");
  b.Add(KernelFunction(1, 1)).Add(KernelSignature(1, 1, 4096, 1, 256));
  b.Chunk(trace::ChunkSource::kThread, 7).Add(KernelLaunch(1, 10, 1'000'000, 4000, 0));
  b.Chunk(trace::ChunkSource::kGpuActivity).Add(KernelExecution(1, 10, 1'010'000, 25'000, 1));
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  b.Chunk(trace::ChunkSource::kProcess).Add(end);
  b.WriteTo(trace_path);
  const std::string cache = dir_.path() + "/inductor";
  std::filesystem::create_directories(cache + "/ab");
  std::ofstream(cache + "/ab/cab.py")
      << "import triton\n@triton_heuristics.pointwise(\n    size_hints={'x': 1048576},\n"
         "    inductor_meta={'kernel_name': 'triton_poi_fused_add_0', 'kernel_num_gb': "
         "0.012582912, 'kernel_flop': 0},\n)\n@triton.jit\n"
         "def triton_poi_fused_add_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
         "    xnumel = 1048576\n    xoffset = tl.program_id(0) * XBLOCK\n";

  const ChildResult r = RunChild({kReport, "--json", "--inductor-cache", cache, trace_path});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.err;
  EXPECT_NE(r.err.find("inductor cache " + cache +
                       ": 1 modules read, 1 kernels with recorded "
                       "figures"),
            std::string::npos)
      << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  const nlohmann::json& kernel = report["traces"][0]["kernels"][0];
  EXPECT_EQ(kernel["name"], "triton_poi_fused_add_0");
  EXPECT_EQ(kernel["all"]["bytes_source"], "catalog");
  EXPECT_DOUBLE_EQ(kernel["all"]["bytes"].get<double>(), 12582912.0);
  EXPECT_EQ(kernel["all"]["flops_source"], "unknown");  // inductor records no pointwise FLOPs

  const ChildResult missing =
      RunChild({kReport, "--inductor-cache", dir_.path() + "/nowhere", trace_path});
  ASSERT_TRUE(missing.exited);
  EXPECT_EQ(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("--inductor-cache " + dir_.path() +
                             "/nowhere: not a folder; Triton kernels keep the figures the "
                             "catalog gives"),
            std::string::npos)
      << missing.err;
}

TEST_F(ReportCliTest, NoTraceIsAUsageError) {
  ExpectUsageError({}, "no trace given");
}

// Every option's validation path says what was wrong in plain words, never CLI11's own text.
TEST_F(ReportCliTest, EveryUsageErrorIsOnePlainLine) {
  const std::string good = GoodTrace();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{good, "--colour", "never"}, "unknown option --colour"},
      {{good, "--color=sometimes"}, "--color: must be auto, always or never, not 'sometimes'"},
      {{good, "--html"}, "--html needs a value"},
      {{good, "--csv"}, "--csv needs a value"},
      {{good, "--ceilings"}, "--ceilings needs a value"},
      {{good, "--run"}, "--run needs a value"},
      {{good, "--run", "1", "--all-runs"}, "cannot be used together"},
      {{good, "--run", "beef"}, "--run beef: matches none of the traces' runs"},
      {{"--diff", good, good, "--all-runs"}, "--run and --all-runs do not apply"},
  };
  for (const auto& [args, said] : cases) {
    SCOPED_TRACE(args.back());
    ExpectUsageError(args, said);
    std::vector<std::string> argv{kReport};
    argv.insert(argv.end(), args.begin(), args.end());
    const ChildResult r = RunChild(argv);
    for (const char* parser : {"The following", "not in {", "is required", "Could not convert"}) {
      EXPECT_EQ(r.err.find(parser), std::string::npos) << r.err;
    }
  }
}

// No CLI11 notation in either program's help: type names with validators, {false}, TEXT.
TEST_F(ReportCliTest, HelpShowsNoParserNotation) {
  std::vector<std::vector<std::string>> helps = {{kReport, "--help"}};
  // The launcher is built beside the report, except in a report-only build.
  const std::string launcher = kReport.substr(0, kReport.rfind('/') + 1) + "flopspy";
  if (access(launcher.c_str(), X_OK) == 0) {
    for (const char* verb : {"run", "info", "ceilings"})
      helps.push_back({launcher, verb, "--help"});
  }
  for (const auto& argv : helps) {
    const ChildResult r = RunChild(argv);
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 0);
    for (const char* noise : {"TEXT", "{false}", ":INT", "in [", "REQUIRED", ":{"}) {
      EXPECT_EQ(r.out.find(noise), std::string::npos) << noise << " in\n" << r.out;
    }
  }
  const ChildResult report = RunChild({kReport, "--help"});
  EXPECT_NE(report.out.find("--color auto|always|never"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("--html FILE"), std::string::npos) << report.out;
}

TEST_F(ReportCliTest, UnknownOptionIsAUsageError) {
  ExpectUsageError({GoodTrace(), "--bogus"}, "--bogus");
}

TEST_F(ReportCliTest, BadOptionValueIsAUsageError) {
  ExpectUsageError({GoodTrace(), "--color", "maybe"}, "maybe");
}

TEST_F(ReportCliTest, OptionWithoutItsValueIsAUsageError) {
  ExpectUsageError({GoodTrace(), "--chrome"}, "--chrome");
}

TEST_F(ReportCliTest, DiffWithOnePathIsAUsageError) {
  const ChildResult r = RunChild({kReport, "--diff", GoodTrace()});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(ReportCliTest, HelpAndVersionExitZero) {
  const ChildResult help = RunChild({kReport, "--help"});
  ASSERT_TRUE(help.exited);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--json"), std::string::npos) << help.out;
  const ChildResult version = RunChild({kReport, "--version"});
  ASSERT_TRUE(version.exited);
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("flopspy-report ", 0), 0u) << version.out;
}

TEST_F(ReportCliTest, GoodArgumentsExitZero) {
  const ChildResult r = RunChild({kReport, GoodTrace(), "--color", "never"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// A file name is any bytes on Linux: --json still prints valid JSON (U+FFFD in the path).
TEST_F(ReportCliTest, JsonOfAPathThatIsNotUtf8) {
  const std::string good = GoodTrace();
  const std::string odd = dir_.path() + "/caf\xE9.fspy";
  ASSERT_EQ(std::rename(good.c_str(), odd.c_str()), 0);
  const ChildResult r = RunChild({kReport, odd, "--json"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["traces"][0]["path"], dir_.path() + "/caf\xEF\xBF\xBD.fspy");
}

// A chunk in the middle fails its checksum: the stderr line says where reading stopped, why,
// and how many of the file's bytes were not read; the good chunk after it is not read.
TEST_F(ReportCliTest, DamageInTheMiddleSaysHowMuchWasNotRead) {
  TraceBuilder b;
  trace::RegionRecord region{};
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region).Flush();
  const uint64_t bad = b.Bytes().size();
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region).Flush();
  trace::TraceEndRecord end{};
  b.Chunk(trace::ChunkSource::kProcess).Add(end).Flush();
  std::vector<uint8_t> bytes = b.Bytes();
  bytes[bad + sizeof(trace::ChunkHeader) + 8] ^= 0x01;
  const std::string path = dir_.path() + "/damaged.fspy";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));

  const ChildResult r = RunChild({kReport, path, "--color", "never"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);  // one record could be read
  const std::string unread = std::to_string(bytes.size() - bad);
  EXPECT_EQ(r.err, "flopspy-report: " + path + ": chunk 1 at byte " + std::to_string(bad) +
                       " fails its checksum: the file is damaged; " + unread + " of the file's " +
                       std::to_string(bytes.size()) +
                       " bytes were not read (reporting the 1 records before that)\n");
  EXPECT_NE(r.out.find("status    partial: chunk 1 at byte " + std::to_string(bad)),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("lost      none\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lost      none in what was read; " + unread + " bytes were not read"),
            std::string::npos)
      << r.out;
}

// A trace of about 55 MB (padding records, which the reader skips cheaply): past the size
// from which the progress line is drawn on a terminal.
std::string LargeTrace(const std::string& folder) {
  TraceBuilder b;
  trace::RegionRecord region{};
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region);
  std::vector<uint8_t> padding(64 * 1024, 0);
  const trace::RecordHeader h{static_cast<uint8_t>(trace::RecordType::kPadding), 0,
                              static_cast<uint16_t>(padding.size() / trace::kRecordAlign)};
  std::memcpy(padding.data(), &h, sizeof h);
  for (int i = 0; i < 850; ++i) b.AddRaw(padding.data(), padding.size());
  const std::string path = folder + "/large.fspy";
  b.WriteTo(path);
  return path;
}

TEST_F(ReportCliTest, NoProgressLineWhenStderrIsNotATerminal) {
  const ChildResult r = RunChild({kReport, LargeTrace(dir_.path()), "--color", "never"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");  // captured through a pipe: not a terminal
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_EQ(r.out.find("reading 1 trace"), std::string::npos);
}

// stderr on a pseudo-terminal, as for a person running the report: the line is drawn, then
// erased (the last thing written is a carriage return after blanks).
TEST_F(ReportCliTest, ProgressLineOnATerminal) {
  const std::string path = LargeTrace(dir_.path());
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0) << std::strerror(errno);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(slave, STDERR_FILENO);
    close(master);
    execl(kReport.c_str(), kReport.c_str(), path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(slave);
  std::string terminal;
  char buffer[4096];
  for (ssize_t n; (n = read(master, buffer, sizeof buffer)) > 0;) terminal.append(buffer, n);
  close(master);  // read() fails with EIO once the child has closed its end
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(terminal.find("\rreading 1 trace ["), std::string::npos) << terminal;
  EXPECT_NE(terminal.find(" of 55.7 MB"), std::string::npos) << terminal;
  ASSERT_FALSE(terminal.empty());
  EXPECT_EQ(terminal.back(), '\r');
  EXPECT_NE(terminal.find_last_not_of(" \r"), terminal.size() - 2) << terminal;
}

// --top, --sort, --group-by, --filter (docs/flopspy-report.md, "Choosing the rows").
TEST_F(ReportCliTest, ViewOptionsWithBadValuesAreUsageErrors) {
  ExpectUsageError({GoodTrace(), "--sort", "speed"}, "--sort speed");
  ExpectUsageError({GoodTrace(), "--group-by", "kernel"}, "--group-by kernel");
  ExpectUsageError({GoodTrace(), "--filter", "(unclosed"}, "--filter (unclosed");
  ExpectUsageError({GoodTrace(), "--top", "many"}, "--top");
}

// docs/call-sites.md: a malformed --frames-from is a usage error; --by-call-site and --group-by
// call-site on a trace without stack samples keep the report as it was, with one line saying so.
TEST_F(ReportCliTest, FramesFromMustBeARegularExpression) {
  ExpectUsageError({GoodTrace(), "--frames-from", "(unclosed"},
                   "--frames-from (unclosed: not a valid regular expression");
}

TEST_F(ReportCliTest, CallSiteOptionsWithoutStackSamples) {
  const ChildResult by = RunChild({kReport, GoodTrace(), "--by-call-site", "--color", "never"});
  ASSERT_TRUE(by.exited);
  EXPECT_EQ(by.exit_code, 0) << by.err;
  EXPECT_EQ(by.out.find("Kernels by call site"), std::string::npos) << by.out;
  const ChildResult json = RunChild({kReport, GoodTrace(), "--by-call-site", "--json"});
  ASSERT_TRUE(json.exited);
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["view"]["by_call_site"], true);
  const ChildResult group =
      RunChild({kReport, GoodTrace(), "--group-by", "call-site", "--frames-from", "^/home/"});
  ASSERT_TRUE(group.exited);
  EXPECT_EQ(group.exit_code, 0) << group.err;
  EXPECT_NE(group.out.find("--group-by call-site: no stack samples"), std::string::npos)
      << group.out;
}

// A trace without ranges or steps: one line says so, the rest of the report as usual, exit 0.
TEST_F(ReportCliTest, GroupingByRangeOrStepWithoutThemSaysSo) {
  for (const char* by : {"range", "step"}) {
    const ChildResult r = RunChild({kReport, GoodTrace(), "--group-by", by, "--color", "never"});
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("--group-by ") + by + ": no "), std::string::npos) << r.out;
  }
}

// --window step:N needs steps that exist; without --chrome it is refused as any --window is.
TEST_F(ReportCliTest, StepWindowsAreCheckedAgainstTheSteps) {
  const std::string chrome = dir_.path() + "/t.json";
  ExpectUsageError({GoodTrace(), "--chrome", chrome, "--window", "step:2"},
                   "--window step:2: no steps were found");
  ExpectUsageError({GoodTrace(), "--chrome", chrome, "--window", "step:3-1"},
                   "--window step:3-1: the last step");
  ExpectUsageError({GoodTrace(), "--window", "step:1"}, "add --chrome FILE");
}

TEST_F(ReportCliTest, JsonStatesTheViewOptions) {
  const ChildResult r = RunChild({kReport, GoodTrace(), "--json", "--top", "3", "--sort", "count",
                                  "--group-by", "family", "--filter", "gemm|mul"});
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["view"]["top"], 3);
  EXPECT_EQ(doc["view"]["sort"], "count");
  EXPECT_EQ(doc["view"]["group_by"], "family");
  EXPECT_EQ(doc["view"]["filter"], "gemm|mul");
}

// --top cuts the kernel rows of every output, not only the text, and JSON says what was cut.
TEST_F(ReportCliTest, TopAppliesToJsonAndCsvKernelRows) {
  const std::string trace = dir_.path() + "/rank.fspy";
  const std::vector<uint8_t> bytes = RankTrace({});
  std::ofstream(trace, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  const ChildResult all = RunChild({kReport, trace, "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const nlohmann::json full = nlohmann::json::parse(all.out);
  ASSERT_EQ(full["traces"][0]["kernels"].size(), 2u);
  EXPECT_FALSE(full["traces"][0].contains("kernels_shown"));

  const std::string csv = dir_.path() + "/csv";
  const ChildResult top = RunChild({kReport, trace, "--json", "--top", "1", "--csv", csv});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const nlohmann::json doc = nlohmann::json::parse(top.out);
  const nlohmann::json& t = doc["traces"][0];
  ASSERT_EQ(t["kernels"].size(), 1u);
  EXPECT_EQ(t["kernels"][0]["name"], full["traces"][0]["kernels"][0]["name"]);
  EXPECT_EQ(t["kernels_shown"]["shown"], 1);
  EXPECT_EQ(t["kernels_shown"]["of"], 2);
  EXPECT_EQ(t["kernels_shown"]["note"], "shown 1 of 2 kernel rows (--top 1)");
  std::ifstream in(csv + "/kernels.csv");
  ASSERT_TRUE(in) << "no kernels.csv";
  size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  EXPECT_EQ(lines, 2u);  // the header and one row
}

}  // namespace
}  // namespace flopspy::testing
