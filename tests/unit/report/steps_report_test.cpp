// The report's "steps" and "ranges" members: what AnalyzeTrace finds in a trace with NVTX step
// ranges, the model FLOPs read from the trace's recorded config, and the flags' usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "report/chrome_export.h"
#include "report/json_report.h"
#include "report/steps_options.h"
#include "report/trace_report.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

using trace::ChunkSource;
using trace::RangeEdge;

// Three "train_step" ranges of 2 ms on thread 7, each with one 500 µs multiply kernel inside a
// "forward" range; `model_flops` recorded as FLOPSPY_MODEL_FLOPS when not empty.
testing::TraceBuilder StepTrace(const std::string& model_flops) {
  testing::TraceBuilder b;
  if (!model_flops.empty()) b.Metadata(R"({"config":{"model_flops":)" + model_flops + "}}");
  b.String(1, testing::kAtenMulKernel).String(2, "train_step").String(3, "forward");
  trace::FunctionDef mul = testing::KernelFunction(1, 1, 3);
  testing::SetElementwiseLayout(mul, 4, 24);
  b.Add(mul).Add(testing::KernelSignature(1, 1, 4, 1, 256));
  for (uint64_t i = 0; i < 3; ++i) {
    const uint64_t t = 1'000'000 + i * 2'000'000;
    b.Chunk(ChunkSource::kThread, 7)
        .Add(testing::RangeEvent(RangeEdge::kPush, t, 2))
        .Add(testing::RangeEvent(RangeEdge::kPush, t + 1000, 3))
        .Add(testing::KernelLaunch(1, i + 1, t + 2000, 3000, 1000))
        .Add(testing::RangeEvent(RangeEdge::kPop, t + 10'000))
        .Add(testing::RangeEvent(RangeEdge::kPop, t + 2'000'000));
    b.Chunk(ChunkSource::kGpuActivity)
        .Add(testing::KernelExecution(1, i + 1, t + 20'000, 500'000, 1));
  }
  return b;
}

TraceReport Analyze(const std::string& model_flops, const ReportOptions& options = {}) {
  testing::TraceBuilder b = StepTrace(model_flops);
  return AnalyzeTrace(trace::TraceReader(trace::MemorySource(b.Bytes())), "mem", options);
}

TEST(StepsReport, JsonHasTheStepsAndRanges) {
  const nlohmann::json trace = BuildJsonReport({Analyze("")})["traces"][0];
  const nlohmann::json& steps = trace["steps"];
  EXPECT_EQ(steps["source"], "ranges");
  EXPECT_EQ(steps["detail"], "train_step");
  EXPECT_EQ(steps["count"], 3);
  EXPECT_EQ(steps["warmup"], 0);
  EXPECT_EQ(steps["steady"]["mean_ns"], 2'000'000.0);
  EXPECT_EQ(steps["steady"]["busy_share"], 0.25);
  EXPECT_EQ(steps["steady"]["counted_flops_per_step"], 1000.0);
  EXPECT_TRUE(steps["steady"]["mfu"].is_null());
  EXPECT_TRUE(steps["model_flops_per_step"].is_null());
  ASSERT_EQ(steps["per_step"].size(), 3u);
  EXPECT_EQ(steps["per_step"][1]["number"], 2);
  EXPECT_EQ(steps["per_step"][1]["begin_ns"], 3'000'000);
  EXPECT_EQ(steps["per_step"][1]["kernel_ns"], 500'000.0);
  ASSERT_EQ(trace["ranges"].size(), 2u);
  const nlohmann::json& forward = trace["ranges"][1];
  EXPECT_EQ(forward["name"], "forward");
  EXPECT_EQ(forward["source"], "nvtx");
  EXPECT_EQ(forward["count"], 3);
  EXPECT_EQ(forward["gpu_ns"], 1'500'000.0);
  EXPECT_EQ(forward["counted_flops"], 3000.0);
  EXPECT_EQ(forward["flops_coverage"], 1.0);
  EXPECT_EQ(trace["range_paths"][0]["path"], "train_step > forward");
}

TEST(StepsReport, ModelFlopsFromTheTraceOrTheFlag) {
  EXPECT_EQ(Analyze("6.5e12").steps.model_flops_per_step, 6.5e12);
  EXPECT_EQ(Analyze(R"("7e12")").steps.model_flops_per_step, 7e12);
  EXPECT_EQ(Analyze(R"("lots")").steps.model_flops_per_step, 0);
  ReportOptions options;
  options.steps.model_flops_per_step = 1e9;
  EXPECT_EQ(Analyze("6.5e12", options).steps.model_flops_per_step, 1e9);  // the flag wins
}

TEST(StepsReport, NoRangesNoMembers) {
  const TraceReport t =
      AnalyzeTrace(trace::TraceReader(trace::MemorySource(testing::TraceBuilder().Bytes())), "m");
  const nlohmann::json trace = BuildJsonReport({t})["traces"][0];
  EXPECT_FALSE(trace.contains("steps"));
  EXPECT_FALSE(trace.contains("ranges"));
}

// The timeline: NVTX ranges as slices on their thread, the steps on a track of their own.
TEST(StepsReport, ChromeHasRangeSlicesAndAStepsTrack) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "flopspy_steps_chrome_test.fspy").string();
  StepTrace("").WriteTo(path);
  const TraceReport t = AnalyzeTrace(path);
  std::ostringstream out;
  const ChromeTraceInput input{path, &t.run, &t.steps};
  ExportChromeTrace(std::span(&input, 1), {}, out);
  std::filesystem::remove(path);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  int forward = 0, steps = 0;
  bool steps_named = false;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "nvtx" && e["name"] == "forward") {
      ++forward;
      EXPECT_EQ(e["tid"], 7);
    }
    if (e["ph"] == "X" && e["cat"] == "step") ++steps;
    if (e["ph"] == "M" && e["args"]["name"] == "steps (ranges)") steps_named = true;
  }
  EXPECT_EQ(forward, 3);
  EXPECT_EQ(steps, 3);
  EXPECT_TRUE(steps_named);
}

TEST(StepsOptions, BadFlagsAreUsageErrors) {
  analyzers::StepOptions options;
  EXPECT_EQ(ParseStepOptions("^iter(ation)?$", "6.2e15", &options), "");
  EXPECT_EQ(options.pattern, "^iter(ation)?$");
  EXPECT_EQ(options.model_flops_per_step, 6.2e15);
  EXPECT_NE(ParseStepOptions("(", "", &options).find("--step-range"), std::string::npos);
  for (const char* bad : {"0", "-1", "abc", "1e9x", "inf"}) {
    EXPECT_NE(ParseStepOptions("", bad, &options).find("--model-flops-per-step"), std::string::npos)
        << bad;
  }
}

}  // namespace
}  // namespace flopspy::tools
