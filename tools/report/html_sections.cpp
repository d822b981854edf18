#include "report/html_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "flopspy/analyzers/display_text.h"
#include "report/format.h"
#include "report/html_roofline.h"
#include "report/html_tables.h"
#include "report/html_util.h"

namespace flopspy::tools::html {
namespace {

using nlohmann::json;

constexpr size_t kMaxChartPoints = 2000;

std::string Truncated(const std::string& s, size_t max) {
  return s.size() <= max ? s : s.substr(0, max) + "...";
}

std::string FigureText(const json& figures, std::string_view what, std::string_view unit) {
  const std::string source = Str(figures, std::string(what) + "_source", "unknown");
  if (source == "unknown") return std::string(what) + " unknown";
  return fmt::format("{} {} ({})", what, Si(Num(figures, what), unit), source);
}

// The lines every point's tooltip ends with: rates and where the point sits against its roof.
void PlacementLines(const json& p, std::vector<std::string>& lines) {
  lines.push_back(fmt::format("{}FLOP/s · {}B/s · {} FLOP/B",
                              Si(Num(p, "achieved_flops_per_s"), ""),
                              Si(Num(p, "achieved_bytes_per_s"), ""), Plain(Num(p, "intensity"))));
  const std::string regime = Str(p, "regime", "unknown");
  std::string line = RegimeText(regime);
  if (regime == "compute_bound" || regime == "memory_bound") line += ", " + Str(p, "proximity");
  if (regime == "overhead_bound") line += " (" + RegimeText(Str(p, "overhead_reason")) + ")";
  line += fmt::format(": {} of the attainable {}FLOP/s", Pct(Num(p, "pct_of_attainable")),
                      Si(Num(p, "attainable_flops_per_s"), ""));
  lines.push_back(line);
  std::string roof = fmt::format("roof {} {}FLOP/s ({})", RoofName(Str(p, "roof_path", "?")),
                                 Si(Num(p, "peak_flops_per_s"), ""), Str(p, "peak_source"));
  if (Str(p, "requested_path") != Str(p, "roof_path")) {
    roof += " for " + RoofName(Str(p, "requested_path"));
  }
  roof += fmt::format(", DRAM {}B/s ({}), ridge {} FLOP/B", Si(Num(p, "bandwidth_bytes_per_s"), ""),
                      Str(p, "bandwidth_source"), Plain(Num(p, "ridge")));
  lines.push_back(roof);
}

std::string Join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += (s.empty() ? "" : "\n") + l;
  return s;
}

std::string KernelTooltip(const json& k) {
  std::vector<std::string> lines = {KernelLabel(k)};
  const std::string name = Str(k, "name");
  if (!name.empty()) lines.push_back(Truncated(name, 300));
  std::string where = "GPU " + Str(k, "device", "?");
  const auto dims = [](const json& v) {
    std::string s;
    if (v.is_array()) {
      for (const auto& d : v) s += (s.empty() ? "" : "x") + Dump(d);
    }
    return s;
  };
  where += " · grid " + dims(Arr(k, "grid")) + " block " + dims(Arr(k, "block"));
  if (!Str(k, "shape").empty()) where += " · " + Str(k, "shape");
  lines.push_back(where);
  const std::optional<double> share = Num(k, "gpu_share");
  lines.push_back(fmt::format("GPU time {} in {} runs ({:.1f}% of kernel time), mean {}",
                              Ns(Num(k, "gpu_ns")), Str(k, "executions", "?"),
                              100 * share.value_or(0), Ns(Num(k, "mean_ns"))));
  const json& timed = Obj(k, "timed");
  lines.push_back(FigureText(timed, "flops", "") + " · " + FigureText(timed, "bytes", "B"));
  PlacementLines(Obj(k, "placement"), lines);
  return Join(lines);
}

std::string LibraryTooltip(const json& c) {
  std::vector<std::string> lines = {LibraryLabel(c)};
  std::string types;
  for (const auto& t : Arr(c, "types")) types += (types.empty() ? "" : ",") + Dump(t);
  std::erase(types, '"');
  lines.push_back(fmt::format("{} · types {} · compute {} · trans {}{} · epilogue {}",
                              Str(c, "family"), types, Str(c, "compute_type"), Str(c, "trans_a"),
                              Str(c, "trans_b"), Str(c, "epilogue")));
  lines.push_back(fmt::format("{} calls · GPU time {} · CPU time {}", Str(c, "calls"),
                              Ns(Num(c, "gpu_ns")), Ns(Num(c, "cpu_ns"))));
  lines.push_back(fmt::format("FLOPs {} · bytes {}B ({})", Si(Num(c, "flops"), ""),
                              Si(Num(c, "bytes"), ""), Str(c, "source")));
  PlacementLines(Obj(c, "placement"), lines);
  for (const auto& f : Arr(c, "diagnostics")) {
    if (Str(f, "severity") != "info") lines.push_back("! " + Str(f, "sentence"));
  }
  return Join(lines);
}

// Why a piece of work has no point on the chart; empty when it has one.
std::string UnplacedReason(const json& work, const json& placement, bool library) {
  if (NumOr(work, "gpu_ns", 0) <= 0) return "no GPU time recorded";
  if (placement.is_null()) return "not placed (no roofs for this device?)";
  const std::optional<double> intensity = Num(placement, "intensity");
  const std::optional<double> flops = Num(placement, "achieved_flops_per_s");
  if (!intensity) {
    const json& figures = library ? work : Obj(work, "timed");
    if (library) return "FLOPs or bytes unknown";
    if (Str(figures, "flops_source", "unknown") == "unknown") return "FLOPs unknown";
    if (Str(figures, "bytes_source", "unknown") == "unknown") return "bytes unknown";
    return "no intensity";
  }
  if (*intensity <= 0 || !flops || *flops <= 0) {
    return "no FLOPs: moves " + Si(Num(placement, "achieved_bytes_per_s"), "B/s");
  }
  return "";
}

ChartRoof RoofFrom(const std::string& name, const json& r) {
  ChartRoof roof;
  roof.name = name;
  const double nominal = NumOr(r, "nominal", 0);
  const double measured = NumOr(r, "measured", 0);
  if (measured > 0) {
    roof.value = measured;
    roof.source = "measured";
    if (nominal > 0) roof.nominal = nominal;
  } else {
    roof.value = nominal;
    roof.source = Str(r, "nominal_source");
  }
  return roof;
}

std::string CoverageBar(const json& by_source) {
  static const std::pair<const char*, const char*> kParts[] = {{"analytic", "#2f855a"},
                                                               {"catalog", "#68d391"},
                                                               {"counters", "#3182ce"},
                                                               {"unknown", "#cbd5e0"}};
  double total = 0;
  for (const auto& [key, color] : kParts) total += NumOr(by_source, key, 0);
  if (total <= 0) return "";
  std::string bar = R"(<svg class="coverage" viewBox="0 0 300 14" width="300" height="14">)";
  std::string text;
  double x = 0;
  for (const auto& [key, color] : kParts) {
    const double share = NumOr(by_source, key, 0) / total;
    if (share <= 0) continue;
    bar += fmt::format(
        R"(<rect x="{:.2f}" y="0" width="{:.2f}" height="14" fill="{}" data-source="{}">)"
        R"(<title>{}: {:.1f}% of kernel time</title></rect>)",
        300 * x, 300 * share, color, key, key, 100 * share);
    text += fmt::format(R"({}<span class="swatch" style="background:{}"></span>{} {:.0f}%)",
                        text.empty() ? "" : " · ", color, key, 100 * share);
    x += share;
  }
  bar += "</svg>";
  return fmt::format(R"(<p class="coverage-line">FLOPs of the kernel time known from: {} {}</p>)",
                     bar, text);
}

}  // namespace

