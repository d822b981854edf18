// The call-site outputs on a trace with real call-site records (PyCode, Stack, StackSample) read
// by the analysis: two lines of model.py launch the kernels; the text, the JSON, --group-by
// call-site and the advice name them (docs/call-sites.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "call_site_records.h"
#include "report/call_sites_text.h"
#include "report/report_model.h"
#include "report/text_report.h"
#include "trace_builder.h"

namespace flopspy::tools {
namespace {

// 300 launches of ATen's mul (10 us on the GPU, a 20 us launch: launch-bound) from model.py:88,
// and 4 of "add_kernel" (2 ms each) from model.py:95, all on thread 7; the first launch of each
// signature carries its stack, then one in 32.
TraceReport TraceWithStacks(const std::string& path = "") {
  testing::TraceBuilder b;
  b.String(1, testing::kAtenMulKernel).String(2, "void add_kernel(float*, int)");
  trace::FunctionDef mul = testing::KernelFunction(1, 1, 3);
  testing::SetElementwiseLayout(mul, 4, 24);
  b.Add(mul).Add(testing::KernelFunction(2, 2));
  b.Add(testing::KernelSignature(1, 1, 4, 1, 256)).Add(testing::KernelSignature(2, 2, 1, 1, 32));
  b.Chunk(trace::ChunkSource::kThread, 7);
  // Block.forward starts on line 80; its instructions are on lines 88 and 95 (two code objects
  // with one line each stand for the two lines), called from train.py:5.
  b.AddRaw(testing::PyCode(1, "model.py", "Block.forward", 80, testing::OneLineTable(8)).data(),
           testing::PyCode(1, "model.py", "Block.forward", 80, testing::OneLineTable(8)).size());
  const auto add_code = testing::PyCode(2, "model.py", "Block.proj", 90, testing::OneLineTable(5));
  b.AddRaw(add_code.data(), add_code.size());
  const auto main_code = testing::PyCode(3, "train.py", "<module>", 1, testing::OneLineTable(4));
  b.AddRaw(main_code.data(), main_code.size());
  const auto mul_stack = testing::PythonStack(100, {{1, 2}, {3, 2}});
  const auto add_stack = testing::PythonStack(200, {{2, 2}, {3, 2}});
  b.AddRaw(mul_stack.data(), mul_stack.size());
  b.AddRaw(add_stack.data(), add_stack.size());
  uint64_t t = 1'001'000'000, c = 1;
  for (int i = 0; i < 304; ++i, ++c) {
    const bool add = i >= 300;
    const uint32_t sig = add ? 2 : 1;
    b.Chunk(trace::ChunkSource::kThread, 7).Add(testing::KernelLaunch(sig, c, t, 20'000, 1000));
    if (i == 0 || i == 300 || (!add && i % 32 == 0)) {
      b.Add(testing::StackSample(c, add ? 200 : 100));
    }
    b.Chunk(trace::ChunkSource::kGpuActivity)
        .Add(testing::KernelExecution(sig, c, t + 25'000, add ? 2'000'000 : 10'000, 1));
    t += add ? 2'100'000 : 40'000;
  }
  if (!path.empty()) b.WriteTo(path);
  return AnalyzeTrace(trace::TraceReader(trace::MemorySource(b.Bytes())), "stacks.fspy");
}

TEST(CallSitesEndToEnd, TheLinesThatLaunchedTheKernels) {
  std::vector<TraceReport> traces;
  traces.push_back(TraceWithStacks());
  ASSERT_FALSE(traces[0].call_sites.empty());
  ViewOptions view;
  view.group_by = GroupBy::kCallSite;
  ReportModel model = BuildReportModel(std::move(traces), {}, view);
  std::ostringstream out;
  WriteTextReport(model.traces, {.view = model.view}, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("model.py:95 (Block.proj)"), std::string::npos) << text;
  EXPECT_NE(text.find("model.py:88 (Block.forward)"), std::string::npos) << text;
  EXPECT_NE(text.find("Kernel time by call site"), std::string::npos) << text;
  const nlohmann::json& sites = model.Json()["traces"][0]["call_sites"]["sites"];
  ASSERT_EQ(sites.size(), 2u) << sites.dump(1);
  EXPECT_EQ(sites[0]["label"], "model.py:95 (Block.proj)");
  EXPECT_EQ(sites[0]["stack"][0]["label"], "train.py:5 (<module>)");
  EXPECT_EQ(sites[1]["label"], "model.py:88 (Block.forward)");
  EXPECT_DOUBLE_EQ(sites[1]["launches"].get<double>(), 300);
  // The 300 tiny muls: the advice names their line.
  const auto& advice = model.traces[0].advice;
  EXPECT_TRUE(std::any_of(advice.begin(), advice.end(), [](const analyzers::Advice& a) {
    return a.finding.rfind("model.py:88 (Block.forward) launches 300 kernels that are mostly", 0) ==
           0;
  }));
}

// Writes the trace for a look at the program's outputs: FLOPSPY_CALL_SITES_TRACE=path.
TEST(CallSitesEndToEnd, WritesTheTraceWhenAsked) {
  if (const char* path = std::getenv("FLOPSPY_CALL_SITES_TRACE")) TraceWithStacks(path);
}

}  // namespace
}  // namespace flopspy::tools
