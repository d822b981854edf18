// The "Call sites" section of the text report and --by-call-site, from hand-built call sites
// (call_sites_fixture.h): what each site row says, --top, an empty report, the kernel rows kept
// right across --sort and --filter.
#include "report/call_sites_text.h"

#include <gtest/gtest.h>

#include <sstream>

#include "call_sites_fixture.h"
#include "report/call_sites_view.h"
#include "report/report_model.h"
#include "report/text_report.h"

namespace flopspy::tools {
namespace {

using call_sites_test::AnalyzedWithSites;
using call_sites_test::kForward;
using call_sites_test::kLoss;

std::string Text(const TraceReport& t, size_t rows = kCallSiteRows) {
  std::ostringstream out;
  PrintCallSites(t, out, rows);
  return out.str();
}

std::string Report(ReportModel& model) {
  std::ostringstream out;
  WriteTextReport(model.traces, {.view = model.view}, out);
  return out.str();
}

TEST(CallSitesText, EachSiteWithItsFiguresRegimesAndKernels) {
  const std::string text = Text(AnalyzedWithSites());
  EXPECT_NE(text.find("Call sites (GPU time by the line that launched the kernels)"),
            std::string::npos)
      << text;
  // Longest first: GPU %, total, launches, FLOPs, known, FLOP/s, launch-bound, label.
  const size_t forward = text.find(kForward), loss = text.find(kLoss);
  ASSERT_NE(forward, std::string::npos) << text;
  ASSERT_NE(loss, std::string::npos) << text;
  EXPECT_LT(forward, loss);
  const std::string row =
      text.substr(text.rfind('\n', forward) + 1, forward - text.rfind('\n', forward));
  EXPECT_NE(row.find("88.0"), std::string::npos) << row;
  EXPECT_NE(row.find("2.2 ms"), std::string::npos) << row;
  EXPECT_NE(row.find("91%"), std::string::npos) << row;  // FLOPs known for 2.0 of 2.2 ms
  EXPECT_NE(row.find("9%"), std::string::npos) << row;   // 0.2 ms launch-bound
  EXPECT_NE(text.find("regime: memory 91% / ? 9%"), std::string::npos) << text;
  // Its top kernels by short name: the mul's operation, the add's function.
  EXPECT_NE(text.find("  2 ms   91% mul"), std::string::npos) << text;
  EXPECT_NE(text.find("add_kernel"), std::string::npos) << text;
  // The site without FLOPs has none to show, never a zero.
  const std::string loss_row =
      text.substr(text.rfind('\n', loss) + 1, loss - text.rfind('\n', loss));
  EXPECT_NE(loss_row.find(" - "), std::string::npos) << loss_row;
}

TEST(CallSitesText, CoverageAndModulesWithoutSymbols) {
  TraceReport t = AnalyzedWithSites();
  t.metadata["config"]["stack_sample"] = 32;
  const std::string text = Text(t);
  EXPECT_NE(text.find("stacks sampled for 96% of kernel time, 4% shared out from their "
                      "signature's samples"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(FLOPSPY_STACK_SAMPLE=32), 0% without a call site"), std::string::npos)
      << text;
  EXPECT_NE(text.find("/usr/lib/libstripped.so: no symbols"), std::string::npos) << text;
}

TEST(CallSitesText, TopCutsTheSites) {
  const std::string text = Text(AnalyzedWithSites(), 1);
  EXPECT_NE(text.find(kForward), std::string::npos);
  EXPECT_EQ(text.find(kLoss), std::string::npos) << text;
  EXPECT_NE(text.find("1 more call site"), std::string::npos) << text;
}

TEST(CallSitesText, NoSamplesNoSection) {
  EXPECT_EQ(Text(AnalyzedWithSites(false)), "");
  std::vector<TraceReport> traces;
  traces.push_back(AnalyzedWithSites(false));
  ReportModel model = BuildReportModel(std::move(traces));
  EXPECT_EQ(Report(model).find("Call sites"), std::string::npos);
}

TEST(CallSitesText, TheReportHasTheSectionAndObeysTop) {
  std::vector<TraceReport> traces;
  traces.push_back(AnalyzedWithSites());
  ViewOptions view;
  view.top = 1;
  ReportModel model = BuildReportModel(std::move(traces), {}, view);
  const std::string text = Report(model);
  EXPECT_NE(text.find("Call sites"), std::string::npos) << text;
  EXPECT_EQ(text.find(kLoss), std::string::npos) << text;
}

TEST(CallSitesText, ByCallSiteGroupsTheKernelTableUnderTheSites) {
  std::vector<TraceReport> traces;
  traces.push_back(AnalyzedWithSites());
  ViewOptions view;
  view.by_call_site = true;
  ReportModel model = BuildReportModel(std::move(traces), {}, view);
  const std::string text = Report(model);
  const size_t table = text.find("Kernels by call site");
  ASSERT_NE(table, std::string::npos) << text;
  EXPECT_EQ(text.find("Kernels by GPU time"), std::string::npos) << text;
  // The site, then its kernels (full labels), then the next site and its kernel.
  const size_t forward = text.find(kForward, table);
  const size_t mul = text.find("vectorized_elementwise_kernel", forward);
  const size_t add = text.find("add_kernel", mul);
  const size_t loss = text.find(kLoss, add);
  const size_t add_again = text.find("add_kernel", loss);
  EXPECT_NE(forward, std::string::npos) << text;
  EXPECT_NE(mul, std::string::npos) << text;
  EXPECT_NE(add, std::string::npos) << text;
  EXPECT_NE(loss, std::string::npos) << text;
  EXPECT_NE(add_again, std::string::npos) << text;
}

TEST(CallSitesText, ByCallSiteWithoutSitesKeepsTheFlatTable) {
  std::vector<TraceReport> traces;
  traces.push_back(AnalyzedWithSites(false));
  ViewOptions view;
  view.by_call_site = true;
  ReportModel model = BuildReportModel(std::move(traces), {}, view);
  const std::string text = Report(model);
  EXPECT_EQ(text.find("Kernels by call site"), std::string::npos) << text;
  EXPECT_NE(text.find("Kernels by GPU time"), std::string::npos) << text;
}

// --sort and --filter reorder and drop kernel rows: the sites' kernels follow their rows.
TEST(CallSitesText, SiteKernelsFollowTheirRowsAcrossSortAndFilter) {
  std::vector<TraceReport> traces;
  traces.push_back(AnalyzedWithSites());
  ViewOptions view;
  view.sort = SortKey::kCount;
  view.filter = "add_kernel";  // the add, row 1 by time, is the only row left
  ReportModel model = BuildReportModel(std::move(traces), {}, view);
  const TraceReport& t = model.traces[0];
  ASSERT_EQ(t.run.kernels.size(), 1u);
  const analyzers::CallSite& forward = t.call_sites.sites[0];
  ASSERT_EQ(forward.kernels.size(), 1u);  // the mul was filtered out
  EXPECT_EQ(forward.kernels[0].group, 0u);
  EXPECT_EQ(t.run.kernels[forward.kernels[0].group].signature, 2u);
}

TEST(CallSitesText, RegimeMixListsTheLargestFirst) {
  std::array<double, 4> ns{};
  ns[static_cast<size_t>(analyzers::Regime::kComputeBound)] = 62;
  ns[static_cast<size_t>(analyzers::Regime::kMemoryBound)] = 30;
  ns[static_cast<size_t>(analyzers::Regime::kOverheadBound)] = 8;
  EXPECT_EQ(RegimeMixText(ns, 100), "compute 62% / memory 30% / overhead 8%");
  EXPECT_EQ(RegimeMixText(ns, 0), "-");
}

TEST(CallSitesText, FramesFromMustBeARegex) {
  EXPECT_EQ(FramesFromError(""), "");
  EXPECT_EQ(FramesFromError("^/home/me/"), "");
  EXPECT_NE(FramesFromError("(unclosed").find("--frames-from (unclosed: not a valid"),
            std::string::npos);
}

}  // namespace
}  // namespace flopspy::tools
