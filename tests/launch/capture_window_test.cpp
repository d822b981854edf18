// The capture window of flopspy run --delay/--duration/--capture-range (FLOPSPY_DELAY,
// FLOPSPY_DURATION, FLOPSPY_CAPTURE_RANGE) under the fake CUDA runtime: which of a program's
// numbered launches the trace holds.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "launch_trace.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

const std::string kLibrary = FLOPSPY_LIBRARY_PATH;

class CaptureWindowTest : public ::testing::Test {
 protected:
  // The `n` of every recorded launch, in order, and the recorded region begins.
  struct Recorded {
    std::vector<int> launches;
    uint64_t region_records = 0;  // begins and ends
    std::string err;
  };

  Recorded Run(const std::vector<std::string>& args,
               const std::map<std::string, std::string>& env) {
    ChildOptions options;
    options.env = env;
    options.env.emplace("LD_LIBRARY_PATH",
                        std::string(FAKECUDA_DRIVER_DIR) + ":" + FAKECUDA_RUNTIME13_DIR);
    options.env.emplace("LD_PRELOAD", kLibrary);
    options.env.emplace("FLOPSPY_OUT", dir_.path());
    options.env.emplace("FLOPSPY_FLUSH_MS", "10");
    options.env.emplace("FLOPSPY_GPU_TIMING", "off");
    options.env.emplace("FLOPSPY_CPU_ROOFLINE", "off");
    options.timeout = std::chrono::milliseconds(60000);
    std::vector<std::string> argv{WINDOW_APP};
    argv.insert(argv.end(), args.begin(), args.end());
    const ChildResult r = RunChild(argv, options);
    Recorded out;
    out.err = r.err;
    EXPECT_TRUE(r.exited && r.exit_code == 0) << r.err;
    const std::vector<std::string> files = dir_.Files(".fspy");
    if (files.size() != 1) return out;
    const LaunchTrace t = ReadLaunchTrace(files[0]);
    for (const LaunchSeen& l : t.launches) out.launches.push_back(l.ParamInt(0));
    out.region_records = t.summary.Count(trace::RecordType::kRegion);
    return out;
  }

  TempDir dir_;
};

TEST_F(CaptureWindowTest, RegionRangeRecordsOnlyItsFirstRange) {
  const Recorded r = Run({"region"}, {{"FLOPSPY_CAPTURE_RANGE", "region:step"}});
  EXPECT_EQ(r.launches, (std::vector<int>{10, 11})) << r.err;
  EXPECT_EQ(r.region_records, 4u);  // the range and the one nested in it, begin and end
}

TEST_F(CaptureWindowTest, NvtxNameIsTheSameRangeForFlopspyRegions) {
  const Recorded r = Run({"region"}, {{"FLOPSPY_CAPTURE_RANGE", "nvtx:step"}});
  EXPECT_EQ(r.launches, (std::vector<int>{10, 11})) << r.err;
}

TEST_F(CaptureWindowTest, ARangeThatNeverBeginsRecordsNoLaunch) {
  const Recorded r = Run({"region"}, {{"FLOPSPY_CAPTURE_RANGE", "region:other"}});
  EXPECT_TRUE(r.launches.empty());
}

TEST_F(CaptureWindowTest, WithoutAWindowEveryLaunchIsRecorded) {
  const Recorded r = Run({"region"}, {});
  EXPECT_EQ(r.launches, (std::vector<int>{1, 2, 3, 10, 11, 20, 21, 22, 30, 40}));
}

// 100 launches 10 ms apart; the window opens 0.3 s after start, for 0.3 s. The flusher flips
// it at its 10 ms ticks: never early, a little late under load, so the bounds are loose.
TEST_F(CaptureWindowTest, DelayAndDurationRecordAContiguousMiddle) {
  const Recorded r =
      Run({"timed", "100", "10"}, {{"FLOPSPY_DELAY", "0.3"}, {"FLOPSPY_DURATION", "0.3"}});
  ASSERT_FALSE(r.launches.empty()) << r.err;
  for (size_t i = 1; i < r.launches.size(); ++i) {
    EXPECT_EQ(r.launches[i], r.launches[i - 1] + 1) << "not one stretch";
  }
  // Launch i starts at least i*10 ms after the program started, and the window never opens
  // before 0.3 s: nothing from the first 0.3 s of launches minus the program's start-up.
  EXPECT_GE(r.launches.front(), 15);
  EXPECT_LE(r.launches.size(), 45u);  // 0.3 s of 10 ms launches, and a tick late
  EXPECT_LT(r.launches.back(), 99);
}

TEST_F(CaptureWindowTest, BadValuesAreOneLineEachAndTheDefaultIsUsed) {
  const Recorded r = Run({"region"}, {{"FLOPSPY_DELAY", "soon"},
                                      {"FLOPSPY_DURATION", "-1"},
                                      {"FLOPSPY_CAPTURE_RANGE", "step:1-3"},
                                      {"FLOPSPY_QUIET", "1"}});
  EXPECT_EQ(r.launches.size(), 10u);  // no window: everything
  for (const char* name : {"FLOPSPY_DELAY=", "FLOPSPY_DURATION=", "FLOPSPY_CAPTURE_RANGE="}) {
    const size_t at = r.err.find(std::string("flopspy: ") + name);
    EXPECT_NE(at, std::string::npos) << name << "\n" << r.err;
  }
}

}  // namespace
}  // namespace flopspy::testing
