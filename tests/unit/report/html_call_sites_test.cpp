// The icicle chart's layout (tools/report/html_call_sites.h): stacks with the same leading
// frames share rectangles, widths are GPU time, children longest first, each node's subtree an
// index range, narrow frames and frames past the node limit left out (and counted), and each
// frame pointing at the site holding most of its time.
#include "report/html_call_sites.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace flopspy::tools::html {
namespace {

const IcicleNode* Find(const IcicleLayout& layout, const std::string& label, int depth) {
  for (const IcicleNode& n : layout.nodes) {
    if (n.label == label && n.depth == depth) return &n;
  }
  return nullptr;
}

TEST(IcicleLayout, SharedPrefixesNestAndWidthsAreTime) {
  const IcicleLayout layout =
      LayOutIcicle({{{"a", "b"}, 30, 0}, {{"a", "c"}, 10, 1}, {{"d"}, 60, 2}});
  ASSERT_EQ(layout.nodes.size(), 5u);
  EXPECT_EQ(layout.dropped, 0u);
  const std::vector<std::string> order = {"all stacks", "d", "a", "b", "c"};
  const std::vector<double> start = {0, 0, 60, 60, 90}, width = {100, 60, 40, 30, 10};
  const std::vector<int> depth = {0, 1, 1, 2, 2};
  const std::vector<size_t> end = {4, 1, 4, 3, 4};
  const std::vector<int32_t> site = {2, 2, 0, 0, 1};
  for (size_t i = 0; i < order.size(); ++i) {
    SCOPED_TRACE(order[i]);
    const IcicleNode& n = layout.nodes[i];
    EXPECT_EQ(n.label, order[i]);
    EXPECT_DOUBLE_EQ(n.start_ns, start[i]);
    EXPECT_DOUBLE_EQ(n.gpu_ns, width[i]);
    EXPECT_EQ(n.depth, depth[i]);
    EXPECT_EQ(n.subtree_end, end[i]);
    EXPECT_EQ(n.site, site[i]);
  }
}

TEST(IcicleLayout, SameLabelAtAnotherDepthIsAnotherFrame) {
  // Recursion: f calls f; and two stacks ending in the same frame add up.
  const IcicleLayout layout = LayOutIcicle({{{"f", "f"}, 5, 0}, {{"f", "f"}, 5, 0}, {{"f"}, 2, 1}});
  ASSERT_EQ(layout.nodes.size(), 3u);
  ASSERT_NE(Find(layout, "f", 1), nullptr);
  ASSERT_NE(Find(layout, "f", 2), nullptr);
  EXPECT_DOUBLE_EQ(Find(layout, "f", 1)->gpu_ns, 12);
  EXPECT_DOUBLE_EQ(Find(layout, "f", 2)->gpu_ns, 10);
}

TEST(IcicleLayout, NarrowFramesAndFramesPastTheLimitAreLeftOutAndCounted) {
  std::vector<IcicleStack> stacks = {{{"big", "inner"}, 1e6, 0}, {{"tiny", "deeper"}, 100, 1}};
  IcicleLayout layout = LayOutIcicle(stacks, 0.001);
  // tiny is 0.01 % of the time: it and its child go.
  EXPECT_EQ(layout.nodes.size(), 3u);
  EXPECT_EQ(layout.dropped, 2u);
  EXPECT_EQ(Find(layout, "tiny", 1), nullptr);
  // The root's width still counts every stack.
  EXPECT_DOUBLE_EQ(layout.nodes[0].gpu_ns, 1e6 + 100);
  layout = LayOutIcicle(stacks, 0, 3);
  // The three widest: the root, big and inner (equal to big, deeper, so after it).
  ASSERT_EQ(layout.nodes.size(), 3u);
  EXPECT_EQ(layout.nodes[1].label, "big");
  EXPECT_EQ(layout.nodes[2].label, "inner");
  EXPECT_EQ(layout.nodes[0].subtree_end, 2u);
}

TEST(IcicleLayout, StacksWithoutTimeAreIgnored) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const IcicleLayout layout =
      LayOutIcicle({{{"a"}, 0, 0}, {{"b"}, -5, 0}, {{"c"}, nan, 0}, {{"d"}, 7, -1}});
  ASSERT_EQ(layout.nodes.size(), 2u);
  EXPECT_EQ(layout.nodes[1].label, "d");
  EXPECT_EQ(layout.nodes[1].site, -1);  // no site: the frame leads nowhere
  EXPECT_TRUE(LayOutIcicle({}).nodes.size() == 1 && LayOutIcicle({}).nodes[0].gpu_ns == 0);
}

TEST(CallSitesSection, NothingWithoutSamples) {
  EXPECT_EQ(CallSitesSection(nlohmann::json::object(), "t0-calls"), "");
  nlohmann::json trace = {{"call_sites", {{"coverage", {{"samples", 0}}}, {"sites", {}}}}};
  EXPECT_EQ(CallSitesSection(trace, "t0-calls"), "");
  trace["call_sites"]["coverage"]["samples"] = 3;
  // Samples but no GPU time: said, with no empty table.
  EXPECT_NE(CallSitesSection(trace, "t0-calls").find("No kernel GPU time"), std::string::npos);
  EXPECT_EQ(CallSitesSection(trace, "t0-calls").find("<table"), std::string::npos);
  trace["call_sites"]["sites"] = nlohmann::json::array({{{"label", "a.py:1 (f)"}, {"gpu_ns", 5}}});
  const std::string html = CallSitesSection(trace, "t0-calls");
  EXPECT_NE(html.find(R"(id="t0-calls-site0")"), std::string::npos);
  // No stacks, no chart.
  EXPECT_EQ(html.find("icicle"), std::string::npos);
}

}  // namespace
}  // namespace flopspy::tools::html