std::string SectionTitle(std::string_view key) {
  std::string t = RegimeText(key);
  if (!t.empty()) t[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  return t;
}

namespace {

// The device's facts: where its roofs come from, its activity and utilization.
std::string DeviceFacts(const json& device) {
  const json& roofs = Obj(device, "roofs");
  std::string roofs_from = "no roofs known for this GPU";
  if (!roofs.is_null()) {
    const std::string key = Str(roofs, "table_key");
    roofs_from = key.empty() ? "roofs computed from its properties" : "roofs of " + key;
  }
  const json& props = Obj(device, "properties");
  std::string about = Escape(roofs_from);
  if (Num(props, "cc_major")) {
    about += Escape(fmt::format(" · compute capability {}.{}", Str(props, "cc_major"),
                                Str(props, "cc_minor", "0")));
  }
  if (Num(props, "sm_count")) about += Escape(" · " + Str(props, "sm_count") + " SMs");
  std::vector<std::pair<std::string, std::string>> facts = {
      {"about", about},
      {"active span", Escape(Ns(Num(device, "active_ns")))},
      {"kernels", Escape(fmt::format("{} in {} executions", Ns(Num(device, "kernel_ns")),
                                     Str(device, "kernels", "0")))},
      {"copies and sets", Escape(Ns(Num(device, "copy_ns")))}};
  const json& u = Obj(device, "utilization");
  if (!u.is_null()) {
    // As the text report words it: counted (analytic) FLOPs over the peak, and the kernel time
    // they cover; older models call the figure "mfu".
    std::optional<double> counted = Num(u, "counted_flops_of_peak");
    if (!counted) counted = Num(u, "mfu");
    std::string text = fmt::format("counted FLOPs (analytic) achieved {} of {} {}FLOP/s ({})",
                                   counted ? analyzers::PercentText(100 * *counted) : "-",
                                   RoofName(Str(u, "path")), Si(Num(u, "nominal_peak"), ""),
                                   Str(u, "nominal_source"));
    if (const auto cover = Num(u, "counted_flops_coverage")) {
      text += fmt::format(", over the {} of kernel time they cover", Pct(100 * *cover, 1));
    }
    text += Num(u, "hfu") ? " · HFU " + analyzers::PercentText(100 * *Num(u, "hfu")) + " (counters)"
                          : " · HFU unknown (no counter FLOPs)";
    if (NumOr(u, "measured_peak", 0) > 0) {
      std::optional<double> m = Num(u, "counted_flops_of_measured_peak");
      if (!m) m = Num(u, "mfu_measured");
      text += fmt::format(" · against the measured {}FLOP/s: {}", Si(Num(u, "measured_peak"), ""),
                          m ? analyzers::PercentText(100 * *m) : "-");
    }
    facts.push_back({"utilization", Escape(text)});
  }
  return Facts(facts);
}

// The device's roofline chart and the kernels and calls that could not be drawn on it.
std::string DeviceRoofline(const json& trace, const json& device, size_t trace_index,
                           const std::string& id) {
  const int64_t index = Int(device, "device", -1);
  const json& roofs = Obj(device, "roofs");
  std::string s;
  RooflineChart chart;
  chart.id = id + "-roofline";
  chart.title = "GPU roofline of " + DeviceLabel(device);
  const json& flops = Obj(roofs, "flops");
  if (flops.is_object()) {
    for (const auto& [name, r] : flops.items()) chart.compute.push_back(RoofFrom(name, r));
  }
  const json& bandwidth = Obj(roofs, "bandwidth");
  for (const char* level : {"dram", "l2"}) {
    if (!Obj(bandwidth, level).is_null())
      chart.bandwidth.push_back(RoofFrom(level, bandwidth[level]));
  }
  std::vector<std::pair<std::string, std::string>> unplaced;  // label, reason
  size_t hidden_library_kernels = 0;
  const json& kernels = Arr(trace, "kernels");
  for (size_t j = 0; j < kernels.size(); ++j) {
    const json& k = kernels[j];
    if (Int(k, "device", -1) != index) continue;
    if (Bool(k, "inside_library")) {
      ++hidden_library_kernels;  // drawn as its library call
      continue;
    }
    const json& p = Obj(k, "placement");
    const std::string reason = UnplacedReason(k, p, false);
    if (!reason.empty()) {
      unplaced.push_back({KernelLabel(k) + " — " + Ns(Num(k, "gpu_ns")), reason});
      continue;
    }
    chart.points.push_back({"kernel", fmt::format("t{}-k{}", trace_index, j), KernelLabel(k),
                            Str(p, "regime", "unknown"), *Num(p, "intensity"),
                            *Num(p, "achieved_flops_per_s"), NumOr(k, "gpu_ns", 0),
                            KernelTooltip(k)});
  }
  const json& calls = Arr(trace, "library_calls");
  for (size_t j = 0; j < calls.size(); ++j) {
    const json& c = calls[j];
    if (Int(c, "device", -1) != index) continue;
    const json& p = Obj(c, "placement");
    const std::string reason = UnplacedReason(c, p, true);
    if (!reason.empty()) {
      unplaced.push_back({LibraryLabel(c) + " — " + Ns(Num(c, "gpu_ns")), reason});
      continue;
    }
    chart.points.push_back({"library", fmt::format("t{}-l{}", trace_index, j), LibraryLabel(c),
                            Str(p, "regime", "unknown"), *Num(p, "intensity"),
                            *Num(p, "achieved_flops_per_s"), NumOr(c, "gpu_ns", 0),
                            LibraryTooltip(c)});
  }
  // Past a few thousand points a chart says no more and the page gets heavy: the longest stay.
  size_t left_out = 0;
  if (chart.points.size() > kMaxChartPoints) {
    std::stable_sort(
        chart.points.begin(), chart.points.end(),
        [](const ChartPoint& a, const ChartPoint& b) { return a.time_ns > b.time_ns; });
    left_out = chart.points.size() - kMaxChartPoints;
    chart.points.resize(kMaxChartPoints);
  }
  if (!chart.points.empty() || !chart.compute.empty()) {
    s += R"(<figure class="chart">)" + RenderRoofline(chart);
    s += fmt::format(
        R"(<figcaption>{} points: one per kernel signature and per library shape, at )"
        R"((arithmetic intensity, achieved FLOP/s); area proportional to GPU time; colour by )"
        R"(regime. Horizontal lines: compute roofs per data type and unit; diagonal: DRAM )"
        R"(bandwidth{}. Hover a point for its figures.{}{}</figcaption></figure>)",
        chart.points.size(), chart.bandwidth.size() > 1 ? " (dashed: L2)" : "",
        hidden_library_kernels
            ? fmt::format(" {} kernels launched by cuBLAS calls are drawn as their call.",
                          hidden_library_kernels)
            : "",
        left_out ? fmt::format(" {} shorter ones are left out (the tables have them).", left_out)
                 : "");
  }
  if (!unplaced.empty()) {
    s += fmt::format(R"(<details class="unplaced" open><summary>{} not on the chart</summary><ul>)",
                     unplaced.size());
    size_t shown = 0;
    for (const auto& [label, reason] : unplaced) {
      if (shown++ == 50) {
        s += fmt::format("<li>... and {} more (see the tables)</li>", unplaced.size() - 50);
        break;
      }
      s += "<li>" + Escape(label) + ": <span class=\"muted\">" + Escape(reason) + "</span></li>";
    }
    s += "</ul></details>\n";
  }
  return s;
}

// The roofs table, folded.
std::string RoofsDetails(const json& roofs, const std::string& id) {
  if (roofs.is_null()) return "";
  const json& bandwidth = Obj(roofs, "bandwidth");
  std::string s;
  s += "<details class=\"roofs\"><summary>Roofs</summary>";
  HtmlTable t(id + "-roofs", {{"roof", false, ""},
                              {"nominal", true, "datasheet or computed"},
                              {"source", false, ""},
                              {"measured", true, "flopspy ceilings --gpu"}});
  const auto add = [&](const json& group, std::string_view unit) {
    if (!group.is_object()) return;
    for (const auto& [name, r] : group.items()) {
      const double measured = NumOr(r, "measured", 0);
      t.AddRow("", {Text(name), Number(Num(r, "nominal"), Si(Num(r, "nominal"), unit)),
                    Text(Str(r, "nominal_source")),
                    Number(measured, measured > 0 ? Si(measured, unit) : "-")});
    }
  };
  add(Obj(roofs, "flops"), "FLOP/s");
  add(bandwidth, "B/s");
  s += t.Render();
  for (const auto& n : Arr(roofs, "notes")) {
    if (n.is_string()) s += "<p class=\"note\">" + Escape(n.get<std::string>()) + "</p>";
  }
  s += "</details>\n";
  return s;
}

}  // namespace

PageSection DeviceSection(const json& trace, const json& device, size_t trace_index) {
  const std::string id = fmt::format("t{}-gpu{}", trace_index, Int(device, "device", -1));
  std::string s = DeviceFacts(device);
  s += CoverageBar(Obj(device, "gpu_ns_by_source"));
  s += DeviceRoofline(trace, device, trace_index, id);
  s += RoofsDetails(Obj(device, "roofs"), id);
  return {id, DeviceLabel(device), s, true};
}

std::string AdviceSection(const json& advice, const std::string& id) {
  const json* items = &advice;
  if (advice.is_object()) {
    for (const char* key : {"findings", "items", "advice"}) {
      if (advice.contains(key) && advice[key].is_array()) items = &advice[key];
    }
  }
  if (!items->is_array()) return GenericSection(advice, id);
  std::string s = fmt::format(R"(<ol class="advice" id="{}">)", Escape(id));
  // The headline is the first of these a finding has; the others follow as paragraphs.
  static const char* const kText[] = {"title",   "finding", "summary", "sentence",
                                      "message", "action",  "text",    "detail"};
  for (const auto& a : *items) {
    if (!a.is_object()) {
      s += "<li>" + Escape(a.is_string() ? a.get<std::string>() : Dump(a)) + "</li>";
      continue;
    }
    // The badge: the finding's severity, or, for flopspy's own advice (no severity), its kind.
    const std::string severity = Str(a, "severity", "info");
    const std::string badge =
        a.contains("severity") ? severity : RegimeText(Str(a, "kind", "info"));
    std::vector<std::string> gain;
    if (const auto ns = Num(a, "gain_ns")) gain.push_back(Duration(*ns));
    if (const auto f = Num(a, "gain_fraction")) gain.push_back(fmt::format("{:.1f}%", 100 * *f));
    if (const auto p = Num(a, "gain_pct")) gain.push_back(fmt::format("{:.1f}%", *p));
    std::string g;
    for (const auto& x : gain) g += (g.empty() ? "" : ", ") + x;
    s += fmt::format(R"(<li class="sev-{}"><span class="badge">{}</span> )", Escape(severity),
                     Escape(badge));
    std::vector<std::string> used = {"severity", "kind"};
    bool first = true;
    for (const char* key : kText) {
      const std::string text = Str(a, key);
      if (text.empty()) continue;
      if (first) {
        s += "<strong>" + Escape(text) + "</strong>";
        if (!g.empty()) s += " <span class=\"gain\">estimated gain: " + Escape(g) + "</span>";
      } else {
        s += "<p>" + Escape(text) + "</p>";
      }
      first = false;
      used.push_back(key);
    }
    if (first && !g.empty()) s += "<span class=\"gain\">estimated gain: " + Escape(g) + "</span>";
    // How the gain was estimated and what it concerns, in one muted line.
    std::string basis = Str(a, "gain_basis");
    if (const auto share = Num(a, "share")) {
      basis += fmt::format("{}concerns {:.1f}% of the kernel GPU time", basis.empty() ? "" : "; ",
                           100 * *share);
    }
    if (!basis.empty()) s += "<p class=\"note basis\">" + Escape(basis) + "</p>";
    // The kernels a merged or group finding covers.
    if (const json& list = Arr(a, "items"); !list.empty()) {
      s += fmt::format(R"(<details class="items"><summary>{} covered</summary><ul>)", list.size());
      for (const auto& item : list) {
        const std::string text = item.is_string() ? item.get<std::string>() : Dump(item);
        s += "<li>" + ShortName(text, text, 90) + "</li>";
      }
      s += "</ul></details>";
    }
    // overlaps and combined_gain_ns are said in words in gain_basis; the figures the finding
    // states are in its sentence.
    used.insert(used.end(),
                {"gain_ns", "gain_fraction", "gain_pct", "gain_basis", "share", "overlaps",
                 "combined_gain_ns", "items", "gpu_ns", "launches", "pct_of_roof"});
    std::vector<std::string> rest;
    for (const auto& [key, value] : a.items()) {
      if (std::find(used.begin(), used.end(), key) != used.end() || value.is_null()) continue;
      rest.push_back(SectionTitle(key) + " " +
                     (value.is_string()                           ? value.get<std::string>()
                      : value.is_number() && key.ends_with("_ns") ? Duration(value.get<double>())
                                                                  : Dump(value)));
    }
    if (!rest.empty()) {
      std::string line;
      for (const auto& r : rest) line += (line.empty() ? "" : " · ") + r;
      s += "<p class=\"note\">" + Escape(line) + "</p>";
    }
    s += "</li>\n";
  }
  return s + "</ol>\n";
}

std::string TimelineSection(const json& timeline, const std::string& id) {
  const json& tracks = Arr(timeline, "tracks");
  const std::optional<double> start = Num(timeline, "start_ns");
  const std::optional<double> end = Num(timeline, "end_ns");
  if (tracks.empty() || !start || !end || *end <= *start) return GenericSection(timeline, id);
  const double span = *end - *start;
  // Each lane's bars sit in a nested <svg class="zoom"> in time units of its own, so that the
  // page's script zooms and pans every lane at once by changing their viewBox.
  constexpr double kLabelWidth = 200, kBarWidth = 1000, kRow = 24, kBar = 16, kTop = 4;
  const double height = kTop + kRow * static_cast<double>(tracks.size()) + 28;
  std::string s = fmt::format(
      R"(<svg class="timeline" id="{}" viewBox="0 0 {} {}" width="{}" height="{}" role="img" )"
      R"(aria-label="GPU busy and idle per device and stream" data-start-ns="{}" data-end-ns="{}">)",
      Escape(id), kLabelWidth + kBarWidth + 20, height, kLabelWidth + kBarWidth + 20, height,
      Exact(*start), Exact(*end));
  double y = kTop;
  for (const auto& track : tracks) {
    const json& bins = Arr(track, "bins");
    std::string label = Str(track, "label");
    if (label.empty()) {
      label = "GPU " + Str(track, "device", "?");
      if (track.contains("stream")) label += " · stream " + Str(track, "stream");
    }
    const std::optional<double> busy = Num(track, "busy_ns");
    const std::string busy_text =
        busy ? fmt::format("busy {:.0f}%", 100 * *busy / span) : std::string();
    s += fmt::format(
        R"(<g class="track" data-device="{}" data-stream="{}"><text x="0" y="{}">{}</text>)"
        R"(<text class="muted" x="{}" y="{}" text-anchor="end">{}</text>)"
        R"(<svg class="zoom" x="{}" y="{}" width="{}" height="{}" viewBox="0 0 {} {}" )"
        R"(preserveAspectRatio="none">)"
        R"(<rect class="idle" x="0" y="0" width="{}" height="{}"><title>{}: {} of {}</title></rect>)",
        Escape(Str(track, "device")), Escape(Str(track, "stream")), y + 12, Escape(label),
        kLabelWidth - 6, y + 12, Escape(busy_text), kLabelWidth, y, kBarWidth, kBar, kBarWidth,
        kBar, kBarWidth, kBar, Escape(label),
        busy ? Duration(*busy) + " busy" : "busy time unknown", Duration(span));
    // Consecutive bins of about the same load are one rectangle (height = busy fraction).
    const size_t n = bins.size();
    size_t i = 0;
    while (i < n) {
      const double f = bins[i].is_number() ? std::clamp(bins[i].get<double>(), 0.0, 1.0) : 0;
      const double q = std::round(f * 20) / 20;
      size_t j = i + 1;
      double sum = f;
      while (j < n && bins[j].is_number() &&
             std::round(std::clamp(bins[j].get<double>(), 0.0, 1.0) * 20) / 20 == q) {
        sum += bins[j].get<double>();
        ++j;
      }
      if (q > 0) {
        const double mean = sum / static_cast<double>(j - i);
        const double x0 = kBarWidth * static_cast<double>(i) / n;
        const double w = kBarWidth * static_cast<double>(j - i) / n;
        const double h = std::max(1.0, kBar * mean);
        s += fmt::format(
            R"(<rect class="busy" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" )"
            R"(data-busy="{:.3f}"><title>{} to {}: busy {:.0f}%</title></rect>)",
            x0, kBar - h, w, h, mean, Duration(span * i / n), Duration(span * j / n), 100 * mean);
      }
      i = j;
    }
    s += "</svg></g>\n";
    y += kRow;
  }
  // Time axis: five ticks from the start.
  for (int t = 0; t <= 5; ++t) {
    const double x = kLabelWidth + kBarWidth * t / 5.0;
    s += fmt::format(
        R"(<line class="tick" x1="{0:.2f}" y1="{1}" x2="{0:.2f}" y2="{2}"/>)"
        R"(<text class="tick-label" x="{0:.2f}" y="{3}" text-anchor="middle">{4}</text>)",
        x, y, y + 4, y + 16, Escape(t == 0 ? "0" : Duration(span * t / 5.0)));
  }
  s += "</svg>\n";
  s += R"(<p class="note">Each row is one stream; the bar is filled where the GPU ran kernels )"
       R"(or copies on it (height = share of the interval busy), empty where it sat idle. )"
       R"(Zoom with the buttons or the mouse wheel over the lanes, drag to pan.</p>)";
  return s;
}

