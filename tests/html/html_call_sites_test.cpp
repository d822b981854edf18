// The "Call sites" section of the HTML page (issue 19): the demo trace's page with call sites
// made by hand (call_sites_page.h): in the contents, a row per site with its figures, an icicle
// whose frames' widths are their GPU time and which point at their site's row, every label
// escaped, and no section at all for a trace without stack samples.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "call_sites_page.h"
#include "html_check.h"
#include "report/html_report.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

using nlohmann::json;

class HtmlCallSitesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    model_ = new json(DemoModelWithCallSites(FLOPSPY_REPORT_PATH, dir_->path()));
    page_ = new std::string(tools::RenderHtmlReport(*model_));
    doc_ = new HtmlDocument(ParseHtml(*page_));
  }
  static void TearDownTestSuite() {
    delete doc_;
    delete page_;
    delete model_;
    delete dir_;
  }
  static const json& Sites() { return model_->at("traces").at(0).at("call_sites").at("sites"); }

  static TempDir* dir_;
  static json* model_;
  static std::string* page_;
  static HtmlDocument* doc_;
};
TempDir* HtmlCallSitesTest::dir_ = nullptr;
json* HtmlCallSitesTest::model_ = nullptr;
std::string* HtmlCallSitesTest::page_ = nullptr;
HtmlDocument* HtmlCallSitesTest::doc_ = nullptr;

TEST_F(HtmlCallSitesTest, SectionIsInTheContentsAndNotRenderedGenerically) {
  ASSERT_TRUE(model_->is_object()) << "flopspy-report --json of the demo trace failed";
  for (const auto& p : doc_->problems) ADD_FAILURE() << p;
  std::set<std::string> toc;
  for (const HtmlNode* a : ByTag(*doc_->root, "a")) toc.insert(a->Attr("href"));
  EXPECT_TRUE(toc.contains("#t0-s-calls"));
  ASSERT_NE(ById(*doc_->root, "t0-s-calls"), nullptr);
  EXPECT_EQ(ById(*doc_->root, "t0-s-call_sites"), nullptr);
}

TEST_F(HtmlCallSitesTest, OneRowPerSiteWithItsFigures) {
  const HtmlNode* table = ById(*doc_->root, "t0-calls-sites");
  ASSERT_NE(table, nullptr);
  const auto rows = ByTag(*table, "tr", "site");
  ASSERT_EQ(rows.size(), Sites().size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(rows[i]->Attr("id"), "t0-calls-site" + std::to_string(i));
    const auto cells = ByTag(*rows[i], "td");
    ASSERT_EQ(cells.size(), 9u);
    EXPECT_NE(cells[0]->Text().find(Sites()[i].at("label").get<std::string>()), std::string::npos);
    EXPECT_DOUBLE_EQ(std::stod(cells[1]->Attr("data-v")), Sites()[i].at("gpu_ns").get<double>());
  }
  // model.py:88: 4 TFLOP in 5 ms, all its time with a figure; 80 % compute, 20 % memory.
  const auto first = ByTag(*rows[0], "td");
  EXPECT_NE(first[4]->Text().find("100% of time"), std::string::npos) << first[4]->Text();
  EXPECT_NE(first[5]->Text().find("800 TFLOP/s"), std::string::npos) << first[5]->Text();
  const auto bars = ByTag(*first[6], "rect");
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0]->Attr("class"), "compute_bound");
  EXPECT_NEAR(std::stod(bars[0]->Attr("width")), 72, 0.01);
  EXPECT_NEAR(std::stod(bars[1]->Attr("width")), 18, 0.01);
  // The stack in a fold, the user's frame marked; the backward site says its kind.
  EXPECT_EQ(ByTag(*first[0], "li").size(), 3u);
  EXPECT_EQ(ByTag(*first[0], "li", "user").size(), 1u);
  EXPECT_NE(rows[1]->Text().find("backward"), std::string::npos);
  EXPECT_FALSE(ByTag(*rows[1], "span", "badge").empty());
  // model.py:90: a fifth of its time launch bound; top kernels in a fold.
  const auto third = ByTag(*rows[2], "td");
  EXPECT_EQ(third[7]->Text(), "20%");
  EXPECT_NE(third[8]->Text().find("vectorized_layer_norm_kernel"), std::string::npos);
}

