// The promises of docs/guarantees.md, each against a program that does what real programs do to
// their own process (tests/preload/guard_probe.cpp): the program's files, descriptors, exit
// status and timing are what they are without flopspy, and the trace says what happened.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "subprocess.h"
#include "trace_facts.h"

namespace flopspy::testing {
namespace {

using trace::EndReason;

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;
const std::string kGuardProbe = FLOPSPY_GUARD_PROBE_PATH;

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class GuaranteesTest : public ::testing::Test {
 protected:
  ChildResult Run(std::vector<std::string> args, ChildOptions options = {}, bool preload = true) {
    args.insert(args.begin(), kGuardProbe);
    if (preload) {
      options.env.emplace("LD_PRELOAD", kLibrary);
      options.env.emplace("FLOPSPY_OUT", traces_.path());
      options.env.emplace("FLOPSPY_FLUSH_MS", "10");
    } else {
      options.unset.push_back("LD_PRELOAD");
    }
    return RunChild(args, options);
  }
  std::string File(const std::string& name) const { return files_.path() + "/" + name; }
  std::vector<std::string> Traces() const { return traces_.Files(".fspy"); }
  TraceFacts OnlyTrace() {
    const auto traces = Traces();
    EXPECT_EQ(traces.size(), 1u);
    return traces.empty() ? TraceFacts{} : ReadTraceFacts(traces.front());
  }
  static bool HasWarning(const TraceFacts& t, const std::string& text) {
    for (const auto& w : t.summary.warnings) {
      if (w.message.find(text) != std::string::npos) return true;
    }
    return false;
  }

  TempDir traces_;  // FLOPSPY_OUT: only traces
  TempDir files_;   // the program's own files
};

// B1 (R01): after close_range the program's first two files get the numbers flopspy used.
TEST_F(GuaranteesTest, ProgramThatClosesEveryDescriptorGetsItsOwnFilesUnchanged) {
  std::string input;
  for (int i = 0; input.size() < 24000; ++i) input += "line " + std::to_string(i) + " of input\n";
  std::ofstream(File("input.txt"), std::ios::binary) << input;
  const auto r = Run({"closefrom-copy", File("input.txt"), File("output.txt")});
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contents(File("output.txt")) == input) << "flopspy's bytes in the program's file";
  // flopspy's own lines only (the launcher's default FLOPSPY_QUIET=1 would silence the notice;
  // the CPU sampler, where counters exist, says it stopped), one about the trace.
  std::istringstream lines(r.err);
  int reopened = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line.starts_with("flopspy: ")) << line;
    reopened += line.starts_with("flopspy: the program closed flopspy's trace descriptor; ");
  }
  EXPECT_EQ(reopened, 1) << r.err;
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk) << t.read.message;
  EXPECT_EQ(t.Regions("before"), 100u);
  EXPECT_EQ(t.Regions("during"), (input.size() + 1023) / 1024 * 10);
  EXPECT_EQ(t.Regions("after"), 100u);
  EXPECT_EQ(t.lost(), 0u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
  EXPECT_EQ(t.read.records, t.summary.end->records_written) << "nothing missing after the reopen";
  EXPECT_TRUE(HasWarning(t, "the program closed flopspy's trace descriptor"));
}

