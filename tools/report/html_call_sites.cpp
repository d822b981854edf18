#include "report/html_call_sites.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <set>

#include "report/format.h"
#include "report/html_tables.h"
#include "report/html_util.h"
#include "report/labels.h"

namespace flopspy::tools::html {

using nlohmann::json;

namespace {

struct TrieNode {
  std::string label;
  int depth = 0;
  double gpu_ns = 0;
  std::map<std::string, size_t> children;
  std::map<int32_t, double> site_ns;
};

// The site that holds most of a node's time: a click on the frame leads to its row.
int32_t MainSite(const std::map<int32_t, double>& site_ns) {
  int32_t best = -1;
  double most = 0;
  for (const auto& [site, ns] : site_ns) {
    if (site >= 0 && ns > most) best = site, most = ns;
  }
  return best;
}

}  // namespace

IcicleLayout LayOutIcicle(const std::vector<IcicleStack>& stacks, double min_share,
                          size_t max_nodes) {
  std::vector<TrieNode> trie(1);
  trie[0].label = "all stacks";
  for (const IcicleStack& s : stacks) {
    if (!(s.gpu_ns > 0)) continue;
    size_t at = 0;
    trie[0].gpu_ns += s.gpu_ns;
    trie[0].site_ns[s.site] += s.gpu_ns;
    for (const std::string& frame : s.frames) {
      auto [it, added] = trie[at].children.try_emplace(frame, trie.size());
      if (added) {
        const int depth = trie[at].depth + 1;
        trie.push_back({frame, depth, 0, {}, {}});
      }
      at = it->second;
      trie[at].gpu_ns += s.gpu_ns;
      trie[at].site_ns[s.site] += s.gpu_ns;
    }
  }
  IcicleLayout layout;
  const double total = trie[0].gpu_ns;
  // Which nodes are drawn: wide enough, and the widest `max_nodes` of those. A parent is never
  // narrower than its child and comes first among equals, so what is kept is a tree.
  std::vector<size_t> order(trie.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return trie[a].gpu_ns != trie[b].gpu_ns ? trie[a].gpu_ns > trie[b].gpu_ns
                                            : trie[a].depth < trie[b].depth;
  });
  std::vector<bool> keep(trie.size(), false);
  for (size_t i = 0; i < order.size(); ++i) {
    const TrieNode& n = trie[order[i]];
    keep[order[i]] = i == 0 || (i < max_nodes && total > 0 && n.gpu_ns >= min_share * total);
  }
  layout.dropped = static_cast<size_t>(std::count(keep.begin(), keep.end(), false));
  // Depth first, children longest first (then by label, for a stable page).
  struct Visit {
    size_t trie;
    double start;
    size_t parent;  // index in layout.nodes; SIZE_MAX for the root
  };
  std::vector<Visit> todo = {{0, 0, SIZE_MAX}};
  std::vector<size_t> open;  // layout indices whose subtree is still being written
  while (!todo.empty()) {
    const Visit v = todo.back();
    todo.pop_back();
    const TrieNode& t = trie[v.trie];
    while (!open.empty() && open.back() != v.parent) open.pop_back();
    layout.nodes.push_back({t.label, t.depth, v.start, t.gpu_ns, MainSite(t.site_ns), 0});
    const size_t me = layout.nodes.size() - 1;
    open.push_back(me);
    for (const size_t o : open) layout.nodes[o].subtree_end = me;
    std::vector<size_t> kids;
    for (const auto& [label, index] : t.children) {
      if (keep[index]) kids.push_back(index);
    }
    std::stable_sort(kids.begin(), kids.end(),
                     [&](size_t a, size_t b) { return trie[a].gpu_ns > trie[b].gpu_ns; });
    std::vector<Visit> next;
    double x = v.start;
    for (const size_t k : kids) {
      next.push_back({k, x, me});
      x += trie[k].gpu_ns;
    }
    todo.insert(todo.end(), next.rbegin(), next.rend());
  }
  return layout;
}

