// Parsing of /sys/bus/event_source/devices: formats, event terms, aliases, cpumasks.
#include "flopspy/cpu_roofline/sysfs_pmu.h"

#include <gtest/gtest.h>

#include "test_paths.h"

namespace flopspy::cpuroof {
namespace {

TEST(FormatField, ParsesSingleSplitAndOtherWords) {
  auto event = ParseFormatField("config:0-7\n");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->word, 0);
  ASSERT_EQ(event->ranges.size(), 1u);
  EXPECT_EQ(event->ranges[0], std::make_pair(0, 7));

  auto split = ParseFormatField("config:0-7,32-37");
  ASSERT_TRUE(split);
  ASSERT_EQ(split->ranges.size(), 2u);
  EXPECT_EQ(split->ranges[1], std::make_pair(32, 37));

  auto bit = ParseFormatField("config:18");
  ASSERT_TRUE(bit);
  EXPECT_EQ(bit->ranges[0], std::make_pair(18, 18));

  auto c1 = ParseFormatField("config1:0-3");
  ASSERT_TRUE(c1);
  EXPECT_EQ(c1->word, 1);

  EXPECT_FALSE(ParseFormatField("config3:0-7"));
  EXPECT_FALSE(ParseFormatField("config:7-0"));
  EXPECT_FALSE(ParseFormatField("config:0-64"));
  EXPECT_FALSE(ParseFormatField("nonsense"));
}

TEST(EventTerms, ParsesValuesAndBareTerms) {
  auto t = ParseEventTerms("event=0x04,umask=0x03");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0], std::make_pair(std::string("event"), uint64_t{4}));
  EXPECT_EQ((*t)[1], std::make_pair(std::string("umask"), uint64_t{3}));
  auto bare = ParseEventTerms("event=0x3c,edge");
  ASSERT_TRUE(bare);
  EXPECT_EQ((*bare)[1].second, 1u);
  EXPECT_FALSE(ParseEventTerms("config=?"));
}

TEST(EncodeTerms, SplitsValuesOverRanges) {
  PmuInfo df;
  df.name = "amd_df";
  df.formats["event"] = *ParseFormatField("config:0-7,32-37");
  df.formats["umask"] = *ParseFormatField("config:8-15,24-27");
  EncodedConfig enc;
  std::string error;
  // Channel 4 of the Zen 2/3 DRAM events: event 0x107 puts 0x07 in bits 0-7 and 1 in bit 32.
  ASSERT_TRUE(EncodeTerms(df, {{"event", 0x107}, {"umask", 0x38}}, &enc, &error)) << error;
  EXPECT_EQ(enc.config, (uint64_t{1} << 32) | 0x3807);

  // A value wider than its field is refused, not truncated.
  EXPECT_FALSE(EncodeTerms(df, {{"umask", 0x1000}}, &enc, &error));
  EXPECT_NE(error.find("does not fit"), std::string::npos);
  EXPECT_FALSE(EncodeTerms(df, {{"rdwrmask", 1}}, &enc, &error));
  EXPECT_NE(error.find("no format field"), std::string::npos);

  // Raw config words pass through.
  ASSERT_TRUE(EncodeTerms(df, {{"config", 0x1234}}, &enc, &error));
  EXPECT_EQ(enc.config, 0x1234u);
}

TEST(EventAlias, ScaleAndUnitGiveBytesPerCount) {
  EventAlias cas{"event=0x04,umask=0x03", 6.103515625e-5, "MiB"};
  EXPECT_DOUBLE_EQ(cas.BytesPerCount(), 64.0);
  EventAlias mb{"", 6.4e-5, "MB"};
  EXPECT_DOUBLE_EQ(mb.BytesPerCount(), 64.0);
  EventAlias none{"", 0, ""};
  EXPECT_EQ(none.BytesPerCount(), 0);
  EventAlias joules{"", 2.3e-10, "Joules"};
  EXPECT_EQ(joules.BytesPerCount(), 0);
}

TEST(CpuList, ParsesListsAndRanges) {
  EXPECT_EQ(ParseCpuList("0,28\n"), (std::vector<int>{0, 28}));
  EXPECT_EQ(ParseCpuList("0-3,8"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_TRUE(ParseCpuList("").empty());
}

TEST(SysfsView, ReadsTheTwoSocketSkylakeTree) {
  SysfsView view(testing::FakeHost("skx_2s"));
  const auto pmus = view.ListPmus();
  EXPECT_NE(std::find(pmus.begin(), pmus.end(), "uncore_imc_1"), pmus.end());
  auto imc = view.ReadPmu("uncore_imc_0");
  ASSERT_TRUE(imc);
  EXPECT_EQ(imc->type, 14u);
  EXPECT_EQ(imc->cpumask, (std::vector<int>{0, 28}));  // one fd per socket
  ASSERT_EQ(imc->events.count("cas_count_read"), 1u);
  EXPECT_EQ(imc->events["cas_count_read"].terms, "event=0x04,umask=0x03");
  EXPECT_DOUBLE_EQ(imc->events["cas_count_read"].BytesPerCount(), 64.0);
  EXPECT_EQ(imc->events.count("cas_count_read.scale"), 0u);
  auto cpu = view.ReadPmu("cpu");
  ASSERT_TRUE(cpu);
  EXPECT_TRUE(cpu->cpumask.empty());
  EXPECT_EQ(cpu->formats.count("umask"), 1u);
}

TEST(SysfsView, MissingPmusAndTrees) {
  SysfsView vm(testing::FakeHost("zen4_vm"));
  EXPECT_FALSE(vm.HasPmu("cpu"));
  EXPECT_TRUE(vm.HasPmu("software"));
  EXPECT_FALSE(vm.ReadPmu("uncore_imc_0"));
  HostPaths nowhere;
  nowhere.sysfs_root = "/nonexistent";
  SysfsView none(nowhere);
  EXPECT_TRUE(none.ListPmus().empty());
}

TEST(SysfsView, HybridTreeHasBothCorePmus) {
  SysfsView view(testing::FakeHost("adl_hybrid"));
  auto core = view.ReadPmu("cpu_core");
  auto atom = view.ReadPmu("cpu_atom");
  ASSERT_TRUE(core && atom);
  EXPECT_EQ(core->type, 4u);
  EXPECT_EQ(atom->type, 10u);
}

}  // namespace
}  // namespace flopspy::cpuroof
