// ParseConfig, the FLOPSPY_* variables read once at start: each variable's good value is taken,
// and a bad one leaves the default in force with exactly one warning naming the variable.
#include "config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace flopspy::interpose {
namespace {

using ::testing::HasSubstr;

ConfigResult Parse(const std::map<std::string, std::string, std::less<>>& env) {
  return ParseConfig([&](std::string_view name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

struct Case {
  const char* variable;
  const char* good;
  std::function<bool(const Config&)> took_good;
  const char* bad;
};

std::string NameOf(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.variable).substr(sizeof("FLOPSPY_") - 1);
}

class EachVariable : public ::testing::TestWithParam<Case> {};

TEST_P(EachVariable, AGoodValueIsTaken) {
  const Case& c = GetParam();
  const ConfigResult r = Parse({{c.variable, c.good}});
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  EXPECT_TRUE(c.took_good(r.config));
}

TEST_P(EachVariable, ABadValueKeepsTheDefaultWithOneWarning) {
  const Case& c = GetParam();
  const ConfigResult r = Parse({{c.variable, c.bad}});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr(std::string(c.variable) + "=\"" + c.bad + "\""));
  EXPECT_THAT(r.warnings[0], HasSubstr("using"));
  EXPECT_EQ(ConfigToJson(r.config), ConfigToJson(Config{}));
}

INSTANTIATE_TEST_SUITE_P(
    Config, EachVariable,
    ::testing::Values(
        Case{"FLOPSPY_ENABLE", "off", [](const Config& c) { return !c.enabled; }, "maybe"},
        Case{"FLOPSPY_OUT", "/tmp/traces",
             [](const Config& c) { return c.out_dir == "/tmp/traces"; }, ""},
        // Rounded up to a power of two.
        Case{"FLOPSPY_BUFFER_KB", "100", [](const Config& c) { return c.buffer_kib == 128; }, "32"},
        Case{"FLOPSPY_FLUSH_MS", "10000", [](const Config& c) { return c.flush_ms == 10000; },
             "10001"},
        Case{"FLOPSPY_CLOCK", "monotonic",
             [](const Config& c) { return c.clock == ClockChoice::kMonotonic; }, "rdtsc"},
        Case{"FLOPSPY_FOLLOW_FORK", "0", [](const Config& c) { return !c.follow_fork; }, "2"},
        Case{"FLOPSPY_SIGNALS", "no", [](const Config& c) { return !c.handle_signals; }, "nope"},
        Case{"FLOPSPY_RUN_ID", "BEEF", [](const Config& c) { return c.run_id == 0xBEEF; }, "0xZZ"},
        Case{"FLOPSPY_QUIET", "1", [](const Config& c) { return c.quiet; }, "loud"},
        Case{"FLOPSPY_PARAM_BYTES", "0", [](const Config& c) { return c.param_bytes == 0; }, "256"},
        Case{"FLOPSPY_GPU_TIMING", "off",
             [](const Config& c) { return c.gpu_timing == GpuTiming::kOff; }, "sometimes"},
        Case{"FLOPSPY_COMPRESS", "off", [](const Config& c) { return !c.compress; }, "lz4"},
        Case{"FLOPSPY_GPU_JOIN", "stream",
             [](const Config& c) { return c.gpu_join == GpuJoin::kStream; }, "order"},
        Case{"FLOPSPY_GPU_WINDOWS", "0.5/5",
             [](const Config& c) {
               return c.gpu_window_ns == 500'000'000 && c.gpu_period_ns == 5'000'000'000;
             },
             "5/5"},
        Case{"FLOPSPY_CUPTI_API_RECORDS", "selected",
             [](const Config& c) { return c.cupti_api_records == CuptiApiRecords::kSelected; },
             "none"},
        Case{"FLOPSPY_COUNTERS", "true", [](const Config& c) { return c.counters; }, "yes please"},
        Case{"FLOPSPY_COUNTERS_SAMPLES", "1000",
             [](const Config& c) { return c.counters_samples == 1000; }, "0"},
        Case{"FLOPSPY_COUNTERS_REPLAY", "launches",
             [](const Config& c) { return c.counters_replay == CountersReplay::kLaunches; },
             "passes"},
        Case{"FLOPSPY_COUNTERS_METRICS", "fp32,dram",
             [](const Config& c) { return c.counters_groups != Config{}.counters_groups; },
             "fp128"},
        Case{"FLOPSPY_MODEL_FLOPS", "1.5e15",
             [](const Config& c) { return c.model_flops == 1.5e15; }, "-3"}),
    NameOf);

TEST(ParseConfig, TheCuptiPathTakesAnyValueEvenEmpty) {
  for (const char* path : {"", "/opt/cupti/libcupti.so.13"}) {
    const ConfigResult r = Parse({{"FLOPSPY_CUPTI_PATH", path}});
    EXPECT_TRUE(r.warnings.empty());
    EXPECT_EQ(r.config.cupti_path, path);
  }
}

TEST(ParseConfig, GpuTimingMayBeSampled) {
  const ConfigResult r = Parse({{"FLOPSPY_GPU_TIMING", "sampled"}});
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.config.gpu_timing, GpuTiming::kSampled);
  EXPECT_EQ(GpuTimingName(r.config.gpu_timing), "sampled");
}

TEST(ParseConfig, GpuWindowsWantOpenBelowAPeriod) {
  for (const char* bad : {"2", "2/", "/30", "0/30", "30/30", "2/30s", "-1/5", "2/100000"}) {
    const ConfigResult r = Parse({{"FLOPSPY_GPU_WINDOWS", bad}});
    ASSERT_EQ(r.warnings.size(), 1u) << bad;
    EXPECT_NE(r.warnings[0].find("OPEN/PERIOD"), std::string::npos) << r.warnings[0];
    EXPECT_EQ(r.config.gpu_window_ns, Config{}.gpu_window_ns) << bad;
    EXPECT_EQ(r.config.gpu_period_ns, Config{}.gpu_period_ns) << bad;
  }
}

TEST(ParseConfig, NothingSetIsTheDefaultsAndNoWarning) {
  const ConfigResult r = Parse({});
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(ConfigToJson(r.config), ConfigToJson(Config{}));
}

TEST(ParseConfig, NumbersAreWholeStringsOfDigits) {
  for (const char* bad : {"12abc", " 64", "-1", "1e3", ""}) {
    const ConfigResult r = Parse({{"FLOPSPY_FLUSH_MS", bad}});
    EXPECT_EQ(r.warnings.size(), 1u) << bad;
    EXPECT_EQ(r.config.flush_ms, Config{}.flush_ms) << bad;
  }
}

TEST(ParseConfig, EachBadValueIsItsOwnWarning) {
  const ConfigResult r =
      Parse({{"FLOPSPY_ENABLE", "x"}, {"FLOPSPY_FLUSH_MS", "0"}, {"FLOPSPY_OUT", "ok"}});
  EXPECT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.config.out_dir, "ok");
}

TEST(ParseConfig, EveryParsedVariableIsDocumented) {
  std::map<std::string, std::string, std::less<>> listed;
  for (const ConfigVariable& v : ConfigVariables()) listed.emplace(v.name, v.default_value);
  for (const char* name :
       {"FLOPSPY_ENABLE", "FLOPSPY_OUT", "FLOPSPY_BUFFER_KB", "FLOPSPY_FLUSH_MS", "FLOPSPY_CLOCK",
        "FLOPSPY_FOLLOW_FORK", "FLOPSPY_SIGNALS", "FLOPSPY_RUN_ID", "FLOPSPY_QUIET",
        "FLOPSPY_PARAM_BYTES", "FLOPSPY_GPU_TIMING", "FLOPSPY_GPU_JOIN", "FLOPSPY_COMPRESS",
        "FLOPSPY_CUPTI_PATH", "FLOPSPY_CUPTI_API_RECORDS", "FLOPSPY_COUNTERS",
        "FLOPSPY_COUNTERS_SAMPLES", "FLOPSPY_COUNTERS_REPLAY", "FLOPSPY_COUNTERS_METRICS"}) {
    EXPECT_TRUE(listed.contains(name)) << name;
  }
}

}  // namespace
}  // namespace flopspy::interpose
