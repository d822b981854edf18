#include "report/html_roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

#include "report/format.h"
#include "report/html_util.h"

namespace flopspy::tools::html {
namespace {

constexpr double kMinRadius = 2.5;
constexpr double kMaxRadius = 16;
constexpr double kLabelLine = 12;  // label line height
constexpr double kLabelGap = 4;    // between two roofs' labels

bool Positive(double v) {
  return std::isfinite(v) && v > 0;
}

std::string F(double v) {
  return fmt::format("{:.2f}", v);
}

std::string XTick(int decade) {
  if (decade >= -4 && decade <= 4) return fmt::format("{:g}", std::pow(10.0, decade));
  return fmt::format("1e{}", decade);
}

std::string YTick(int decade) {
  return SiValue(std::pow(10.0, decade));
}

// Compute roofs with the same figure (fp16 and bf16 tensor on most parts) are one line.
struct MergedRoof {
  std::vector<std::string> names;
  double value = 0;
  std::string source;
  std::optional<double> nominal;
};

std::vector<MergedRoof> MergeRoofs(const std::vector<ChartRoof>& roofs) {
  std::vector<MergedRoof> merged;
  for (const ChartRoof& r : roofs) {
    if (!Positive(r.value)) continue;
    auto same = std::find_if(merged.begin(), merged.end(), [&](const MergedRoof& m) {
      return std::fabs(m.value - r.value) <= 0.005 * r.value && m.source == r.source;
    });
    if (same == merged.end()) {
      merged.push_back({{r.name}, r.value, r.source, r.nominal});
    } else {
      same->names.push_back(r.name);
    }
  }
  std::sort(merged.begin(), merged.end(),
            [](const MergedRoof& a, const MergedRoof& b) { return a.value > b.value; });
  return merged;
}

// Label lines of a roof: the names, wrapped at commas to fit the margin, then the figure.
std::vector<std::string> RoofLabelLines(const MergedRoof& r, std::string_view unit) {
  std::vector<std::string> lines;
  std::string line;
  for (size_t i = 0; i < r.names.size(); ++i) {
    const std::string piece = RoofName(r.names[i]) + (i + 1 < r.names.size() ? "," : "");
    if (!line.empty() && line.size() + 1 + piece.size() > 30) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + piece;
  }
  std::string figure = SiValue(r.value) + std::string(unit);
  if (r.source == "measured") figure += " measured";
  if (!line.empty() && line.size() + 1 + figure.size() <= 30) {
    line += " " + figure;
  } else {
    if (!line.empty()) lines.push_back(line);
    line = figure;
  }
  lines.push_back(line);
  return lines;
}

}  // namespace

double ChartAxes::X(double intensity) const {
  return kLeft + (std::log10(intensity) - lx0) / (lx1 - lx0) * kPlotWidth;
}

double ChartAxes::Y(double flops_per_s) const {
  return kTop + (ly1 - std::log10(flops_per_s)) / (ly1 - ly0) * kPlotHeight;
}

double PointRadius(double time_ns, double max_time_ns) {
  if (!Positive(max_time_ns) || !Positive(time_ns)) return kMinRadius;
  return std::max(kMinRadius, kMaxRadius * std::sqrt(time_ns / max_time_ns));
}

ChartAxes ChooseAxes(const RooflineChart& chart) {
  ChartAxes a;
  std::vector<double> xs, ys;
  double max_compute = 0;
  for (const ChartRoof& c : chart.compute) {
    if (!Positive(c.value)) continue;
    ys.push_back(c.value);
    max_compute = std::max(max_compute, c.value);
    if (!chart.bandwidth.empty() && Positive(chart.bandwidth[0].value)) {
      xs.push_back(c.value / chart.bandwidth[0].value);
    }
  }
  double min_point_y = 0;
  for (const ChartPoint& p : chart.points) {
    if (!Positive(p.intensity) || !Positive(p.flops_per_s)) continue;
    xs.push_back(p.intensity);
    ys.push_back(p.flops_per_s);
    min_point_y = min_point_y > 0 ? std::min(min_point_y, p.flops_per_s) : p.flops_per_s;
  }
  if (!xs.empty()) {
    const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    a.lx0 = static_cast<int>(std::floor(std::log10(*lo / 3)));
    a.lx1 = static_cast<int>(std::ceil(std::log10(*hi * 3)));
  }
  while (a.lx1 - a.lx0 < 4) {
    if ((a.lx1 - a.lx0) % 2) {
      --a.lx0;
    } else {
      ++a.lx1;
    }
  }
  if (!ys.empty()) {
    const double top = *std::max_element(ys.begin(), ys.end()) * 1.6;
    a.ly1 = static_cast<int>(std::ceil(std::log10(top)));
    double bottom = max_compute > 0 ? max_compute / 1e4 : top / 1e4;
    if (min_point_y > 0) bottom = std::min(bottom, min_point_y / 2);
    a.ly0 = static_cast<int>(std::floor(std::log10(bottom)));
  }
  if (a.ly1 - a.ly0 < 3) a.ly0 = a.ly1 - 3;
  return a;
}

namespace {

// The decade grid, its tick labels and the axis titles.
std::string GridSvg(const ChartAxes& a, const RooflineChart& chart) {
  const double left = ChartAxes::kLeft, top = ChartAxes::kTop;
  const double right = left + ChartAxes::kPlotWidth, bottom = top + ChartAxes::kPlotHeight;
  std::string s;
  s += R"(<g class="grid">)";
  for (int d = a.lx0; d <= a.lx1; ++d) {
    const double x = a.X(std::pow(10.0, d));
    s += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>)", F(x), top, bottom);
    // Minor ticks at 2..9 times the decade.
    if (d < a.lx1) {
      for (int m = 2; m < 10; ++m) {
        const double xm = a.X(m * std::pow(10.0, d));
        s += fmt::format(R"(<line class="minor" x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>)", F(xm),
                         bottom - 4, bottom);
      }
    }
  }
  for (int d = a.ly0; d <= a.ly1; ++d) {
    const double y = a.Y(std::pow(10.0, d));
    s += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}"/>)", left, F(y), right);
  }
  s += "</g>\n<g class=\"ticks\">";
  for (int d = a.lx0; d <= a.lx1; ++d) {
    s += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)",
                     F(a.X(std::pow(10.0, d))), bottom + 16, XTick(d));
  }
  for (int d = a.ly0; d <= a.ly1; ++d) {
    s += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", left - 6,
                     F(a.Y(std::pow(10.0, d)) + 4), YTick(d));
  }
  s += fmt::format(R"(<text class="axis-title" x="{}" y="{}" text-anchor="middle">{}</text>)",
                   F(left + ChartAxes::kPlotWidth / 2), bottom + 38, Escape(chart.x_title));
  s += fmt::format(R"(<text class="axis-title" x="{0}" y="{1}" text-anchor="middle" )"
                   R"svg(transform="rotate(-90 {0} {1})">{2}</text>)svg",
                   16, F(top + ChartAxes::kPlotHeight / 2), Escape(chart.y_title));
  s += "</g>\n";

  return s;
}

