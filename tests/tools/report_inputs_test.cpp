// flopspy-report on inputs it must refuse or survive (docs/flopspy-report.md, "What is refused"):
// a FIFO or device named *.fspy, given directly, in a folder or to --diff, is refused without
// being opened (opening a FIFO blocks until a writer comes); a ceilings path that cannot be
// stat'ed (a symlink loop, another user's folder) is one warning; metadata nested 60,000 deep is
// refused with a warning instead of overflowing the stack.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "subprocess.h"
#include "test_programs.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

using std::chrono::milliseconds;

// Reading a few small files takes milliseconds; a FIFO would block for ever.
constexpr milliseconds kPrompt{10000};

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

class ReportInputsTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  std::string GoodTrace(const std::string& name = "good.fspy") {
    WriteStepTrace(Path(name));
    return Path(name);
  }

  std::string Fifo(const std::string& name) {
    const std::string path = Path(name);
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
    return path;
  }

  // a -> b -> a
  std::string SymlinkLoop(const std::string& name) {
    EXPECT_EQ(symlink(Path(name + "-2").c_str(), Path(name).c_str()), 0);
    EXPECT_EQ(symlink(Path(name).c_str(), Path(name + "-2").c_str()), 0);
    return Path(name);
  }

  static ChildResult Report(const std::vector<std::string>& args, ChildOptions options = {}) {
    std::vector<std::string> argv{kReport, "--color", "never"};
    argv.insert(argv.end(), args.begin(), args.end());
    options.timeout = kPrompt;
    return RunChild(argv, options);
  }

  TempDir dir_;
};

TEST_F(ReportInputsTest, FifoGivenDirectlyIsRefusedWithoutWaiting) {
  const std::string fifo = Fifo("p.fspy");
  const ChildResult r = Report({fifo});
  ASSERT_FALSE(r.timed_out) << "the report opened the FIFO and waited for a writer";
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "flopspy-report: " + fifo + " is a FIFO, not a file; not read\n");
}

TEST_F(ReportInputsTest, FifoInAFolderIsNamedAndTheOtherTracesAreReported) {
  GoodTrace();
  const std::string fifo = Fifo("zzz.fspy");
  const ChildResult r = Report({dir_.path()});
  ASSERT_FALSE(r.timed_out);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "flopspy-report: " + fifo + " is a FIFO, not a file; not read\n");
  EXPECT_NE(r.out.find("1 trace, 1 readable"), std::string::npos) << r.out;
}

TEST_F(ReportInputsTest, FifoGivenToDiffIsRefused) {
  const std::string good = GoodTrace();
  const std::string fifo = Fifo("p.fspy");
  const ChildResult r = Report({"--diff", good, fifo});
  ASSERT_FALSE(r.timed_out);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(fifo + " is a FIFO, not a file; not read\n"), std::string::npos) << r.err;
}

// A device never ends (/dev/zero): refused by type, even behind a link named like a trace.
TEST_F(ReportInputsTest, DeviceNamedLikeATraceIsRefused) {
  GoodTrace();
  ASSERT_EQ(symlink("/dev/zero", Path("zero.fspy").c_str()), 0);
  const ChildResult r = Report({dir_.path()});
  ASSERT_FALSE(r.timed_out);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "flopspy-report: " + Path("zero.fspy") + " is a device, not a file; not read\n");
}

TEST_F(ReportInputsTest, SymlinkLoopAsATraceSaysSo) {
  const std::string loop = SymlinkLoop("loop.fspy");
  const ChildResult r = Report({loop});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "flopspy-report: " + loop + ": Too many levels of symbolic links\n");
}

// Every way the ceilings path is chosen, pointing into a symlink loop: stat fails with ELOOP,
// which the report once met with an uncaught std::filesystem_error (abort, exit 134).
void ExpectCeilingsWarningAndReport(const ChildResult& r) {
  ASSERT_TRUE(r.exited) << "signal " << r.signal << ": " << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("flopspy-report: ignoring measured ceilings: cannot read ", 0), 0u)
      << r.err;
  EXPECT_NE(r.err.find("Too many levels of symbolic links; using datasheet roofs"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 trace, 1 readable"), std::string::npos) << r.out;
}

TEST_F(ReportInputsTest, CeilingsOptionInASymlinkLoopIsAWarning) {
  const std::string trace = GoodTrace();
  ExpectCeilingsWarningAndReport(Report({trace, "--ceilings", SymlinkLoop("loop")}));
}

TEST_F(ReportInputsTest, CeilingsTheUserNamedThatDoNotExistAreAWarning) {
  const std::string trace = GoodTrace();
  const std::string missing = dir_.path() + "/no-such-ceilings.json";
  const ChildResult r = Report({trace, "--ceilings", missing});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "flopspy-report: ignoring measured ceilings: cannot read " + missing +
                       ": No such file or directory; using datasheet roofs\n");
}