// B1 (R03): the program dup2s its log over every number it did not open.
TEST_F(GuaranteesTest, Dup2OverFlopspysDescriptorLeavesTheProgramsLogAlone) {
  const auto r = Run({"dup2-log", File("log")});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Contents(File("log")), "8 bytes\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk) << t.read.message;
  EXPECT_EQ(t.Regions("before"), 100u);
  EXPECT_EQ(t.Regions("after"), 100u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
  EXPECT_TRUE(HasWarning(t, "the program replaced flopspy's trace descriptor"));
}

// B2 (R02): after fork, flopspy closed a number that was the child's own log.
TEST_F(GuaranteesTest, DaemonPatternForkedChildKeepsItsDescriptors) {
  const auto plain = Run({"daemon-logs", File("plain")}, {}, /*preload=*/false);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto r = Run({"daemon-logs", File("traced")});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (int i = 0; i < 4; ++i) {
    const std::string expected =
        "child " + std::to_string(i) + "\nparent " + std::to_string(i) + "\n";
    EXPECT_EQ(Contents(File("traced." + std::to_string(i))), expected) << "log " << i;
  }
  const auto traces = Traces();
  ASSERT_EQ(traces.size(), 2u);
  uint64_t child_regions = 0;
  for (const auto& path : traces) {
    const TraceFacts t = ReadTraceFacts(path);
    EXPECT_EQ(t.read.status, trace::ReadStatus::kOk) << path << ": " << t.read.message;
    EXPECT_TRUE(t.ended_by(EndReason::kExit)) << path;
    child_regions += t.Regions("child");
  }
  EXPECT_EQ(child_regions, 20u);
}

// Descriptor 2 is no longer the stderr flopspy started with: its lines stay out of that file.
TEST_F(GuaranteesTest, NoFlopspyLineInAFileThatBecameDescriptorTwo) {
  ChildOptions options;
  options.env["FLOPSPY_QUIET"] = "0";  // notices too
  const auto r = Run({"stderr-taken", File("out")}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(Contents(File("out")), "program\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("after"), 100u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
}

// B10 (R06): every handled fault used to wait for a whole flush.
TEST_F(GuaranteesTest, HandledFaultsCostNoFlush) {
  ChildOptions options;
  options.env["FLOPSPY_FLUSH_MS"] = "10000";  // only requests could cause passes
  const auto r = Run({"handled-faults", "300"}, options);
  ASSERT_TRUE(r.exited) << "signal " << r.signal;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "faults 300\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("fault"), 300u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
  // One pass at exit writes a few chunks; a pass per fault would write hundreds.
  EXPECT_LT(t.read.chunks, 10u);
}

// abort() with a handler that returns: abort restores the default action behind every hook.
TEST_F(GuaranteesTest, AbortWithAHandlerThatReturnsStillEndsTheTrace) {
  ChildOptions options;
  options.env["FLOPSPY_FLUSH_MS"] = "10000";
  const auto r = Run({"abort-handled"}, options);
  ASSERT_TRUE(r.signaled);
  EXPECT_EQ(r.signal, SIGABRT);
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("before-abort"), 30u);
  ASSERT_TRUE(t.ended_by(EndReason::kSignal));
  EXPECT_EQ(t.summary.end->value, SIGABRT);
}

// Every signal whose default action ends the process keeps the records (here SIGPIPE, as in
// `cmd | head`), and a process that recorded nothing leaves no file when one ends it.
TEST_F(GuaranteesTest, DeathBySigpipeKeepsTheRecordsOrLeavesNoFile) {
  ChildOptions options;
  options.env["FLOPSPY_FLUSH_MS"] = "10000";
  options.env["FLOPSPY_CPU_ROOFLINE"] = "off";
  const auto empty = Run({"sigpipe", "0"}, options);
  ASSERT_TRUE(empty.signaled);
  EXPECT_EQ(empty.signal, SIGPIPE);
  EXPECT_TRUE(Traces().empty());
  const auto r = Run({"sigpipe", "25"}, options);
  ASSERT_TRUE(r.signaled);
  EXPECT_EQ(r.signal, SIGPIPE);
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("before-pipe"), 25u);
  ASSERT_TRUE(t.ended_by(EndReason::kSignal));
  EXPECT_EQ(t.summary.end->value, SIGPIPE);
}

// B6 (R18): the flusher, handlers and exit hooks must not outlive the library's code.
TEST_F(GuaranteesTest, DlcloseOfTheLibraryKeepsTheProgramAlive) {
  ChildOptions options;
  options.env["FLOPSPY_OUT"] = traces_.path();
  options.env["FLOPSPY_FLUSH_MS"] = "10";
  options.unset.push_back("LD_PRELOAD");
  const auto r = RunChild({kGuardProbe, "dlclose", kLibrary}, options);
  ASSERT_TRUE(r.exited) << "signal " << r.signal;
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.out, "survived\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("plugin"), 50u);
  EXPECT_TRUE(t.ended_by(EndReason::kExit));
}

// B15 (R17).
TEST_F(GuaranteesTest, QuickExitKeepsTheFinalRecords) {
  ChildOptions options;
  options.env["FLOPSPY_FLUSH_MS"] = "10000";
  const auto r = Run({"quick-exit"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 5);
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("work"), 50u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
  EXPECT_EQ(t.summary.end->value, 5);
}

// B15 (R10): daemon() ends the parent inside libc; its records and end record must not be lost.
TEST_F(GuaranteesTest, DaemonParentAndDaemonBothLeaveCompleteTraces) {
  ChildOptions options;
  options.env["FLOPSPY_FLUSH_MS"] = "10000";
  const auto r = Run({"daemon", File("marker")}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  // The daemon goes on after its parent; wait for it to finish and its trace to be complete.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  uint64_t before = 0, child = 0;
  int complete = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    before = child = 0;
    complete = 0;
    for (const auto& path : Traces()) {
      const TraceFacts t = ReadTraceFacts(path);
      complete += t.ended_by(EndReason::kExit) ? 1 : 0;
      before += t.Regions("before-daemon");
      child += t.Regions("daemon-child");
    }
    if (complete == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(complete, 2);
  EXPECT_EQ(before, 30u);
  EXPECT_EQ(child, 20u);
  EXPECT_EQ(Contents(File("marker")), "done\n");
}

// B12 (R11): a relative FLOPSPY_OUT, and a chdir before anything was written.
TEST_F(GuaranteesTest, RelativeOutputFolderSurvivesChdir) {
  ChildOptions options;
  options.cwd = files_.path();
  options.env["FLOPSPY_OUT"] = "traces";
  options.env["FLOPSPY_FLUSH_MS"] = "10000";
  const auto r = Run({"chdir-away", "/"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> traces;
  for (const auto& e : std::filesystem::directory_iterator(File("traces"))) {
    traces.push_back(e.path().string());
  }
  ASSERT_EQ(traces.size(), 1u);
  const TraceFacts t = ReadTraceFacts(traces.front());
  EXPECT_EQ(t.Regions("before"), 10u);
  EXPECT_EQ(t.Regions("after"), 10u);
  EXPECT_TRUE(t.ended_by(EndReason::kExit));
}

// B12: a root program that becomes nobody before its first flush.
TEST_F(GuaranteesTest, PrivilegeDropBeforeTheFirstFlushKeepsTheTrace) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop privileges";
  ChildOptions options;
  options.env["FLOPSPY_FLUSH_MS"] = "10000";
  const auto r = Run({"drop-privileges"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("as-nobody"), 10u);
  EXPECT_TRUE(t.ended_by(EndReason::kExit));
}

// B9 (R15): 3,000 short threads under a 1 GiB address-space limit, then malloc(256 MiB).
TEST_F(GuaranteesTest, ThreadChurnStaysWithinTheProgramsAddressSpaceLimit) {
  const auto plain = Run({"thread-churn", "1024", "3000", "256"}, {}, /*preload=*/false);
  ASSERT_EQ(plain.out, "malloc=ok\n") << "the machine cannot run this case";
  ChildOptions options;
  // Record buffers are the case; CPU counters, where they exist, cost every thread's start its
  // own counters (about 5 ms of system time each on the 2-core VM this was written on).
  options.env["FLOPSPY_CPU_ROOFLINE"] = "off";
  const auto r = Run({"thread-churn", "1024", "3000", "256"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.out, "malloc=ok\n") << r.err;
  EXPECT_EQ(r.exit_code, 0);
  const TraceFacts t = OnlyTrace();
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
  // Every record is in the trace or counted as lost, threads without a buffer included.
  EXPECT_EQ(t.region_records + t.lost(), 3000u * 5 * 2);
  EXPECT_EQ(t.summary.end->records_lost, t.lost());
}

// B11 (R26): stderr is a pipe with no reader; the program never writes to it.
TEST_F(GuaranteesTest, FlopspysOwnLineNeverRaisesSigpipe) {
  ChildOptions options;
  options.env["FLOPSPY_BUFFER_KB"] = "abc";
  options.stderr_broken_pipe = true;
  const auto r = Run({"regions", "10"}, options);
  ASSERT_TRUE(r.exited) << "killed by signal " << r.signal;
  EXPECT_EQ(r.exit_code, 0);
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("work"), 10u);
}

// B18 (R38): a value with a newline and an escape sequence stays one visible line.
TEST_F(GuaranteesTest, BadValueWithControlCharactersIsOneEscapedLine) {
  ChildOptions options;
  options.env["FLOPSPY_BUFFER_KB"] = "1\n2\x1b[2J";
  const auto r = Run({"regions", "1"}, options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err,
            "flopspy: FLOPSPY_BUFFER_KB=\"1\\n2\\x1b[2J\" is not valid (expected a whole number "
            "from 64 to 1048576); using 2048\n");
}

// The file is made at start; a process that records nothing takes it away at every end.
TEST_F(GuaranteesTest, ProcessThatRecordsNothingLeavesNoFile) {
  ChildOptions options;
  options.env["FLOPSPY_CPU_ROOFLINE"] = "off";  // CPU counter samples are records too
  EXPECT_EQ(Run({"regions", "0"}, options).exit_code, 0);
  EXPECT_TRUE(Traces().empty());
  options.while_running = [](pid_t pid) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kill(pid, SIGTERM);
    return true;
  };
  const auto killed = Run({"idle"}, options);
  ASSERT_TRUE(killed.signaled);
  EXPECT_EQ(killed.signal, SIGTERM);
  EXPECT_TRUE(Traces().empty());
}

// B14 (R29): a 64 KiB file system for 200,000 regions. Records of chunks that could not be
// written are counted, in the end record and in LostRecords records the report adds up.
TEST_F(GuaranteesTest, FullDiskCountsEveryLostRecord) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string small = File("small");
  ASSERT_EQ(mkdir(small.c_str(), 0700), 0);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
  }
  ChildOptions options;
  options.env["FLOPSPY_OUT"] = small;
  options.env["FLOPSPY_CPU_ROOFLINE"] = "off";
  const auto r = Run({"regions", "200000"}, options);
  std::vector<std::string> traces;
  for (const auto& e : std::filesystem::directory_iterator(small)) traces.push_back(e.path());
  const TraceFacts t = traces.size() == 1 ? ReadTraceFacts(traces.front()) : TraceFacts{};
  umount2(small.c_str(), MNT_DETACH);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  ASSERT_EQ(traces.size(), 1u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit)) << "the small end chunk fits where a big one failed";
  EXPECT_EQ(t.lost(), t.summary.end->records_lost) << "LostRecords records add up to the total";
  ASSERT_TRUE(t.summary.lost.contains(trace::LossSource::kWriteFailed));
  const uint64_t failed_writes = t.summary.lost.at(trace::LossSource::kWriteFailed);
  EXPECT_GT(failed_writes, 0u);
  // The end record says how many records reached the file: all of them can be read.
  EXPECT_EQ(t.read.records, t.summary.end->records_written);
  EXPECT_GE(t.region_records + t.summary.end->records_lost, 400000u);
}

// B3 (R27): the trace's file system freezes while the flusher writes; fork() must not wait.
class FrozenFileSystem {
 public:
  explicit FrozenFileSystem(const std::string& dir)
      : image_(dir + "/fs.img"), mount_(dir + "/mnt") {
    if (geteuid() != 0) {
      why_ = "needs root to mount and freeze a file system";
      return;
    }
    const std::string make = "truncate -s 32M " + image_ + " && mkfs.ext4 -q -F " + image_ +
                             " >/dev/null 2>&1 && mkdir -p " + mount_ + " && mount -o loop " +
                             image_ + " " + mount_ + " 2>/dev/null";
    if (std::system(make.c_str()) != 0) {
      why_ = "cannot mount a loop ext4 file system here";
      return;
    }
    mounted_ = true;
  }
  ~FrozenFileSystem() {
    if (!mounted_) return;
    Thaw();
    umount2(mount_.c_str(), MNT_DETACH);
  }
  bool Freeze() { return std::system(("fsfreeze -f " + mount_).c_str()) == 0 && (frozen_ = true); }
  void Thaw() {
    if (frozen_) frozen_ = std::system(("fsfreeze -u " + mount_).c_str()) != 0;
  }
  const std::string& why_not() const { return why_; }
  const std::string& path() const { return mount_; }

 private:
  std::string image_, mount_, why_;
  bool mounted_ = false, frozen_ = false;
};

TEST_F(GuaranteesTest, ForkDoesNotWaitForAFrozenFileSystem) {
  FrozenFileSystem fs(files_.path());
  if (!fs.why_not().empty()) GTEST_SKIP() << fs.why_not();
  const std::string ready = File("ready"), go = File("go"), result = File("result");
  ChildOptions options;
  options.env["FLOPSPY_OUT"] = fs.path() + "/traces";
  const auto start = std::chrono::steady_clock::now();
  bool froze = false;
  bool returned_while_frozen = false;
  options.while_running = [&](pid_t) {
    if (!froze && access(ready.c_str(), F_OK) == 0) {
      froze = fs.Freeze();
      std::ofstream(go) << "go\n";
      if (!froze) return true;
    }
    // The file system stays frozen until fork() has returned, or for 8 s at most (the old
    // recorder's fork waited for the flusher's write, that is until the thaw).
    if (froze && access(result.c_str(), F_OK) == 0) {
      returned_while_frozen = true;
      fs.Thaw();
      return true;
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(8)) {
      fs.Thaw();
      return true;
    }
    return false;
  };
  const auto r = Run({"frozen-fork", ready, go, result}, options);
  fs.Thaw();
  ASSERT_TRUE(froze) << "fsfreeze failed";
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(returned_while_frozen) << "fork() waited for the frozen file system";
}

}  // namespace
}  // namespace flopspy::testing
