// The HTML page of several traces (the whole run with a roofline per GPU model, the rank table,
// the stragglers) and of --diff: well formed, unique ids, and the merged points where the
// merged figures put them.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "demo_trace.h"
#include "html_check.h"
#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

void ExpectWellFormed(const HtmlDocument& doc) {
  for (const auto& p : doc.problems) ADD_FAILURE() << p;
  std::vector<const HtmlNode*> with_id;
  Collect(
      *doc.root, [](const HtmlNode& n) { return !n.Attr("id").empty(); }, with_id);
  std::set<std::string> ids;
  for (const HtmlNode* n : with_id) EXPECT_TRUE(ids.insert(n->Attr("id")).second) << n->Attr("id");
}

TEST(MultiTraceHtml, WholeRunChartRanksAndStragglers) {
  TempDir dir;
  WriteFile(dir.path() + "/r0.fspy", DemoTrace(4242, 0));
  WriteFile(dir.path() + "/r1.fspy", DemoTrace(4243, 1));
  const std::string html = dir.path() + "/report.html";
  const auto r = RunChild({kReport, dir.path(), "--json", "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const HtmlDocument doc = ParseHtml(ReadAll(html));
  ExpectWellFormed(doc);
  std::set<std::string> headings;
  for (const HtmlNode* h : ByTag(*doc.root, "h3")) headings.insert(h->Text());
  for (const char* h : {"Whole run", "Ranks", "Stragglers"}) {
    EXPECT_TRUE(headings.contains(h)) << h;
  }
  // The aggregate's chart (index 2: one past the two traces) has the demo's four placed points,
  // each at the same intensity and rate as in one trace and with twice the time.
  const HtmlNode* chart = ById(*doc.root, "t2-gpu0-roofline");
  ASSERT_NE(chart, nullptr);
  const auto points = ByTag(*chart, "circle", "pt");
  const auto expected = DemoTracePoints();
  ASSERT_EQ(points.size(), expected.size());
  for (const ExpectedPoint& e : expected) {
    bool found = false;
    for (const HtmlNode* p : points) {
      if (p->Attr("data-kind") != e.kind) continue;
      if (std::abs(std::stod(p->Attr("data-time-ns")) - 2 * e.gpu_ns) > 1) continue;
      found = true;
      EXPECT_NEAR(std::stod(p->Attr("data-intensity")), e.intensity, e.intensity * 1e-9);
      EXPECT_NEAR(std::stod(p->Attr("data-flops")), e.flops_per_s, e.flops_per_s * 1e-9);
      EXPECT_EQ(p->Attr("data-regime"), e.regime);
      // The point links to its row of the merged table.
      EXPECT_NE(ById(*doc.root, p->Attr("data-row")), nullptr) << p->Attr("data-row");
    }
    EXPECT_TRUE(found) << e.kind << " " << e.gpu_ns;
  }
  const HtmlNode* ranks = ById(*doc.root, "run-ranks");
  ASSERT_NE(ranks, nullptr);
  EXPECT_EQ(ByTag(*ranks, "tbody").size(), 1u);
  EXPECT_EQ(ByTag(*ByTag(*ranks, "tbody")[0], "tr").size(), 2u);
  // Two identical ranks: nobody stands out, and the page says what was compared.
  EXPECT_NE(doc.root->Text().find("No rank stands out."), std::string::npos);
  EXPECT_NE(doc.root->Text().find("each is held against the other"), std::string::npos);
}

TEST(MultiTraceHtml, DiffPage) {
  TempDir dir;
  WriteFile(dir.path() + "/a.fspy", DemoTrace(4242, -1));
  WriteFile(dir.path() + "/b.fspy", DemoTrace(4243, -1));
  const std::string html = dir.path() + "/diff.html";
  const auto r = RunChild({kReport, "--diff", dir.path() + "/a.fspy", dir.path() + "/b.fspy",
                           "--json", "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto model = nlohmann::json::parse(r.out);
  const HtmlDocument doc = ParseHtml(ReadAll(html));
  ExpectWellFormed(doc);
  EXPECT_EQ(ByTag(*doc.root, "title")[0]->Text(), "flopspy report: two runs compared");
  const HtmlNode* kernels = ById(*doc.root, "diff-kernels");
  ASSERT_NE(kernels, nullptr);
  // One row per kernel signature of the model; the same trace twice: every change is 0.
  EXPECT_EQ(ByTag(*ByTag(*kernels, "tbody")[0], "tr").size(), model["diff"]["kernels"].size());
  for (const auto& k : model["diff"]["kernels"]) {
    EXPECT_EQ(k["presence"], "both");
    EXPECT_EQ(k["change_ns"], 0);
  }
  EXPECT_NE(ById(*doc.root, "diff-library_calls"), nullptr);
}

TEST(MultiTraceHtml, DiffAgainstARunWithoutGpuRecords) {
  // B ran the same program without GPU timing: its kernels count their launches, their times
  // and the changes are unknown (not 0, not -100%), and the note says B has no GPU records
  // rather than that the runs used different GPUs.
  TempDir dir;
  WriteFile(dir.path() + "/a.fspy", DemoTrace(4242, -1));
  WriteFile(dir.path() + "/b.fspy", DemoTraceWithoutGpuRecords(4243));
  const std::string a = dir.path() + "/a.fspy", b = dir.path() + "/b.fspy";
  const std::string html = dir.path() + "/diff.html";
  // By signature: one row per kernel signature of the demo.
  const auto r =
      RunChild({kReport, "--diff", a, b, "--match", "signature", "--json", "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto model = nlohmann::json::parse(r.out);
  const auto& d = model["diff"];
  ASSERT_EQ(d["notes"].size(), 1u) << d["notes"].dump(1);
  EXPECT_NE(d["notes"][0].get<std::string>().find("Run B has no GPU records"), std::string::npos);
  EXPECT_NE(d["summary"].get<std::string>().find("B unknown"), std::string::npos);
  size_t untimed = 0;
  for (const auto& k : d["kernels"]) {
    SCOPED_TRACE(k["label"].get<std::string>());
    if (k["b"].is_null()) continue;
    ++untimed;
    EXPECT_EQ(k["b"]["gpu_time_known"], false);
    EXPECT_TRUE(k["b"]["gpu_ns"].is_null());
    EXPECT_EQ(k["b"]["executions"], 0);
    EXPECT_GT(k["b"]["count"].get<int>(), 0);
    EXPECT_EQ(k["b"]["count"], k["b"]["launches"]);
    if (!k["a"].is_null()) {
      EXPECT_EQ(k["b"]["count"], k["a"]["count"]);
    }
    EXPECT_TRUE(k["change_ns"].is_null());
  }
  EXPECT_EQ(untimed, 5u);  // every kernel of the demo, the SGEMM's included
  const HtmlDocument doc = ParseHtml(ReadAll(html));
  ExpectWellFormed(doc);
  const HtmlNode* kernels = ById(*doc.root, "diff-kernels");
  ASSERT_NE(kernels, nullptr);
  EXPECT_NE(kernels->Text().find("unknown"), std::string::npos);
  // The terminal table: every line within 100 columns, no "3>-".
  const auto text = RunChild({kReport, "--diff", a, b});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::istringstream lines(text.out);
  for (std::string line; std::getline(lines, line);) {
    size_t width = 0;
    for (const char c : line) width += (c & 0xC0) != 0x80;
    EXPECT_LE(width, 100u) << line;
    EXPECT_EQ(line.find(">-"), std::string::npos) << line;
  }
  EXPECT_EQ(text.out.find("different GPUs"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace flopspy::testing