namespace {

std::vector<IcicleStack> Stacks(const json& call_sites) {
  std::vector<IcicleStack> out;
  for (const json& s : Arr(call_sites, "stacks")) {
    IcicleStack stack;
    for (const json& f : Arr(s, "frames")) {
      stack.frames.push_back(f.is_string() ? f.get<std::string>() : "?");
    }
    stack.gpu_ns = NumOr(s, "gpu_ns", 0);
    stack.site = static_cast<int32_t>(Int(s, "site", -1));
    out.push_back(std::move(stack));
  }
  return out;
}

// The site's GPU time by its kernels' regime ("regime_shares"), as a small stacked bar.
Cell MixCell(const json& site) {
  std::array<double, 4> share{};  // kRegimeNames order
  const json& shares = Obj(site, "regime_shares");
  for (size_t r = 0; r < kRegimeNames.size(); ++r) {
    share[r] = std::max(0.0, NumOr(shares, kRegimeNames[r], 0));
  }
  const double total = share[0] + share[1] + share[2] + share[3];
  if (!(total > 0)) return Text("-");
  constexpr double kW = 90, kH = 10;
  std::string words, bars;
  double x = 0;
  for (size_t r = 0; r < kRegimeNames.size(); ++r) {
    if (!(share[r] > 0)) continue;
    const double w = kW * share[r] / total;
    bars += fmt::format(R"(<rect class="{}" x="{:.2f}" width="{:.2f}" height="{}" fill="{}"/>)",
                        kRegimeNames[r], x, w, kH, RegimeColor(kRegimeNames[r]));
    x += w;
    words += fmt::format("{}{} {}", words.empty() ? "" : " / ", RegimeText(kRegimeNames[r]),
                         Pct(100 * share[r] / total));
  }
  Cell c;
  c.html = fmt::format(R"(<svg class="mix" width="{}" height="{}" role="img" aria-label="{}">)", kW,
                       kH, Escape(words)) +
           bars + "</svg>";
  c.title = words;
  c.sort = share[0] / total;  // sorts by the compute-bound share
  return c;
}

// A kernel of a site: its short name, the full name in the tooltip.
std::string SiteKernelLabel(const json& k) {
  const std::string name = Str(k, "name", "?");
  return ShortName(Str(k, "short_name", name), name);
}

Cell KernelsCell(const json& site) {
  const json& kernels = Arr(site, "kernels");
  if (kernels.empty()) return Text("-");
  std::string items;
  for (const json& k : kernels) {
    items +=
        fmt::format(R"(<li>{} <span class="muted">{}, {} launches</span></li>)", SiteKernelLabel(k),
                    Escape(Ns(Num(k, "gpu_ns"))), Escape(Plain(Num(k, "launches"))));
  }
  Cell c;
  c.html = fmt::format(
      R"(<details><summary>{}</summary><ol class="site-kernels">{}</ol>)"
      R"(</details>)",
      SiteKernelLabel(kernels[0]) +
          (kernels.size() > 1 ? fmt::format(" and {} more", kernels.size() - 1) : std::string()),
      items);
  c.cls = "name";
  c.sort = NumOr(kernels[0], "gpu_ns", 0);
  return c;
}

Cell SiteCell(const json& site) {
  const std::string label = Str(site, "label", "?");
  const std::string kind = Str(site, "kind");
  Cell c;
  c.sort_text = label;
  c.cls = "name";
  std::string head = "<code>" + Escape(label) + "</code>";
  if (!kind.empty() && kind != "frame") {
    head += fmt::format(R"( <span class="badge">{}</span>)", Escape(kind));
  }
  const json& stack = Arr(site, "stack");
  if (stack.empty()) {
    c.html = head;
    return c;
  }
  std::string frames;
  for (const json& f : stack) {
    frames += fmt::format("<li{}>{}</li>", Bool(f, "user") ? R"( class="user")" : "",
                          Escape(Str(f, "label", "?")));
  }
  c.html = fmt::format(
      R"(<details><summary>{}</summary><ol class="stack" title="outermost first">{}</ol>)"
      R"(</details>)",
      head, frames);
  return c;
}

std::string SitesTable(const json& call_sites, const std::string& id) {
  HtmlTable t(id + "-sites",
              {{"call site", false, "the user's frame (docs/call-sites.md); open it for the stack"},
               {"GPU time", true, "kernel time attributed to the site"},
               {"share", true, "of all kernel time of the trace"},
               {"launches", true, "estimated where time was shared out by samples"},
               {"FLOPs", true, "counted FLOPs, and the share of the site's time that has them"},
               {"achieved", true, "counted FLOPs over the GPU time of the kernels that have them"},
               {"regime mix", true, "the site's GPU time by its kernels' regime"},
               {"launch bound", true, "share of its GPU time in kernels shorter than their launch"},
               {"top kernels", false, "by GPU time"}});
  const json& sites = Arr(call_sites, "sites");
  for (size_t i = 0; i < sites.size(); ++i) {
    const json& s = sites[i];
    const double gpu = NumOr(s, "gpu_ns", 0);
    const std::optional<double> flops = Num(s, "counted_flops");
    const std::optional<double> coverage = Num(s, "flops_coverage");
    const std::optional<double> rate = Num(s, "achieved_flops_per_s");
    const std::optional<double> bound = Num(s, "launch_bound_share");
    const std::optional<double> share = Num(s, "share");
    std::string flops_text = "-";
    if (flops && *flops > 0) {
      flops_text = Si(flops, "FLOP");
      if (coverage) flops_text += " (" + Pct(100 * *coverage) + " of time)";
    }
    t.AddRow(fmt::format("{}-site{}", id, i),
             {SiteCell(s), Number(gpu, Ns(gpu)), Number(share, share ? Pct(100 * *share, 1) : "-"),
              Number(Num(s, "launches"), Plain(Num(s, "launches"))), Number(flops, flops_text),
              Number(rate, rate && *rate > 0 ? Si(rate, "FLOP/s") : "-"), MixCell(s),
              Number(bound, bound ? Pct(100 * *bound) : "-"), KernelsCell(s)},
             "site");
  }
  return t.Render(500);
}

std::string Icicle(const json& call_sites, const std::string& id) {
  const IcicleLayout layout = LayOutIcicle(Stacks(call_sites));
  if (layout.nodes.size() < 2 || !(layout.nodes[0].gpu_ns > 0)) return "";
  std::set<std::string, std::less<>> site_labels;
  for (const json& site : Arr(call_sites, "sites")) site_labels.insert(Str(site, "label"));
  const double total = layout.nodes[0].gpu_ns;
  int depth = 0;
  for (const IcicleNode& n : layout.nodes) depth = std::max(depth, n.depth);
  constexpr int kRow = 18;
  std::string s = fmt::format(
      R"(<div class="icicle" id="{}-icicle" role="group" aria-label="GPU time by stack, )"
      R"(outermost frame at the top; a frame's width is its GPU time" style="height:{}px" )"
      R"(data-zoom="0" data-total-ns="{}">)",
      Escape(id), (depth + 1) * kRow, Exact(total));
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const IcicleNode& n = layout.nodes[i];
    const double left = n.start_ns / total, width = n.gpu_ns / total;
    const std::string tip = fmt::format("{}\n{} of GPU time, {} of all stacks", n.label,
                                        Duration(n.gpu_ns), Pct(100 * width, 1));
    std::string cls = i == 0 ? "ice root" : site_labels.contains(n.label) ? "ice site" : "ice";
    if (width < 0.02) cls += " narrow";  // too narrow for its label until zoomed
    s += fmt::format(
        R"(<div class="{}" tabindex="0" role="button" data-i="{}" data-end="{}" data-x="{}" )"
        R"(data-w="{}" data-depth="{}" data-ns="{}")",
        cls, i, n.subtree_end, Exact(left), Exact(width), n.depth, Exact(n.gpu_ns));
    if (n.site >= 0) {
      s += fmt::format(R"( data-site="{}" data-row="{}-site{}")", n.site, Escape(id), n.site);
    }
    s += fmt::format(R"( style="left:{:.4f}%;width:{:.4f}%;top:{}px" title="{}">{}</div>)",
                     100 * left, 100 * width, n.depth * kRow, Escape(tip), Escape(n.label));
  }
  s += "</div>\n<p class=\"note\">Each rectangle is a frame, its width the GPU time of the "
       "kernels launched under it; the outermost frame is at the top. Click a frame (or press "
       "Enter on it) to zoom into it and light its call site in the table; click the top bar to "
       "zoom out. Frames that are a call site are ";
  s += R"(<span class="swatch" style="background:#f6ad55"></span>orange.)";
  if (layout.dropped > 0) {
    s += fmt::format(" {} frames narrower than {} of the time are left out.", layout.dropped,
                     Pct(100 * kIcicleMinShare, 1));
  }
  return s + "</p>\n";
}