// The bandwidth roofs: y = b x, each labelled along its line.
std::string BandwidthRoofsSvg(const ChartAxes& a, const RooflineChart& chart, double max_compute) {
  const double x_min = std::pow(10.0, a.lx0), x_max = std::pow(10.0, a.lx1);
  const double y_min = std::pow(10.0, a.ly0), y_max = std::pow(10.0, a.ly1);
  std::string s;
  for (size_t i = 0; i < chart.bandwidth.size(); ++i) {
    const ChartRoof& b = chart.bandwidth[i];
    if (!Positive(b.value)) continue;
    // y = b x, from the bottom or left edge up to the highest compute roof or the top edge.
    const double x0 = std::max(x_min, y_min / b.value);
    const double x1 = std::min(x_max, (max_compute > 0 ? max_compute : y_max) / b.value);
    if (x1 <= x0) continue;
    const double px0 = a.X(x0), py0 = a.Y(b.value * x0), px1 = a.X(x1), py1 = a.Y(b.value * x1);
    std::string title =
        fmt::format("{} bandwidth {}B/s ({})", RoofName(b.name), SiValue(b.value), b.source);
    if (b.nominal) title += fmt::format("; nominal {}B/s", SiValue(*b.nominal));
    s += fmt::format(
        R"(<line class="roof bw{}" data-roof="{}" data-value="{}" x1="{}" y1="{}" x2="{}" )"
        R"(y2="{}"><title>{}</title></line>)",
        i == 0 ? "" : " secondary", Escape(b.name), Exact(b.value), F(px0), F(py0), F(px1), F(py1),
        Escape(title));
    // The label runs along the line, near its lower end.
    const double angle = std::atan2(py0 - py1, px1 - px0) * 180 / std::numbers::pi;
    const double lx = px0 + 0.12 * (px1 - px0) + 4, ly = py0 + 0.12 * (py1 - py0) - 5;
    s += fmt::format(
        R"svg(<text class="roof-label{}" x="{}" y="{}" transform="rotate({} {} {})">{} {}B/s{}</text>)svg",
        i == 0 ? "" : " secondary", F(lx), F(ly), F(-angle), F(lx), F(ly), Escape(RoofName(b.name)),
        SiValue(b.value), b.source == "measured" ? " measured" : "");
  }
  return s;
}