std::string CpuRooflineSection(const json& cpu, const std::string& id) {
  const json& roofs = Arr(cpu, "roofs");
  const json& points = Arr(cpu, "points");
  if (roofs.empty() && points.empty()) return GenericSection(cpu, id);
  RooflineChart chart;
  chart.id = id + "-chart";
  chart.title = "CPU roofline";
  chart.x_title = "arithmetic intensity (FLOP per byte)";
  for (const auto& r : roofs) {
    ChartRoof roof;
    roof.name = Str(r, "name", "?");
    roof.source = Str(r, "source");
    const std::string kind = Str(r, "kind");
    if (kind == "bandwidth" || (kind.empty() && Num(r, "bytes_per_s"))) {
      roof.value = Num(r, "value").value_or(NumOr(r, "bytes_per_s", 0));
      // DRAM first: the ridges are taken against it.
      if (roof.name == "dram" || roof.name == "DRAM") {
        chart.bandwidth.insert(chart.bandwidth.begin(), roof);
      } else {
        chart.bandwidth.push_back(roof);
      }
    } else {
      roof.value = Num(r, "value").value_or(NumOr(r, "flops_per_s", 0));
      chart.compute.push_back(roof);
    }
  }
  double top = 0;
  for (const auto& c : chart.compute) top = std::max(top, c.value);
  const double dram = chart.bandwidth.empty() ? 0 : chart.bandwidth[0].value;
  std::vector<std::string> unplaced;
  for (size_t j = 0; j < points.size(); ++j) {
    const json& p = points[j];
    std::optional<double> intensity = Num(p, "intensity");
    const std::optional<double> flops = Num(p, "flops"), bytes = Num(p, "bytes");
    if (!intensity && flops && bytes && *bytes > 0) intensity = *flops / *bytes;
    std::optional<double> rate = Num(p, "flops_per_s");
    if (!rate) rate = Num(p, "achieved_flops_per_s");
    double time = NumOr(p, "time_ns", NumOr(p, "ns", NumOr(p, "cpu_ns", 0)));
    const std::string name = Str(p, "name", fmt::format("point {}", j));
    if (!intensity || !rate || *intensity <= 0 || *rate <= 0) {
      unplaced.push_back(name);
      continue;
    }
    std::string regime = Str(p, "regime");
    if (regime.empty() && top > 0 && dram > 0) {
      regime = *intensity >= top / dram ? "compute_bound" : "memory_bound";
    }
    std::string tooltip = fmt::format("{}\n{}FLOP/s · {} FLOP/B · time {}", name, Si(*rate, ""),
                                      Plain(*intensity), Duration(time));
    if (flops || bytes) {
      tooltip += fmt::format("\nFLOPs {} · bytes {}B{}", Si(flops, ""), Si(bytes, ""),
                             Str(p, "source").empty() ? "" : " (" + Str(p, "source") + ")");
    }
    if (!regime.empty()) tooltip += "\n" + RegimeText(regime);
    chart.points.push_back(
        {"cpu", "", name, regime.empty() ? "unknown" : regime, *intensity, *rate, time, tooltip});
  }
  std::string s = R"(<figure class="chart">)" + RenderRoofline(chart);
  s += fmt::format(
      "<figcaption>{} points at (arithmetic intensity, achieved FLOP/s), area proportional "
      "to time. Horizontal lines: CPU compute roofs; diagonals: memory bandwidth "
      "roofs.</figcaption></figure>\n",
      chart.points.size());
  if (!unplaced.empty()) {
    s += "<p class=\"note\">Not on the chart (FLOPs or bytes unknown): ";
    for (size_t i = 0; i < unplaced.size(); ++i) s += (i ? ", " : "") + Escape(unplaced[i]);
    s += "</p>\n";
  }
  if (!points.empty()) s += GenericTable(points, id + "-points");
  json rest = json::object();
  for (const auto& [key, value] : cpu.items()) {
    if (key != "roofs" && key != "points") rest[key] = value;
  }
  if (!rest.empty()) s += GenericSection(rest, id + "-more", 1);
  return s;
}