TEST_F(ReportInputsTest, FlopspyCeilingsInASymlinkLoopIsAWarning) {
  const std::string trace = GoodTrace();
  ChildOptions options;
  options.env["FLOPSPY_CEILINGS"] = SymlinkLoop("loop");
  ExpectCeilingsWarningAndReport(Report({trace}, options));
}

TEST_F(ReportInputsTest, XdgCacheHomeInASymlinkLoopIsAWarning) {
  const std::string trace = GoodTrace();
  ChildOptions options;
  options.env["XDG_CACHE_HOME"] = SymlinkLoop("loop");
  options.unset = {"FLOPSPY_CEILINGS"};
  ExpectCeilingsWarningAndReport(Report({trace}, options));
}

TEST_F(ReportInputsTest, HomeInASymlinkLoopIsAWarning) {
  const std::string trace = GoodTrace();
  ChildOptions options;
  options.env["HOME"] = SymlinkLoop("loop");
  options.unset = {"FLOPSPY_CEILINGS", "XDG_CACHE_HOME"};
  ExpectCeilingsWarningAndReport(Report({trace}, options));
}

// HOME is another user's folder (a container started with --user, sudo keeping HOME): stat says
// EACCES. Root passes every permission check, so this needs an unprivileged user.
TEST_F(ReportInputsTest, HomeOfAnotherUserIsAWarning) {
  if (geteuid() == 0) GTEST_SKIP() << "root may read every folder: no EACCES to provoke";
  const std::string trace = GoodTrace();
  ASSERT_EQ(mkdir(Path("home").c_str(), 0700), 0);
  ASSERT_EQ(mkdir(Path("home/.cache").c_str(), 0700), 0);
  ASSERT_EQ(chmod(Path("home").c_str(), 0), 0);
  ChildOptions options;
  options.env["HOME"] = Path("home");
  options.unset = {"FLOPSPY_CEILINGS", "XDG_CACHE_HOME"};
  const ChildResult r = Report({trace}, options);
  chmod(Path("home").c_str(), 0700);  // so that TempDir can remove it
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("Permission denied; using datasheet roofs"), std::string::npos) << r.err;
}

TEST_F(ReportInputsTest, CeilingsFifoIsRefusedWithoutWaiting) {
  const std::string trace = GoodTrace();
  const std::string fifo = Fifo("ceilings.json");
  const ChildResult r = Report({trace, "--ceilings", fifo});
  ASSERT_FALSE(r.timed_out);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "flopspy-report: ignoring measured ceilings: " + fifo +
                       " is a FIFO, not a file; using datasheet roofs\n");
}

// {"a":{"a":...}} 60,000 deep, checksums right: merge_patch recursed once per level and the
// report died of a stack overflow (exit 139, nothing said).
std::string DeepMetadataTrace(const std::string& path, uint64_t* metadata_offset) {
  constexpr int kDepth = 60'000;
  std::string json;
  for (int i = 0; i < kDepth; ++i) json += R"({"a":)";
  json += "1" + std::string(kDepth, '}');
  TraceBuilder b;
  b.Metadata(R"({"process":{"command":["python","train.py"]}})");
  b.Flush();
  *metadata_offset = b.Bytes().size() + sizeof(trace::ChunkHeader);
  b.Metadata(json);
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  b.Chunk(trace::ChunkSource::kProcess).Add(end);
  b.WriteTo(path);
  return path;
}

