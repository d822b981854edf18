// AnalyzeTrace runs the call-site analysis: the records of a trace become sites, native frames go
// through the libdw symboliser (a module it cannot open is listed), damaged records are a warning.
#include <gtest/gtest.h>

#include "call_site_records.h"
#include "call_sites_fixture.h"
#include "report/trace_report.h"

namespace flopspy::tools {
namespace {

using trace::ChunkSource;

TraceReport Analyze(testing::TraceBuilder& b, const ReportOptions& options = {}) {
  return AnalyzeTrace(trace::TraceReader(trace::MemorySource(b.Bytes())), "sites.fspy", options);
}

void AddRaw(testing::TraceBuilder& b, const std::vector<uint8_t>& bytes) {
  b.Chunk(ChunkSource::kThread, 7).AddRaw(bytes.data(), bytes.size());
}

TEST(CallSitesAnalysis, AnalyzeTraceAttributesKernelsToTheSampledLines) {
  testing::TraceBuilder b;
  AddRaw(b, testing::PyCode(1, "/home/me/model.py", "Block.forward", 85, testing::OneLineTable(3)));
  AddRaw(b, testing::PythonStack(100, {{1, 0}}));
  b.Add(testing::StackSample(1, 100));  // the first mul; the add kernels have no sample
  call_sites_test::WriteTwoKernelTrace(b);
  const TraceReport report = Analyze(b);
  const analyzers::CallSiteReport& sites = report.call_sites;
  EXPECT_EQ(sites.samples, 1u);
  ASSERT_EQ(sites.sites.size(), 2u);
  EXPECT_EQ(sites.sites[0].label, "model.py:88 (Block.forward)");
  EXPECT_DOUBLE_EQ(sites.sites[0].gpu_ns, 2'000'000);  // four muls, one sampled
  EXPECT_DOUBLE_EQ(sites.sites[0].sampled_ns, 500'000);
  EXPECT_EQ(sites.sites[1].kind, analyzers::CallSiteKind::kNoStack);
  EXPECT_DOUBLE_EQ(sites.kernel_ns, 2'500'000);
  EXPECT_DOUBLE_EQ(sites.estimated_ns, 1'500'000);
  ASSERT_EQ(sites.site_of_activity.size(), report.run.activities.size());
  EXPECT_TRUE(sites.modules_without_symbols.empty());  // no native stack: nothing opened
}

TEST(CallSitesAnalysis, NativeFramesGoThroughTheSymboliser) {
  testing::TraceBuilder b;
  AddRaw(b, testing::Module("/nonexistent/libapp.so", "", 0x10000, 0x10000, 0x20000));
  AddRaw(b, testing::NativeStack(500, {0x11234}));
  b.Add(testing::StackSample(1, 0, 500));
  call_sites_test::WriteTwoKernelTrace(b);
  const TraceReport report = Analyze(b);
  ASSERT_FALSE(report.call_sites.sites.empty());
  EXPECT_EQ(report.call_sites.sites[0].label, "libapp.so+0x1234");
  ASSERT_EQ(report.call_sites.modules_without_symbols.size(), 1u);
  EXPECT_NE(report.call_sites.modules_without_symbols[0].find("/nonexistent/libapp.so"),
            std::string::npos);
}

TEST(CallSitesAnalysis, FramesFromReachesTheAnalysis) {
  testing::TraceBuilder b;
  AddRaw(b, testing::PyCode(1, "/home/me/model.py", "Block.forward", 85, testing::OneLineTable(3)));
  AddRaw(b, testing::PyCode(2, "/home/me/train.py", "main", 9, testing::OneLineTable(3)));
  AddRaw(b, testing::PythonStack(100, {{1, 0}, {2, 0}}));
  b.Add(testing::StackSample(1, 100));
  call_sites_test::WriteTwoKernelTrace(b);
  ReportOptions options;
  options.call_sites.frames_from = "train";
  EXPECT_EQ(Analyze(b, options).call_sites.sites.at(0).label, "train.py:12 (main)");
}

TEST(CallSitesAnalysis, DamagedCallSiteRecordsAreAWarning) {
  testing::TraceBuilder b;
  auto stack = testing::NativeStack(5, {1});
  reinterpret_cast<trace::StackRecord*>(stack.data())->depth = 500;
  AddRaw(b, stack);
  call_sites_test::WriteTwoKernelTrace(b);
  const TraceReport report = Analyze(b);
  EXPECT_EQ(report.call_sites.damaged, 1u);
  bool warned = false;
  for (const auto& w : report.summary.warnings) {
    warned = warned || w.message.find("1 call-site records") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace flopspy::tools
