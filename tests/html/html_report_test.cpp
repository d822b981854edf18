// The HTML report of flopspy-report: one well-formed page with nothing to fetch, names escaped,
// the roofline's points where their intensity and FLOP/s put them on the chart's log axes, the
// tables in GPU-time order, and the sections other parts of the model add shown when present.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "demo_trace.h"
#include "flopspy/analyzers/display_text.h"
#include "html_check.h"
#include "report/csv_report.h"
#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

using nlohmann::json;

double D(const std::string& s) {
  return std::stod(s);
}

// Runs flopspy-report on the demo trace once for the whole suite: --json, --html and --csv.
class HtmlReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string trace = dir_->path() + "/demo.fspy";
    WriteFile(trace, DemoTrace());
    const auto r = RunChild({kReport, trace, "--json", "--html", dir_->path() + "/report.html",
                             "--csv", dir_->path() + "/csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    model_ = new json(json::parse(r.out));
    html_ = new std::string(ReadAll(dir_->path() + "/report.html"));
    doc_ = new HtmlDocument(ParseHtml(*html_));
  }
  static void TearDownTestSuite() {
    delete doc_;
    delete html_;
    delete model_;
    delete dir_;
  }

  static TempDir* dir_;
  static json* model_;
  static std::string* html_;
  static HtmlDocument* doc_;
};
TempDir* HtmlReportTest::dir_ = nullptr;
json* HtmlReportTest::model_ = nullptr;
std::string* HtmlReportTest::html_ = nullptr;
HtmlDocument* HtmlReportTest::doc_ = nullptr;

TEST_F(HtmlReportTest, PageIsWellFormed) {
  ASSERT_FALSE(html_->empty());
  EXPECT_TRUE(html_->starts_with("<!DOCTYPE html>"));
  for (const auto& p : doc_->problems) ADD_FAILURE() << p;
  EXPECT_EQ(ByTag(*doc_->root, "html").size(), 1u);
  EXPECT_EQ(ByTag(*doc_->root, "body").size(), 1u);
  // Every id is unique (points and rows refer to each other by id).
  std::vector<const HtmlNode*> with_id;
  Collect(
      *doc_->root, [](const HtmlNode& n) { return !n.Attr("id").empty(); }, with_id);
  std::set<std::string> ids;
  for (const HtmlNode* n : with_id) EXPECT_TRUE(ids.insert(n->Attr("id")).second) << n->Attr("id");
}

TEST_F(HtmlReportTest, NothingIsFetchedFromTheNetwork) {
  EXPECT_EQ(html_->find("http://"), std::string::npos);
  EXPECT_EQ(html_->find("https://"), std::string::npos);
  EXPECT_EQ(html_->find("url("), std::string::npos);
  EXPECT_EQ(html_->find("@import"), std::string::npos);
  std::vector<const HtmlNode*> all;
  Collect(
      *doc_->root, [](const HtmlNode&) { return true; }, all);
  for (const HtmlNode* n : all) {
    EXPECT_FALSE(n->attrs.contains("src")) << "<" << n->name << " src=" << n->Attr("src") << ">";
    if (n->attrs.contains("href")) {
      EXPECT_TRUE(n->Attr("href").starts_with("#")) << n->Attr("href");
    }
    EXPECT_FALSE(n->attrs.contains("xlink:href"));
    EXPECT_NE(n->name, "link");
    EXPECT_NE(n->name, "iframe");
    EXPECT_NE(n->name, "img");
  }
  // One inline script and one inline style sheet; the policy forbids anything else.
  EXPECT_EQ(ByTag(*doc_->root, "script").size(), 1u);
  EXPECT_EQ(ByTag(*doc_->root, "style").size(), 1u);
  std::vector<const HtmlNode*> csp;
  Collect(
      *doc_->root,
      [](const HtmlNode& n) { return n.Attr("http-equiv") == "Content-Security-Policy"; }, csp);
  ASSERT_EQ(csp.size(), 1u);
  EXPECT_NE(csp[0]->Attr("content").find("default-src 'none'"), std::string::npos);
}

