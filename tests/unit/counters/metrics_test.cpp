// Which metrics counter mode asks for, and how their values become FLOPs and bytes (Nsight
// Compute's weights). Pure functions: no CUPTI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "flopspy/gpu_roofline/counter_metrics.h"

namespace flopspy::gpuroof {
namespace {

std::map<std::string, double> WeightsOf(const std::vector<MetricCandidate>& candidates) {
  std::map<std::string, double> w;
  for (const auto& c : candidates) w[c.names.front()] = c.weight;
  return w;
}

TEST(CounterGroups, ParsesListsAndAll) {
  EXPECT_EQ(ParseCounterGroups("all").groups, kAllCounterGroups);
  EXPECT_EQ(ParseCounterGroups("").groups, kAllCounterGroups);
  const auto p = ParseCounterGroups(" FP32 , dram,time ");
  EXPECT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.groups, kCounterFp32 | kCounterDram | kCounterTime);
  EXPECT_EQ(CounterGroupsText(p.groups), "fp32,dram,time");
  EXPECT_EQ(CounterGroupsText(kAllCounterGroups), "fp32,fp64,fp16,tensor,dram,l2,time");
}

TEST(CounterGroups, RejectsUnknownNamesAndKeepsTheDefault) {
  const auto p = ParseCounterGroups("fp32,flops");
  EXPECT_NE(p.error.find("\"flops\""), std::string::npos) << p.error;
  EXPECT_EQ(p.groups, kAllCounterGroups);
  EXPECT_FALSE(ParseCounterGroups("fp32,,dram").error.empty());
}

TEST(ChipFamily, FromCuptiChipNames) {
  EXPECT_EQ(ChipFamilyOf("GV100"), ChipFamily::kVolta);
  EXPECT_EQ(ChipFamilyOf("TU117"), ChipFamily::kTuring);
  EXPECT_EQ(ChipFamilyOf("GA100"), ChipFamily::kAmpere);
  EXPECT_EQ(ChipFamilyOf("ga10b"), ChipFamily::kAmpere);
  EXPECT_EQ(ChipFamilyOf("AD102"), ChipFamily::kAda);
  EXPECT_EQ(ChipFamilyOf("GH100"), ChipFamily::kHopper);
  EXPECT_EQ(ChipFamilyOf("GB100"), ChipFamily::kBlackwell);
  EXPECT_EQ(ChipFamilyOf("GB10B"), ChipFamily::kBlackwell);
  EXPECT_EQ(ChipFamilyOf("GB202"), ChipFamily::kBlackwellRtx);
  EXPECT_EQ(ChipFamilyOf("XX999"), ChipFamily::kUnknown);
}

TEST(CounterCandidates, UseNsightComputeWeights) {
  const auto w = WeightsOf(CounterCandidates(ChipFamily::kHopper, kAllCounterGroups));
  // fp32 = fadd + fmul + 2 ffma; fp64 = dadd + dmul + 2 dfma; fp16 = 2 hadd + 2 hmul + 4 hfma.
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_fadd_pred_on"), 1);
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_fmul_pred_on"), 1);
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_ffma_pred_on"), 2);
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_dadd_pred_on"), 1);
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_dmul_pred_on"), 1);
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_dfma_pred_on"), 2);
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_hadd_pred_on"), 2);
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_hmul_pred_on"), 2);
  EXPECT_EQ(w.at("sm__sass_thread_inst_executed_op_hfma_pred_on"), 4);
  EXPECT_EQ(w.at("sm__ops_path_tensor_src_fp16"), 1);
  EXPECT_EQ(w.at("dram__bytes_read"), 1);
  EXPECT_EQ(w.at("lts__t_bytes"), 1);
  EXPECT_EQ(w.at("gpu__time_duration"), 1);
  EXPECT_EQ(w.size(), 9u + 5u + 2u + 1u + 1u);
}

TEST(CounterCandidates, TensorPathsDifferPerGeneration) {
  const auto names = [](ChipFamily f) {
    std::set<std::string> n;
    for (const auto& c : CounterCandidates(f, kCounterTensor)) n.insert(c.names.front());
    return n;
  };
  EXPECT_TRUE(names(ChipFamily::kHopper).contains("sm__ops_path_tensor_src_fp8"));
  EXPECT_TRUE(names(ChipFamily::kAmpere).contains("sm__ops_path_tensor_src_tf32_dst_fp32"));
  EXPECT_FALSE(names(ChipFamily::kAmpere).contains("sm__ops_path_tensor_src_fp8"));
  EXPECT_EQ(names(ChipFamily::kVolta).size(), 2u);
  EXPECT_TRUE(names(ChipFamily::kUnknown).empty());
  for (const auto& c : CounterCandidates(ChipFamily::kBlackwellRtx, kCounterTensor)) {
    EXPECT_EQ(c.names.front().find("int"), std::string::npos) << "integer ops are not FLOPs";
  }
}

TEST(CounterCandidates, GroupsSelectWhatIsCollected) {
  const auto only = CounterCandidates(ChipFamily::kHopper, kCounterFp64 | kCounterDram);
  ASSERT_EQ(only.size(), 5u);
  for (const auto& c : only) {
    EXPECT_TRUE(c.quantity == CounterQuantity::kFp64 || c.quantity == CounterQuantity::kDramRead ||
                c.quantity == CounterQuantity::kDramWrite);
  }
}

TEST(SelectMetrics, TakesTheFirstNameTheChipHasAndReportsTheRest) {
  const auto candidates = CounterCandidates(ChipFamily::kBlackwellRtx, kCounterDram | kCounterL2);
  // GB20x spells DRAM bytes dram__bytes_op_read/write; this chip lacks the L2 metric.
  const std::set<std::string, std::less<>> chip = {"dram__bytes_op_read", "dram__bytes_op_write"};
  const MetricSelection s =
      SelectMetrics(candidates, [&](std::string_view name) { return chip.contains(name); });
  ASSERT_EQ(s.terms.size(), 2u);
  EXPECT_EQ(s.terms[0].name, "dram__bytes_op_read.sum");
  EXPECT_EQ(s.terms[1].name, "dram__bytes_op_write.sum");
  ASSERT_EQ(s.missing.size(), 1u);
  EXPECT_EQ(s.missing[0], "lts__t_bytes");
  const auto names = MetricNames(s.terms);
  EXPECT_STREQ(names[0], "dram__bytes_op_read.sum");
}

TEST(EvaluateCounters, WeightsInstructionsIntoFlops) {
  const auto candidates = CounterCandidates(ChipFamily::kHopper, kAllCounterGroups);
  const MetricSelection s = SelectMetrics(candidates, [](std::string_view) { return true; });
  std::vector<double> values;
  for (const auto& t : s.terms) {
    const std::string& n = t.name;
    double v = 0;
    if (n.find("_fadd_") != std::string::npos) v = 10;
    if (n.find("_fmul_") != std::string::npos) v = 20;
    if (n.find("_ffma_") != std::string::npos) v = 100;
    if (n.find("_dfma_") != std::string::npos) v = 7;
    if (n.find("_hadd_") != std::string::npos) v = 3;
    if (n.find("_hfma_") != std::string::npos) v = 5;
    if (n == "sm__ops_path_tensor_src_fp16.sum") v = 4096;
    if (n == "sm__ops_path_tensor_src_bf16_dst_fp32.sum") v = 1024;
    if (n == "dram__bytes_read.sum") v = 1e6;
    if (n == "dram__bytes_write.sum") v = 5e5;
    if (n == "lts__t_bytes.sum") v = 3e6;
    if (n == "gpu__time_duration.sum") v = 1500;
    values.push_back(v);
  }
  const CounterValues c = EvaluateCounters(s.terms, values);
  EXPECT_DOUBLE_EQ(c.fp32, 10 + 20 + 2 * 100);
  EXPECT_DOUBLE_EQ(c.fp64, 2 * 7);
  EXPECT_DOUBLE_EQ(c.fp16, 2 * 3 + 4 * 5);
  EXPECT_DOUBLE_EQ(c.tensor, 4096 + 1024);
  EXPECT_DOUBLE_EQ(c.Flops(), 230 + 14 + 26 + 5120);
  EXPECT_DOUBLE_EQ(c.dram_read, 1e6);
  EXPECT_DOUBLE_EQ(c.DramBytes(), 1.5e6);
  EXPECT_DOUBLE_EQ(c.l2, 3e6);
  EXPECT_DOUBLE_EQ(c.duration_ns, 1500);
  EXPECT_EQ(c.valid, trace::kMetricsFp32 | trace::kMetricsFp64 | trace::kMetricsFp16 |
                         trace::kMetricsTensor | trace::kMetricsDram | trace::kMetricsL2 |
                         trace::kMetricsDuration);
}

TEST(EvaluateCounters, OnlyCollectedQuantitiesAreValidAndBadValuesCountZero) {
  const std::vector<MetricTerm> terms = {
      {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", CounterQuantity::kFp32, 2},
      {"dram__bytes_read.sum", CounterQuantity::kDramRead, 1}};
  const std::vector<double> values = {std::numeric_limits<double>::quiet_NaN(), -5};
  const CounterValues c = EvaluateCounters(terms, values);
  EXPECT_EQ(c.fp32, 0);
  EXPECT_EQ(c.dram_read, 0);
  EXPECT_EQ(c.valid, trace::kMetricsFp32 | trace::kMetricsDram);
  EXPECT_EQ(EvaluateCounters(terms, std::vector<double>{1.0}).valid, trace::kMetricsFp32);
}

TEST(MetricsRecord, RoundTripsTheValues) {
  CounterValues v;
  v.fp32 = 1, v.fp64 = 2, v.fp16 = 3, v.tensor = 4, v.dram_read = 5, v.dram_write = 6, v.l2 = 7;
  v.duration_ns = 8;
  v.valid = trace::kMetricsFp32 | trace::kMetricsDram;
  const trace::KernelMetricsRecord r = ToMetricsRecord(v, 2, 5);
  EXPECT_EQ(r.h.type, static_cast<uint8_t>(trace::RecordType::kKernelMetrics));
  EXPECT_EQ(r.h.size(), sizeof(trace::KernelMetricsRecord));
  EXPECT_EQ(r.samples, 2);
  EXPECT_EQ(r.passes, 5);
  const CounterValues back = FromMetricsRecord(r);
  EXPECT_EQ(back.Flops(), 10);
  EXPECT_EQ(back.DramBytes(), 11);
  EXPECT_EQ(back.l2, 7);
  EXPECT_EQ(back.valid, v.valid);
}

}  // namespace
}  // namespace flopspy::gpuroof