std::string GenericSection(const json& value, const std::string& id, int depth) {
  if (value.is_array()) {
    const bool objects = !value.empty() && std::all_of(value.begin(), value.end(),
                                                       [](const json& e) { return e.is_object(); });
    if (objects) return GenericTable(value, id.empty() ? "" : id);
    std::string s = "<p>";
    size_t n = 0;
    for (const auto& e : value) {
      if (n++ == 50) {
        s += fmt::format(", ... ({} in all)", value.size());
        break;
      }
      s += (n > 1 ? ", " : "") + Escape(e.is_string() ? e.get<std::string>() : Dump(e));
    }
    return s + "</p>\n";
  }
  if (!value.is_object()) {
    return "<p>" + Escape(value.is_string() ? value.get<std::string>() : Dump(value)) + "</p>\n";
  }
  std::string s;
  std::vector<std::pair<std::string, std::string>> scalars;
  for (const auto& [key, v] : value.items()) {
    const bool scalar_list = v.is_array() && std::none_of(v.begin(), v.end(), [](const json& e) {
                               return e.is_object() || e.is_array();
                             });
    if (!v.is_structured() || scalar_list) {
      std::string text;
      if (v.is_string()) {
        text = v.get<std::string>();
      } else if (v.is_number() && (key.ends_with("_ns") || key == "ns")) {
        text = Duration(v.get<double>());
      } else if (scalar_list) {
        for (const auto& e : v) {
          text += (text.empty() ? "" : ", ") + (e.is_string() ? e.get<std::string>() : Dump(e));
        }
      } else {
        text = Dump(v);
      }
      scalars.push_back({SectionTitle(key), Escape(text)});
    }
  }
  if (!scalars.empty()) s += Facts(scalars);
  for (const auto& [key, v] : value.items()) {
    if (!v.is_structured()) continue;
    if (v.is_array() &&
        std::none_of(v.begin(), v.end(), [](const json& e) { return e.is_structured(); })) {
      continue;
    }
    if (depth >= 3) {
      s += "<pre>" + Escape(Dump(v, 1)) + "</pre>\n";
      continue;
    }
    s += fmt::format("<h4>{}</h4>\n", Escape(SectionTitle(key)));
    s += GenericSection(v, id.empty() ? "" : id + "-" + key, depth + 1);
  }
  return s;
}

}  // namespace flopspy::tools::html
