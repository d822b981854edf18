// The profiler host API of the toolkit's real libcupti, without a GPU (docs/cuda-notes.md, "The
// profiler host API": it works offline for any chip it knows): counter mode's metrics exist on
// every chip of each generation, and configuration images build for sm_80 (GA100) and sm_90
// (GH100).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "flopspy/gpu_roofline/counter_host.h"

namespace flopspy::gpuroof {
namespace {

class HostConfig : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::string(FLOPSPY_REAL_CUPTI).empty()) return;
    handle_ = dlopen(FLOPSPY_REAL_CUPTI, RTLD_NOW | RTLD_LOCAL);
  }
  void SetUp() override {
    if (handle_ == nullptr) GTEST_SKIP() << "no libcupti in the toolkit: " << FLOPSPY_REAL_CUPTI;
  }
  static CuptiSymbolLookup Lookup() {
    return [](const char* name) { return dlsym(handle_, name); };
  }
  static std::set<std::string> Names(const CounterPlan& plan) {
    std::set<std::string> names;
    for (const PassGroup& g : plan.groups) {
      for (const auto& t : g.host->terms()) names.insert(t.name);
    }
    return names;
  }
  static inline void* handle_ = nullptr;
};

TEST_F(HostConfig, HopperPlanPacksTheMetricsIntoOnePassGroups) {
  std::string error;
  auto plan =
      PlanCounters(Lookup(), "GH100", {}, kAllCounterGroups, PassGrouping::kOnePass, &error);
  ASSERT_TRUE(plan.has_value()) << error;
  EXPECT_EQ(plan->family, ChipFamily::kHopper);
  // Seen with CUDA 13.0's CUPTI: together the 18 metrics need 5 replay passes. Packed, the 9 FP
  // instruction counters fill one pass; DRAM read and write, duration and L2 another; the
  // tensor paths take the rest, where sm__ops_path_tensor_src_fp16 alone needs 2 passes.
  const auto names = Names(*plan);
  EXPECT_EQ(names.size(), 18u);
  EXPECT_TRUE(names.contains("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"));
  EXPECT_TRUE(names.contains("sm__ops_path_tensor_src_fp8.sum"));
  EXPECT_TRUE(names.contains("dram__bytes_write.sum"));
  EXPECT_TRUE(names.contains("lts__t_bytes.sum"));
  EXPECT_TRUE(plan->notes.empty()) << plan->notes.front();
  ASSERT_EQ(plan->non_tensor_groups, 2u);
  ASSERT_GE(plan->groups.size(), 3u);
  size_t passes = 0;
  uint32_t quantities = 0;
  for (size_t g = 0; g < plan->groups.size(); ++g) {
    SCOPED_TRACE(g);
    const PassGroup& group = plan->groups[g];
    ASSERT_NE(group.host, nullptr);
    EXPECT_FALSE(group.host->config_image().empty());
    EXPECT_EQ(group.passes, group.host->passes());
    EXPECT_EQ(group.tensor, g >= plan->non_tensor_groups);
    // Only a lone metric may need more than one pass.
    if (group.passes > 1) {
      EXPECT_EQ(group.host->terms().size(), 1u);
    }
    for (const auto& t : group.host->terms()) {
      EXPECT_EQ(t.quantity == CounterQuantity::kTensor, group.tensor) << t.name;
      EXPECT_NE(group.quantities & ValidBitOf(t.quantity), 0u) << t.name;
    }
    passes += group.passes;
    quantities |= group.quantities;
  }
  EXPECT_EQ(plan->passes, passes);
  EXPECT_EQ(plan->groups[0].quantities,
            uint32_t{trace::kMetricsFp32 | trace::kMetricsFp64 | trace::kMetricsFp16});
  EXPECT_EQ(plan->groups[1].quantities,
            uint32_t{trace::kMetricsDram | trace::kMetricsDuration | trace::kMetricsL2});
  EXPECT_EQ(quantities, 0x7Fu);
  EXPECT_EQ(plan->GroupsFor(false), 2u);
  EXPECT_EQ(plan->GroupsFor(true), plan->groups.size());
}

