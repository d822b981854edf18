// Files that are not regular files are refused without being opened for reading: opening a FIFO
// blocks until a writer comes, so a FIFO named *.fspy in the trace folder kept `flopspy run`
// waiting after the program had ended (audit case B5 / L03), and a device never ends. Each case
// runs in a child process with a deadline, so that a regression fails instead of hanging.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "report/run_summary.h"
#include "report/trace_inputs.h"
#include "report/trace_report.h"
#include "subprocess.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

// Runs `body` in a child; true when it returned (exit 0) within the deadline. The child is
// killed otherwise.
bool ReturnsPromptly(const std::function<bool()>& body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body() ? 0 : 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

class RefusedInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TraceBuilder b(Identity());
    trace::TraceEndRecord end{};
    end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
    b.Chunk(trace::ChunkSource::kProcess).Add(end);
    b.WriteTo(dir_.path() + "/a.fspy");
    ASSERT_EQ(mkfifo(fifo_.c_str(), 0600), 0);
  }
  static trace::FileIdentity Identity() {
    trace::FileIdentity id = testing::TraceBuilder::DefaultIdentity();
    id.run_id = 0x42;
    return id;
  }
  testing::TempDir dir_;
  const std::string fifo_ = dir_.path() + "/zzz.fspy";
};

// What `flopspy run` does after the program ends.
TEST_F(RefusedInputs, FindingARunsTracesSkipsAFifo) {
  EXPECT_TRUE(ReturnsPromptly([&] {
    return FindRunTraces(dir_.path(), 0x42) == std::vector<std::string>{dir_.path() + "/a.fspy"};
  }));
  EXPECT_TRUE(ReturnsPromptly([&] {
    return FindRunTraces(dir_.path(), 0) == std::vector<std::string>{dir_.path() + "/a.fspy"};
  }));
}

TEST_F(RefusedInputs, ReadingAFifoFailsAtOnce) {
  EXPECT_TRUE(ReturnsPromptly([&] {
    const TraceReport t = AnalyzeTrace(fifo_);
    return !t.header_ok && t.read.status == trace::ReadStatus::kIoError &&
           t.read.message == fifo_ + " is a FIFO, not a file";
  }));
}

TEST_F(RefusedInputs, FolderExpansionNamesWhatItLeavesOut) {
  const TraceInputs inputs = ExpandTraceArguments({dir_.path(), fifo_, "/dev/null"});
  EXPECT_EQ(inputs.files, std::vector<std::string>{dir_.path() + "/a.fspy"});
  const std::vector<std::string> errors = {fifo_ + " is a FIFO, not a file; not read",
                                           fifo_ + " is a FIFO, not a file; not read",
                                           "/dev/null is a device, not a file; not read"};
  EXPECT_EQ(inputs.errors, errors);
}

}  // namespace
}  // namespace flopspy::tools
