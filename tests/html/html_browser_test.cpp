// The HTML report in a real browser: headless Chromium (Debian's `chromium`) loads the page,
// its script runs without error (the DOM after scripts shows its marks), the GPU and CPU
// roofline charts hold the expected points where their axes put them, the timeline has a lane
// per stream, a header click sorts a table, the page reads with JavaScript off, and
// a screenshot is a PNG of the requested size with the chart's colours in it; at 1400 and
// 1000 px the page does not scroll sideways, its table of contents resolves, it shows no raw
// dump, and the roofline has a point per signature with known figures. Exits 77
// (skipped) when no Chromium can be found.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "call_sites_page.h"
#include "demo_trace.h"
#include "html_check.h"
#include "png_check.h"
#include "report/html_report.h"
#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

std::string FindChromium() {
  if (const char* env = std::getenv("FLOPSPY_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      const std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

// Headless, no sandbox (tests run as root in CI), nothing that reaches the network.
ChildResult RunChromium(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {FindChromium(),
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--disable-dev-shm-usage",
                                   "--hide-scrollbars",
                                   "--user-data-dir=" + dir.path() + "/profile"};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildOptions options;
  options.timeout = std::chrono::milliseconds(120'000);
  return RunChild(argv, options);
}

// The page's DOM as Chromium holds it after loading `page` and running its scripts, parsed;
// the test fails on a page that does not parse.
HtmlDocument LoadedDom(const TempDir& dir, const std::string& page) {
  const auto r = RunChromium(dir, {"--dump-dom", "file://" + page});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  HtmlDocument doc = ParseHtml(r.out, /*strict=*/false);
  for (const auto& p : doc.problems) ADD_FAILURE() << p;
  return doc;
}

double D(const std::string& s) {
  return s.empty() ? std::nan("") : std::stod(s);
}

class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string trace = dir_.path() + "/demo.fspy";
    WriteFile(trace, DemoTrace());
    page_ = dir_.path() + "/report.html";
    const auto r = RunChild({kReport, trace, "--html", page_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // The demo trace with regions and CPU samples, its CPU's ceilings where the report looks.
  std::string CpuPage() {
    const std::string cache = dir_.path() + "/cache";
    std::filesystem::create_directories(cache + "/flopspy");
    std::filesystem::copy_file(
        std::string(FLOPSPY_TEST_DATA_DIR) + "/cpu_roofline/ceilings/skx_synthetic.json",
        cache + "/flopspy/ceilings-cpu-" + kDemoCpuKey + ".json");
    const std::string trace = dir_.path() + "/cpu.fspy";
    WriteFile(trace, DemoTraceWithCpu());
    const std::string page = dir_.path() + "/cpu.html";
    const auto r = RunChild(
        {"/usr/bin/env", "XDG_CACHE_HOME=" + cache, kReport, trace, "--html", page, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    model_ = nlohmann::json::parse(r.out);
    return page;
  }
  TempDir dir_;
  std::string page_;
  nlohmann::json model_;
};

TEST_F(BrowserTest, ScriptRunsAndChartsHoldTheExpectedPoints) {
  // A second script, after the page's own, clicks the kernel table's headers and writes down
  // the row order after each click.
  std::string html = ReadAll(page_);
  const std::string probe = R"(<script>
(function () {
  var t = document.getElementById('t0-kernels');
  var order = function () {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.id; }).join(',');
  };
  t.setAttribute('data-order-0', order());
  t.tHead.rows[0].cells[2].click();
  t.setAttribute('data-order-1', order());
  t.tHead.rows[0].cells[2].click();
  t.setAttribute('data-order-2', order());
})();
</script></body>)";
  html.replace(html.rfind("</body>"), 7, probe);
  const std::string probed = dir_.path() + "/probed.html";
  std::ofstream(probed) << html;

  const auto r = RunChromium(dir_, {"--dump-dom", "file://" + probed});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const HtmlDocument doc = ParseHtml(r.out, /*strict=*/false);
  for (const auto& p : doc.problems) ADD_FAILURE() << p;
  const auto bodies = ByTag(*doc.root, "body");
  ASSERT_EQ(bodies.size(), 1u) << r.out.substr(0, 2000);
  EXPECT_EQ(bodies[0]->Attr("data-script"), "ready") << "the page's script did not finish";
  for (const HtmlNode* t : ByTag(*doc.root, "table", "sortable")) {
    EXPECT_EQ(t->Attr("data-sortable"), "ready") << t->Attr("id");
  }
  // The roofline: four points, each with its details moved to the hover tooltip.
  const HtmlNode* svg = ById(*doc.root, "t0-gpu0-roofline");
  ASSERT_NE(svg, nullptr);
  const auto points = ByTag(*svg, "circle", "pt");
  ASSERT_EQ(points.size(), DemoTracePoints().size());
  size_t kernels = 0, libraries = 0;
  for (const HtmlNode* p : points) {
    EXPECT_NE(p->Attr("data-tip").find("FLOP/s"), std::string::npos);
    EXPECT_TRUE(ByTag(*p, "title").empty());
    kernels += p->Attr("data-kind") == "kernel";
    libraries += p->Attr("data-kind") == "library";
  }
  EXPECT_EQ(kernels, 3u);
  EXPECT_EQ(libraries, 1u);
  // Sorting by GPU time (third column): the rows are already in descending order, so the first
  // click keeps them, the second reverses them.
  const HtmlNode* table = ById(*doc.root, "t0-kernels");
  ASSERT_NE(table, nullptr);
  const std::string before = table->Attr("data-order-0");
  EXPECT_EQ(table->Attr("data-order-1"), before);
  std::vector<std::string> ids;
  std::stringstream list(before);
  for (std::string id; std::getline(list, id, ',');) ids.push_back(id);
  ASSERT_GE(ids.size(), 3u);
  std::string reversed;
  for (auto it = ids.rbegin(); it != ids.rend(); ++it)
    reversed += (reversed.empty() ? "" : ",") + *it;
  EXPECT_EQ(table->Attr("data-order-2"), reversed);
}

TEST_F(BrowserTest, CpuChartAndTimelineHoldTheirPointsAndLanes) {
  const std::string page = CpuPage();
  const HtmlDocument doc = LoadedDom(dir_, page);
  const auto bodies = ByTag(*doc.root, "body");
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(bodies[0]->Attr("data-script"), "ready");
  // The CPU roofline: one point per region sample and the whole run, where the log axes put
  // (intensity, FLOP/s), under the synthetic Skylake ceilings' roofs.
  const HtmlNode* cpu = ById(*doc.root, "t0-cpu-chart");
  ASSERT_NE(cpu, nullptr) << "no CPU roofline chart";
  EXPECT_FALSE(ByTag(*cpu, "line", "roof").empty()) << "no CPU roofs drawn";
  const auto points = ByTag(*cpu, "circle", "pt");
  const auto expected = DemoCpuPoints();
  ASSERT_EQ(points.size(), expected.size());
  const double lx0 = D(cpu->Attr("data-lx0")), lx1 = D(cpu->Attr("data-lx1"));
  const double ly0 = D(cpu->Attr("data-ly0")), ly1 = D(cpu->Attr("data-ly1"));
  for (const ExpectedCpuPoint& e : expected) {
    SCOPED_TRACE(e.label);
    const HtmlNode* point = nullptr;
    for (const HtmlNode* p : points) {
      if (p->Attr("data-label") == e.label) point = p;
    }
    ASSERT_NE(point, nullptr);
    EXPECT_EQ(point->Attr("data-kind"), "cpu");
    EXPECT_NEAR(D(point->Attr("cx")), 72 + (std::log10(e.intensity) - lx0) / (lx1 - lx0) * 560,
                0.01);
    EXPECT_NEAR(D(point->Attr("cy")), 14 + (ly1 - std::log10(e.flops_per_s)) / (ly1 - ly0) * 400,
                0.01);
    EXPECT_NE(point->Attr("data-tip").find("FLOP/s"), std::string::npos);
  }
  // The timeline: one lane per stream that ran work (kernels on 7, a copy and a kernel on 8),
  // each with busy stretches, labelled with its share of the window as the model has it.
  const HtmlNode* timeline = ById(*doc.root, "t0-timeline");
  ASSERT_NE(timeline, nullptr);
  const auto lanes = ByTag(*timeline, "g", "track");
  const auto& tracks = model_["traces"][0]["timeline"]["tracks"];
  ASSERT_EQ(lanes.size(), tracks.size());
  ASSERT_EQ(lanes.size(), 2u);
  for (size_t i = 0; i < lanes.size(); ++i) {
    EXPECT_EQ(lanes[i]->Attr("data-device"), "0");
    EXPECT_EQ(lanes[i]->Attr("data-stream"), std::to_string(tracks[i]["stream"].get<int>()));
    EXPECT_FALSE(ByTag(*lanes[i], "rect", "busy").empty());
    const double span = model_["traces"][0]["timeline"]["end_ns"].get<double>() -
                        model_["traces"][0]["timeline"]["start_ns"].get<double>();
    const std::string busy = "busy " +
                             std::to_string(static_cast<int>(
                                 std::lround(100 * tracks[i]["busy_ns"].get<double>() / span))) +
                             "%";
    EXPECT_NE(lanes[i]->Text().find(busy), std::string::npos) << lanes[i]->Text();
  }
  // The regions table with its human headers.
  const HtmlNode* regions = ById(*doc.root, "t0-regions");
  ASSERT_NE(regions, nullptr);
  EXPECT_EQ(ByTag(*regions, "tr").size(), 3u);  // header, forward, backward
}

TEST_F(BrowserTest, PageReadsWithJavaScriptOff) {
  // Headless Chromium's --dump-dom and --screenshot need script themselves, so the page is
  // loaded with its own scripts taken out: what a reader with JavaScript off gets.
  std::string html = ReadAll(CpuPage());
  size_t scripts = 0;
  for (size_t at; (at = html.find("<script>")) != std::string::npos; ++scripts) {
    const size_t end = html.find("</script>", at);
    ASSERT_NE(end, std::string::npos);
    html.erase(at, end + 9 - at);
  }
  ASSERT_GT(scripts, 0u);
  const std::string page = dir_.path() + "/no-script.html";
  std::ofstream(page) << html;
  const HtmlDocument doc = LoadedDom(dir_, page);
  const auto bodies = ByTag(*doc.root, "body");
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(bodies[0]->Attr("data-script"), "");
  // Every chart point keeps its details as the browser's own tooltip.
  size_t points = 0;
  for (const char* chart : {"t0-gpu0-roofline", "t0-cpu-chart"}) {
    const HtmlNode* svg = ById(*doc.root, chart);
    ASSERT_NE(svg, nullptr) << chart;
    for (const HtmlNode* p : ByTag(*svg, "circle", "pt")) {
      ++points;
      const auto titles = ByTag(*p, "title");
      ASSERT_EQ(titles.size(), 1u);
      EXPECT_NE(titles[0]->Text().find("FLOP/s"), std::string::npos);
    }
  }
  EXPECT_EQ(points, DemoTracePoints().size() + DemoCpuPoints().size());
  // Tables are there, in GPU-time order without a sort; advice and timeline read as text.
  const HtmlNode* kernels = ById(*doc.root, "t0-kernels");
  ASSERT_NE(kernels, nullptr);
  std::vector<double> times;
  for (const HtmlNode* tr : ByTag(*kernels, "tr")) {
    const auto cells = ByTag(*tr, "td");
    if (cells.size() > 2) times.push_back(D(cells[2]->Attr("data-v")));
  }
  ASSERT_EQ(times.size(), model_["traces"][0]["kernels"].size());
  EXPECT_TRUE(std::is_sorted(times.rbegin(), times.rend()));
  const auto advice = ByTag(*doc.root, "ol", "advice");
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_NE(advice[0]->Text().find("estimated gain"), std::string::npos);
  const HtmlNode* timeline = ById(*doc.root, "t0-timeline");
  ASSERT_NE(timeline, nullptr);
  EXPECT_EQ(ByTag(*timeline, "g", "track").size(), 2u);
  EXPECT_FALSE(ByTag(*doc.root, "details").empty());  // full kernel names open without script
  // And it draws: the charts' points are on the screen.
  const std::string shot = dir_.path() + "/no-script.png";
  const auto r =
      RunChromium(dir_, {"--screenshot=" + shot, "--window-size=1280,2600", "file://" + page});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const PngImage img = ReadPng(shot);
  ASSERT_TRUE(img.ok) << img.error;
  if (img.decoded) {
    size_t compute = 0;
    for (const auto& p : img.pixels) {
      compute += std::fabs(p[0] - (43 * .72 + 255 * .28)) < 10 &&
                 std::fabs(p[1] - (108 * .72 + 255 * .28)) < 10 &&
                 std::fabs(p[2] - (176 * .72 + 255 * .28)) < 10;
    }
    EXPECT_GT(compute, 200u) << "no compute-bound point drawn without script";
  }
}

// Checks what a reader of the page at a given window width gets, in the browser: a script after
// the page's own measures the layout and writes its findings on <body> for --dump-dom.
TEST_F(BrowserTest, FitsTheWindowWithTocAndNoDumpsAt1400And1000Pixels) {
  const std::string probe = R"(<script>
(function () {
  var b = document.body, wide = [];
  b.setAttribute('data-inner-width', window.innerWidth);
  b.setAttribute('data-scroll-width', document.documentElement.scrollWidth);
  // Tables that would scroll sideways inside their frame.
  Array.prototype.forEach.call(document.querySelectorAll('.table-wrap'), function (w) {
    if (w.scrollWidth > w.clientWidth + 1) wide.push(w.firstChild.id || '?');
  });
  b.setAttribute('data-wide-tables', wide.join(','));
  var broken = [];
  Array.prototype.forEach.call(document.querySelectorAll('nav.toc a'), function (a) {
    if (!document.getElementById(a.getAttribute('href').slice(1))) broken.push(a.href);
  });
  b.setAttribute('data-toc-links', document.querySelectorAll('nav.toc a').length);
  b.setAttribute('data-toc-broken', broken.join(','));
  b.setAttribute('data-pre', document.querySelectorAll('pre').length);
  // The timeline zooms: "zoom in" halves the view around its middle.
  var zoom = document.querySelector('.timeline-tools button');
  if (zoom) zoom.click();
  b.setAttribute('data-zoom', document.getElementById('t0-timeline').getAttribute('data-view'));
})();
</script></body>)";
  std::string html = ReadAll(page_);
  html.replace(html.rfind("</body>"), 7, probe);
  const std::string probed = dir_.path() + "/layout.html";
  std::ofstream(probed) << html;
  // The model: a point on the roofline for every kernel signature (outside cuBLAS calls) and
  // every library shape with known figures.
  const auto m = RunChild({kReport, dir_.path() + "/demo.fspy", "--json"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const nlohmann::json model = nlohmann::json::parse(m.out);
  size_t known = 0;
  const auto placed = [](const nlohmann::json& p) {
    return p.is_object() && p.value("intensity", nlohmann::json()).is_number() &&
           p["intensity"].get<double>() > 0 &&
           p.value("achieved_flops_per_s", nlohmann::json()).is_number() &&
           p["achieved_flops_per_s"].get<double>() > 0;
  };
  for (const auto& k : model["traces"][0]["kernels"]) {
    known += !k.value("inside_library", false) && placed(k.value("placement", nlohmann::json()));
  }
  for (const auto& c : model["traces"][0]["library_calls"]) {
    known += placed(c.value("placement", nlohmann::json()));
  }
  ASSERT_GT(known, 0u);
  for (const int width : {1400, 1000}) {
    SCOPED_TRACE(width);
    const auto r = RunChromium(dir_, {"--window-size=" + std::to_string(width) + ",900",
                                      "--dump-dom", "file://" + probed});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const HtmlDocument doc = ParseHtml(r.out, /*strict=*/false);
    const auto bodies = ByTag(*doc.root, "body");
    ASSERT_EQ(bodies.size(), 1u);
    const HtmlNode& body = *bodies[0];
    EXPECT_EQ(body.Attr("data-inner-width"), std::to_string(width));
    // No horizontal scrolling of the page, and at 1400 px none inside a table either.
    EXPECT_LE(D(body.Attr("data-scroll-width")), D(body.Attr("data-inner-width")));
    if (width == 1400) {
      EXPECT_EQ(body.Attr("data-wide-tables"), "");
    }
    EXPECT_GE(D(body.Attr("data-toc-links")), 6);
    EXPECT_EQ(body.Attr("data-toc-broken"), "");
    EXPECT_EQ(body.Attr("data-pre"), "0") << "a raw dump on the page";
    EXPECT_EQ(body.Attr("data-zoom"), "250.00 500.00");
    const HtmlNode* svg = ById(*doc.root, "t0-gpu0-roofline");
    ASSERT_NE(svg, nullptr);
    EXPECT_EQ(ByTag(*svg, "circle", "pt").size(), known);
  }
}

TEST_F(BrowserTest, ScreenshotShowsTheCharts) {
  const std::string shot = dir_.path() + "/shot.png";
  const auto r =
      RunChromium(dir_, {"--screenshot=" + shot, "--window-size=1280,2600", "file://" + page_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const PngImage img = ReadPng(shot);
  ASSERT_TRUE(img.ok) << img.error;
  EXPECT_EQ(img.width, 1280u);
  EXPECT_EQ(img.height, 2600u);
  if (const char* keep = std::getenv("FLOPSPY_KEEP_SCREENSHOT"); keep && *keep) {
    std::filesystem::copy_file(shot, keep, std::filesystem::copy_options::overwrite_existing);
  }
  if (!img.decoded) {
    EXPECT_GT(std::filesystem::file_size(shot), 20'000u) << "a blank page compresses to less";
    return;
  }
  // Not blank, and the points' colours (fill-opacity .72 over white) are there.
  size_t ink = 0, memory = 0, compute = 0;
  const auto near = [](const std::array<uint8_t, 3>& p, double red, double green, double blue) {
    return std::fabs(p[0] - red) < 10 && std::fabs(p[1] - green) < 10 &&
           std::fabs(p[2] - blue) < 10;
  };
  for (const auto& p : img.pixels) {
    ink += p[0] < 240 || p[1] < 240 || p[2] < 240;
    memory += near(p, 221 * .72 + 255 * .28, 107 * .72 + 255 * .28, 32 * .72 + 255 * .28);
    compute += near(p, 43 * .72 + 255 * .28, 108 * .72 + 255 * .28, 176 * .72 + 255 * .28);
  }
  EXPECT_GT(ink, img.pixels.size() / 50) << "the page looks blank";
  EXPECT_GT(memory, 50u) << "no memory-bound point drawn";
  EXPECT_GT(compute, 200u) << "no compute-bound point drawn";
}

// The Call sites section in the browser: the demo trace's page with call sites made by hand
// (call_sites_page.h). A script after the page's own clicks icicle frames and presses Enter on
// one, and writes down the zoom, the frames' widths and the lit row after each.
class CallSitesBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const nlohmann::json model = DemoModelWithCallSites(kReport, dir_.path());
    ASSERT_TRUE(model.is_object());
    html_ = tools::RenderHtmlReport(model);
  }
  std::string Probed(const std::string& probe) {
    std::string html = html_;
    html.replace(html.rfind("</body>"), 7, "<script>" + probe + "</script></body>");
    const std::string page = dir_.path() + "/calls.html";
    std::ofstream(page) << html;
    if (const char* keep = std::getenv("FLOPSPY_KEEP_CALL_SITES_PAGE"); keep && *keep) {
      std::ofstream(keep) << html_;  // to look at the section (without the probe)
    }
    return page;
  }
  TempDir dir_;
  std::string html_;
};

TEST_F(CallSitesBrowserTest, ClickingAFrameZoomsIntoItAndLightsItsRow) {
  const std::string page = Probed(R"(
(function () {
  var chart = document.getElementById('t0-calls-icicle'), b = document.body;
  var frames = Array.prototype.slice.call(chart.querySelectorAll('.ice'));
  function frame(label) {
    return frames.filter(function (f) { return f.textContent === label; })[0];
  }
  function state() {
    var picked = document.querySelectorAll('tr.picked');
    return [chart.getAttribute('data-zoom'),
            picked.length === 1 ? picked[0].id : picked.length + ' rows',
            frames.filter(function (f) { return !f.hidden; }).length].join(' ');
  }
  b.setAttribute('data-icicle-w', chart.getBoundingClientRect().width.toFixed(0));
  var line88 = frame('model.py:88 (Block.forward)');
  b.setAttribute('data-line88-w', line88.getBoundingClientRect().width.toFixed(0));
  line88.click();
  b.setAttribute('data-after-click', state());
  b.setAttribute('data-line88-zoomed-w', line88.getBoundingClientRect().width.toFixed(0));
  b.setAttribute('data-linear-zoomed-w',
                 frame('linear.py:125 (Linear.forward)').getBoundingClientRect().width.toFixed(0));
  b.setAttribute('data-root-w', frames[0].getBoundingClientRect().width.toFixed(0));
  b.setAttribute('data-tip', line88.getAttribute('data-tip') + '|' +
                 (line88.getAttribute('title') === null));
  frames[0].click();
  b.setAttribute('data-after-root', state());
  var norm = frame('model.py:90 (Block.forward)');
  norm.focus();
  norm.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  b.setAttribute('data-after-enter', state());
  b.setAttribute('data-focused', document.activeElement === norm);
})();
)");
  const HtmlDocument doc = LoadedDom(dir_, page);
  const auto bodies = ByTag(*doc.root, "body");
  ASSERT_EQ(bodies.size(), 1u);
  const HtmlNode& body = *bodies[0];
  EXPECT_EQ(body.Attr("data-script"), "ready");
  // model.py:88 is half of all stack time: half the chart wide, then all of it once zoomed,
  // like the frame under it; its site is the first row. Its ancestors (the root and
  // train.py:40) stay, the frames beside it go: 4 frames shown of 7.
  const double chart = D(body.Attr("data-icicle-w"));
  ASSERT_GT(chart, 100);
  EXPECT_NEAR(D(body.Attr("data-line88-w")), chart / 2, 2);
  EXPECT_EQ(body.Attr("data-after-click"), "2 t0-calls-site0 4");
  EXPECT_NEAR(D(body.Attr("data-line88-zoomed-w")), chart, 2);
  EXPECT_NEAR(D(body.Attr("data-linear-zoomed-w")), chart, 2);
  EXPECT_NEAR(D(body.Attr("data-root-w")), chart, 2);
  EXPECT_EQ(body.Attr("data-tip").rfind("model.py:88 (Block.forward)\n5 ms of GPU time", 0), 0u)
      << body.Attr("data-tip");
  EXPECT_NE(body.Attr("data-tip").find("50.0% of all stacks|true"), std::string::npos);
  // The root zooms out: every frame back; its row (the most time under it) is lit.
  EXPECT_EQ(body.Attr("data-after-root"), "0 t0-calls-site0 7");
  // Enter on a focused frame does what a click does: model.py:90 is the third site.
  EXPECT_EQ(body.Attr("data-after-enter"), "4 t0-calls-site2 3");
  EXPECT_EQ(body.Attr("data-focused"), "true");
}

TEST_F(CallSitesBrowserTest, ChartAndTableFitAt1400And1000Pixels) {
  const std::string page = Probed(R"(
(function () {
  var b = document.body;
  var chart = document.getElementById('t0-calls-icicle');
  var table = document.getElementById('t0-calls-sites');
  b.setAttribute('data-scroll-width', document.documentElement.scrollWidth);
  b.setAttribute('data-inner-width', window.innerWidth);
  b.setAttribute('data-chart', chart.scrollWidth + ' ' + chart.clientWidth);
  var wrap = table.parentNode;
  b.setAttribute('data-table', wrap.scrollWidth + ' ' + wrap.clientWidth);
  var labelled = 0, hidden = 0;
  chart.querySelectorAll('.ice').forEach(function (f) {
    if (f.classList.contains('narrow')) hidden++; else if (f.scrollWidth <= f.clientWidth + 1 ||
        getComputedStyle(f).textOverflow === 'ellipsis') labelled++;
  });
  b.setAttribute('data-labels', labelled + ' ' + hidden);
})();
)");
  for (const int width : {1400, 1000}) {
    SCOPED_TRACE(width);
    const auto r = RunChromium(
        dir_, {"--window-size=" + std::to_string(width) + ",900", "--dump-dom", "file://" + page});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const HtmlDocument doc = ParseHtml(r.out, /*strict=*/false);
    const auto bodies = ByTag(*doc.root, "body");
    ASSERT_EQ(bodies.size(), 1u);
    const HtmlNode& body = *bodies[0];
    EXPECT_EQ(body.Attr("data-inner-width"), std::to_string(width));
    EXPECT_LE(D(body.Attr("data-scroll-width")), width);
    std::stringstream chart(body.Attr("data-chart")), table(body.Attr("data-table"));
    double scroll = 0, client = 0;
    chart >> scroll >> client;
    EXPECT_GT(client, 0.5 * (width - 120));  // the chart takes the page's width
    EXPECT_LE(scroll, client + 1);           // and nothing in it sticks out
    table >> scroll >> client;
    if (width == 1400) {
      EXPECT_LE(scroll, client + 1) << "the sites table scrolls sideways";
    }
    // Every frame wide enough shows its label (the backward and train.py frames at least);
    // the rest hide theirs.
    std::stringstream labels(body.Attr("data-labels"));
    size_t labelled = 0, hidden = 0;
    labels >> labelled >> hidden;
    EXPECT_GE(labelled, 4u);
    EXPECT_EQ(labelled + hidden, 7u);
  }
}

}  // namespace
}  // namespace flopspy::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string chromium = flopspy::testing::FindChromium();
  if (chromium.empty()) {
    std::cout << "no chromium on PATH (apt-get install chromium, or set FLOPSPY_CHROMIUM): "
                 "skipped\n";
    return 77;
  }
  const auto version = flopspy::testing::RunChild({chromium, "--version"});
  if (version.exit_code != 0) {
    std::cout << chromium << " --version failed: skipped\n" << version.err;
    return 77;
  }
  std::cout << "using " << version.out;
  return RUN_ALL_TESTS();
}