TEST_F(HtmlReportTest, NamesAreEscaped) {
  EXPECT_EQ(html_->find(kNastyKernel), std::string::npos);
  EXPECT_EQ(html_->find("<script>alert"), std::string::npos);
  EXPECT_NE(html_->find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // Decoded, the full name is in the kernel table as it was.
  bool found = false;
  for (const HtmlNode* code : ByTag(*doc_->root, "code")) found |= code->Text() == kNastyKernel;
  EXPECT_TRUE(found);
  // The command line's quotes and commas too.
  EXPECT_NE(html_->find("big, &quot;quoted&quot;"), std::string::npos);
}

TEST_F(HtmlReportTest, RooflineHoldsOnePointPerSignatureAndShapeWhereTheAxesPutIt) {
  const HtmlNode* svg = ById(*doc_->root, "t0-gpu0-roofline");
  ASSERT_NE(svg, nullptr);
  const double lx0 = D(svg->Attr("data-lx0")), lx1 = D(svg->Attr("data-lx1"));
  const double ly0 = D(svg->Attr("data-ly0")), ly1 = D(svg->Attr("data-ly1"));
  std::istringstream plot(svg->Attr("data-plot"));
  double left, top, width, height;
  plot >> left >> top >> width >> height;
  ASSERT_GT(width, 0);
  // Every point lies inside the decades shown, and the decades have their tick labels.
  const auto points = ByTag(*svg, "circle", "pt");
  const auto expected = DemoTracePoints();
  ASSERT_EQ(points.size(), expected.size());
  double max_r = 0;
  for (const HtmlNode* p : points) max_r = std::max(max_r, D(p->Attr("r")));
  for (const ExpectedPoint& e : expected) {
    SCOPED_TRACE(e.kind + " " + std::to_string(e.flops_per_s));
    const HtmlNode* match = nullptr;
    for (const HtmlNode* p : points) {
      if (p->Attr("data-kind") == e.kind &&
          std::fabs(D(p->Attr("data-flops")) / e.flops_per_s - 1) < 1e-6) {
        match = p;
      }
    }
    ASSERT_NE(match, nullptr);
    EXPECT_NEAR(D(match->Attr("data-intensity")), e.intensity, e.intensity * 1e-9);
    EXPECT_NEAR(D(match->Attr("data-time-ns")), e.gpu_ns, 1e-6);
    EXPECT_EQ(match->Attr("data-regime"), e.regime);
    // Position from the known figures and the chart's log axes.
    const double cx = left + (std::log10(e.intensity) - lx0) / (lx1 - lx0) * width;
    const double cy = top + (ly1 - std::log10(e.flops_per_s)) / (ly1 - ly0) * height;
    EXPECT_NEAR(D(match->Attr("cx")), cx, 0.01);
    EXPECT_NEAR(D(match->Attr("cy")), cy, 0.01);
    EXPECT_GE(cx, left);
    EXPECT_LE(cx, left + width);
    EXPECT_GE(cy, top);
    EXPECT_LE(cy, top + height);
    // Area proportional to GPU time: the 1 ms SGEMM is the largest point.
    const double r = D(match->Attr("r"));
    EXPECT_NEAR(r, std::max(2.5, max_r * std::sqrt(e.gpu_ns / 1e6)), 0.01);
    // A native tooltip carries the figures (readable without script).
    const auto titles = ByTag(*match, "title");
    ASSERT_EQ(titles.size(), 1u);
    EXPECT_NE(titles[0]->Text().find("FLOP/s"), std::string::npos);
    // The point's row exists.
    EXPECT_NE(ById(*doc_->root, match->Attr("data-row")), nullptr) << match->Attr("data-row");
  }
  // Ticks: one label per decade on each axis.
  const auto ticks = ByTag(*svg, "text");
  size_t decade_labels = 0;
  for (const HtmlNode* t : ticks) decade_labels += t->Text() == "0.1" || t->Text() == "1" ? 1 : 0;
  EXPECT_GE(decade_labels, 1u);
}

TEST_F(HtmlReportTest, RoofsArePerComputePathWithTheDramDiagonalAndRidges) {
  const HtmlNode* svg = ById(*doc_->root, "t0-gpu0-roofline");
  ASSERT_NE(svg, nullptr);
  std::map<std::string, double> roofs;
  // Roofs with the same figure share a line: "fp32, fp64_tensor".
  for (const HtmlNode* l : ByTag(*svg, "line", "roof")) {
    std::stringstream names(l->Attr("data-roof"));
    for (std::string name; std::getline(names >> std::ws, name, ',');) {
      roofs[name] = D(l->Attr("data-value"));
    }
  }
  // H100 SXM5 (docs/gpu-peaks.md): FP32 67 TFLOP/s, DRAM 3.35 TB/s.
  ASSERT_TRUE(roofs.contains("fp32")) << roofs.size();
  EXPECT_DOUBLE_EQ(roofs["fp32"], 67e12);
  ASSERT_TRUE(roofs.contains("dram"));
  EXPECT_DOUBLE_EQ(roofs["dram"], 3.35e12);
  // One roof per compute path the device has.
  const json& paths = (*model_)["traces"][0]["devices"][0]["roofs"]["flops"];
  for (const auto& [name, r] : paths.items()) {
    ASSERT_TRUE(roofs.contains(name)) << name;
    EXPECT_DOUBLE_EQ(roofs[name], r["nominal"].get<double>()) << name;
  }
  EXPECT_TRUE(roofs.contains("bf16_tensor"));
  // The FP32 ridge point: 67e12 / 3.35e12 = 20 FLOP/B.
  bool ridge20 = false;
  for (const HtmlNode* r : ByTag(*svg, "path", "ridge")) {
    if (!r->Attr("data-ridge").empty()) {
      ridge20 |= std::fabs(D(r->Attr("data-ridge")) - 20) < 1e-9;
    }
  }
  EXPECT_TRUE(ridge20);
}

TEST_F(HtmlReportTest, WorkWithoutFiguresIsListedBelowTheChart) {
  const auto lists = ByTag(*doc_->root, "details", "unplaced");
  ASSERT_EQ(lists.size(), 1u);
  const std::string text = lists[0]->Text();
  EXPECT_NE(text.find("nasty"), std::string::npos) << text;
  EXPECT_NE(text.find("FLOPs unknown"), std::string::npos) << text;
}

TEST_F(HtmlReportTest, TablesComeInGpuTimeOrderAndSortByValue) {
  const HtmlNode* table = ById(*doc_->root, "t0-kernels");
  ASSERT_NE(table, nullptr);
  EXPECT_TRUE(table->HasClass("sortable"));
  const auto rows = ByTag(*table, "tr");
  ASSERT_EQ(rows.size(), 1 + (*model_)["traces"][0]["kernels"].size());  // header row
  double previous = 1e300;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto cells = ByTag(*rows[i], "td");
    ASSERT_GT(cells.size(), 2u);
    const double gpu_ns = D(cells[2]->Attr("data-v"));  // kernel, GPU %, GPU time
    EXPECT_LE(gpu_ns, previous);
    previous = gpu_ns;
    EXPECT_DOUBLE_EQ(gpu_ns, (*model_)["traces"][0]["kernels"][i - 1]["gpu_ns"].get<double>());
  }
  const HtmlNode* library = ById(*doc_->root, "t0-library");
  ASSERT_NE(library, nullptr);
  EXPECT_NE(library->Text().find("cublasSgemm_v2"), std::string::npos);
  EXPECT_NE(ById(*doc_->root, "t0-copies"), nullptr);
}