TEST_F(HostConfig, HopperReplayedPlanCollectsEveryMetricInOneGroupOfFivePasses) {
  std::string error;
  auto plan =
      PlanCounters(Lookup(), "GH100", {}, kAllCounterGroups, PassGrouping::kReplayed, &error);
  ASSERT_TRUE(plan.has_value()) << error;
  // Seen with CUDA 13.0's CUPTI: the 18 metrics need 5 passes together; L2 fits into them.
  ASSERT_EQ(plan->groups.size(), 1u);
  EXPECT_EQ(plan->non_tensor_groups, 1u);  // measured for every kernel, tensor paths included
  EXPECT_EQ(plan->GroupsFor(false), 1u);
  EXPECT_EQ(plan->GroupsFor(true), 1u);
  const PassGroup& group = plan->groups[0];
  EXPECT_FALSE(group.tensor);
  EXPECT_EQ(group.passes, 5u);
  EXPECT_EQ(group.host->passes(), 5u);
  EXPECT_EQ(plan->passes, 5u);
  EXPECT_EQ(group.quantities, 0x7Fu);
  EXPECT_EQ(Names(*plan).size(), 18u);
  EXPECT_TRUE(Names(*plan).contains("lts__t_bytes.sum"));
  EXPECT_TRUE(plan->notes.empty()) << plan->notes.front();
}

TEST_F(HostConfig, AmpereDataCentrePlanBuilds) {
  std::string error;
  auto plan =
      PlanCounters(Lookup(), "GA100", {}, kAllCounterGroups, PassGrouping::kReplayed, &error);
  ASSERT_TRUE(plan.has_value()) << error;
  EXPECT_GE(plan->passes, 1u);
  const auto names = Names(*plan);
  EXPECT_TRUE(names.contains("sm__ops_path_tensor_src_tf32_dst_fp32.sum"));
  EXPECT_TRUE(names.contains("sm__ops_path_tensor_src_fp64.sum"));
  EXPECT_FALSE(names.contains("sm__ops_path_tensor_src_fp8.sum"));
  EXPECT_TRUE(names.contains("dram__bytes_read.sum"));
}

TEST_F(HostConfig, FewerMetricsNeedNoMorePasses) {
  for (const PassGrouping grouping : {PassGrouping::kReplayed, PassGrouping::kOnePass}) {
    SCOPED_TRACE(static_cast<int>(grouping));
    std::string error;
    auto fp32 = PlanCounters(Lookup(), "GH100", {}, kCounterFp32, grouping, &error);
    ASSERT_TRUE(fp32.has_value()) << error;
    auto all = PlanCounters(Lookup(), "GH100", {}, kAllCounterGroups, grouping, &error);
    ASSERT_TRUE(all.has_value()) << error;
    ASSERT_EQ(fp32->groups.size(), 1u);
    EXPECT_EQ(fp32->groups[0].host->terms().size(), 3u);
    EXPECT_EQ(fp32->passes, 1u);
    EXPECT_LT(fp32->passes, all->passes);
  }
}

