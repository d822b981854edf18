// The HTML "Call sites" section (issue 19): the table of call sites and an icicle chart of GPU
// time by full stack, each frame linked to its site's row (docs/report-html.md, "Call sites";
// the analysis: docs/call-sites.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace flopspy::tools::html {

// One stack of the model's "call_sites.stacks": frames outermost first.
struct IcicleStack {
  std::vector<std::string> frames;
  double gpu_ns = 0;
  int32_t site = -1;  // index into "call_sites.sites"; -1: none
};

// One rectangle of the chart. Nodes come in depth-first order, children longest first, so a
// node's subtree is the index range [index, subtree_end]; node 0 is the root (all stacks).
struct IcicleNode {
  std::string label;
  int depth = 0;
  double start_ns = 0;  // from the left edge of the chart, in GPU time
  double gpu_ns = 0;
  int32_t site = -1;       // the site holding most of this node's time
  size_t subtree_end = 0;  // index of its last descendant (itself when it has none)
};
struct IcicleLayout {
  std::vector<IcicleNode> nodes;
  size_t dropped = 0;  // frames left out for being narrower than the chart shows
};

// Stacks with the same leading frames share their rectangles; a frame narrower than
// `min_share` of all the time is left out with everything under it, and no more than
// `max_nodes` nodes are kept (the widest first).
inline constexpr double kIcicleMinShare = 0.001;
inline constexpr size_t kIcicleMaxNodes = 4000;
IcicleLayout LayOutIcicle(const std::vector<IcicleStack>& stacks,
                          double min_share = kIcicleMinShare, size_t max_nodes = kIcicleMaxNodes);

// The trace's "call_sites" object as the page shows it; "" when the trace has none or no
// samples. `id` prefixes every element id: "<id>-sites" (table), "<id>-site<N>" (row of site
// N), "<id>-icicle" (chart).
std::string CallSitesSection(const nlohmann::json& trace, const std::string& id);

}  // namespace flopspy::tools::html
