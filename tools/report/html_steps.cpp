#include "report/html_steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <vector>

#include "report/format.h"
#include "report/html_tables.h"
#include "report/html_util.h"

namespace flopspy::tools::html {

using nlohmann::json;

namespace {

// One bar of the chart: one step, or the mean of consecutive steps when there are too many.
struct StepBar {
  int64_t first = 0, last = 0;
  size_t steps = 0;
  bool warmup = false;
  double time_ns = 0, kernel_ns = 0, busy_ns = 0;
  std::array<double, 4> regime_ns{};
};

std::vector<StepBar> Bars(const json& per_step) {
  const size_t n = per_step.size();
  const size_t per_bar = (n + kMaxStepBars - 1) / kMaxStepBars;
  std::vector<StepBar> bars;
  for (size_t i = 0; i < n; ++i) {
    const json& s = per_step[i];
    if (i % per_bar == 0) {
      bars.emplace_back();
      bars.back().first = Int(s, "number", static_cast<int64_t>(i + 1));
    }
    StepBar& b = bars.back();
    b.last = Int(s, "number", static_cast<int64_t>(i + 1));
    ++b.steps;
    b.warmup |= Bool(s, "warmup");
    b.time_ns += NumOr(s, "time_ns", 0);
    b.kernel_ns += NumOr(s, "kernel_ns", 0);
    b.busy_ns += NumOr(s, "busy_ns", 0);
    const json& by = Obj(s, "kernel_ns_by_regime");
    for (size_t r = 0; r < kRegimeNames.size(); ++r)
      b.regime_ns[r] += NumOr(by, kRegimeNames[r], 0);
  }
  for (StepBar& b : bars) {
    const double k = static_cast<double>(b.steps);
    b.time_ns /= k;
    b.kernel_ns /= k;
    b.busy_ns /= k;
    for (double& v : b.regime_ns) v /= k;
  }
  return bars;
}

// The bar's segments bottom up: kernel time by regime, copies, idle; they add up to the step's
// time. Kernels on several streams overlap, so their time is scaled down to the busy time.
std::vector<std::pair<std::string, double>> Segments(const StepBar& b) {
  const double scale = b.kernel_ns > b.busy_ns && b.kernel_ns > 0 ? b.busy_ns / b.kernel_ns : 1;
  std::vector<std::pair<std::string, double>> out;
  for (size_t r = 0; r < kRegimeNames.size(); ++r) {
    out.push_back({std::string(kRegimeNames[r]), b.regime_ns[r] * scale});
  }
  out.push_back({"copies", std::max(0.0, b.busy_ns - b.kernel_ns * scale)});
  out.push_back({"idle", std::max(0.0, b.time_ns - std::max(b.busy_ns, b.kernel_ns * scale))});
  return out;
}

std::string SegmentColor(const std::string& name) {
  if (name == "copies") return "#38a169";
  if (name == "idle") return "#e2e8f0";
  return std::string(RegimeColor(name));
}

std::string BarTitle(const StepBar& b) {
  std::string s = b.steps == 1 ? fmt::format("step {}: {}", b.first, Duration(b.time_ns))
                               : fmt::format("steps {} to {}: {} each on average", b.first, b.last,
                                             Duration(b.time_ns));
  s += "; kernels " + Duration(b.kernel_ns);
  for (size_t r = 0; r < kRegimeNames.size(); ++r) {
    if (b.regime_ns[r] > 0)
      s += ", " + RegimeText(kRegimeNames[r]) + " " + Duration(b.regime_ns[r]);
  }
  s += "; GPU busy " + Duration(b.busy_ns);
  if (b.warmup) s += "; warm-up";
  return s;
}

std::string StepsChart(const json& per_step, const std::string& id) {
  const std::vector<StepBar> bars = Bars(per_step);
  if (bars.empty()) return "";
  double top = 0;
  for (const StepBar& b : bars) top = std::max(top, b.time_ns);
  if (top <= 0) return "";
  constexpr double kW = 900, kH = 220, kLeft = 64, kRight = 8, kTop = 10, kBottom = 28;
  const double plot_w = kW - kLeft - kRight, plot_h = kH - kTop - kBottom;
  const double slot = plot_w / static_cast<double>(bars.size());
  const double gap = slot > 4 ? slot * 0.15 : 0;
  std::string s = fmt::format(
      R"(<svg class="steps" id="{}" viewBox="0 0 {} {}" width="{}" height="{}" role="img" )"
      R"(aria-label="step time by regime, one bar per step">)",
      Escape(id), kW, kH, kW, kH);
  s += fmt::format(R"(<rect class="plot" x="{}" y="{}" width="{}" height="{}"/>)", kLeft, kTop,
                   plot_w, plot_h);
  for (const double f : {0.0, 0.5, 1.0}) {
    const double y = kTop + plot_h * (1 - f);
    s += fmt::format(
        R"(<g class="ticks"><line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="#edf2f7"/>)"
        R"(<text x="{}" y="{:.1f}" text-anchor="end">{}</text></g>)",
        kLeft, kLeft + plot_w, y, y, kLeft - 4, y + 4, Escape(Duration(top * f)));
  }
  for (size_t i = 0; i < bars.size(); ++i) {
    const StepBar& b = bars[i];
    const double x = kLeft + slot * static_cast<double>(i);
    s += fmt::format(R"(<g class="step{}" data-step="{}" data-time-ns="{}"><title>{}</title>)",
                     b.warmup ? " warmup" : "", b.first, Exact(b.time_ns), Escape(BarTitle(b)));
    if (b.warmup) {
      s += fmt::format(R"(<rect class="warmup-band" x="{:.2f}" y="{}" width="{:.2f}" )"
                       R"(height="{}" fill="#fefcbf"/>)",
                       x, kTop, slot, plot_h);
    }
    double y = kTop + plot_h;
    for (const auto& [name, ns] : Segments(b)) {
      if (ns <= 0) continue;
      const double h = plot_h * ns / top;
      y -= h;
      s += fmt::format(R"(<rect class="seg {}" x="{:.2f}" y="{:.2f}" width="{:.2f}" )"
                       R"(height="{:.2f}" fill="{}"/>)",
                       Escape(name), x + gap / 2, y, std::max(slot - gap, 0.5), h,
                       SegmentColor(name));
    }
    s += "</g>";
  }
  const auto label = [&](size_t i, const char* anchor) {
    return fmt::format(R"(<text class="axis-title" x="{:.1f}" y="{}" text-anchor="{}">{}</text>)",
                       kLeft + slot * (static_cast<double>(i) + 0.5), kH - 10, anchor,
                       bars[i].first);
  };
  s += label(0, "start");
  if (bars.size() > 1) s += label(bars.size() - 1, "end");
  s += "</svg>\n<p class=\"note\">";
  for (const char* name :
       {"compute_bound", "memory_bound", "overhead_bound", "unknown", "copies", "idle"}) {
    s += fmt::format(R"(<span class="swatch" style="background:{}"></span>{} )", SegmentColor(name),
                     Escape(RegimeText(name)));
  }
  s += R"(<span class="swatch" style="background:#fefcbf"></span>warm-up step. )";
  s += "Bar height is the step's time; kernel time is split by regime (scaled to the GPU busy "
       "time where streams overlap); hover a bar for its figures.";
  if (bars.size() < per_step.size()) {
    s += fmt::format(" {} steps drawn as {} bars: each bar is the mean of {} consecutive steps.",
                     per_step.size(), bars.size(), bars.front().steps);
  }
  return s + "</p>\n";
}

std::string Share(const json& object, std::string_view key) {
  const std::optional<double> f = Num(object, key);
  return f ? Pct(100 * *f, 1) : "-";
}

}  // namespace

std::string StepsSection(const json& steps, const std::string& id) {
  if (!steps.is_object()) return "";
  const json& steady = Obj(steps, "steady");
  std::string found = Str(steps, "source", "?");
  if (const std::string d = Str(steps, "detail"); !d.empty()) found += " (" + d + ")";
  found += ", times on the " + Str(steps, "basis", "?") + " clock";
  std::vector<std::pair<std::string, std::string>> facts = {
      {"found by", Escape(found)},
      {"steps", Escape(fmt::format("{}, of which {} warm-up", Str(steps, "count", "0"),
                                   Str(steps, "warmup", "0")))},
      {"steady step", Escape(fmt::format("{} mean, {} p50, {} p95 over {} steps; GPU busy {}",
                                         Ns(Num(steady, "mean_ns")), Ns(Num(steady, "p50_ns")),
                                         Ns(Num(steady, "p95_ns")), Str(steady, "steps", "0"),
                                         Share(steady, "busy_share")))},
      {"FLOPs per step", Escape(fmt::format("{} counted ({} of kernel time has a figure), {}",
                                            Si(Num(steady, "counted_flops_per_step"), "FLOP"),
                                            Share(steady, "flops_coverage"),
                                            Si(Num(steady, "achieved_flops_per_s"), "FLOP/s")))}};
  std::string regimes;
  const json& share = Obj(steady, "kernel_share_by_regime");
  for (const std::string_view r : kRegimeNames) {
    if (NumOr(share, r, 0) > 0) {
      regimes += (regimes.empty() ? "" : ", ") + Share(share, r) + " " + RegimeText(r);
    }
  }
  if (!regimes.empty()) facts.push_back({"kernel time", Escape(regimes)});
  if (const auto mfu = Num(steady, "mfu")) {
    facts.push_back(
        {"MFU", Escape(fmt::format("{} (model {} per step, peak {})", Pct(100 * *mfu, 2),
                                   Si(Num(steps, "model_flops_per_step"), "FLOP"),
                                   Si(Num(steps, "peak_flops"), "FLOP/s")))});
  }
  std::string slowest;
  for (const json& n : Arr(steps, "slowest")) slowest += (slowest.empty() ? "" : ", ") + Dump(n);
  if (!slowest.empty()) facts.push_back({"slowest steps", Escape(slowest)});
  return Facts(facts) + StepsChart(Arr(steps, "per_step"), id + "-chart");
}

namespace {

// One node of the range tree: a name under its parent path, with the figures of its path.
struct RangeNode {
  std::string path;
  const json* row = nullptr;  // range_paths entry, or for a root its ranges row
  std::map<std::string, RangeNode> children;
};

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t at; (at = path.find(" > ", begin)) != std::string::npos; begin = at + 3) {
    parts.push_back(path.substr(begin, at - begin));
  }
  parts.push_back(path.substr(begin));
  return parts;
}