TEST_F(ReportInputsTest, DeeplyNestedMetadataIsRefusedWithAWarning) {
  uint64_t offset = 0;
  const std::string path = DeepMetadataTrace(Path("deep.fspy"), &offset);
  const std::string warning = "the metadata block at byte " + std::to_string(offset) +
                              " nests deeper than 64 levels; it was ignored";
  const ChildResult text = Report({path});
  ASSERT_TRUE(text.exited) << "signal " << text.signal;
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_EQ(text.err.rfind("flopspy-report: " + path + ": " + warning, 0), 0u) << text.err;
  EXPECT_EQ(Lines(text.err), 1u) << text.err;
  EXPECT_NE(text.out.find("- " + warning), std::string::npos) << text.out;
  // The blocks before it are kept.
  EXPECT_NE(text.out.find("command   python train.py"), std::string::npos) << text.out;

  const ChildResult json = Report({path, "--json"});
  ASSERT_TRUE(json.exited) << "signal " << json.signal;
  EXPECT_EQ(json.exit_code, 0);
  const auto doc = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  const auto& trace = doc["traces"][0];
  EXPECT_EQ(trace["metadata"],
            nlohmann::json::parse(R"({"process":{"command":["python","train.py"]}})"));
  EXPECT_EQ(trace["warnings"][0]["message"].get<std::string>().rfind(warning, 0), 0u);
}

// Text from a trace reaches a terminal: a host name that sets the window title and clears the
// screen, a kernel name with CR, LF and a C1 control (CSI as UTF-8), a region, warning and
// command line with ESC or CR, and file names with ESC. Every one is shown escaped (\x1b, \r,
// \n, \x9b): no control byte but the report's own line ends reaches stdout or stderr.
TEST_F(ReportInputsTest, ControlCharactersFromATraceAreEscaped) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.host = "h\x1b]0;pwned\x07\x1b[2J\r";
  TraceBuilder b(id);
  b.Metadata(R"({"process":{"command":["python","\u001b[31mred"]}})");
  b.String(1, "k\x1b[2J\r\nINJECTED\xc2\x9bX").String(2, "thr\x1b[1mead").String(3, "reg\rion");
  b.String(4, "warn\x1b[5m\ning");
  b.Add(NamedThread(7, 2));
  trace::KernelSignatureDef sig{};
  sig.id = 1;
  sig.name = 1;
  sig.grid[0] = sig.block[0] = 1;
  b.Add(sig);
  trace::WarningRecord warning{};
  warning.message = 4;
  b.Add(warning);
  trace::RegionRecord region{};
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kBegin);
  region.time_ns = 1'000'000'000;
  region.name = 3;
  b.Chunk(trace::ChunkSource::kThread, 7).Add(region);
  region.edge = static_cast<uint8_t>(trace::RegionEdge::kEnd);
  region.time_ns += 5000;
  b.Add(region);
  trace::GpuActivityRecord kernel{};
  kernel.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
  kernel.start_ns = 1'000'001'000;
  kernel.end_ns = kernel.start_ns + 1000;
  kernel.signature = 1;
  b.Chunk(trace::ChunkSource::kGpuActivity).Add(kernel);
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  b.Chunk(trace::ChunkSource::kProcess).Add(end);
  const std::string path = Path("t\x1b[1m.fspy");
  b.WriteTo(path);
  std::ofstream(Path("bad\x1b[2J.fspy")) << "not a trace";

  const ChildResult r = Report({dir_.path()});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string* stream : {&r.out, &r.err}) {
    for (const char c : *stream) {
      const auto byte = static_cast<unsigned char>(c);
      EXPECT_TRUE(c == '\n' || (byte >= 0x20 && byte != 0x7f)) << "raw control byte " << int(byte);
    }
    EXPECT_EQ(stream->find("\xc2\x9b"), std::string::npos) << "raw C1 control";
    EXPECT_EQ(stream->find("\nINJECTED"), std::string::npos) << "a name's LF broke a line";
  }
  for (const std::string shown :
       {"h\\x1b]0;pwned\\x07\\x1b[2J\\r", "k\\x1b[2J\\r\\nINJECTED\\x9bX", "reg\\rion",
        "warn\\x1b[5m\\ning", "python \\x1b[31mred", "t\\x1b[1m.fspy"}) {
    EXPECT_NE(r.out.find(shown), std::string::npos) << shown << " in\n" << r.out;
  }
  EXPECT_NE(r.err.find("bad\\x1b[2J.fspy: not a flopspy trace"), std::string::npos) << r.err;
}

// A trace of run `run_id` (0: written without the launcher) started `start_s` seconds after the
// builder's default start.
std::string RunTrace(const std::string& path, uint64_t run_id, uint64_t start_s, uint32_t pid) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.run_id = run_id;
  id.pid = pid;
  id.start_realtime_ns += start_s * 1'000'000'000ull;
  TraceBuilder b(id);
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  b.Chunk(trace::ChunkSource::kProcess).Add(end);
  b.WriteTo(path);
  return path;
}