TEST_F(HtmlCallSitesTest, IcicleFramesAreAsWideAsTheirTimeAndPointAtTheirSite) {
  const HtmlNode* chart = ById(*doc_->root, "t0-calls-icicle");
  ASSERT_NE(chart, nullptr);
  const auto frames = ByTag(*chart, "div", "ice");
  // The root, train.py:40 and backward under it, and the three frames under train.py:40,
  // and linear.py under model.py:88.
  ASSERT_EQ(frames.size(), 7u);
  EXPECT_TRUE(frames[0]->HasClass("root"));
  EXPECT_EQ(frames[0]->Attr("data-w"), "1");
  std::map<std::string, const HtmlNode*> by_label;
  for (const HtmlNode* f : frames) by_label[f->Text()] = f;
  const auto width = [&](const std::string& label) {
    return by_label.contains(label) ? std::stod(by_label[label]->Attr("data-w")) : -1;
  };
  EXPECT_DOUBLE_EQ(width("train.py:40 (main)"), 0.75);
  EXPECT_DOUBLE_EQ(width("model.py:88 (Block.forward)"), 0.5);
  EXPECT_DOUBLE_EQ(width("linear.py:125 (Linear.forward)"), 0.5);
  EXPECT_DOUBLE_EQ(width("backward, no call site"), 0.25);
  // Each frame points at the row of the site holding most of its time.
  const HtmlNode* line88 = by_label["model.py:88 (Block.forward)"];
  ASSERT_NE(line88, nullptr);
  EXPECT_EQ(line88->Attr("data-row"), "t0-calls-site0");
  EXPECT_TRUE(line88->HasClass("site"));
  EXPECT_EQ(by_label["model.py:90 (Block.forward)"]->Attr("data-row"), "t0-calls-site2");
  EXPECT_EQ(by_label["backward, no call site"]->Attr("data-row"), "t0-calls-site1");
  EXPECT_EQ(by_label["train.py:40 (main)"]->Attr("data-row"), "t0-calls-site0");
  // Children start where their parent starts, longest first; depth is the row.
  EXPECT_EQ(line88->Attr("data-x"), by_label["train.py:40 (main)"]->Attr("data-x"));
  EXPECT_EQ(line88->Attr("data-depth"), "2");
  // Keyboard reachable, and the full figures in the tooltip.
  for (const HtmlNode* f : frames) {
    EXPECT_EQ(f->Attr("tabindex"), "0");
    EXPECT_NE(f->Attr("title").find("of GPU time"), std::string::npos);
  }
}

TEST_F(HtmlCallSitesTest, HostileFileNamesAreEscaped) {
  EXPECT_EQ(page_->find("<img src=x"), std::string::npos);
  bool found = false;
  for (const HtmlNode* c : ByTag(*doc_->root, "code")) found |= c->Text() == kHostileSite;
  EXPECT_TRUE(found) << "the hostile label is not shown as text";
  const HtmlNode* chart = ById(*doc_->root, "t0-calls-icicle");
  ASSERT_NE(chart, nullptr);
  EXPECT_TRUE(ByTag(*chart, "img").empty());
}

TEST_F(HtmlCallSitesTest, ModulesWithoutSymbolsAreListed) {
  const HtmlNode* section = ById(*doc_->root, "t0-s-calls");
  ASSERT_NE(section, nullptr);
  EXPECT_NE(section->Text().find("/usr/lib/libstripped.so: no symbols"), std::string::npos);
  EXPECT_NE(section->Text().find("sampled for 20.0% of the kernel time"), std::string::npos)
      << section->Text().substr(0, 600);
}

TEST_F(HtmlCallSitesTest, NoSectionWithoutSamples) {
  json model = *model_;
  model["traces"][0]["call_sites"]["coverage"]["samples"] = 0;
  const HtmlDocument without = ParseHtml(tools::RenderHtmlReport(model));
  EXPECT_EQ(ById(*without.root, "t0-s-calls"), nullptr);
  EXPECT_EQ(ById(*without.root, "t0-s-call_sites"), nullptr);
  model["traces"][0].erase("call_sites");
  const HtmlDocument none = ParseHtml(tools::RenderHtmlReport(model));
  EXPECT_EQ(ById(*none.root, "t0-s-calls"), nullptr);
  for (const HtmlNode* a : ByTag(*none.root, "a")) EXPECT_NE(a->Attr("href"), "#t0-s-calls");
}

}  // namespace
}  // namespace flopspy::testing
