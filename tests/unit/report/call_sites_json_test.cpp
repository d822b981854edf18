// The call sites in JSON ("call_sites", "by_call_site"), CSV (call_sites.csv and its
// companions), --group-by call-site and the Chrome export's "call_site" args, from hand-built
// call sites (call_sites_fixture.h).
#include "report/call_sites_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "call_sites_fixture.h"
#include "report/chrome_export.h"
#include "report/csv_report.h"
#include "report/report_model.h"
#include "report/text_report.h"
#include "subprocess.h"

namespace flopspy::tools {
namespace {

using call_sites_test::AnalyzedWithSites;
using call_sites_test::kForward;
using call_sites_test::kLoss;

ReportModel Model(bool with_sites, ViewOptions view = {}) {
  std::vector<TraceReport> traces;
  traces.push_back(AnalyzedWithSites(with_sites));
  return BuildReportModel(std::move(traces), {}, view);
}

const CsvFile* FileNamed(const std::vector<CsvFile>& files, const std::string& name) {
  const auto it =
      std::find_if(files.begin(), files.end(), [&](const CsvFile& f) { return f.name == name; });
  return it != files.end() ? &*it : nullptr;
}

TEST(CallSitesJson, SitesCoverageModulesAndStacks) {
  const ReportModel model = Model(true);
  const nlohmann::json& c = model.Json()["traces"][0]["call_sites"];
  ASSERT_TRUE(c.is_object()) << model.Json()["traces"][0].dump();
  ASSERT_EQ(c["sites"].size(), 2u);
  const nlohmann::json& s = c["sites"][0];
  EXPECT_EQ(s["label"], kForward);
  EXPECT_EQ(s["kind"], "frame");
  EXPECT_EQ(s["frame"]["file"], "model.py");
  EXPECT_EQ(s["frame"]["line"], 88);
  EXPECT_DOUBLE_EQ(s["gpu_ns"].get<double>(), 2'200'000);
  EXPECT_DOUBLE_EQ(s["share"].get<double>(), 0.88);
  EXPECT_DOUBLE_EQ(s["launches"].get<double>(), 6);
  EXPECT_DOUBLE_EQ(s["counted_flops"].get<double>(), 4000);
  EXPECT_NEAR(s["flops_coverage"].get<double>(), 2.0 / 2.2, 1e-12);
  EXPECT_DOUBLE_EQ(s["achieved_flops_per_s"].get<double>(), 4000 / 2e-3);
  EXPECT_NEAR(s["launch_bound_share"].get<double>(), 0.2 / 2.2, 1e-12);
  EXPECT_NEAR(s["regime_shares"]["memory_bound"].get<double>(), 2.0 / 2.2, 1e-12);
  ASSERT_EQ(s["stack"].size(), 2u);
  EXPECT_EQ(s["stack"][1]["label"], kForward);
  ASSERT_EQ(s["kernels"].size(), 2u);
  EXPECT_EQ(s["kernels"][0]["short_name"], "mul");
  EXPECT_EQ(s["kernels"][0]["signature"], 1);
  // A site without FLOPs: no rate, never 0.
  EXPECT_TRUE(c["sites"][1]["achieved_flops_per_s"].is_null());
  EXPECT_DOUBLE_EQ(c["coverage"]["sampled_share"].get<double>(), 0.96);
  EXPECT_DOUBLE_EQ(c["coverage"]["estimated_share"].get<double>(), 0.04);
  EXPECT_TRUE(c["coverage"]["sample_every"].is_null());
  EXPECT_EQ(c["modules_without_symbols"][0], "/usr/lib/libstripped.so: no symbols");
  ASSERT_EQ(c["stacks"].size(), 2u);
  EXPECT_EQ(c["stacks"][0]["frames"][1], kForward);
  EXPECT_EQ(c["stacks"][1]["site"], 1);
  EXPECT_FALSE(model.Json()["traces"][0].contains("by_call_site"));
}

TEST(CallSitesJson, NoSamplesNoKey) {
  const ReportModel model = Model(false);
  EXPECT_FALSE(model.Json()["traces"][0].contains("call_sites"));
}

TEST(CallSitesJson, ByCallSiteRowsPerSiteAndKernel) {
  ViewOptions view;
  view.by_call_site = true;
  const ReportModel model = Model(true, view);
  EXPECT_EQ(model.Json()["view"]["by_call_site"], true);
  const nlohmann::json& rows = model.Json()["traces"][0]["by_call_site"];
  ASSERT_EQ(rows.size(), 3u) << rows.dump();
  EXPECT_EQ(rows[0]["call_site"], kForward);
  EXPECT_EQ(rows[0]["short_name"], "mul");
  EXPECT_DOUBLE_EQ(rows[0]["gpu_share"].get<double>(), 0.8);
  EXPECT_EQ(rows[1]["call_site"], kForward);
  EXPECT_EQ(rows[1]["name"], call_sites_test::kAddKernel);
  EXPECT_EQ(rows[2]["call_site"], kLoss);
}

TEST(CallSitesCsv, CallSitesFileAndItsCompanions) {
  ViewOptions view;
  view.by_call_site = true;
  const ReportModel model = Model(true, view);
  const std::vector<CsvFile> files = RenderCsvTables(model.Json());
  const CsvFile* sites = FileNamed(files, "call_sites.csv");
  ASSERT_NE(sites, nullptr);
  EXPECT_EQ(sites->rows, 2u);
  const std::string header = sites->content.substr(0, sites->content.find("\r\n"));
  EXPECT_EQ(header.rfind("label,kind,gpu_ns,share,launches,counted_flops,flops_coverage,"
                         "achieved_flops_per_s,launch_bound_share,kernels,stack,",
                         0),
            0u)
      << header;
  for (const char* column : {",frame.file,", ",regime_shares.memory_bound,", ",sampled_ns"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column << " in " << header;
  }
  // The stack folded outermost first; the kernels by short name.
  EXPECT_NE(sites->content.find("train.py:5 (<module>);model.py:88 (Block.forward)"),
            std::string::npos)
      << sites->content;
  EXPECT_NE(sites->content.find(",mul;add_kernel"), std::string::npos) << sites->content;
  const CsvFile* stacks = FileNamed(files, "call_sites_stacks.csv");
  ASSERT_NE(stacks, nullptr);
  EXPECT_EQ(stacks->content.substr(0, stacks->content.find("\r\n")), "gpu_ns,site,frames");
  const CsvFile* coverage = FileNamed(files, "call_sites_coverage.csv");
  ASSERT_NE(coverage, nullptr);
  EXPECT_EQ(coverage->rows, 1u);
  EXPECT_NE(coverage->content.find("sampled_share"), std::string::npos);
  const CsvFile* by_site = FileNamed(files, "by_call_site.csv");
  ASSERT_NE(by_site, nullptr);
  EXPECT_EQ(by_site->rows, 3u);
  EXPECT_EQ(
      by_site->content.rfind("call_site,call_site_kind,call_site_gpu_ns,short_name,gpu_ns,", 0), 0u)
      << by_site->content;
}

TEST(CallSitesCsv, NoSamplesNoFile) {
  const std::vector<CsvFile> files = RenderCsvTables(Model(false).Json());
  EXPECT_EQ(FileNamed(files, "call_sites.csv"), nullptr);
}

TEST(GroupByCallSite, KernelTimePerSiteInTextAndJson) {
  ViewOptions view;
  view.group_by = GroupBy::kCallSite;
  ReportModel model = Model(true, view);
  const KernelRollup& r = model.traces[0].rollup;
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].key, kForward);
  EXPECT_DOUBLE_EQ(r.groups[0].gpu_ns, 2'200'000);  // mul x4 + add x2 by site_of_activity
  EXPECT_EQ(r.groups[0].count, 6u);
  EXPECT_EQ(r.groups[1].key, kLoss);
  const nlohmann::json& rollup = model.Json()["traces"][0]["kernel_rollup"];
  EXPECT_EQ(rollup["call_sites"][0]["call_site"], kForward);
  std::ostringstream text;
  WriteTextReport(model.traces, {.view = model.view}, text);
  EXPECT_NE(text.str().find("Kernel time by call site"), std::string::npos) << text.str();
}

TEST(GroupByCallSite, WithoutSamplesSaysSo) {
  ViewOptions view;
  view.group_by = GroupBy::kCallSite;
  ReportModel model = Model(false, view);
  EXPECT_NE(model.traces[0].rollup.groups_note.find("nothing to group by call site"),
            std::string::npos);
}

TEST(GroupByCallSite, ParsedFromTheCommandLineWord) {
  ViewOptions view;
  EXPECT_EQ(ParseViewOptions(0, "time", "call-site", "", &view), "");
  EXPECT_EQ(view.group_by, GroupBy::kCallSite);
  EXPECT_EQ(KernelRowsView(view).group_by, GroupBy::kSignature);
}

TEST(CallSitesChrome, LaunchAndKernelSlicesCarryTheirSite) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/sites.fspy";
  const TraceReport t = AnalyzedWithSites(true, path);
  const ChromeTraceInput input{path, &t.run, &t.steps, &t.call_sites};
  std::ostringstream out;
  ExportChromeTrace(std::span<const ChromeTraceInput>(&input, 1), {}, out);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  size_t launches = 0, kernels = 0;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat != "launch" && cat != "kernel") continue;
    ASSERT_TRUE(e["args"].contains("call_site")) << e.dump();
    const uint64_t c = e["args"]["correlation"].get<uint64_t>();
    EXPECT_EQ(e["args"]["call_site"], c == 7 ? kLoss : kForward) << e.dump();
    (cat == "launch" ? launches : kernels)++;
  }
  EXPECT_EQ(launches, 7u);
  EXPECT_EQ(kernels, 7u);
  // Without call sites, no such arg.
  const ChromeTraceInput bare{path, &t.run, &t.steps, nullptr};
  std::ostringstream plain;
  ExportChromeTrace(std::span<const ChromeTraceInput>(&bare, 1), {}, plain);
  EXPECT_EQ(plain.str().find("call_site"), std::string::npos);
}

}  // namespace
}  // namespace flopspy::tools