TEST_F(HtmlReportTest, DeviceShowsUtilisationAndCoverageBySource) {
  const HtmlNode* device = ById(*doc_->root, "t0-gpu0");
  ASSERT_NE(device, nullptr);
  const std::string text = device->Text();
  EXPECT_NE(text.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(text.find("counted FLOPs (analytic) achieved 0.14% of tf32-tensor"), std::string::npos)
      << text;
  std::set<std::string> sources;
  for (const HtmlNode* r : ByTag(*device, "rect")) {
    if (!r->Attr("data-source").empty()) sources.insert(r->Attr("data-source"));
  }
  EXPECT_TRUE(sources.contains("analytic"));
  EXPECT_TRUE(sources.contains("catalog"));
  EXPECT_TRUE(sources.contains("unknown"));
}

TEST_F(HtmlReportTest, TimelineBinsAddUpToEachStreamsBusyTime) {
  const json& timeline = (*model_)["traces"][0]["timeline"];
  ASSERT_TRUE(timeline.is_object());
  const double bin_ns = timeline["bin_ns"].get<double>();
  ASSERT_GT(bin_ns, 0);
  EXPECT_DOUBLE_EQ(timeline["end_ns"].get<double>() - timeline["start_ns"].get<double>(),
                   bin_ns * 200);
  ASSERT_FALSE(timeline["tracks"].empty());
  for (const json& track : timeline["tracks"]) {
    ASSERT_EQ(track["bins"].size(), 200u);
    double busy = 0;
    for (const json& bin : track["bins"]) {
      EXPECT_GE(bin.get<double>(), 0);
      EXPECT_LE(bin.get<double>(), 1);
      busy += bin.get<double>() * bin_ns;
    }
    // Bins are rounded to 0.001 each.
    EXPECT_NEAR(busy, track["busy_ns"].get<double>(), 200 * 0.0005 * bin_ns + 1);
  }
  // The drawn timeline has one row per track.
  const HtmlNode* svg = ById(*doc_->root, "t0-timeline");
  ASSERT_NE(svg, nullptr);
}

TEST_F(HtmlReportTest, TraceSectionsFollowTheModel) {
  // The demo trace has GPU activity and findings, but no CPU samples: its page has a
  // timeline, advice and launch overhead, and no CPU roofline.
  std::set<std::string> headings;
  for (const HtmlNode* h : ByTag(*doc_->root, "h3")) headings.insert(h->Text());
  EXPECT_TRUE(headings.contains("Timeline"));
  EXPECT_TRUE(headings.contains("Advice"));
  EXPECT_TRUE(headings.contains("Launch overhead"));
  EXPECT_FALSE(headings.contains("CPU roofline"));

  // A section missing from the model is left out, not drawn empty.
  json model = *model_;
  for (const char* key : {"timeline", "advice", "launch_overhead", "cpu_roofline"}) {
    model["traces"][0].erase(key);
  }
  const HtmlDocument page = ParseHtml(tools::RenderHtmlReport(model));
  for (const HtmlNode* h : ByTag(*page.root, "h3")) {
    EXPECT_NE(h->Text(), "Timeline");
    EXPECT_NE(h->Text(), "Advice");
    EXPECT_NE(h->Text(), "Launch overhead");
  }
}

// The sections other parts of flopspy add to the model, in the shapes docs/report-html.md
// expects, rendered straight from a document.
json WithAddedSections(json model) {
  json& t = model["traces"][0];
  t["timeline"] = {{"start_ns", 0},
                   {"end_ns", 1e6},
                   {"bin_ns", 1e5},
                   {"tracks",
                    {{{"device", 0},
                      {"stream", 7},
                      {"busy_ns", 5e5},
                      {"bins", {1, 1, 0.5, 0.5, 0, 0, 0, 1, 1, 0}}},
                     {{"device", 0},
                      {"stream", 8},
                      {"busy_ns", 1e5},
                      {"bins", {0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}}}}};
  t["cpu_roofline"] = {
      {"roofs",
       {{{"name", "fp64 avx2 fma"}, {"kind", "flops"}, {"value", 1e12}, {"source", "measured"}},
        {{"name", "dram"}, {"kind", "bandwidth"}, {"value", 1e11}, {"source", "measured"}},
        {{"name", "l3"}, {"kind", "bandwidth"}, {"value", 4e11}, {"source", "measured"}}}},
      {"points",
       {{{"name", "forward <loss>"},
         {"intensity", 0.5},
         {"flops_per_s", 2e10},
         {"time_ns", 4e8},
         {"source", "counters"}},
        {{"name", "step"}, {"flops", 1e9}, {"bytes", 1e8}, {"flops_per_s", 5e11}, {"time_ns", 2e6}},
        {{"name", "io"}, {"flops", nullptr}, {"time_ns", 1e6}}}}};
  t["advice"] = json::array({{{"severity", "warning"},
                              {"title", "Launch-bound: 61% of kernels run < 5 us"},
                              {"sentence", "Capture the step in a CUDA graph."},
                              {"gain_ns", 1.2e6},
                              {"gain_fraction", 0.12},
                              {"kernels", 42}}});
  t["launch_overhead"] = {
      {"verdict", "overhead_bound"},
      {"streams",
       {{{"device", 0}, {"stream", 7}, {"busy_ns", 5e5}, {"idle_ns", 5e5}, {"gaps", 3}}}}};
  t["something_new"] = {{"answer", 42}};
  model["ranks"] = json::array({{{"rank", 0}, {"gpu_ns", 1e6}}, {{"rank", 1}, {"gpu_ns", 2e6}}});
  return model;
}

TEST_F(HtmlReportTest, AddedSectionsRenderWhenPresent) {
  const std::string page = tools::RenderHtmlReport(WithAddedSections(*model_));
  if (const char* keep = std::getenv("FLOPSPY_KEEP_HTML"); keep && *keep) {
    std::ofstream(keep) << page;  // to look at
  }
  const HtmlDocument doc = ParseHtml(page);
  for (const auto& p : doc.problems) ADD_FAILURE() << p;
  std::set<std::string> headings;
  for (const HtmlNode* h : ByTag(*doc.root, "h3")) headings.insert(h->Text());
  for (const char* h :
       {"Timeline", "CPU roofline", "Advice", "Launch overhead", "Something new", "Ranks"}) {
    EXPECT_TRUE(headings.contains(h)) << h;
  }
  // Timeline: a row per stream; busy runs merged (stream 7: 1,1 | .5,.5 | 1,1 = 3 rects).
  const HtmlNode* timeline = ById(*doc.root, "t0-timeline");
  ASSERT_NE(timeline, nullptr);
  const auto tracks = ByTag(*timeline, "g", "track");
  ASSERT_EQ(tracks.size(), 2u);
  EXPECT_EQ(ByTag(*tracks[0], "rect", "busy").size(), 3u);
  EXPECT_EQ(ByTag(*tracks[1], "rect", "busy").size(), 1u);
  EXPECT_NE(tracks[0]->Text().find("busy 50%"), std::string::npos);
  // CPU roofline: two points where the axes put them, one listed as unknown.
  const HtmlNode* cpu = ById(*doc.root, "t0-cpu-chart");
  ASSERT_NE(cpu, nullptr);
  const auto points = ByTag(*cpu, "circle", "pt");
  ASSERT_EQ(points.size(), 2u);
  const double lx0 = D(cpu->Attr("data-lx0")), lx1 = D(cpu->Attr("data-lx1"));
  const double ly0 = D(cpu->Attr("data-ly0")), ly1 = D(cpu->Attr("data-ly1"));
  for (const HtmlNode* p : points) {
    const bool step = p->Attr("data-label") == "step";
    const double x = step ? 10 : 0.5, y = step ? 5e11 : 2e10;
    EXPECT_NEAR(D(p->Attr("cx")), 72 + (std::log10(x) - lx0) / (lx1 - lx0) * 560, 0.01);
    EXPECT_NEAR(D(p->Attr("cy")), 14 + (ly1 - std::log10(y)) / (ly1 - ly0) * 400, 0.01);
    // Ridge of 1e12 / 1e11 = 10 FLOP/B: "step" at 10 is compute bound, the other memory bound.
    EXPECT_EQ(p->Attr("data-regime"), step ? "compute_bound" : "memory_bound");
  }
  EXPECT_NE(page.find("forward &lt;loss&gt;"), std::string::npos);
  // Advice: the gain is shown.
  const auto advice = ByTag(*doc.root, "ol", "advice");
  ASSERT_FALSE(advice.empty());
  EXPECT_NE(advice[0]->Text().find("1.2 ms"), std::string::npos) << advice[0]->Text();
  EXPECT_NE(advice[0]->Text().find("12.0%"), std::string::npos);
}

TEST_F(HtmlReportTest, AdviceOnTheCublasGemmAgreesWithItself) {
  // The audit's case: the demo's SGEMM is recorded as CUBLAS_COMPUTE_32F but its kernel is a
  // TF32 tensor-core kernel. The call runs on the TF32 roof, no finding says it runs on CUDA
  // cores, none tells cuBLAS's kernel to use a library kernel, and findings on the same 1 ms
  // say that their gains overlap and together stay within it.
  const json& t = (*model_)["traces"][0];
  ASSERT_EQ(t["library_calls"].size(), 1u);
  EXPECT_EQ(t["library_calls"][0]["path"], "tf32_tensor");
  EXPECT_EQ(t["library_calls"][0]["path_basis"], "kernel_name");
  double gemm_ns = 0;
  for (const json& k : t["kernels"]) {
    if (k["inside_library"].get<bool>()) {
      gemm_ns += k["gpu_ns"].get<double>();
      EXPECT_EQ(k["path"], "tf32_tensor");
    }
  }
  ASSERT_DOUBLE_EQ(gemm_ns, 1e6);
  double overlapping = 0;
  size_t with_overlaps = 0;
  for (const json& a : t["advice"]) {
    EXPECT_NE(a["kind"], "tensor_cores") << a.dump(1);
    const std::string text = a["finding"].get<std::string>() + a["action"].get<std::string>();
    EXPECT_EQ(text.find("CUDA cores"), std::string::npos) << text;
    if (a["kind"] == "far_from_roof") {
      EXPECT_EQ(text.find("use a library kernel"), std::string::npos) << text;
      EXPECT_NE(a["finding"].get<std::string>().find("tf32-tensor roof"), std::string::npos);
    }
    if (!a["overlaps"].empty()) {
      ++with_overlaps;
      overlapping += a["gain_ns"].get<double>();
      ASSERT_TRUE(a["combined_gain_ns"].is_number());
      EXPECT_LE(a["combined_gain_ns"].get<double>(), gemm_ns);
      EXPECT_NE(a["gain_basis"].get<std::string>().find("do not add up"), std::string::npos);
    } else {
      EXPECT_TRUE(a["combined_gain_ns"].is_null());
    }
  }
  // far_from_roof and gemm_shapes both claim most of the 1 ms: together more than it.
  EXPECT_EQ(with_overlaps, 2u);
  EXPECT_GT(overlapping, gemm_ns);
  // The page says it too.
  const auto advice = ByTag(*doc_->root, "ol", "advice");
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_NE(advice[0]->Text().find("together they can save at most 1 ms"), std::string::npos);
  // The library row: its roof is marked as read from the kernel's name, and its small share of
  // that roof (2.15 TFLOP/s of 494.5 TFLOP/s: 0.43%) does not print as "0%".
  const HtmlNode* table = ById(*doc_->root, "t0-library");
  ASSERT_NE(table, nullptr);
  std::vector<std::string> headers, cells;
  for (const HtmlNode* th : ByTag(*table, "th")) headers.push_back(th->Text());
  for (const HtmlNode* td : ByTag(*table, "td")) cells.push_back(td->Text());
  ASSERT_EQ(headers.size(), cells.size());
  const auto cell = [&](const std::string& header) {
    const auto it = std::find(headers.begin(), headers.end(), header);
    return it == headers.end() ? std::string("(no column)") : cells[it - headers.begin()];
  };
  EXPECT_EQ(cell("% peak"), "0.43%");
  EXPECT_EQ(cell("roof"), "tf32-tensor*");  // the roof's name as the text report has it
}

TEST_F(HtmlReportTest, EmptyAdviceSaysNoFindingsAndWhy) {
  json model = *model_;
  model["traces"][0]["advice"] = json::array();
  const std::string page = tools::RenderHtmlReport(model);
  const HtmlDocument doc = ParseHtml(page);
  for (const auto& p : doc.problems) ADD_FAILURE() << p;
  EXPECT_TRUE(ByTag(*doc.root, "ol", "advice").empty()) << "an empty list is drawn";
  bool heading = false;
  for (const HtmlNode* h : ByTag(*doc.root, "h3")) heading |= h->Text() == "Advice";
  EXPECT_TRUE(heading);
  EXPECT_NE(page.find("No findings: none of the advice rules"), std::string::npos);
  EXPECT_NE(page.find("5 kernel signatures, 1 cuBLAS shapes and 1 copy groups"), std::string::npos);
}

TEST_F(HtmlReportTest, CountsAreSentencesAndZeroCountsAreLeftOut) {
  const auto headings = [](const HtmlDocument& doc) {
    std::set<std::string> out;
    for (const HtmlNode* h : ByTag(*doc.root, "h3")) out.insert(h->Text());
    return out;
  };
  json model = *model_;
  ASSERT_EQ(model["traces"][0]["replayed_gpu_records"], 0);
  model["traces"][0]["a_later_count"] = 0;
  const HtmlDocument zero = ParseHtml(tools::RenderHtmlReport(model));
  EXPECT_FALSE(headings(zero).contains("Replayed gpu records"));
  EXPECT_FALSE(headings(zero).contains("A later count"));
  EXPECT_FALSE(headings(zero).contains("More"));
  model["traces"][0]["replayed_gpu_records"] = 3;
  model["traces"][0]["a_later_count"] = 5;
  const std::string page = tools::RenderHtmlReport(model);
  const HtmlDocument some = ParseHtml(page);
  EXPECT_FALSE(headings(some).contains("Replayed gpu records"));
  EXPECT_NE(page.find("3 more GPU records were replays of counter-measured launches"),
            std::string::npos);
  EXPECT_TRUE(headings(some).contains("More"));  // a count not known to the page: one line
  EXPECT_NE(page.find("<dt>A later count</dt><dd>5</dd>"), std::string::npos);
}

TEST_F(HtmlReportTest, RegionsHaveHumanHeadersInReadingOrderWithUnits) {
  json model = *model_;
  model["traces"][0]["regions"] = json::array({{{"name", "step"},
                                                {"count", 10},
                                                {"open", 1},
                                                {"total_ns", 2e7},
                                                {"mean_ns", 2e6},
                                                {"p50_ns", 1.9e6},
                                                {"p95_ns", 2.5e6},
                                                {"max_ns", 3e6}}});
  const HtmlDocument doc = ParseHtml(tools::RenderHtmlReport(model));
  const HtmlNode* table = ById(*doc.root, "t0-regions");
  ASSERT_NE(table, nullptr);
  std::vector<std::string> headers, cells;
  for (const HtmlNode* th : ByTag(*table, "th")) headers.push_back(th->Text());
  for (const HtmlNode* td : ByTag(*table, "td")) cells.push_back(td->Text());
  EXPECT_EQ(headers, (std::vector<std::string>{"region", "count", "total", "mean", "p50", "p95",
                                               "max", "never ended"}));
  EXPECT_EQ(cells, (std::vector<std::string>{"step", "10", "20 ms", "2 ms", "1.9 ms", "2.5 ms",
                                             "3 ms", "1"}));
  for (const HtmlNode* h : ByTag(*doc.root, "h3")) EXPECT_NE(h->Text(), "Regions");
}

TEST_F(HtmlReportTest, SummaryShowsTheRunsRegimeWithItsNumbers) {
  json model = *model_;
  model["traces"][0]["summary"] = {
      {"gpu_busy_ns", 2.55e6},
      {"gpu_window_ns", 3.17e6},
      {"busy_fraction", 0.805},
      {"flops", {{"analytic", 2.1e9}, {"catalog", 7e6}, {"counters", 0}, {"known", 2.107e9}}},
      {"achieved_flops_per_s", 6.6e11},
      {"regime",
       {{"regime", "compute_bound"},
        {"sentence", "compute bound: 64.5% of kernel time compute bound"},
        {"kernel_share", {{"compute_bound", 0.645}, {"memory_bound", 0.32}}}}}};
  const std::string page = tools::RenderHtmlReport(model);
  const HtmlDocument doc = ParseHtml(page);
  for (const auto& p : doc.problems) ADD_FAILURE() << p;
  EXPECT_NE(page.find("<dt>regime</dt><dd><span class=\"regime compute_bound\">compute "
                      "bound</span> <span class=\"muted\">(compute bound: 64.5% of kernel time "
                      "compute bound)</span></dd>"),
            std::string::npos);
  EXPECT_NE(page.find("<dt>GPU busy</dt><dd>2.55 ms of a 3.17 ms window (80.5%)</dd>"),
            std::string::npos);
  EXPECT_NE(page.find("<dt>FLOPs</dt><dd>2.11 GFLOP (analytic 2.1 G, catalog 7 M)</dd>"),
            std::string::npos);
  // The summary is the trace's first fold, open.
  const auto folds = ByTag(*doc.root, "details", "sec");
  ASSERT_FALSE(folds.empty());
  EXPECT_EQ(folds[0]->Attr("id"), "t0-s-summary");
  EXPECT_TRUE(folds[0]->attrs.contains("open"));
  // Without a sentence the shares are the numbers shown.
  model["traces"][0]["summary"]["regime"].erase("sentence");
  EXPECT_NE(tools::RenderHtmlReport(model).find("(kernel time: 64.5% compute bound, 32.0% "
                                                "memory bound)"),
            std::string::npos);
}

// Every scalar of the model replaced by one of another type, or every value by null: the
// renderers skip what they cannot read and still make a well-formed page and CSV files.
json Scramble(const json& v, int how) {
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [key, member] : v.items()) out[key] = Scramble(member, how);
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& e : v) out.push_back(Scramble(e, how));
    return out;
  }
  if (how == 0) return nullptr;
  if (v.is_number()) return "7<b>";
  if (v.is_string()) return how == 1 ? json(-1.5) : json::array({1, 2});
  if (v.is_boolean()) return "yes";
  return json::object({{"unexpected", true}});
}