// The coverage line as the text report words it (docs/call-sites.md).
std::string CoverageLine(const json& call_sites) {
  const json& c = Obj(call_sites, "coverage");
  std::string s = fmt::format(
      "Stacks were sampled for {} of the kernel time; {} was shared out from the samples of "
      "the same kernel signature on the same thread",
      Pct(100 * NumOr(c, "sampled_share", 0), 1), Pct(100 * NumOr(c, "estimated_share", 0), 1));
  if (const int64_t every = Int(c, "sample_every", 0); every > 0) {
    s += fmt::format(" (FLOPSPY_STACK_SAMPLE={})", every);
  }
  s += fmt::format("; {} has no call site. {} launches sampled, {} distinct stacks.",
                   Pct(100 * NumOr(c, "no_site_share", 0), 1),
                   GroupedCount(std::max(0.0, NumOr(c, "samples", 0))),
                   GroupedCount(std::max(0.0, NumOr(c, "distinct_stacks", 0))));
  return s;
}

}  // namespace

std::string CallSitesSection(const json& trace, const std::string& id) {
  const json& call_sites = Obj(trace, "call_sites");
  if (!(NumOr(Obj(call_sites, "coverage"), "samples", 0) > 0)) return "";
  std::string s =
      "<p class=\"note\">Which line launched the kernels that take the time: each "
      "site is the innermost frame of the user's code in the launching stack "
      "(docs/call-sites.md). " +
      Escape(CoverageLine(call_sites)) + "</p>\n";
  std::vector<std::string> without;
  for (const json& m : Arr(call_sites, "modules_without_symbols")) {
    if (m.is_string()) without.push_back(m.get<std::string>());
  }
  if (!without.empty()) {
    s += "<details class=\"sub\"><summary class=\"warn\">" +
         Escape(fmt::format("{} native modules without symbols", without.size())) +
         "</summary><ul>";
    for (const std::string& m : without) s += "<li><code>" + Escape(m) + "</code></li>";
    s += "</ul></details>\n";
  }
  if (Arr(call_sites, "sites").empty()) {
    // Sites are weighed by GPU time: samples without it make no row.
    return s +
           "<p class=\"note warn\">No kernel GPU time to attribute to the sampled stacks "
           "(GPU timing was off or CUPTI was unavailable).</p>\n";
  }
  s += Icicle(call_sites, id);
  s += SitesTable(call_sites, id);
  return s;
}

}  // namespace flopspy::tools::html
