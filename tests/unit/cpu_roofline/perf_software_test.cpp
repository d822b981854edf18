// The real perf_event_open path with software events (any Linux host, PMU or not): inherited
// task-clock groups, thread inheritance, the sampler's timeline, and what this host reports.
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "flopspy/cpu_roofline/backend_factory.h"
#include "flopspy/cpu_roofline/perf_backend.h"
#include "flopspy/cpu_roofline/roofline_method.h"
#include "flopspy/cpu_roofline/sampler.h"
#include "flopspy/cpu_roofline/sysfs_pmu.h"
#include "software_events.h"

namespace flopspy::cpuroof {
namespace {

using testing::TaskClockPlan;

std::unique_ptr<PerfEventBackend> OpenOrSkip() {
  auto b = PerfEventBackend::Open(TaskClockPlan(), RealPerfSyscalls(), {});
  if (b->channels().size() != 2) return nullptr;
  return b;
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void Spin(double cpu_seconds) {
  const double start = ThreadCpuSeconds();
  volatile double x = 0;
  while (ThreadCpuSeconds() - start < cpu_seconds) {
    for (int i = 0; i < 10000; ++i) x = x + 1.0;
  }
}

TEST(PerfSoftware, ThreadsCreatedAfterTheOpenAreCounted) {
  auto b = OpenOrSkip();
  if (!b) GTEST_SKIP() << "perf_event_open of software events is not permitted here";
  Snapshot before, after;
  ASSERT_TRUE(b->Read(0, false, &before));
  double thread_cpu = 0;
  std::thread t([&] {
    Spin(0.08);
    thread_cpu = ThreadCpuSeconds();
  });
  t.join();
  ASSERT_TRUE(b->Read(1, false, &after));
  const double task_clock_s =
      static_cast<double>(after.values[0].raw - before.values[0].raw) * 1e-9;
  // The exited thread's counts were folded into the parent's counter.
  EXPECT_GE(task_clock_s, 0.8 * thread_cpu) << "task-clock " << task_clock_s;
  EXPECT_GT(after.values[0].enabled, before.values[0].enabled);
}

TEST(PerfSoftware, ThreadsThatExistedBeforeAreNot) {
  std::atomic<bool> stop{false};
  std::atomic<double> spun{0};
  std::thread t([&] {
    const double start = ThreadCpuSeconds();
    volatile double x = 0;
    while (!stop.load()) x = x + 1.0;
    spun = ThreadCpuSeconds() - start;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto b = OpenOrSkip();
  if (!b) {
    stop = true;
    t.join();
    GTEST_SKIP() << "perf_event_open of software events is not permitted here";
  }
  Snapshot before, after;
  ASSERT_TRUE(b->Read(0, false, &before));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // this thread sleeps
  ASSERT_TRUE(b->Read(1, false, &after));
  stop = true;
  t.join();
  const double task_clock_s =
      static_cast<double>(after.values[0].raw - before.values[0].raw) * 1e-9;
  if (spun.load() < 0.06) GTEST_SKIP() << "the spinning thread got too little CPU to tell";
  EXPECT_LT(task_clock_s, 0.03) << "the pre-existing spinner was counted";
}

TEST(PerfSoftware, ThisHostSaysWhatItCanMeasure) {
  SamplerConfig config;
  config.mode = BackendMode::kPerf;
  OpenedBackend o = OpenBackend(config);
  const Capabilities& c = o.capabilities;
  EXPECT_TRUE(c.time.available);
  std::string lines;
  for (const std::string& l : c.Lines()) {
    lines += l + "\n";
    EXPECT_EQ(l.rfind("flopspy: ", 0), 0u);
  }
  std::cout << lines;
  SysfsView sysfs;
  if (!sysfs.HasPmu("cpu") && !sysfs.HasPmu("cpu_core") && !sysfs.HasPmu("armv8_pmuv3_0")) {
    // A host without a PMU (this project's CI VM): counters unavailable, with the reason.
    EXPECT_FALSE(c.cycles.available);
    EXPECT_FALSE(c.work.available);
    EXPECT_NE(c.cycles.reason.find("ENOENT"), std::string::npos) << c.cycles.reason;
    EXPECT_NE(lines.find("unavailable"), std::string::npos);
  } else {
    EXPECT_TRUE(c.cycles.available) << c.cycles.reason;
  }
  const std::string json = c.ToJson();
  EXPECT_NE(json.find("\"time\""), std::string::npos);
}

TEST(PerfSoftware, SamplerTimelineOnTheRealKernel) {
  SamplerConfig config;
  config.mode = BackendMode::kPerf;
  config.interval_ms = 10;
  std::mutex mu;
  std::vector<trace::CpuSampleRecord> points;
  std::vector<std::string> regions;
  auto s = Sampler::Start(config, [&](const trace::CpuSampleRecord& r, std::string_view region) {
    std::lock_guard<std::mutex> lock(mu);
    points.push_back(r);
    if (!region.empty()) regions.emplace_back(region);
  });
  ASSERT_TRUE(s);
  if (!s->active()) GTEST_SKIP() << "no counter at all opens here";
  s->RegionBegin("spin", MonotonicNowNs());
  Spin(0.05);
  s->RegionEnd("spin", MonotonicNowNs());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  s->Stop();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(regions, std::vector<std::string>{"spin"});
  int intervals = 0;
  const trace::CpuSampleRecord* region = nullptr;
  for (const auto& p : points) {
    if (p.scope == static_cast<uint8_t>(trace::CpuSampleScope::kInterval)) ++intervals;
    if (p.scope == static_cast<uint8_t>(trace::CpuSampleScope::kRegion)) region = &p;
  }
  EXPECT_GE(intervals, 3);
  ASSERT_NE(region, nullptr);
  ASSERT_TRUE(region->valid & trace::kCpuTaskClock);
  EXPECT_GE(region->task_clock_ns, 0.04e9);
  EXPECT_EQ(points.back().scope, static_cast<uint8_t>(trace::CpuSampleScope::kRun));
}

}  // namespace
}  // namespace flopspy::cpuroof