TEST_F(HtmlReportTest, ModelOfUnexpectedShapesStillRenders) {
  for (int how = 0; how < 3; ++how) {
    SCOPED_TRACE(how);
    const json scrambled = Scramble(WithAddedSections(*model_), how);
    std::string page;
    ASSERT_NO_THROW(page = tools::RenderHtmlReport(scrambled));
    const HtmlDocument doc = ParseHtml(page);
    for (const auto& p : doc.problems) ADD_FAILURE() << p;
    EXPECT_EQ(page.find("<b>"), std::string::npos);
    ASSERT_NO_THROW(tools::RenderCsvTables(scrambled));
  }
  ASSERT_NO_THROW(tools::RenderHtmlReport(json::array({1, 2})));
  ASSERT_NO_THROW(tools::RenderCsvTables(json("not a report")));
}

TEST(HtmlReport, UnreadableTraceStillMakesAPage) {
  TempDir dir;
  const std::string bad = dir.path() + "/bad.fspy";
  std::ofstream(bad) << "not a trace at all";
  const std::string good = dir.path() + "/good.fspy";
  WriteFile(good, DemoTrace(7, 3));
  const std::string out = dir.path() + "/r.html";
  const auto r = RunChild({kReport, bad, good, "--html", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("wrote " + out), std::string::npos) << r.err;
  const std::string page = ReadAll(out);
  const HtmlDocument doc = ParseHtml(page);
  for (const auto& p : doc.problems) ADD_FAILURE() << p;
  EXPECT_NE(ById(*doc.root, "traces"), nullptr);  // the list of traces, with several
  EXPECT_NE(page.find("unreadable"), std::string::npos);
  EXPECT_NE(page.find("rank 3"), std::string::npos);
}

TEST_F(HtmlReportTest, TableOfContentsLinksToFoldsInReadingOrder) {
  // The first screen: summary, where the time goes, advice; then the GPU, and every fold is
  // in the table of contents, whose links all land on an element of the page.
  const auto navs = ByTag(*doc_->root, "nav", "toc");
  ASSERT_EQ(navs.size(), 1u);
  std::vector<std::string> targets;
  for (const HtmlNode* a : ByTag(*navs[0], "a")) {
    ASSERT_TRUE(a->Attr("href").starts_with("#")) << a->Attr("href");
    targets.push_back(a->Attr("href").substr(1));
    EXPECT_NE(ById(*doc_->root, targets.back()), nullptr) << targets.back();
  }
  std::vector<std::string> folds;
  for (const HtmlNode* d : ByTag(*doc_->root, "details", "sec")) folds.push_back(d->Attr("id"));
  EXPECT_EQ(targets, folds);
  ASSERT_GE(folds.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(folds.begin(), folds.begin() + 4),
            (std::vector<std::string>{"t0-s-summary", "t0-s-where", "t0-s-advice", "t0-gpu0"}));
  for (const char* id : {"t0-s-timeline", "t0-s-overhead", "t0-s-kernels", "t0-s-library"}) {
    EXPECT_NE(std::find(folds.begin(), folds.end(), id), folds.end()) << id;
  }
}

// The text a reader sees: every text node outside script and style.
void VisibleText(const HtmlNode& n, std::string& out) {
  if (n.name == "script" || n.name == "style") return;
  if (n.name == "#text") out += n.text + "\n";
  for (const auto& c : n.children) VisibleText(*c, out);
}

TEST_F(HtmlReportTest, NoKeyValueDumpsOrRawFigures) {
  EXPECT_TRUE(ByTag(*doc_->root, "pre").empty());
  std::string text;
  VisibleText(*doc_->root, text);
  // No 16-digit floats, no JSON keys or literals shown as values.
  std::smatch m;
  EXPECT_FALSE(std::regex_search(text, m, std::regex(R"(\d\.\d{5,})"))) << m.str();
  for (const char* raw : {"_ns", "_fraction", "null", "true", "false", "Gpu times", "Cpu first"}) {
    EXPECT_EQ(text.find(raw), std::string::npos) << raw;
  }
  // The launch overhead reads verdict first, then its tables.
  const HtmlNode* overhead = ById(*doc_->root, "t0-s-overhead");
  ASSERT_NE(overhead, nullptr);
  const auto verdict = ByTag(*overhead, "p", "verdict");
  ASSERT_EQ(verdict.size(), 1u);
  EXPECT_NE(verdict[0]->Text().find("partly overhead bound"), std::string::npos);
  EXPECT_NE(ById(*overhead, "t0-overhead-devices"), nullptr);
  EXPECT_NE(ById(*overhead, "t0-overhead-streams"), nullptr);
}

TEST_F(HtmlReportTest, KernelNameComesFirstShortenedWithTheFullNameOnHover) {
  for (const char* id : {"t0-kernels", "t0-rollup-names", "t0-overhead-signatures"}) {
    SCOPED_TRACE(id);
    const HtmlNode* table = ById(*doc_->root, id);
    ASSERT_NE(table, nullptr);
    const auto headers = ByTag(*table, "th");
    ASSERT_FALSE(headers.empty());
    EXPECT_TRUE(headers[0]->Text() == "kernel" || headers[0]->Text() == "name")
        << headers[0]->Text();
    for (const HtmlNode* name : ByTag(*table, "span", "kname")) {
      EXPECT_LE(name->Text().size(), 66u) << name->Text();
      EXPECT_FALSE(name->Attr("title").empty());
    }
  }
  // The GEMM's tile size survives in the cell; its whole name is in the row.
  const HtmlNode* table = ById(*doc_->root, "t0-kernels");
  bool tile = false;
  for (const HtmlNode* name : ByTag(*table, "span", "kname")) {
    tile |= name->Text().find("128x128x32") != std::string::npos;
  }
  EXPECT_TRUE(tile);
}

TEST(ShortenKernelName, KeepsTileSizesAndDropsNamespaces) {
  using analyzers::ShortenKernelName;
  EXPECT_EQ(ShortenKernelName("short_kernel", 40), "short_kernel");
  EXPECT_EQ(ShortenKernelName("at::native::(anonymous namespace)::reduce_kernel", 60),
            "reduce_kernel");
  const std::string a = ShortenKernelName(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
      "segment_k_off_kernel__5x_cublas",
      48);
  const std::string b = ShortenKernelName(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_"
      "segment_k_off_kernel__5x_cublas",
      48);
  EXPECT_LE(a.size(), 48u);
  EXPECT_NE(a, b);  // the tile sizes tell them apart
  EXPECT_NE(a.find("128x256x64"), std::string::npos) << a;
  EXPECT_TRUE(a.starts_with("sm90_xmma_gemm")) << a;
  // No tile sizes: the head and the tail (template arguments) stay.
  const std::string c = ShortenKernelName(
      "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::"
      "GeluCUDAKernelImpl>>(int)",
      40);
  EXPECT_LE(c.size(), 40u);
  EXPECT_NE(c.find("..."), std::string::npos) << c;
  // A cut never splits a UTF-8 character.
  const std::string d =
      ShortenKernelName(std::string(30, 'a') + "\u00b7\u00b7\u00b7" + std::string(40, 'b'), 24);
  EXPECT_EQ(d.find("\xc2"
                   "."),
            std::string::npos);
  for (size_t i = 0; i + 1 < d.size(); ++i) {
    if ((static_cast<unsigned char>(d[i]) & 0xE0) == 0xC0) {
      EXPECT_EQ(static_cast<unsigned char>(d[i + 1]) & 0xC0, 0x80) << d;
    }
  }
}

TEST_F(HtmlReportTest, CpuChartHasALegendOfItsOwn) {
  const std::string page = tools::RenderHtmlReport(WithAddedSections(*model_));
  const HtmlDocument doc = ParseHtml(page);
  const HtmlNode* cpu = ById(*doc.root, "t0-cpu-chart");
  ASSERT_NE(cpu, nullptr);
  const auto legend = ByTag(*cpu, "g", "legend");
  ASSERT_EQ(legend.size(), 1u);
  const std::string text = legend[0]->Text();
  EXPECT_EQ(text.find("library call"), std::string::npos) << text;
  EXPECT_EQ(text.find("overhead bound"), std::string::npos) << text;
  EXPECT_NE(text.find("CPU time"), std::string::npos) << text;
  const HtmlNode* gpu = ById(*doc_->root, "t0-gpu0-roofline");
  ASSERT_NE(gpu, nullptr);
  EXPECT_NE(ByTag(*gpu, "g", "legend")[0]->Text().find("library call"), std::string::npos);
}

// The first screen names the three largest estimated gains, in the advice's order.
TEST_F(HtmlReportTest, SummaryListsTheThreeLargestGains) {
  std::vector<std::string> expected;
  for (const json& a : model_->at("traces").at(0).at("advice")) {
    if (a.at("gain_ns").is_number() && expected.size() < 3) expected.push_back(a.at("title"));
  }
  ASSERT_EQ(expected.size(), 3u);
  const HtmlNode* summary = ById(*doc_->root, "t0-s-summary");
  ASSERT_NE(summary, nullptr);
  const auto lists = ByTag(*summary, "ol", "top-gains");
  ASSERT_EQ(lists.size(), 1u);
  const auto items = ByTag(*lists[0], "li");
  ASSERT_EQ(items.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(items[i]->Text().find(expected[i]), 0u) << items[i]->Text();
  }
}

}  // namespace
}  // namespace flopspy::testing
