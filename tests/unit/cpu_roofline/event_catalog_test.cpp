// The built-in event tables per CPU family, as golden plan dumps (tests/data/cpu_roofline/plans)
// and as spot checks against docs/cpu-counters-notes.md ("FLOP events by CPU family", "DRAM
// traffic events by CPU family").
// FLOPSPY_UPDATE_GOLDEN=1 rewrites the golden files; review the diff before committing.
#include "flopspy/cpu_roofline/event_catalog.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "flopspy/trace/schema.h"
#include "test_paths.h"

namespace flopspy::cpuroof {
namespace {

struct Case {
  const char* name;   // golden file name
  const char* cpuid;  // FLOPSPY_CPUID form
  const char* tree;   // fake sysfs tree
};

const Case kCases[] = {
    {"snb", "GenuineIntel:6:0x2A", "cpu_only"},
    {"hsx", "GenuineIntel:6:0x3F", "cpu_only"},
    {"bdw", "GenuineIntel:6:0x3D", "cpu_only"},
    {"skl", "GenuineIntel:6:0x5E", "skl_client"},
    {"skx", "GenuineIntel:6:0x55", "skx_2s"},
    {"skx_broken", "GenuineIntel:6:0x55", "skx_broken"},
    {"icl", "GenuineIntel:6:0x7E", "cpu_only"},
    {"icx", "GenuineIntel:6:0x6A", "icx"},
    {"spr", "GenuineIntel:6:0x8F", "spr"},
    {"emr", "GenuineIntel:6:0xCF", "spr"},
    {"gnr", "GenuineIntel:6:0xAD", "gnr"},
    {"srf", "GenuineIntel:6:0xAF", "gnr"},
    {"adl", "GenuineIntel:6:0x97", "adl_hybrid"},
    {"intel_unknown", "GenuineIntel:6:0x01", "cpu_only"},
    {"zen1", "AuthenticAMD:0x17:0x01", "zen2_df"},
    {"zen2", "AuthenticAMD:0x17:0x31", "zen2_df"},
    {"zen3", "AuthenticAMD:0x19:0x01", "zen2_df"},
    {"zen4", "AuthenticAMD:0x19:0x11", "zen4_umc"},
    {"zen4_vm", "AuthenticAMD:0x19:0x11", "zen4_vm"},
    {"zen5", "AuthenticAMD:0x1A:0x02", "zen4_umc"},
    {"neoverse_n1", "ARM:0x41:0xd0c", "neoverse_v1"},
    {"neoverse_v1", "ARM:0x41:0xd40:256", "neoverse_v1"},
    {"neoverse_v1_novl", "ARM:0x41:0xd40", "neoverse_v1"},
    {"neoverse_v2", "ARM:0x41:0xd4f:128", "neoverse_v1"},
};

EventPlan PlanFor(const char* cpuid, const char* tree, PlanOptions opts = {}) {
  std::string error;
  auto cpu = ParseCpuIdOverride(cpuid, &error);
  EXPECT_TRUE(cpu) << error;
  SysfsView sysfs(testing::FakeHost(tree));
  return BuildEventPlan(*cpu, sysfs, opts);
}

// Replaces the fixture root so goldens do not depend on where the tree is checked out.
std::string Portable(std::string text) {
  const std::string root = testing::DataDir();
  for (size_t pos; (pos = text.find(root)) != std::string::npos;) {
    text.replace(pos, root.size(), "<data>");
  }
  return text;
}

TEST(EventCatalog, PlansMatchTheGoldenFiles) {
  const bool update = std::getenv("FLOPSPY_UPDATE_GOLDEN") != nullptr;
  for (const Case& c : kCases) {
    const std::string got = Portable(DescribePlan(PlanFor(c.cpuid, c.tree)));
    const std::string path = testing::DataDir() + "/plans/" + c.name + ".txt";
    if (update) {
      std::ofstream(path) << got;
      continue;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << "missing golden " << path << " (run with FLOPSPY_UPDATE_GOLDEN=1)";
    const std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(got, want) << "plan of " << c.name << " changed";
  }
}

// Spot checks straight from the facts' tables, independent of the goldens.
double WeightOf(const EventPlan& plan, uint64_t config) {
  for (const PlannedEvent& e : plan.events) {
    if (e.quantity == Quantity::kFlops && e.config == config) return e.weight;
  }
  return -1;
}

TEST(EventCatalog, IntelWeightsAreLanesPerCount) {
  const EventPlan spr = PlanFor("GenuineIntel:6:0x8F", "spr");
  EXPECT_EQ(WeightOf(spr, 0x01c7), 1);  // scalar double
  EXPECT_EQ(WeightOf(spr, 0x04c7), 2);  // 128-bit double
  EXPECT_EQ(WeightOf(spr, 0x10c7), 4);  // 256-bit double
  EXPECT_EQ(WeightOf(spr, 0x40c7), 8);  // 512-bit double
  EXPECT_EQ(WeightOf(spr, 0x02c7), 1);  // scalar single
  EXPECT_EQ(WeightOf(spr, 0x08c7), 4);
  EXPECT_EQ(WeightOf(spr, 0x20c7), 8);
  EXPECT_EQ(WeightOf(spr, 0x80c7), 16);
  EXPECT_EQ(WeightOf(spr, 0x01cf), 1);   // FP16 scalar
  EXPECT_EQ(WeightOf(spr, 0x02cf), 2);   // complex scalar half
  EXPECT_EQ(WeightOf(spr, 0x10cf), 32);  // 512-bit half
  EXPECT_EQ(spr.work_flags, 0u);

  const EventPlan skl = PlanFor("GenuineIntel:6:0x5E", "skl_client");
  EXPECT_EQ(WeightOf(skl, 0x40c7), -1);  // no AVX-512 on the client parts
  EXPECT_EQ(WeightOf(skl, 0x01cf), -1);

  const EventPlan snb = PlanFor("GenuineIntel:6:0x2A", "cpu_only");
  EXPECT_EQ(WeightOf(snb, 0x8010), 1);
  EXPECT_EQ(WeightOf(snb, 0x1010), 2);
  EXPECT_EQ(WeightOf(snb, 0x0211), 4);
  EXPECT_EQ(WeightOf(snb, 0x0111), 8);
  EXPECT_TRUE(snb.work_flags & trace::kCpuExecutedNotRetired);

  const EventPlan hsw = PlanFor("GenuineIntel:6:0x3C", "cpu_only");
  EXPECT_NE(hsw.work_missing.find("Haswell"), std::string::npos);
}

TEST(EventCatalog, AmdCountsFlopsWithoutPrecisionSplitUntilZen5) {
  const EventPlan zen4 = PlanFor("AuthenticAMD:0x19:0x11", "zen4_umc");
  EXPECT_EQ(WeightOf(zen4, 0x0f03), 1);  // 0x0F, not ANY (0x1F): no bfloat16
  EXPECT_EQ(WeightOf(zen4, 0x1f03), -1);
  EXPECT_TRUE(zen4.work_flags & trace::kCpuNoPrecisionSplit);
  const EventPlan zen1 = PlanFor("AuthenticAMD:0x17:0x01", "zen2_df");
  EXPECT_EQ(WeightOf(zen1, 0xf003), 1);
  EXPECT_FALSE(zen1.work_flags & trace::kCpuNoPrecisionSplit);
  const EventPlan zen5 = PlanFor("AuthenticAMD:0x1A:0x02", "zen4_umc");
  EXPECT_EQ(WeightOf(zen5, 0x8f03), 1);
  EXPECT_EQ(WeightOf(zen5, 0xaf03), 1);
}

TEST(EventCatalog, ArmScaleWeightFollowsTheVectorLength) {
  const EventPlan v1 = PlanFor("ARM:0x41:0xd40:256", "neoverse_v1");
  EXPECT_EQ(WeightOf(v1, 0x80c1), 1);
  EXPECT_EQ(WeightOf(v1, 0x80c0), 2);  // 256-bit SVE: two 128-bit granules per count
  EXPECT_TRUE(v1.work_flags & trace::kCpuSpeculative);
  const EventPlan v2 = PlanFor("ARM:0x41:0xd4f:128", "neoverse_v1");
  EXPECT_EQ(WeightOf(v2, 0x80c0), 1);
  for (const PlannedEvent& e : v1.events) {
    if (e.quantity == Quantity::kFlops) {
      EXPECT_EQ(e.type, 8u) << "armv8_pmuv3_0's sysfs type";
    }
  }
}

TEST(EventCatalog, PrecisionSelectionKeepsUnsplitEvents) {
  PlanOptions dp;
  dp.precision = PrecisionSelect::kDp;
  const EventPlan spr = PlanFor("GenuineIntel:6:0x8F", "spr", dp);
  EXPECT_EQ(WeightOf(spr, 0x02c7), -1);
  EXPECT_EQ(WeightOf(spr, 0x01c7), 1);
  const EventPlan zen4 = PlanFor("AuthenticAMD:0x19:0x11", "zen4_umc", dp);
  EXPECT_EQ(WeightOf(zen4, 0x0f03), 1);
}

TEST(EventCatalog, UncoreAliasesAndScaleOnTwoSockets) {
  const EventPlan skx = PlanFor("GenuineIntel:6:0x55", "skx_2s");
  int reads = 0, writes = 0;
  for (const PlannedEvent& e : skx.events) {
    if (e.quantity != Quantity::kBytes) continue;
    EXPECT_DOUBLE_EQ(e.weight, 64.0) << e.name;  // .scale x .unit, applied once
    EXPECT_TRUE(e.cpu == 0 || e.cpu == 28) << e.name;
    if (e.direction == Direction::kRead) {
      ++reads;
      EXPECT_EQ(e.config, 0x0304u);
    } else {
      ++writes;
      EXPECT_EQ(e.config, 0x0c04u);
    }
  }
  EXPECT_EQ(reads, 4);  // 2 controllers x 2 sockets
  EXPECT_EQ(writes, 4);
  EXPECT_TRUE(skx.traffic_flags & trace::kCpuSystemWideMemory);
}

TEST(EventCatalog, UncoreFallsBackToFormatTerms) {
  const EventPlan icx = PlanFor("GenuineIntel:6:0x6A", "icx");
  std::vector<uint64_t> configs;
  for (const PlannedEvent& e : icx.events) {
    if (e.quantity == Quantity::kBytes) configs.push_back(e.config);
  }
  EXPECT_EQ(configs, (std::vector<uint64_t>{0x0f04, 0x3004}));
  const EventPlan zen2 = PlanFor("AuthenticAMD:0x17:0x31", "zen2_df");
  int channels = 0;
  for (const PlannedEvent& e : zen2.events) {
    if (e.quantity != Quantity::kBytes) continue;
    ++channels;
    EXPECT_EQ(e.direction, Direction::kAny);
  }
  EXPECT_EQ(channels, 8);
  const EventPlan zen4 = PlanFor("AuthenticAMD:0x19:0x11", "zen4_umc");
  for (const PlannedEvent& e : zen4.events) {
    if (e.quantity != Quantity::kBytes) continue;
    EXPECT_EQ(e.config, e.direction == Direction::kRead ? 0x010au : 0x020au);
  }
}

TEST(EventCatalog, SaysWhyQIsMissing) {
  const EventPlan vm = PlanFor("AuthenticAMD:0x19:0x11", "zen4_vm");
  EXPECT_NE(vm.traffic_missing.find("amd_umc_*"), std::string::npos);
  EXPECT_NE(vm.traffic_missing.find("Linux 6.7"), std::string::npos);
  EXPECT_FALSE(vm.core_pmu_present);
  const EventPlan broken = PlanFor("GenuineIntel:6:0x55", "skx_broken");
  EXPECT_NE(broken.traffic_missing.find("could not be encoded"), std::string::npos);
  for (const PlannedEvent& e : broken.events) {
    EXPECT_NE(e.quantity, Quantity::kBytes);
  }
  const EventPlan arm = PlanFor("ARM:0x41:0xd40:256", "neoverse_v1");
  EXPECT_NE(arm.traffic_missing.find("Arm"), std::string::npos);
}

TEST(EventCatalog, HybridUsesThePCorePmu) {
  const EventPlan adl = PlanFor("GenuineIntel:6:0x97", "adl_hybrid");
  EXPECT_EQ(adl.core_pmu, "cpu_core");
  bool noted = false;
  for (const std::string& n : adl.notes) noted |= n.find("E-cores") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(EventCatalog, FamiliesCoverTheFactsModelLists) {
  auto key = [](const char* id) {
    std::string error;
    return std::string(IdentifyFamily(*ParseCpuIdOverride(id, &error)).key);
  };
  EXPECT_EQ(key("GenuineIntel:6:0x3E"), "snb");
  EXPECT_EQ(key("GenuineIntel:6:0x56"), "bdw");
  EXPECT_EQ(key("GenuineIntel:6:0xA5"), "skl");
  EXPECT_EQ(key("GenuineIntel:6:0x8D"), "icl");
  EXPECT_EQ(key("GenuineIntel:6:0x6C"), "icx");
  EXPECT_EQ(key("GenuineIntel:6:0xAE"), "gnr");
  EXPECT_EQ(key("GenuineIntel:6:0xBF"), "intel-hybrid");
  EXPECT_EQ(key("GenuineIntel:6:0xC6"), "intel-hybrid");
  EXPECT_EQ(key("AuthenticAMD:0x19:0x61"), "zen4");
  EXPECT_EQ(key("AuthenticAMD:0x19:0xA0"), "zen4");
  EXPECT_EQ(key("AuthenticAMD:0x19:0x21"), "zen3");
  EXPECT_EQ(key("ARM:0x41:0xd84"), "neoverse-v3");
  EXPECT_EQ(key("ARM:0x41:0xd8e"), "neoverse-n3");
  EXPECT_EQ(key("ARM:0x61:0x22"), "arm");
}

}  // namespace
}  // namespace flopspy::cpuroof
