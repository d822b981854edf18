// The HTML report in a real browser: headless Chromium (Debian's `chromium`) loads the page,
// its script runs without error (the DOM after scripts shows its marks), the charts hold the
// expected points, a header click sorts a table, and a screenshot is a PNG of the requested size
// with the chart's colours in it. Exits 77 (skipped) when no Chromium can be found.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "demo_trace.h"
#include "html_check.h"
#include "png_check.h"
#include "subprocess.h"

namespace flopspy::testing {
namespace {

const std::string kReport = FLOPSPY_REPORT_PATH;

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

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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

class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string trace = dir_.path() + "/demo.fspy";
    WriteFile(trace, DemoTrace());
    page_ = dir_.path() + "/report.html";
    const auto r = RunChild({kReport, trace, "--html", page_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  TempDir dir_;
  std::string page_;
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