// The compute roofs (merged when equal), their ridge points and their labels in the margin.
std::string ComputeRoofsSvg(const ChartAxes& a, const std::vector<MergedRoof>& compute,
                            double dram) {
  const double left = ChartAxes::kLeft, top = ChartAxes::kTop;
  const double right = left + ChartAxes::kPlotWidth, bottom = top + ChartAxes::kPlotHeight;
  const double x_min = std::pow(10.0, a.lx0), x_max = std::pow(10.0, a.lx1);
  std::string s;
  // Horizontal roofs from their ridge on the DRAM line to the right edge; labels in the margin,
  // pushed apart so they never overlap, with a leader to their line.
  struct Label {
    double line_y;
    double y;
    std::vector<std::string> lines;
  };
  std::vector<Label> labels;
  for (const MergedRoof& r : compute) {
    const double ridge = dram > 0 ? r.value / dram : 0;
    const double x0 = ridge > 0 ? std::clamp(ridge, x_min, x_max) : x_min;
    const double y = a.Y(r.value);
    std::string names;
    std::string shown;
    for (const auto& n : r.names) {
      names += (names.empty() ? "" : ", ") + n;
      shown += (shown.empty() ? "" : ", ") + RoofName(n);
    }
    std::string title = fmt::format("{}: {}FLOP/s ({})", shown, SiValue(r.value), r.source);
    if (r.nominal) title += fmt::format("; nominal {}FLOP/s", SiValue(*r.nominal));
    if (ridge > 0) title += fmt::format("; ridge point {:.3g} FLOP/B", ridge);
    s += fmt::format(
        R"(<line class="roof compute" data-roof="{}" data-value="{}" x1="{}" y1="{}" x2="{}" )"
        R"(y2="{}"><title>{}</title></line>)",
        Escape(names), Exact(r.value), F(a.X(x0)), F(y), F(right), F(y), Escape(title));
    if (ridge > 0 && ridge >= x_min && ridge <= x_max) {
      const double rx = a.X(ridge);
      s += fmt::format(
          R"(<path class="ridge" data-ridge="{}" d="M{} {}l4 4l-4 4l-4 -4z"><title>ridge point )"
          R"(of {}: {:.3g} FLOP/B</title></path>)",
          Exact(ridge), F(rx), F(y - 4), Escape(shown), ridge);
    }
    labels.push_back({y, y + 4, RoofLabelLines(r, "FLOP/s")});
  }
  const double label_floor = bottom - 110;  // the legend sits below (at most six rows)
  for (size_t i = 1; i < labels.size(); ++i) {
    const double needed = labels[i - 1].y + kLabelLine * labels[i - 1].lines.size() + kLabelGap;
    labels[i].y = std::max(labels[i].y, needed);
  }
  if (!labels.empty()) {
    const double end = labels.back().y + kLabelLine * (labels.back().lines.size() - 1);
    if (end > label_floor) {
      const double shift = end - label_floor;
      for (auto& l : labels) l.y -= shift;
    }
  }
  for (const Label& l : labels) {
    if (std::fabs(l.y - 4 - l.line_y) > 1) {
      s += fmt::format(R"(<polyline class="leader" points="{} {} {} {} {} {}"/>)", F(right),
                       F(l.line_y), F(right + 4), F(l.line_y), F(right + 8), F(l.y - 4));
    }
    s += fmt::format(R"(<text class="roof-label" x="{}" y="{}">)", F(right + 10), F(l.y));
    for (size_t k = 0; k < l.lines.size(); ++k) {
      s += fmt::format(R"(<tspan x="{}" dy="{}">{}</tspan>)", F(right + 10),
                       k == 0 ? 0.0 : kLabelLine, Escape(l.lines[k]));
    }
    s += "</text>";
  }
  return s;
}

// The points, largest first so that small ones stay visible on top.
std::string PointsSvg(const ChartAxes& a, const RooflineChart& chart) {
  std::string s;
  std::vector<const ChartPoint*> points;
  double max_time = 0;
  for (const ChartPoint& p : chart.points) {
    if (!Positive(p.intensity) || !Positive(p.flops_per_s)) continue;
    points.push_back(&p);
    max_time = std::max(max_time, p.time_ns);
  }
  std::stable_sort(points.begin(), points.end(), [](const ChartPoint* x, const ChartPoint* y) {
    return x->time_ns > y->time_ns;
  });
  s += R"(<g class="points">)";
  for (const ChartPoint* p : points) {
    s += fmt::format(
        R"(<circle class="pt {}" cx="{}" cy="{}" r="{}" fill="{}" data-kind="{}" data-row="{}" )"
        R"(data-label="{}" data-intensity="{}" data-flops="{}" data-time-ns="{}" )"
        R"(data-regime="{}"><title>{}</title></circle>)",
        Escape(p->kind), F(a.X(p->intensity)), F(a.Y(p->flops_per_s)),
        F(PointRadius(p->time_ns, max_time)), RegimeColor(p->regime), Escape(p->kind),
        Escape(p->row), Escape(p->label), Exact(p->intensity), Exact(p->flops_per_s),
        Exact(p->time_ns), Escape(p->regime), Escape(p->tooltip));
  }
  s += "</g>\n";

  return s;
}