// flopspy-out reused: runs 0xa1 (two traces, older), 0xb2 (one trace) and 0xc3 (two, newest).
class ReportRunsTest : public ReportInputsTest {
 protected:
  void SetUp() override {
    RunTrace(Path("a-1.fspy"), 0xa1, 0, 1);
    RunTrace(Path("a-2.fspy"), 0xa1, 1, 2);
    RunTrace(Path("b-1.fspy"), 0xb2, 100, 3);
    RunTrace(Path("c-1.fspy"), 0xc3, 200, 4);
    RunTrace(Path("c-2.fspy"), 0xc3, 201, 5);
  }
};

TEST_F(ReportRunsTest, TheLatestRunIsReportedAndSaidInOneLine) {
  const ChildResult r = Report({dir_.path()});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "flopspy-report: 3 runs in " + dir_.path() +
                       "; reporting the latest (run c3 (2 traces), started 2023-11-14 22:16:40 "
                       "UTC); --run ID or --all-runs for the others: b2 (1 trace), a1 (2 "
                       "traces)\n");
  EXPECT_NE(r.out.find("2 traces, 2 readable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("c-1.fspy"), std::string::npos);
  EXPECT_EQ(r.out.find("a-1.fspy"), std::string::npos);
  EXPECT_EQ(r.out.find("b-1.fspy"), std::string::npos);
}

TEST_F(ReportRunsTest, RunPicksOneRunByIdOrPrefix) {
  for (const std::string id : {"b2", "B", "0xb2"}) {
    const ChildResult r = Report({dir_.path(), "--run", id});
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("1 trace, 1 readable"), std::string::npos) << id << r.out;
    EXPECT_NE(r.out.find("b-1.fspy"), std::string::npos) << id;
  }
}

TEST_F(ReportRunsTest, AllRunsReadsEveryTrace) {
  const ChildResult r = Report({dir_.path(), "--all-runs"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("5 traces, 5 readable"), std::string::npos) << r.out;
}

TEST_F(ReportRunsTest, RunThatMatchesNoneOrSeveralIsAUsageError) {
  RunTrace(Path("d-1.fspy"), 0xa9, 300, 6);  // a1 and a9 share the prefix "a"
  for (const auto& [id, said] : {std::pair{"ff", "--run ff: matches none of the traces' runs"},
                                 {"a", "--run a: matches several of the traces' runs"}}) {
    const ChildResult r = Report({dir_.path(), "--run", id});
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("flopspy-report: " + std::string(said) + " (a1, b2, c3, a9)", 0), 0u)
        << r.err;
  }
}

// Traces with no run id (LD_PRELOAD without the launcher) are one run: a job's ranks stay
// together, and beside launcher runs they are the run "none".
TEST_F(ReportRunsTest, TracesWithoutARunIdAreOneRun) {
  RunTrace(Path("x-1.fspy"), 0, 50, 7);
  RunTrace(Path("x-2.fspy"), 0, 400, 8);
  const ChildResult latest = Report({dir_.path()});
  EXPECT_NE(latest.err.find("4 runs in"), std::string::npos) << latest.err;
  EXPECT_NE(latest.err.find("reporting the latest (run c3 (2 traces)"), std::string::npos)
      << latest.err;
  EXPECT_NE(latest.err.find("none (2 traces)"), std::string::npos) << latest.err;
  const ChildResult none = Report({dir_.path(), "--run", "none"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("2 traces, 2 readable"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("x-2.fspy"), std::string::npos);
}

// A file whose header cannot be read belongs to no run: it is still read, so that it is named.
TEST_F(ReportRunsTest, AnUnreadableFileIsStillNamed) {
  std::ofstream(Path("junk.fspy")) << "not a trace";
  const ChildResult r = Report({dir_.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("junk.fspy: not a flopspy trace"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("3 traces, 2 readable"), std::string::npos) << r.out;
}

TEST_F(ReportInputsTest, OneRunSaysNothingAboutRuns) {
  RunTrace(Path("a-1.fspy"), 0xa1, 0, 1);
  RunTrace(Path("a-2.fspy"), 0xa1, 1, 2);
  const ChildResult r = Report({dir_.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("2 traces, 2 readable"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace flopspy::testing
