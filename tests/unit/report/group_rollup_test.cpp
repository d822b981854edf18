// --group-by range and step, "Steps across ranks" and --window step:N: exact rows from small
// traces with NVTX step ranges.
#include "report/group_rollup.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report/json_report.h"
#include "report/report_model.h"
#include "report/run_text.h"
#include "report/step_window.h"
#include "report/text_report.h"
#include "report/time_window.h"
#include "report/view_options.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

using trace::ChunkSource;
using trace::RangeEdge;

// Three 2 ms "train_step" ranges on thread 7 from 1 ms after the trace start; in each, one 500 µs
// kernel inside "forward" and one 250 µs kernel after it; then one 100 µs kernel outside any range.
// Step `slow_step` (from 1; 0: none) of this rank lasts 3 ms instead of 2.
TraceReport Analyzed(int32_t rank = -1, uint32_t slow_step = 0) {
  trace::FileIdentity id = testing::TraceBuilder::DefaultIdentity();
  id.rank = rank;
  id.pid = 4242 + static_cast<uint32_t>(rank + 1);
  testing::TraceBuilder b(id);
  b.String(1, testing::kAtenMulKernel).String(2, "train_step").String(3, "forward");
  trace::FunctionDef mul = testing::KernelFunction(1, 1, 3);
  testing::SetElementwiseLayout(mul, 4, 24);
  b.Add(mul).Add(testing::KernelSignature(1, 1, 4, 1, 256));
  uint64_t t = 1'001'000'000, correlation = 1;  // 1 ms after the trace start
  for (uint32_t step = 1; step <= 3; ++step) {
    const uint64_t length = step == slow_step ? 3'000'000 : 2'000'000;
    b.Chunk(ChunkSource::kThread, 7)
        .Add(testing::RangeEvent(RangeEdge::kPush, t, 2))
        .Add(testing::RangeEvent(RangeEdge::kPush, t + 1000, 3))
        .Add(testing::KernelLaunch(1, correlation, t + 2000, 3000, 1000))
        .Add(testing::RangeEvent(RangeEdge::kPop, t + 10'000))
        .Add(testing::KernelLaunch(1, correlation + 1, t + 20'000, 3000, 1000))
        .Add(testing::RangeEvent(RangeEdge::kPop, t + length));
    b.Chunk(ChunkSource::kGpuActivity)
        .Add(testing::KernelExecution(1, correlation, t + 30'000, 500'000, 1))
        .Add(testing::KernelExecution(1, correlation + 1, t + 600'000, 250'000, 1));
    t += length;
    correlation += 2;
  }
  b.Chunk(ChunkSource::kThread, 7).Add(testing::KernelLaunch(1, correlation, t + 1000, 3000, 1000));
  b.Chunk(ChunkSource::kGpuActivity)
      .Add(testing::KernelExecution(1, correlation, t + 10'000, 100'000, 1));
  return AnalyzeTrace(trace::TraceReader(trace::MemorySource(b.Bytes())),
                      "rank" + std::to_string(rank) + ".fspy");
}

ViewOptions GroupedBy(const char* by) {
  ViewOptions view;
  EXPECT_EQ(ParseViewOptions(0, "time", by, "", &view), "");
  return view;
}

TEST(GroupRollup, RangeRowsPerInnermostRange) {
  std::vector<TraceReport> traces;
  traces.push_back(Analyzed());
  const ReportModel model = BuildReportModel(std::move(traces), {}, GroupedBy("range"));
  const KernelRollup& r = model.traces[0].rollup;
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].key, "forward");
  EXPECT_EQ(r.groups[0].count, 3u);
  EXPECT_DOUBLE_EQ(r.groups[0].gpu_ns, 1'500'000);
  EXPECT_DOUBLE_EQ(r.groups[0].FlopsCoverage(), 1.0);
  EXPECT_EQ(r.groups[1].key, "train_step");
  EXPECT_EQ(r.groups[1].count, 3u);
  EXPECT_DOUBLE_EQ(r.groups[1].gpu_ns, 750'000);
  EXPECT_EQ(r.groups[2].key, kNoRangeRow);
  EXPECT_EQ(r.groups[2].count, 1u);
  EXPECT_DOUBLE_EQ(r.groups[2].gpu_ns, 100'000);
  const nlohmann::json j = model.Json()["traces"][0]["kernel_rollup"];
  ASSERT_EQ(j["ranges"].size(), 3u);
  EXPECT_EQ(j["ranges"][0]["range"], "forward");
  EXPECT_EQ(j["ranges"][0]["count"], 3);
  EXPECT_EQ(j["ranges"][2]["range"], "(no range)");
  EXPECT_FALSE(j["ranges"][0].contains("signatures"));
  std::ostringstream text;
  WriteTextReport(model.traces, {.view = model.view}, text);
  EXPECT_NE(text.str().find("Kernel time by innermost range"), std::string::npos) << text.str();
}

TEST(GroupRollup, StepRowsMarkWarmup) {
  std::vector<TraceReport> traces;
  traces.push_back(Analyzed());
  const ReportModel model = BuildReportModel(std::move(traces), {}, GroupedBy("step"));
  const KernelRollup& r = model.traces[0].rollup;
  ASSERT_EQ(r.groups.size(), 3u);
  for (const RollupRow& row : r.groups) {
    EXPECT_EQ(row.count, 2u) << row.key;
    EXPECT_DOUBLE_EQ(row.gpu_ns, 750'000) << row.key;
  }
  EXPECT_EQ(r.groups[0].key, "step 1");  // equal times: by key
  const nlohmann::json j = model.Json()["traces"][0]["kernel_rollup"];
  ASSERT_EQ(j["steps"].size(), 3u);
  EXPECT_EQ(j["steps"][0]["step"], "step 1");
  EXPECT_EQ(j["steps"][0]["warmup"], false);
}

TEST(GroupRollup, NoRangesSaysSoAndKeepsTheOtherTables) {
  testing::TraceBuilder b;
  b.String(1, testing::kAtenMulKernel);
  b.Add(testing::KernelFunction(1, 1, 3)).Add(testing::KernelSignature(1, 1, 4, 1, 256));
  b.Chunk(ChunkSource::kThread, 7).Add(testing::KernelLaunch(1, 1, 1'001'000'000, 3000, 1000));
  b.Chunk(ChunkSource::kGpuActivity).Add(testing::KernelExecution(1, 1, 1'001'010'000, 100'000, 1));
  std::vector<TraceReport> traces;
  traces.push_back(AnalyzeTrace(trace::TraceReader(trace::MemorySource(b.Bytes())), "m"));
  const ReportModel model = BuildReportModel(std::move(traces), {}, GroupedBy("range"));
  const KernelRollup& r = model.traces[0].rollup;
  EXPECT_TRUE(r.groups.empty());
  EXPECT_EQ(r.names.size(), 1u);
  EXPECT_EQ(r.groups_note,
            "no NVTX ranges or flopspy regions in the trace: nothing to group by range");
  EXPECT_EQ(model.Json()["traces"][0]["kernel_rollup"]["groups_note"], r.groups_note);
  std::ostringstream text;
  WriteTextReport(model.traces, {.view = model.view}, text);
  EXPECT_NE(text.str().find("--group-by range: no NVTX ranges"), std::string::npos) << text.str();
}

TEST(GroupRollup, UnknownKeysAreUsageErrors) {
  ViewOptions view;
  EXPECT_NE(ParseViewOptions(0, "time", "ranges", "", &view).find("range, step or call-site"),
            std::string::npos);
  EXPECT_EQ(KernelRowsView(GroupedBy("range")).group_by, GroupBy::kSignature);
  EXPECT_EQ(KernelRowsView(GroupedBy("name")).group_by, GroupBy::kName);
}

TEST(StepsAcrossRanks, SlowestRankSkewAndMean) {
  std::vector<TraceReport> traces;
  traces.push_back(Analyzed(0));
  traces.push_back(Analyzed(1, 2));
  const ReportModel model = BuildReportModel(std::move(traces));
  ASSERT_TRUE(model.run);
  const std::vector<StepAcrossRanks>& steps = model.run->steps;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[1].skew.number, 2u);
  EXPECT_EQ(steps[1].skew.ranks, 2u);
  EXPECT_EQ(steps[1].straggler_rank, 1);
  EXPECT_DOUBLE_EQ(steps[1].skew.slowest_ns, 3'000'000);
  EXPECT_DOUBLE_EQ(steps[1].skew.skew_ns(), 1'000'000);
  EXPECT_DOUBLE_EQ(steps[1].mean_ns, 2'500'000);
  EXPECT_DOUBLE_EQ(steps[0].skew.skew_ns(), 0);
  const nlohmann::json& j = model.Json()["steps_across_ranks"];
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[1]["step"], 2);
  EXPECT_EQ(j[1]["straggler_rank"], 1);
  EXPECT_EQ(j[1]["skew_ns"], 1'000'000.0);
  EXPECT_EQ(j[1]["mean_ns"], 2'500'000.0);
  std::ostringstream text;
  WriteRunText(*model.run, text);
  EXPECT_NE(text.str().find("Steps across ranks"), std::string::npos) << text.str();
}

TEST(StepWindow, ParsesStepsAndRefusesBadOnes) {
  std::string error;
  auto w = ParseTimeWindow("step:2", &error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(w->first_step, 2u);
  EXPECT_EQ(w->last_step, 2u);
  w = ParseTimeWindow("step:2-3", &error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(w->last_step, 3u);
  for (const char* bad : {"step:", "step:0", "step:3-2", "step:a", "step:1-", "step:-2"}) {
    EXPECT_FALSE(ParseTimeWindow(bad, &error)) << bad;
    EXPECT_EQ(error.rfind("--window step:", 0), 0u) << bad << ": " << error;
  }
}

TEST(StepWindow, SpansTheStepsOnTheExportBase) {
  std::vector<TraceReport> traces;
  traces.push_back(Analyzed());
  std::string error;
  TimeWindow w = *ParseTimeWindow("step:2", &error);
  ASSERT_EQ(ResolveStepWindow(w, traces), "");
  // Step 2 runs 3 ms to 5 ms on the monotonic clock; the trace started at 1 s.
  EXPECT_DOUBLE_EQ(w.start_ns, 3'000'000);
  EXPECT_DOUBLE_EQ(w.end_ns, 5'000'000 - 1);  // step 3 begins at 5 ms: left out
  w = *ParseTimeWindow("step:4", &error);
  EXPECT_EQ(ResolveStepWindow(w, traces), "--window step:4: the traces have steps 1-3");
}

}  // namespace
}  // namespace flopspy::tools