TEST_F(HostConfig, EveryChipOfEachGenerationHasTheMetricsCounterModeUses) {
  // CUPTI 13.0's supported chips (cuptiProfilerHostGetSupportedChips).
  const std::vector<std::string> chips = {
      "GV100", "GV11B", "TU102", "TU104", "TU106", "TU116", "TU117", "GA100", "GA102", "GA103",
      "GA104", "GA106", "GA107", "GA10B", "GH100", "AD102", "AD103", "AD104", "AD106", "AD107",
      "GB100", "GB102", "GB110", "GB10B", "GB202", "GB203", "GB205", "GB206", "GB207", "GB20B"};
  // What is missing where, and why: TU116/TU117 have no tensor cores; Tegra chips (GA10B, GB10B,
  // GB20B) share system memory and count no dram__ bytes.
  const std::set<std::string> no_tensor = {"TU116", "TU117"};
  const std::set<std::string> no_dram = {"GV11B", "GA10B", "GB10B", "GB20B"};
  std::vector<std::pair<std::string, PassGrouping>> cases;
  for (const std::string& chip : chips) {
    cases.emplace_back(chip, PassGrouping::kReplayed);
    cases.emplace_back(chip, PassGrouping::kOnePass);
  }
  for (const auto& [chip, grouping] : cases) {
    SCOPED_TRACE(chip + (grouping == PassGrouping::kOnePass ? " one-pass" : " replayed"));
    std::string error;
    auto plan = PlanCounters(Lookup(), chip, {}, kAllCounterGroups, grouping, &error);
    // GV11B (Xavier) has no range profiler; an older CUPTI may not know the newest chips.
    if (!plan && (error.find("NOT_SUPPORTED") != std::string::npos ||
                  error.find("INVALID_CHIP_NAME") != std::string::npos)) {
      EXPECT_TRUE(chip == "GV11B" || chip.rfind("GB", 0) == 0) << error;
      continue;
    }
    ASSERT_TRUE(plan.has_value()) << error;
    EXPECT_NE(plan->family, ChipFamily::kUnknown);
    EXPECT_GE(plan->passes, 1u);
    for (const std::string& note : plan->notes) {
      const bool tensor = note.find("sm__ops_path_tensor") != std::string::npos;
      const bool dram = note.find("dram__bytes") != std::string::npos;
      EXPECT_TRUE((tensor && no_tensor.contains(chip)) || (dram && no_dram.contains(chip)))
          << "unexpected: " << note;
    }
    const auto names = Names(*plan);
    EXPECT_TRUE(names.contains("sm__sass_thread_inst_executed_op_dfma_pred_on.sum"));
    if (grouping == PassGrouping::kReplayed) {
      EXPECT_EQ(plan->groups.size(), 1u);
    }
    for (const PassGroup& g : plan->groups) {
      if (grouping == PassGrouping::kOnePass && g.passes > 1) {
        EXPECT_EQ(g.host->terms().size(), 1u) << g.host->terms().front().name;
      }
    }
    EXPECT_TRUE(names.contains("gpu__time_duration.sum"));
  }
}

TEST_F(HostConfig, AnUnknownChipIsRefusedWithCuptisReason) {
  std::string error;
  EXPECT_FALSE(
      PlanCounters(Lookup(), "XX100", {}, kAllCounterGroups, PassGrouping::kReplayed, &error)
          .has_value());
  EXPECT_NE(error.find("cuptiProfilerHostInitialize"), std::string::npos) << error;
  EXPECT_NE(error.find("XX100"), std::string::npos) << error;
}

TEST_F(HostConfig, AConfiguredObjectIsNotConfiguredTwiceAndEmptyDataIsNotEvaluated) {
  std::string error;
  auto host = HostProfiler::Create(Lookup(), "GH100", {}, &error);
  ASSERT_NE(host, nullptr) << error;
  const std::vector<MetricTerm> terms = {
      {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", CounterQuantity::kFp32, 2}};
  ASSERT_TRUE(host->Configure(terms, &error)) << error;
  EXPECT_EQ(host->passes(), 1u);
  EXPECT_FALSE(host->Configure(terms, &error));
  std::vector<double> values;
  EXPECT_FALSE(host->Evaluate({}, 0, &values, &error));
  EXPECT_NE(error.find("empty"), std::string::npos);
}

TEST(HostConfigMissing, ALibraryWithoutTheHostApiIsNamed) {
  std::string error;
  const auto host =
      HostProfiler::Create([](const char*) -> void* { return nullptr; }, "GH100", {}, &error);
  EXPECT_EQ(host, nullptr);
  EXPECT_NE(error.find("cuptiProfilerHostInitialize"), std::string::npos) << error;
}

}  // namespace
}  // namespace flopspy::gpuroof
