// libflopspy.so preloaded into programs that end in every way a process can. Each must leave a
// readable trace with the records it made, and the program's output, exit status or signal
// must be exactly what it is without flopspy.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "subprocess.h"
#include "test_programs.h"
#include "trace_facts.h"

namespace flopspy::testing {
namespace {

using trace::EndReason;

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;

// The flags of every chunk of a trace file, in file order.
std::vector<uint16_t> ChunkFlags(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint16_t> flags;
  for (size_t at = sizeof(trace::FileHeader); at + sizeof(trace::ChunkHeader) <= bytes.size();) {
    trace::ChunkHeader ch;
    std::memcpy(&ch, bytes.data() + at, sizeof(ch));
    flags.push_back(ch.flags);
    at += sizeof(ch) + ch.payload_size;
  }
  return flags;
}

class PreloadTest : public ::testing::Test {
 protected:
  ChildResult Run(std::vector<std::string> args, ChildOptions options = {}, bool preload = true) {
    args.insert(args.begin(), kProbe);
    if (preload) {
      options.env.emplace("LD_PRELOAD", kLibrary);
      options.env.emplace("FLOPSPY_OUT", dir_.path());
      options.env.emplace("FLOPSPY_FLUSH_MS", "10");
    } else {
      options.unset.push_back("LD_PRELOAD");
    }
    return RunChild(args, options);
  }

  std::vector<std::string> Traces() const { return dir_.Files(".fspy"); }

  TraceFacts OnlyTrace() {
    const auto traces = Traces();
    EXPECT_EQ(traces.size(), 1u);
    return traces.empty() ? TraceFacts{} : ReadTraceFacts(traces.front());
  }