std::string NodeHtml(const std::string& name, const RangeNode& node) {
  std::string label = "<code>" + Escape(name) + "</code>";
  if (node.row) {
    label += Escape(fmt::format(" · {}× · CPU {} · GPU {}", Str(*node.row, "count", "?"),
                                Ns(Num(*node.row, "cpu_ns")), Ns(Num(*node.row, "gpu_ns"))));
  }
  if (node.children.empty()) {
    return fmt::format(R"(<li data-path="{}">{}</li>)", Escape(node.path), label);
  }
  std::string s = fmt::format(R"(<li data-path="{}"><details open><summary>{}</summary><ul>)",
                              Escape(node.path), label);
  for (const auto& [child, sub] : node.children) s += NodeHtml(child, sub);
  return s + "</ul></details></li>";
}

}  // namespace

std::string RangesSection(const json& trace, const std::string& id) {
  const json& ranges = Arr(trace, "ranges");
  if (ranges.empty()) return "";
  HtmlTable t(id, {{"range", false, "NVTX or region name (numbers in step names become N)"},
                   {"domain", false, "NVTX domain; empty for the default domain"},
                   {"count", true, "completed ranges"},
                   {"CPU time", true, "summed CPU time of the ranges"},
                   {"GPU time", true, "GPU time of the kernels launched inside, nested ones too"},
                   {"GPU self", true, "GPU time of kernels not inside a nested range"},
                   {"FLOPs coverage", true, "share of the GPU time with a FLOP figure"},
                   {"FLOP/s", true, "counted FLOPs over the GPU time that has them"}});
  std::map<std::string, const json*> by_name;
  for (const json& r : ranges) {
    if (!r.is_object()) continue;
    by_name.emplace(Str(r, "name"), &r);
    t.AddRow(
        "", {Text(Str(r, "name", "?")), Text(Str(r, "domain")),
             Number(Num(r, "count"), GroupedCount(NumOr(r, "count", 0))),
             Number(Num(r, "cpu_ns"), Ns(Num(r, "cpu_ns"))),
             Number(Num(r, "gpu_ns"), Ns(Num(r, "gpu_ns"))),
             Number(Num(r, "gpu_self_ns"), Ns(Num(r, "gpu_self_ns"))),
             Number(Num(r, "flops_coverage"), Share(r, "flops_coverage")),
             Number(Num(r, "achieved_flops_per_s"), Si(Num(r, "achieved_flops_per_s"), "FLOP/s"))});
  }
  std::string s = t.Render();
  std::vector<std::string> notes;
  if (const double n = NumOr(trace, "ranges_unmatched_ends", 0); n > 0) {
    notes.push_back(fmt::format("{} range ends had no begin", GroupedCount(n)));
  }
  if (const double n = NumOr(trace, "ranges_dropped", 0); n > 0) {
    notes.push_back(
        fmt::format("{} ranges were not counted (too many distinct names)", GroupedCount(n)));
  }
  for (const std::string& n : notes) s += "<p class=\"note warn\">" + Escape(n) + ".</p>";
  const json& paths = Arr(trace, "range_paths");
  if (paths.empty()) return s;
  std::map<std::string, RangeNode> roots;
  for (const json& p : paths) {
    const std::vector<std::string> parts = SplitPath(Str(p, "path"));
    std::map<std::string, RangeNode>* level = &roots;
    std::string prefix;
    RangeNode* node = nullptr;
    for (const std::string& part : parts) {
      prefix += (prefix.empty() ? "" : " > ") + part;
      node = &(*level)[part];
      node->path = prefix;
      if (level == &roots && !node->row) {
        const auto it = by_name.find(part);
        if (it != by_name.end()) node->row = it->second;
      }
      level = &node->children;
    }
    node->row = &p;
  }
  s += "<p class=\"note\">Nesting: the most expensive paths (count, CPU and GPU time of the "
       "innermost range on that path).</p><ul class=\"range-tree\" id=\"" +
       Escape(id + "-tree") + "\">";
  for (const auto& [name, node] : roots) s += NodeHtml(name, node);
  return s + "</ul>\n";
}

std::string TopGains(const json& advice) {
  if (!advice.is_array()) return "";
  std::string items;
  size_t shown = 0;
  for (const json& a : advice) {
    if (shown == 3) break;
    const std::optional<double> gain = Num(a, "gain_ns");
    if (!gain || *gain <= 0) continue;
    items += fmt::format(R"(<li>{} <span class="gain">{}</span></li>)",
                         Escape(Str(a, "title", Str(a, "finding", "?"))), Escape(Duration(*gain)));
    ++shown;
  }
  if (items.empty()) return "";
  return "<p class=\"gains-title\"><strong>Largest estimated gains</strong> (Advice has the "
         "details):</p><ol class=\"top-gains\">" +
         items + "</ol>\n";
}

}  // namespace flopspy::tools::html
