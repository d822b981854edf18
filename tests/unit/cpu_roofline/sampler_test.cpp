// The sampler with a scripted backend: regions nest per thread and name, points go to the
// callback from the right threads, GPU copies are flagged, Stop ends with the run point, nothing
// throws; and its configuration from the environment.
#include "flopspy/cpu_roofline/sampler.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <tuple>

#include "clock_backend.h"
#include "fake_perf.h"
#include "test_paths.h"

namespace flopspy::cpuroof {
namespace {

using testing::AllCaps;
using testing::ClockBackend;

struct Collected {
  std::mutex mu;
  std::vector<std::pair<trace::CpuSampleRecord, std::string>> points;
  Sampler::Callback callback() {
    return [this](const trace::CpuSampleRecord& r, std::string_view region) {
      std::lock_guard<std::mutex> lock(mu);
      points.emplace_back(r, std::string(region));
    };
  }
  std::vector<std::pair<trace::CpuSampleRecord, std::string>> of(trace::CpuSampleScope scope) {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::pair<trace::CpuSampleRecord, std::string>> out;
    for (const auto& p : points) {
      if (p.first.scope == static_cast<uint8_t>(scope)) out.push_back(p);
    }
    return out;
  }
};

struct Rig {
  Collected got;
  ClockBackend* backend = nullptr;
  std::atomic<uint64_t> now{1'000'000'000};
  std::unique_ptr<Sampler> sampler;

  explicit Rig(bool thread = false, uint32_t interval_ms = 100, std::string record = "") {
    auto b = std::make_unique<ClockBackend>();
    backend = b.get();
    Sampler::Options o;
    o.start_thread = thread;
    if (!thread) o.clock = [this] { return now.load(); };
    o.backend = std::move(b);
    o.capabilities = AllCaps();
    SamplerConfig config;
    config.interval_ms = interval_ms;
    config.record_path = std::move(record);
    sampler = Sampler::Start(config, got.callback(), std::move(o));
  }
};

TEST(Sampler, IntervalsRegionsAndTheRunPoint) {
  Rig rig;
  ASSERT_TRUE(rig.sampler && rig.sampler->active());
  rig.sampler->SampleOnce(1'100'000'000);
  rig.sampler->RegionBegin("step", 1'150'000'000);
  rig.sampler->SampleOnce(1'200'000'000);
  rig.sampler->RegionEnd("step", 1'250'000'000);
  rig.sampler->Stop(1'300'000'000);
  const auto intervals = rig.got.of(trace::CpuSampleScope::kInterval);
  ASSERT_EQ(intervals.size(), 3u);
  EXPECT_EQ(intervals[0].first.begin_ns, 1'000'000'000u);
  EXPECT_EQ(intervals[2].first.end_ns, 1'300'000'000u);
  EXPECT_DOUBLE_EQ(intervals[0].first.flops_dp, 1e8);
  const auto regions = rig.got.of(trace::CpuSampleScope::kRegion);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].second, "step");
  EXPECT_DOUBLE_EQ(regions[0].first.flops_dp, 1e8);
  EXPECT_TRUE(regions[0].first.flags & trace::kCpuSystemWideMemory);
  const auto run = rig.got.of(trace::CpuSampleScope::kRun);
  ASSERT_EQ(run.size(), 1u);
  EXPECT_DOUBLE_EQ(run[0].first.flops_dp, 3e8);
  EXPECT_GT(rig.backend->fast_reads.load(), 0);  // markers read the cheap way
  // Stop is idempotent and later markers are ignored.
  rig.sampler->Stop(2'000'000'000);
  rig.sampler->RegionBegin("late", 2'100'000'000);
  rig.sampler->RegionEnd("late", 2'200'000'000);
  EXPECT_EQ(rig.got.points.size(), 5u);
}

TEST(Sampler, RegionsNestPerThreadAndName) {
  Rig rig;
  rig.sampler->RegionBegin("outer", 1'000'000'000);
  rig.sampler->RegionBegin("inner", 1'010'000'000);
  rig.sampler->RegionBegin("inner", 1'020'000'000);  // same name, nested
  rig.sampler->RegionEnd("inner", 1'029'000'000);    // closes the one begun at 1.02 s
  rig.sampler->RegionEnd("inner", 1'050'000'000);
  // Another thread's "outer" is its own.
  std::thread other([&] {
    rig.sampler->RegionBegin("outer", 1'060'000'000);
    rig.sampler->RegionEnd("outer", 1'070'000'000);
  });
  other.join();
  rig.sampler->RegionEnd("outer", 1'100'000'000);
  rig.sampler->RegionEnd("never-begun", 1'100'000'000);
  const auto regions = rig.got.of(trace::CpuSampleScope::kRegion);
  ASSERT_EQ(regions.size(), 4u);
  EXPECT_EQ(regions[0].first.begin_ns, 1'020'000'000u);
  EXPECT_EQ(regions[1].first.begin_ns, 1'010'000'000u);
  EXPECT_EQ(regions[2].first.begin_ns, 1'060'000'000u);
  EXPECT_EQ(regions[3].first.begin_ns, 1'000'000'000u);
  EXPECT_EQ(regions[3].second, "outer");
  EXPECT_TRUE(regions[0].first.flags & trace::kCpuTooShort);  // 10 ms is the limit
  EXPECT_FALSE(regions[3].first.flags & trace::kCpuTooShort);
  EXPECT_EQ(rig.sampler->problems(), 1u);  // the end without a begin
}

TEST(Sampler, GpuCopiesFlagOverlappingPointsOnly) {
  Rig rig;
  rig.sampler->NoteGpuCopy(1'120'000'000, 1'130'000'000);
  rig.sampler->NoteGpuCopy(1'125'000'000, 1'140'000'000);  // merged with the first
  rig.sampler->SampleOnce(1'100'000'000);                  // before the copies
  rig.sampler->RegionBegin("r", 1'135'000'000);
  rig.sampler->RegionEnd("r", 1'150'000'000);
  rig.sampler->SampleOnce(1'200'000'000);  // overlaps them
  rig.sampler->SampleOnce(1'300'000'000);  // after
  rig.sampler->Stop(1'300'000'000);
  const auto iv = rig.got.of(trace::CpuSampleScope::kInterval);
  ASSERT_EQ(iv.size(), 3u);
  EXPECT_FALSE(iv[0].first.flags & trace::kCpuOverlapsGpuCopies);
  EXPECT_TRUE(iv[1].first.flags & trace::kCpuOverlapsGpuCopies);
  EXPECT_FALSE(iv[2].first.flags & trace::kCpuOverlapsGpuCopies);
  EXPECT_TRUE(rig.got.of(trace::CpuSampleScope::kRegion)[0].first.flags &
              trace::kCpuOverlapsGpuCopies);
  EXPECT_TRUE(rig.got.of(trace::CpuSampleScope::kRun)[0].first.flags &
              trace::kCpuOverlapsGpuCopies);
}

TEST(Sampler, RecordingReplaysToTheSamePoints) {
  const std::string path = ::testing::TempDir() + "/flopspy-record-%p.jsonl";
  Rig rig(false, 100, path);
  rig.sampler->SampleOnce(1'100'000'000);
  rig.sampler->RegionBegin("step", 1'150'000'000);
  rig.sampler->NoteGpuCopy(1'160'000'000, 1'170'000'000);
  rig.sampler->SampleOnce(1'200'000'000);
  rig.sampler->RegionEnd("step", 1'250'000'000);
  rig.sampler->Stop(1'300'000'000);
  std::string file = path;
  file.replace(file.find("%p"), 2, std::to_string(getpid()));
  std::string error;
  auto data = LoadReplay(file, &error);
  ASSERT_TRUE(data) << error;
  EXPECT_EQ(data->channels.size(), 3u);
  EXPECT_EQ(data->entries.size(), 6u);  // start, 2 ticks, begin, end, last tick
  std::vector<trace::CpuSampleRecord> replayed;
  RunReplay(*data, SamplerConfig{},
            [&](const trace::CpuSampleRecord& r, std::string_view) { replayed.push_back(r); });
  std::vector<trace::CpuSampleRecord> live;
  for (const auto& p : rig.got.points) live.push_back(p.first);
  ASSERT_EQ(replayed.size(), live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(replayed[i].scope, live[i].scope) << i;
    EXPECT_EQ(replayed[i].begin_ns, live[i].begin_ns) << i;
    EXPECT_EQ(replayed[i].end_ns, live[i].end_ns) << i;
    EXPECT_DOUBLE_EQ(replayed[i].flops_dp, live[i].flops_dp) << i;
    EXPECT_EQ(replayed[i].flags, live[i].flags) << i;
  }
  std::remove(file.c_str());
}

TEST(Sampler, ManyCopiesStayBounded) {
  Rig rig;
  for (uint64_t i = 0; i < 20000; ++i) {
    rig.sampler->NoteGpuCopy(1'000'000'000 + i * 100, 1'000'000'000 + i * 100 + 10);
  }
  rig.sampler->SampleOnce(1'100'000'000);
  EXPECT_TRUE(rig.got.of(trace::CpuSampleScope::kInterval)[0].first.flags &
              trace::kCpuOverlapsGpuCopies);
}

TEST(Sampler, CallbackExceptionsAndReadFailuresStayInside) {
  auto b = std::make_unique<ClockBackend>();
  ClockBackend* backend = b.get();
  Sampler::Options o;
  o.start_thread = false;
  uint64_t now = 1'000'000'000;
  o.clock = [&now] { return now; };
  o.backend = std::move(b);
  o.capabilities = AllCaps();
  auto sampler = Sampler::Start(
      SamplerConfig{}, [](const trace::CpuSampleRecord&, std::string_view) { throw 42; },
      std::move(o));
  ASSERT_TRUE(sampler);
  EXPECT_NO_THROW(sampler->SampleOnce(1'100'000'000));
  backend->fail = true;
  EXPECT_NO_THROW(sampler->RegionBegin("x", 1'150'000'000));
  EXPECT_NO_THROW(sampler->SampleOnce(1'200'000'000));
  backend->fail = false;
  EXPECT_NO_THROW(sampler->Stop(1'300'000'000));
  EXPECT_GE(sampler->problems(), 3u);
}

TEST(Sampler, ThreadEmitsIntervalPointsUntilStopped) {
  Rig rig(true, 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  rig.sampler->Stop();
  const auto iv = rig.got.of(trace::CpuSampleScope::kInterval);
  EXPECT_GE(iv.size(), 4u);
  for (size_t i = 1; i < iv.size(); ++i) {
    EXPECT_EQ(iv[i].first.begin_ns, iv[i - 1].first.end_ns);
  }
  EXPECT_EQ(rig.got.of(trace::CpuSampleScope::kRun).size(), 1u);
}

TEST(Sampler, MetadataCarriesCapabilitiesAndOverrides) {
  auto b = std::make_unique<ClockBackend>();
  Sampler::Options o;
  o.start_thread = false;
  o.clock = [] { return uint64_t{1}; };
  o.backend = std::move(b);
  o.capabilities = AllCaps();
  SamplerConfig config;
  config.peak_gflops = 99.5;
  auto s = Sampler::Start(config, nullptr, std::move(o));
  ASSERT_TRUE(s);
  const std::string m = s->MetadataJson();
  EXPECT_NE(m.find("\"peak_gflops\":99.5"), std::string::npos) << m;
  EXPECT_NE(m.find("\"bandwidth_gbs\":null"), std::string::npos) << m;
  EXPECT_NE(m.find("\"capabilities\":{"), std::string::npos) << m;
  EXPECT_NE(m.find("\"interval_ms\":100"), std::string::npos) << m;
}

TEST(Sampler, InactiveWhenNothingCanBeMeasured) {
  SamplerConfig off;
  off.mode = BackendMode::kOff;
  Collected got;
  auto s = Sampler::Start(off, got.callback());
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->active());
  EXPECT_TRUE(s->capabilities().Lines().empty());
  s->RegionBegin("x", 1);
  s->RegionEnd("x", 2);
  s->NoteGpuCopy(1, 2);
  s->Stop();
  EXPECT_TRUE(got.points.empty());
}

TEST(Sampler, EverythingFailingStillRunsTheProgram) {
  testing::FakePerf fake;
  fake.error_for = [](const perf_event_attr&, int) { return ENOSYS; };
  Sampler::Options o;
  o.deps.perf = fake.Syscalls();
  SamplerConfig config;
  config.paths = testing::FakeHost("zen4_vm");
  std::string error;
  config.cpu_override = ParseCpuIdOverride("AuthenticAMD:0x19:0x11", &error);
  Collected got;
  auto s = Sampler::Start(config, got.callback(), std::move(o));
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->active());
  std::string lines;
  for (const auto& l : s->capabilities().Lines()) lines += l + "\n";
  EXPECT_NE(lines.find("ENOSYS"), std::string::npos) << lines;
  s->RegionBegin("x", 1);
  s->RegionEnd("x", 2);
  s->Stop();
  EXPECT_TRUE(got.points.empty());
}

TEST(Sampler, ForkedChildReopensAndSamplesOnItsOwn) {
  Rig rig(true, 5);
  const pid_t pid = fork();
  if (pid == 0) {
    rig.sampler->AfterForkInChild();
    const int before = rig.backend->reopened.load();
    rig.sampler->RegionBegin("child", 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    rig.sampler->Stop();
    _exit(before == 1 && rig.sampler->active() == false ? 0 : 3);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(rig.backend->reopened.load(), 0);  // the parent's counters were left alone
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  rig.sampler->Stop();
  EXPECT_GE(rig.got.of(trace::CpuSampleScope::kInterval).size(), 2u);
}

// --- configuration ---------------------------------------------------------------------------

TEST(SamplerConfig, DefaultsWithoutVariables) {
  const auto p = ParseSamplerConfig(std::map<std::string, std::string>{});
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.config.mode, BackendMode::kAuto);
  EXPECT_EQ(p.config.interval_ms, 100u);
  EXPECT_EQ(p.config.precision, PrecisionSelect::kAll);
  EXPECT_EQ(p.config.pcm_url, "http://127.0.0.1:9738/");
  EXPECT_EQ(p.config.paths.sysfs_root, "/sys");
}

TEST(SamplerConfig, ParsesEveryVariable) {
  const auto p = ParseSamplerConfig(std::map<std::string, std::string>{
      {"FLOPSPY_CPU_ROOFLINE", "replay:/tmp/r.jsonl"},
      {"FLOPSPY_CPU_INTERVAL_MS", "20"},
      {"FLOPSPY_CPU_EVENTS", "a@flops"},
      {"FLOPSPY_CPU_PRECISION", "DP"},
      {"FLOPSPY_CPU_PEAK_GFLOPS", "123.5"},
      {"FLOPSPY_CPU_BW_GBS", "45"},
      {"FLOPSPY_CPU_MIN_MS", "2.5"},
      {"FLOPSPY_PCM_URL", "http://127.0.0.1:1234/"},
      {"FLOPSPY_SYSFS_ROOT", "/fake/sys"},
      {"FLOPSPY_CPUID", "GenuineIntel:6:0x8F:8"},
  });
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.config.mode, BackendMode::kReplay);
  EXPECT_EQ(p.config.replay_path, "/tmp/r.jsonl");
  EXPECT_EQ(p.config.interval_ms, 20u);
  EXPECT_EQ(p.config.extra_events, "a@flops");
  EXPECT_EQ(p.config.precision, PrecisionSelect::kDp);
  EXPECT_DOUBLE_EQ(*p.config.peak_gflops, 123.5);
  EXPECT_DOUBLE_EQ(*p.config.bandwidth_gbs, 45);
  EXPECT_EQ(p.config.min_trusted_ns, 2'500'000u);
  EXPECT_EQ(p.config.pcm_url, "http://127.0.0.1:1234/");
  EXPECT_EQ(p.config.paths.sysfs_root, "/fake/sys");
  ASSERT_TRUE(p.config.cpu_override);
  EXPECT_EQ(p.config.cpu_override->model, 0x8Fu);
}

TEST(SamplerConfig, IntervalRangeIsTheReadmes) {
  // README and docs/cpu-roofline.md: 10 to 60000 ms; a faster sampler would perturb the program.
  for (const auto& [value, accepted] : std::vector<std::pair<std::string, bool>>{
           {"9", false}, {"10", true}, {"60000", true}, {"60001", false}}) {
    const auto p =
        ParseSamplerConfig(std::map<std::string, std::string>{{"FLOPSPY_CPU_INTERVAL_MS", value}});
    EXPECT_EQ(p.warnings.empty(), accepted) << value;
    EXPECT_EQ(p.config.interval_ms, accepted ? std::stoul(value) : 100u) << value;
  }
}

TEST(SamplerConfig, BadValuesWarnAndKeepDefaults) {
  const auto p = ParseSamplerConfig(std::map<std::string, std::string>{
      {"FLOPSPY_CPU_ROOFLINE", "sometimes"},
      {"FLOPSPY_CPU_INTERVAL_MS", "0"},
      {"FLOPSPY_CPU_PRECISION", "quad"},
      {"FLOPSPY_CPU_PEAK_GFLOPS", "-3"},
      {"FLOPSPY_CPU_BW_GBS", "fast"},
      {"FLOPSPY_CPU_MIN_MS", "x"},
      {"FLOPSPY_PCM_URL", "ftp://x"},
      {"FLOPSPY_CPUID", "Cyrix:1:2"},
  });
  EXPECT_EQ(p.warnings.size(), 8u);
  EXPECT_EQ(p.config.mode, BackendMode::kAuto);
  EXPECT_EQ(p.config.interval_ms, 100u);
  EXPECT_FALSE(p.config.peak_gflops);
  EXPECT_FALSE(p.config.cpu_override);
  EXPECT_NE(p.warnings[0].find("FLOPSPY_CPU_ROOFLINE=\"sometimes\" is not valid"),
            std::string::npos)
      << p.warnings[0];
}

TEST(SamplerConfig, ModesAndTheOldIntervalName) {
  auto mode = [](const char* v) {
    return ParseSamplerConfig(std::map<std::string, std::string>{{"FLOPSPY_CPU_ROOFLINE", v}})
        .config.mode;
  };
  EXPECT_EQ(mode("off"), BackendMode::kOff);
  EXPECT_EQ(mode("perf"), BackendMode::kPerf);
  EXPECT_EQ(mode("pcm-http"), BackendMode::kPcmHttp);
  EXPECT_EQ(mode("pcm-csv:/x.csv"), BackendMode::kPcmCsv);
  const auto csv =
      ParseSamplerConfig(std::map<std::string, std::string>{{"FLOPSPY_CPU_ROOFLINE", "pcm-csv"}});
  EXPECT_EQ(csv.warnings.size(), 1u);  // no file given
  const auto old =
      ParseSamplerConfig(std::map<std::string, std::string>{{"FLOPSPY_CPU_SAMPLE_MS", "50"}});
  EXPECT_EQ(old.config.interval_ms, 50u);
}

// The recorder reads its integers whole and in plain decimal (interpose/src/config.cpp); the
// CPU numbers read the same way, so " 5", "0x10" or "1e3" is one warning and the default.
TEST(SamplerConfig, NumbersAreReadAsStrictlyAsTheRecordersOwn) {
  for (const std::string bad :
       {" 50", "50 ", "+50", "0x10", "1e3", "50.0", "", "-50", "99999999999999999999999"}) {
    const auto p =
        ParseSamplerConfig(std::map<std::string, std::string>{{"FLOPSPY_CPU_INTERVAL_MS", bad}});
    ASSERT_EQ(p.warnings.size(), 1u) << "'" << bad << "'";
    EXPECT_EQ(p.warnings[0], "FLOPSPY_CPU_INTERVAL_MS=\"" + bad +
                                 "\" is not valid (expected a whole number of milliseconds from "
                                 "10 to 60000); using 100");
    EXPECT_EQ(p.config.interval_ms, 100u);
  }
  for (const std::string bad :
       {" 5", "5 ", "0x10", "1e3", "+5", "-5", "inf", "nan", ".5", "5.", "", "0", "1,5"}) {
    const auto p = ParseSamplerConfig(std::map<std::string, std::string>{
        {"FLOPSPY_CPU_PEAK_GFLOPS", bad}, {"FLOPSPY_CPU_BW_GBS", bad}});
    EXPECT_EQ(p.warnings.size(), 2u) << "'" << bad << "'";
    EXPECT_FALSE(p.config.peak_gflops) << "'" << bad << "'";
    EXPECT_FALSE(p.config.bandwidth_gbs) << "'" << bad << "'";
  }
  for (const std::string bad : {"1e1", " 2", "0x1", "-0", "3600001"}) {
    const auto p =
        ParseSamplerConfig(std::map<std::string, std::string>{{"FLOPSPY_CPU_MIN_MS", bad}});
    EXPECT_EQ(p.warnings.size(), 1u) << "'" << bad << "'";
    EXPECT_EQ(p.config.min_trusted_ns, 10'000'000u) << "'" << bad << "'";
  }
  const auto good =
      ParseSamplerConfig(std::map<std::string, std::string>{{"FLOPSPY_CPU_INTERVAL_MS", "050"},
                                                            {"FLOPSPY_CPU_PEAK_GFLOPS", "850"},
                                                            {"FLOPSPY_CPU_BW_GBS", "42.25"},
                                                            {"FLOPSPY_CPU_MIN_MS", "0"}});
  EXPECT_TRUE(good.warnings.empty());
  EXPECT_EQ(good.config.interval_ms, 50u);
  EXPECT_DOUBLE_EQ(*good.config.peak_gflops, 850);
  EXPECT_DOUBLE_EQ(*good.config.bandwidth_gbs, 42.25);
  EXPECT_EQ(good.config.min_trusted_ns, 0u);
}

// Only a valid source named on purpose makes the capability lines appear on stderr
// (interpose/src/cpu_sampling.cpp); a bad value is its one warning, an empty one is auto.
TEST(SamplerConfig, OnlyAValidNamedSourceIsExplicit) {
  const std::vector<std::tuple<std::string, bool, size_t>> cases = {
      {"abc", false, 1},      {"", false, 0},        {"auto", false, 0},
      {"off", false, 0},      {"perf", true, 0},     {"pcm-http", true, 0},
      {"replay:/x", true, 0}, {"replay:", false, 1}, {"perf\nx", false, 1}};
  for (const auto& [value, explicit_source, warnings] : cases) {
    const auto p =
        ParseSamplerConfig(std::map<std::string, std::string>{{"FLOPSPY_CPU_ROOFLINE", value}});
    EXPECT_EQ(p.config.mode_explicit, explicit_source) << "'" << value << "'";
    EXPECT_EQ(p.warnings.size(), warnings) << "'" << value << "'";
  }
  EXPECT_FALSE(ParseSamplerConfig(std::map<std::string, std::string>{}).config.mode_explicit);
}

}  // namespace
}  // namespace flopspy::cpuroof
