// "Where the GPU time goes" (tools/report/kernel_rollup.cpp) and the view options that choose
// the kernel rows (tools/report/view_options.cpp): one model, every output.
#include "report/kernel_rollup.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rank_trace.h"
#include "report/csv_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/labels.h"
#include "report/report_model.h"
#include "report/text_kernels.h"
#include "report/text_report.h"
#include "report/view_options.h"
#include "subprocess.h"

namespace flopspy::tools {
namespace {

using analyzers::KernelGroup;
using analyzers::Regime;

constexpr char kGelu[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluFunctor<float>, "
    "std::array<char*, 2ul> >(int, at::native::GeluFunctor<float>, std::array<char*, 2ul>)";

KernelGroup Group(std::string name, std::string op, std::string category, double gpu_ns,
                  uint64_t executions, Regime regime = Regime::kUnknown,
                  uint64_t launches_with_flops = 0) {
  KernelGroup g;
  g.name = std::move(name);
  g.op = std::move(op);
  g.category = std::move(category);
  g.gpu_ns = gpu_ns;
  g.executions = g.launches = executions;
  if (launches_with_flops > 0) {
    g.timed.flops_source = trace::FigureSource::kAnalytic;
    g.timed.flops = 1e9;
    g.timed.launches_with_flops = launches_with_flops;
    // Launches of one signature take the same time here.
    g.timed.flops_ns =
        gpu_ns * static_cast<double>(launches_with_flops) / static_cast<double>(executions);
  }
  if (regime != Regime::kUnknown) {
    analyzers::Placement p;
    p.regime = regime;
    p.calls = executions;
    p.calls_with_flops = launches_with_flops;
    p.flops_time_ns = g.timed.flops_ns;
    g.placement = p;
  }
  return g;
}

// Three GEMM signatures of 20 each are the largest family although no one signature is.
std::vector<KernelGroup> Job() {
  return {Group("elementwise_a", "mul", "elementwise", 30, 10, Regime::kMemoryBound),
          Group("sm90_xmma_gemm_a", "", "gemm", 20, 4, Regime::kComputeBound, 4),
          Group("sm90_xmma_gemm_b", "", "gemm", 20, 4, Regime::kComputeBound, 1),
          Group("sm90_xmma_gemm_c", "", "gemm", 20, 4, Regime::kMemoryBound, 4),
          Group(kGelu, "gelu", "elementwise", 10, 5)};
}

TEST(KernelRollup, SumsTimeByFamilyAndByName) {
  const std::vector<KernelGroup> job = Job();
  const KernelRollup r = BuildKernelRollup(job);
  EXPECT_DOUBLE_EQ(r.kernel_ns, 100);
  ASSERT_EQ(r.families.size(), 2u);
  const RollupRow& gemm = r.families[0];
  EXPECT_EQ(gemm.key, "gemm");
  EXPECT_DOUBLE_EQ(gemm.gpu_ns, 60);
  EXPECT_DOUBLE_EQ(gemm.share, 0.6);
  EXPECT_EQ(gemm.count, 12u);
  EXPECT_EQ(gemm.signatures, 3u);
  // FLOPs known for all of a and c, one launch in four of b: 20 + 5 + 20 of 60.
  EXPECT_DOUBLE_EQ(gemm.FlopsCoverage(), 45.0 / 60);
  // Regimes on the same basis as the run's shares: b's three launches without FLOPs are unknown.
  EXPECT_DOUBLE_EQ(gemm.regime_ns[static_cast<size_t>(Regime::kComputeBound)], 25);
  EXPECT_DOUBLE_EQ(gemm.regime_ns[static_cast<size_t>(Regime::kMemoryBound)], 20);
  EXPECT_DOUBLE_EQ(gemm.regime_ns[static_cast<size_t>(Regime::kUnknown)], 15);
  EXPECT_EQ(gemm.DominantRegime(), Regime::kComputeBound);
  EXPECT_EQ(r.families[1].key, "elementwise");
  EXPECT_DOUBLE_EQ(r.families[1].FlopsCoverage(), 0);
  // By name: the op when there is one, else the kernel's short name.
  ASSERT_EQ(r.names.size(), 5u);
  EXPECT_EQ(r.names[0].key, "mul");
  EXPECT_EQ(r.names[4].key, "gelu");
}

TEST(KernelRollup, KeepsTheTopRowsAndCountsTheRest) {
  const std::vector<KernelGroup> job = Job();
  ViewOptions view;
  view.top = 2;
  const KernelRollup r = BuildKernelRollup(job, view);
  ASSERT_EQ(r.names.size(), 2u);
  EXPECT_EQ(r.more_names.rows, 3u);
  EXPECT_DOUBLE_EQ(r.more_names.gpu_ns, 50);
  EXPECT_DOUBLE_EQ(r.more_names.share, 0.5);
  EXPECT_EQ(r.more_families.rows, 0u);
}

TEST(KernelRollup, SortsByTheChosenKey) {
  const std::vector<KernelGroup> job = Job();
  ViewOptions view;
  view.sort = SortKey::kCount;
  const KernelRollup r = BuildKernelRollup(job, view);
  EXPECT_EQ(r.families[0].key, "elementwise");  // 15 executions against 12
}

TEST(KernelRollup, TextSaysWhereTheTimeGoes) {
  const std::vector<KernelGroup> job = Job();
  ViewOptions view;
  view.top = 3;
  std::ostringstream out;
  PrintKernelRollup(BuildKernelRollup(job, view), out);
  const std::string text = out.str();
  EXPECT_NE(text.find("Where the GPU time goes"), std::string::npos) << text;
  EXPECT_NE(text.find("60.0"), std::string::npos) << text;
  EXPECT_NE(text.find("compute 42"), std::string::npos) << text;  // 25 of gemm's 60
  EXPECT_NE(text.find("? 75"), std::string::npos) << text;  // b: 3 of 4 launches without FLOPs
  EXPECT_NE(text.find("sm90_xmma_gemm_a"), std::string::npos) << text;
  EXPECT_EQ(text.find("gelu"), std::string::npos) << text;  // past the top 3
  EXPECT_NE(text.find("... 2 more names (30.0% of kernel time)"), std::string::npos) << text;
}

TEST(KernelNames, UncataloguedFunctorsKeepTheirName) {
  KernelGroup g = Group(kGelu, "gelu", "elementwise", 1, 1);
  g.shape_key = "n=262144";
  EXPECT_EQ(KernelLabel(g), "gelu [n=262144] · vectorized_elementwise_kernel");
  EXPECT_EQ(RollupName(g), "gelu");
}

TEST(KernelNames, NeverShortenToABracket) {
  EXPECT_EQ(KernelShortName("vectorized_elementwise_kernel [6]"),
            "vectorized_elementwise_kernel [6]");
  EXPECT_EQ(KernelShortName("[6]"), "[6]");
  EXPECT_EQ(KernelShortName(""), "(unnamed kernel)");
  const KernelGroup g = Group("sm90_xmma_gemm_f16 [6]", "", "gemm", 1, 1);
  EXPECT_EQ(RollupName(g), "sm90_xmma_gemm_f16 [6]");
}

TEST(ViewOptions, FilterKeepsMatchingNamesAndGroupingKeepsGroupsTogether) {
  std::vector<KernelGroup> kernels = Job();
  ViewOptions view;
  view.filter = "gemm_[ab]|Gelu";
  ApplyViewOptions(kernels, view);
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[2].op, "gelu");

  kernels = Job();
  view = {};
  view.group_by = GroupBy::kFamily;
  ApplyViewOptions(kernels, view);
  // gemm (60) before elementwise (40), the 30 ns mul row after every GEMM row.
  EXPECT_EQ(kernels[0].category, "gemm");
  EXPECT_EQ(kernels[2].category, "gemm");
  EXPECT_EQ(kernels[3].op, "mul");
}

TEST(ViewOptions, ParsesTheCommandLineWords) {
  ViewOptions view;
  EXPECT_EQ(ParseViewOptions(5, "count", "name", "gemm", &view), "");
  EXPECT_EQ(view.top, 5u);
  EXPECT_EQ(view.sort, SortKey::kCount);
  EXPECT_EQ(view.group_by, GroupBy::kName);
  EXPECT_NE(ParseViewOptions(0, "speed", "name", "", &view).find("--sort speed"),
            std::string::npos);
  EXPECT_NE(ParseViewOptions(0, "time", "stream", "", &view).find("--group-by stream"),
            std::string::npos);
  EXPECT_NE(ParseViewOptions(0, "time", "name", "(unclosed", &view).find("--filter"),
            std::string::npos);
  const nlohmann::json j = ViewOptionsJson(view);  // the last valid options
  EXPECT_EQ(j["sort"], "count");
  EXPECT_EQ(j["top"], 5);
}

// A one-rank trace of the multi-trace tests, written into `dir`.
std::string WriteRankTrace(const testing::TempDir& dir) {
  const std::string path = dir.path() + "/rank0.fspy";
  const std::vector<uint8_t> bytes = testing::RankTrace({});
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path;
}

// One model with the options applied: the JSON states them, and the JSON, CSV and HTML carry
// the same rollup as the text.
TEST(KernelRollup, EveryOutputCarriesIt) {
  testing::TempDir dir;
  const std::string path = WriteRankTrace(dir);
  ViewOptions view;
  view.top = 1;
  const ReportModel model = BuildReportModel({AnalyzeTrace(path)}, {}, view);
  const nlohmann::json& doc = model.Json();
  EXPECT_EQ(doc["view"]["top"], 1);
  const nlohmann::json& rollup = doc["traces"][0]["kernel_rollup"];
  ASSERT_TRUE(rollup.is_object()) << doc["traces"][0].dump();
  ASSERT_EQ(rollup["families"].size(), 1u);
  EXPECT_EQ(rollup["names"].size(), 1u);
  EXPECT_DOUBLE_EQ(rollup["families"][0]["gpu_ns"].get<double>(),
                   model.traces[0].rollup.families[0].gpu_ns);

  bool csv_names = false;
  for (const CsvFile& f : RenderCsvTables(doc)) {
    if (f.name.find("kernel_rollup") != std::string::npos &&
        f.content.find(model.traces[0].rollup.names[0].key) != std::string::npos) {
      csv_names = true;
    }
  }
  EXPECT_TRUE(csv_names);

  const std::string html_path = dir.path() + "/report.html";
  ASSERT_TRUE(HtmlReportSink(html_path).Write(model).ok);
  std::ifstream in(html_path);
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_NE(html.str().find("Where the GPU time goes"), std::string::npos);
}

TEST(ViewOptions, TextGroupsSignaturesUnderTheirFamily) {
  testing::TempDir dir;
  const std::string path = WriteRankTrace(dir);
  ViewOptions view;
  view.group_by = GroupBy::kFamily;
  view.sort = SortKey::kCount;
  const ReportModel model = BuildReportModel({AnalyzeTrace(path)}, {}, view);
  std::ostringstream out;
  TextReportSink(TextOptions{}, out).Write(model);
  const std::string text = out.str();
  EXPECT_NE(text.find("Kernels by count, grouped by family"), std::string::npos) << text;
  EXPECT_NE(text.find("family gemm: 1 signature"), std::string::npos) << text;
}

}  // namespace
}  // namespace flopspy::tools
