// The HTML page of a trace with steps and NVTX ranges (the golden StepsTrace): one bar per step
// in the steps chart with its warm-up marked, every nesting path in the range tree, the ranges
// table, and the largest estimated gains at the top of the summary.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "demo_trace.h"
#include "golden_traces.h"
#include "html_check.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

using nlohmann::json;

class HtmlStepsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string trace = dir_->path() + "/steps.fspy";
    WriteFile(trace, StepsTrace());
    const std::string page = dir_->path() + "/report.html";
    const auto r = RunChild({FLOPSPY_REPORT_PATH, trace, "--json", "--html", page});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    model_ = new json(json::parse(r.out));
    std::ifstream in(page, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    doc_ = new HtmlDocument(ParseHtml(s.str()));
  }
  static void TearDownTestSuite() {
    delete doc_;
    delete model_;
    delete dir_;
  }
  static const json& Trace() { return model_->at("traces").at(0); }

  static TempDir* dir_;
  static json* model_;
  static HtmlDocument* doc_;
};
TempDir* HtmlStepsTest::dir_ = nullptr;
json* HtmlStepsTest::model_ = nullptr;
HtmlDocument* HtmlStepsTest::doc_ = nullptr;

TEST_F(HtmlStepsTest, PageIsWellFormedWithBothSectionsInTheContents) {
  for (const auto& p : doc_->problems) ADD_FAILURE() << p;
  std::set<std::string> toc;
  for (const HtmlNode* a : ByTag(*doc_->root, "a")) toc.insert(a->Attr("href"));
  EXPECT_TRUE(toc.contains("#t0-s-steps"));
  EXPECT_TRUE(toc.contains("#t0-s-ranges"));
  ASSERT_NE(ById(*doc_->root, "t0-s-steps"), nullptr);
  ASSERT_NE(ById(*doc_->root, "t0-s-ranges"), nullptr);
  // Rendered by their own sections, not again by the generic renderer.
  EXPECT_EQ(ById(*doc_->root, "t0-s-range_paths"), nullptr);
  EXPECT_EQ(ById(*doc_->root, "t0-s-steps-generic"), nullptr);
}

TEST_F(HtmlStepsTest, OneBarPerStepWarmUpMarked) {
  const json& per_step = Trace().at("steps").at("per_step");
  ASSERT_EQ(per_step.size(), 4u);
  const HtmlNode* chart = ById(*doc_->root, "t0-steps-chart");
  ASSERT_NE(chart, nullptr);
  const auto bars = ByTag(*chart, "g", "step");
  ASSERT_EQ(bars.size(), per_step.size());
  double tallest = 0;
  for (size_t i = 0; i < bars.size(); ++i) {
    EXPECT_EQ(bars[i]->Attr("data-step"), std::to_string(per_step[i].at("number").get<int>()));
    EXPECT_EQ(bars[i]->HasClass("warmup"), per_step[i].at("warmup").get<bool>()) << i;
    EXPECT_NE(bars[i]->Text().find("step " + bars[i]->Attr("data-step") + ":"), std::string::npos);
    // The segments stack to the bar's height, proportional to the step's time.
    double height = 0;
    for (const HtmlNode* r : ByTag(*bars[i], "rect", "seg")) height += std::stod(r->Attr("height"));
    EXPECT_GT(height, 0);
    if (i == 0) tallest = height;
    EXPECT_NEAR(height / tallest,
                per_step[i].at("time_ns").get<double>() / per_step[0].at("time_ns").get<double>(),
                0.01);
  }
  // Step 1 is the slow warm-up step: the tallest bar and the only one marked.
  EXPECT_TRUE(bars[0]->HasClass("warmup"));
  EXPECT_EQ(ByTag(*chart, "g", "warmup").size(), 1u);
}

TEST_F(HtmlStepsTest, RangeTreeListsEveryPath) {
  const json& paths = Trace().at("range_paths");
  ASSERT_FALSE(paths.empty());
  const HtmlNode* tree = ById(*doc_->root, "t0-ranges-tree");
  ASSERT_NE(tree, nullptr);
  std::set<std::string> listed;
  for (const HtmlNode* li : ByTag(*tree, "li")) listed.insert(li->Attr("data-path"));
  for (const json& p : paths) EXPECT_TRUE(listed.contains(p.at("path"))) << p.at("path");
  // Children sit inside their parent's item.
  const auto roots = ByTag(*tree, "li");
  ASSERT_FALSE(roots.empty());
  EXPECT_EQ(roots[0]->Attr("data-path"), "ProfilerStep#N");
  EXPECT_EQ(ByTag(*roots[0], "li").size(), paths.size());
}

TEST_F(HtmlStepsTest, RangesTableHasEveryRange) {
  const HtmlNode* table = ById(*doc_->root, "t0-ranges");
  ASSERT_NE(table, nullptr);
  const auto rows = ByTag(*table, "tr");
  // The header row and one per range.
  EXPECT_EQ(rows.size(), Trace().at("ranges").size() + 1);
  std::string text = table->Text();
  for (const json& r : Trace().at("ranges")) {
    EXPECT_NE(text.find(r.at("name").get<std::string>()), std::string::npos);
  }
}

// The three largest gains are checked on the demo trace (html_report_test.cpp); this trace's
// advice has none, and then the summary has no gains list at all.
TEST_F(HtmlStepsTest, NoGainsNoGainsList) {
  for (const json& a : Trace().at("advice")) {
    ASSERT_FALSE(a.at("gain_ns").is_number() && a.at("gain_ns").get<double>() > 0) << a.at("title");
  }
  const HtmlNode* summary = ById(*doc_->root, "t0-s-summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_TRUE(ByTag(*summary, "ol", "top-gains").empty());
}

}  // namespace
}  // namespace flopspy::testing