// The legend, in the margin below the roof labels: the regimes the chart's points have (or
// compute and memory bound on an empty chart), library calls only when there are some, and
// what a point stands for on this chart.
std::string LegendSvg(const RooflineChart& chart) {
  const double right = ChartAxes::kLeft + ChartAxes::kPlotWidth;
  const double bottom = ChartAxes::kTop + ChartAxes::kPlotHeight;
  bool library = false, cpu = false;
  std::vector<std::string_view> regimes;
  for (const std::string_view regime : kRegimeNames) {
    const bool present = std::any_of(chart.points.begin(), chart.points.end(),
                                     [&](const ChartPoint& p) { return p.regime == regime; });
    if (present) regimes.push_back(regime);
  }
  if (regimes.empty()) regimes = {kRegimeNames[0], kRegimeNames[1]};
  for (const ChartPoint& p : chart.points) {
    library |= p.kind == "library";
    cpu |= p.kind == "cpu";
  }
  const size_t rows = regimes.size() + (library ? 1 : 0) + 1;
  const double lx = right + 12;
  double ly = bottom - 15.0 * static_cast<double>(rows) + 8;
  std::string s = R"(<g class="legend">)";
  for (const std::string_view regime : regimes) {
    s += fmt::format(R"(<circle cx="{}" cy="{}" r="5" fill="{}"/><text x="{}" y="{}">{}</text>)",
                     F(lx), F(ly), RegimeColor(regime), F(lx + 10), F(ly + 4), RegimeText(regime));
    ly += 15;
  }
  if (library) {
    s += fmt::format(
        R"(<circle class="library" cx="{}" cy="{}" r="5" fill="#fff"/><text x="{}" y="{}">)"
        R"(library call (ringed)</text>)",
        F(lx), F(ly), F(lx + 10), F(ly + 4));
    ly += 15;
  }
  s += fmt::format(R"(<path class="ridge" d="M{} {}l4 4l-4 4l-4 -4z"/><text x="{}" y="{}">)"
                   R"(ridge point; area ~ {}</text>)",
                   F(lx), F(ly - 4), F(lx + 10), F(ly + 4), cpu ? "CPU time" : "GPU time");
  s += "</g></svg>\n";
  return s;
}

}  // namespace

std::string RenderRoofline(const RooflineChart& chart) {
  const ChartAxes a = ChooseAxes(chart);
  const double left = ChartAxes::kLeft, top = ChartAxes::kTop;
  std::string s;
  s += fmt::format(
      R"(<svg class="roofline" id="{}" viewBox="0 0 {} {}" )"
      R"(width="{}" height="{}" role="img" aria-label="{}" data-lx0="{}" data-lx1="{}" )"
      R"(data-ly0="{}" data-ly1="{}" data-plot="{} {} {} {}">)",
      Escape(chart.id), ChartAxes::kWidth, ChartAxes::kHeight, ChartAxes::kWidth,
      ChartAxes::kHeight, Escape(chart.title), a.lx0, a.lx1, a.ly0, a.ly1, left, top,
      ChartAxes::kPlotWidth, ChartAxes::kPlotHeight);
  s += "<title>" + Escape(chart.title) + "</title>\n";
  s += fmt::format(R"(<rect class="plot" x="{}" y="{}" width="{}" height="{}"/>)", left, top,
                   ChartAxes::kPlotWidth, ChartAxes::kPlotHeight);
  s += "\n";

  s += GridSvg(a, chart);
  const std::vector<MergedRoof> compute = MergeRoofs(chart.compute);
  const double max_compute = compute.empty() ? 0 : compute.front().value;
  const double dram =
      !chart.bandwidth.empty() && Positive(chart.bandwidth[0].value) ? chart.bandwidth[0].value : 0;
  s += R"(<g class="roofs">)";
  s += BandwidthRoofsSvg(a, chart, max_compute);
  s += ComputeRoofsSvg(a, compute, dram);
  s += "</g>\n";
  s += PointsSvg(a, chart);
  s += LegendSvg(chart);
  return s;
}

}  // namespace flopspy::tools::html