  TempDir dir_;
};

TEST_F(PreloadTest, NormalExitKeepsOutputAndStatus) {
  const auto plain = Run({"regions", "500", "3"}, {}, /*preload=*/false);
  const auto traced = Run({"regions", "500", "3"});
  EXPECT_EQ(traced.out, plain.out);
  EXPECT_EQ(traced.err, plain.err);
  ASSERT_TRUE(traced.exited);
  EXPECT_EQ(traced.exit_code, 3);
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk) << t.read.message;
  EXPECT_EQ(t.Regions("work"), 500u);
  EXPECT_EQ(t.region_records, 1000u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
  EXPECT_EQ(t.summary.end->value, 3);
  EXPECT_EQ(t.lost(), 0u);
  EXPECT_EQ(t.header.pid, t.summary.end ? t.header.pid : 0u);
}

TEST_F(PreloadTest, ChunksAreCompressedUnlessAskedNot) {
  ASSERT_TRUE(Run({"regions", "20000", "0"}).exited);
  const std::string packed = Traces().at(0);
  const TraceFacts a = ReadTraceFacts(packed);
  EXPECT_EQ(a.read.status, trace::ReadStatus::kOk) << a.read.message;
  EXPECT_EQ(a.Regions("work"), 20000u);
  EXPECT_EQ(a.header.min_reader_version, trace::kMinReaderVersionCompressed);
  const std::vector<uint16_t> flags = ChunkFlags(packed);
  EXPECT_GT(std::count_if(flags.begin(), flags.end(),
                          [](uint16_t f) { return (f & trace::kChunkZstd) != 0; }),
            0);

  TempDir plain_dir;
  ChildOptions off;
  off.env = {
      {"LD_PRELOAD", kLibrary}, {"FLOPSPY_OUT", plain_dir.path()}, {"FLOPSPY_COMPRESS", "off"}};
  ASSERT_TRUE(RunChild({kProbe, "regions", "20000", "0"}, off).exited);
  const std::string plain = plain_dir.Files(".fspy").at(0);
  const TraceFacts b = ReadTraceFacts(plain);
  EXPECT_EQ(b.Regions("work"), 20000u);
  EXPECT_EQ(b.header.min_reader_version, trace::kMinReaderVersion);
  for (uint16_t f : ChunkFlags(plain)) EXPECT_EQ(f, 0);
  EXPECT_LT(std::filesystem::file_size(packed) * 5, std::filesystem::file_size(plain))
      << "region records compress more than five times";
}

TEST_F(PreloadTest, SigkillLeavesEverythingFlushedBeforeIt) {
  ChildOptions options;
  // Kill once the flusher has written all 100 regions.
  options.while_running = [this](pid_t pid) {
    for (const auto& path : Traces()) {
      if (ReadTraceFacts(path).Regions("work") == 100) {
        kill(pid, SIGKILL);
        return true;
      }
    }
    return false;
  };
  const auto r = Run({"wait"}, options);
  ASSERT_FALSE(r.timed_out);
  ASSERT_TRUE(r.signaled);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.out, "ready\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_TRUE(t.read.usable());
  EXPECT_EQ(t.Regions("work"), 100u);
  EXPECT_FALSE(t.summary.end.has_value());  // nobody could write it
}

TEST_F(PreloadTest, SegfaultDiesOfSigsegvWithCompleteTrace) {
  const auto r = Run({"segv"});
  ASSERT_TRUE(r.signaled) << r.err;
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.out, "before crash\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk);
  EXPECT_EQ(t.Regions("work"), 100u);
  ASSERT_TRUE(t.ended_by(EndReason::kSignal));
  EXPECT_EQ(t.summary.end->value, SIGSEGV);
}

TEST_F(PreloadTest, AFatalSignalsLastChunksAreStoredUncompressed) {
  // No pass before the crash: everything is written by the one the signal asks for, and
  // compressing may allocate while the crashed thread holds malloc's lock.
  ChildOptions options;
  options.env = {{"FLOPSPY_FLUSH_MS", "10000"}};
  const auto r = Run({"segv"}, options);
  ASSERT_TRUE(r.signaled) << r.err;
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk);
  EXPECT_EQ(t.Regions("work"), 100u);
  EXPECT_EQ(t.header.min_reader_version, trace::kMinReaderVersionCompressed);
  for (uint16_t f : ChunkFlags(Traces().at(0))) EXPECT_EQ(f, 0);
}

TEST_F(PreloadTest, ProgramsOwnSegvHandlerStillRuns) {
  const auto r = Run({"segv-handled"});
  ASSERT_TRUE(r.exited) << "signal " << r.signal;
  EXPECT_EQ(r.exit_code, 42);
  EXPECT_EQ(r.out, "handled\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("work"), 100u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));  // the handler's _exit(42)
  EXPECT_EQ(t.summary.end->value, 42);
}

TEST_F(PreloadTest, AbortDiesOfSigabrt) {
  const auto r = Run({"abort"});
  ASSERT_TRUE(r.signaled);
  EXPECT_EQ(r.signal, SIGABRT);
  EXPECT_EQ(r.out, "before abort\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("work"), 100u);
  ASSERT_TRUE(t.ended_by(EndReason::kSignal));
  EXPECT_EQ(t.summary.end->value, SIGABRT);
}

TEST_F(PreloadTest, SigtermFromOutsideIsRecorded) {
  ChildOptions options;
  bool sent = false;
  options.while_running = [&](pid_t pid) {
    for (const auto& path : Traces()) {
      if (ReadTraceFacts(path).Regions("work") == 100) {
        kill(pid, SIGTERM);
        sent = true;
      }
    }
    return sent;
  };
  const auto r = Run({"wait"}, options);
  ASSERT_TRUE(r.signaled);
  EXPECT_EQ(r.signal, SIGTERM);
  const TraceFacts t = OnlyTrace();
  ASSERT_TRUE(t.ended_by(EndReason::kSignal));
  EXPECT_EQ(t.summary.end->value, SIGTERM);
}

TEST_F(PreloadTest, HandledSigintLetsTheProgramContinue) {
  ChildOptions options;
  bool sent = false;
  std::string* out = nullptr;
  options.while_running = [&](pid_t pid) {
    for (const auto& path : Traces()) {
      if (ReadTraceFacts(path).Regions("before") == 10) {
        kill(pid, SIGINT);
        sent = true;
      }
    }
    (void)out;
    return sent;
  };
  const auto r = Run({"sigint-continue"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "ready\ncontinued\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("before"), 10u);
  EXPECT_EQ(t.Regions("after"), 10u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
}

TEST_F(PreloadTest, ProgramSeesItsOwnSignalDispositions) {
  const auto r = Run({"sigaction-view"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.out, "view ok\n");
}

TEST_F(PreloadTest, ExitFromSecondThread) {
  const auto r = Run({"thread-exit"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 7);
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk);
  EXPECT_EQ(t.Regions("thread"), 50u);
  EXPECT_GT(t.Regions("main"), 0u);
  ASSERT_TRUE(t.ended_by(EndReason::kExit));
  EXPECT_EQ(t.summary.end->value, 7);
}

TEST_F(PreloadTest, ForkedChildWritesItsOwnTrace) {
  const auto r = Run({"fork"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("child status 0"), std::string::npos);
  const auto traces = Traces();
  ASSERT_EQ(traces.size(), 2u);
  TraceFacts parent, child;
  for (const auto& path : traces) {
    TraceFacts t = ReadTraceFacts(path);
    (t.header.flags & trace::kFileForkedChild ? child : parent) = t;
  }
  EXPECT_EQ(parent.Regions("parent-before"), 10u);
  EXPECT_EQ(parent.Regions("parent-after"), 10u);
  EXPECT_EQ(parent.Regions("child"), 0u);
  EXPECT_EQ(child.Regions("child"), 20u);
  EXPECT_EQ(child.Regions("parent-before"), 0u);  // the parent's records stay the parent's
  EXPECT_EQ(child.header.parent_pid, parent.header.pid);
  EXPECT_TRUE(parent.ended_by(EndReason::kExit));
  EXPECT_TRUE(child.ended_by(EndReason::kExit));
}

TEST_F(PreloadTest, ForkedChildEndingWithUnderscoreExitIsFlushed) {
  ChildOptions options;
  options.env["FLOPSPY_CPU_ROOFLINE"] = "off";  // on a machine with counters, samples are records
  const auto r = Run({"fork-exit-underscore"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_NE(r.out.find("child status 3"), std::string::npos);
  const auto traces = Traces();
  ASSERT_EQ(traces.size(), 1u);  // the parent recorded nothing
  const TraceFacts child = ReadTraceFacts(traces.front());
  EXPECT_EQ(child.Regions("child"), 20u);
  ASSERT_TRUE(child.ended_by(EndReason::kExit));
  EXPECT_EQ(child.summary.end->value, 3);
}

TEST_F(PreloadTest, FollowForkOffMeansNoChildTrace) {
  ChildOptions options;
  options.env["FLOPSPY_FOLLOW_FORK"] = "0";
  const auto r = Run({"fork"}, options);
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(Traces().size(), 1u);
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("child"), 0u);
  EXPECT_EQ(t.Regions("parent-after"), 10u);
}

TEST_F(PreloadTest, ExecEndsOneTraceAndTheNewImageStartsAnother) {
  const auto r = Run({"exec"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "execing\nnamed done\n");
  const auto traces = Traces();
  ASSERT_EQ(traces.size(), 2u);  // same pid: the second file gets a ".1" suffix
  const TraceFacts before =
      ReadTraceFacts(traces[0].find(".1.fspy") == std::string::npos ? traces[0] : traces[1]);
  const TraceFacts after =
      ReadTraceFacts(traces[0].find(".1.fspy") == std::string::npos ? traces[1] : traces[0]);
  EXPECT_EQ(before.header.pid, after.header.pid);
  EXPECT_EQ(before.Regions("before-exec"), 10u);
  EXPECT_TRUE(before.ended_by(EndReason::kExec));
  EXPECT_EQ(after.Regions("after-exec"), 5u);
  EXPECT_TRUE(after.ended_by(EndReason::kExit));
}

TEST_F(PreloadTest, FailedExecKeepsRecording) {
  const auto r = Run({"exec-fails"});
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("before-exec"), 10u);
  EXPECT_EQ(t.Regions("after-failed-exec"), 5u);
  EXPECT_TRUE(t.ended_by(EndReason::kExit));
}

TEST_F(PreloadTest, SixteenThreadsIntoSmallBuffersLoseNothingUncounted) {
  ChildOptions options;
  options.env["FLOPSPY_BUFFER_KB"] = "64";
  options.env["FLOPSPY_FLUSH_MS"] = "5";
  // Sixteen million unmatched region begins are about buffers, not CPU counters: with counters,
  // each begin reads them (a system call) and keeps a snapshot until its end.
  options.env["FLOPSPY_CPU_ROOFLINE"] = "off";
  options.timeout = std::chrono::minutes(5);
  const auto r = Run({"stress", "16", "1000000"}, options);
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.out, "attempted 16000000\n");
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.read.status, trace::ReadStatus::kOk);
  const uint64_t written = t.Regions("s");
  const uint64_t dropped = t.summary.lost.count(trace::LossSource::kThreadBuffer)
                               ? t.summary.lost.at(trace::LossSource::kThreadBuffer)
                               : 0;
  EXPECT_EQ(written + dropped, 16'000'000u) << "written " << written << " dropped " << dropped;
  EXPECT_GT(dropped, 0u) << "64 KiB buffers should overflow under this load";
  EXPECT_GT(written, 0u);
}

TEST_F(PreloadTest, UnwritableOutputFolderIsOneLineAndNothingElse) {
  // A folder below a regular file cannot be created, even by root.
  const std::string blocker = dir_.path() + "/not-a-folder";
  std::ofstream(blocker) << "x";
  ChildOptions options;
  options.env["FLOPSPY_OUT"] = blocker + "/traces";
  options.env["LD_PRELOAD"] = kLibrary;
  const auto plain = Run({"regions", "10", "5"}, {}, /*preload=*/false);
  const auto r = RunChild({kProbe, "regions", "10", "5"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(r.out, plain.out);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("flopspy: cannot write traces to " + blocker + "/traces", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("runs untraced"), std::string::npos);
}

TEST_F(PreloadTest, BadValuesAreReportedAndDefaultsUsed) {
  ChildOptions options;
  options.env["FLOPSPY_BUFFER_KB"] = "lots";
  options.env["FLOPSPY_FLUSH_MS"] = "0";
  options.env["FLOPSPY_FOLLOW_FORK"] = "maybe";
  options.env["FLOPSPY_COUNTERS_REPLAY"] = "sometimes";
  const auto r = Run({"regions", "10"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "regions done\n");
  EXPECT_NE(r.err.find("flopspy: FLOPSPY_BUFFER_KB=\"lots\" is not valid"), std::string::npos);
  EXPECT_NE(r.err.find("using 2048"), std::string::npos);
  EXPECT_NE(r.err.find("flopspy: FLOPSPY_FLUSH_MS=\"0\" is not valid"), std::string::npos);
  EXPECT_NE(r.err.find("flopspy: FLOPSPY_FOLLOW_FORK=\"maybe\" is not valid"), std::string::npos);
  EXPECT_NE(r.err.find("flopspy: FLOPSPY_COUNTERS_REPLAY=\"sometimes\" is not valid"),
            std::string::npos);
  EXPECT_NE(r.err.find("using kernel"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 4) << r.err;
  const TraceFacts t = OnlyTrace();
  EXPECT_EQ(t.Regions("work"), 10u);
  // Also recorded in the trace (beside what the CPU sampler says about missing counters).
  const auto bad_config =
      std::count_if(t.summary.warnings.begin(), t.summary.warnings.end(),
                    [](const auto& w) { return w.code == trace::WarningCode::kBadConfig; });
  EXPECT_EQ(bad_config, 4);
}

TEST_F(PreloadTest, DisabledMeansNoTraceAndNoOutput) {
  ChildOptions options;
  options.env["FLOPSPY_ENABLE"] = "0";
  const auto r = Run({"regions", "10"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Traces().empty());
}

TEST_F(PreloadTest, TraceFilesAreNamedAndPrivate) {
  ChildOptions options;
  options.env["RANK"] = "3";
  const auto r = Run({"regions", "1"}, options);
  ASSERT_TRUE(r.exited);
  const auto traces = Traces();
  ASSERT_EQ(traces.size(), 1u);
  const std::string name = std::filesystem::path(traces[0]).filename().string();
  EXPECT_EQ(name.rfind("flopspy-", 0), 0u);
  EXPECT_NE(name.find("-r3.fspy"), std::string::npos) << name;
  struct stat st {};
  ASSERT_EQ(stat(traces[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(ReadTraceFacts(traces[0]).header.rank, 3);
}

}  // namespace
}  // namespace flopspy::testing
