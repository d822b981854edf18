// The CPU roofline as a static SVG, for reports that embed a chart without any script.
#include <algorithm>
#include <cmath>
#include <string>

#include "flopspy/cpu_roofline/cpu_roofline_report.h"
#include "flopspy/platform/html_text.h"
#include "text_util.h"

namespace flopspy::cpuroof {

namespace {

using platform::EscapeHtml;

std::string Num(double v) {
  return FormatF(v, 1);
}

// "1e-2" ... "1e3" tick labels as plain numbers where short.
std::string TickLabel(double v) {
  if (v >= 0.01 && v < 100000) return FormatG(v, 3);
  return FormatG(v, 1);
}

struct Axes {
  double x0, x1, y0, y1;  // data range (log10)
  double left = 70, right, top = 20, bottom;
  double X(double v) const { return left + (std::log10(v) - x0) / (x1 - x0) * (right - left); }
  double Y(double v) const { return bottom - (std::log10(v) - y0) / (y1 - y0) * (bottom - top); }
};

}  // namespace

std::string CpuRooflineSvg(const CpuRooflineChart& chart, int width, int height) {
  // Data ranges from the roofs and the placeable points.
  double i_min = 0.01, i_max = 100, p_min = 1e9, p_max = 0;
  const CpuRoof* top = nullptr;
  for (const CpuRoof& r : chart.roofs) {
    if (r.compute) {
      p_max = std::max(p_max, r.value);
      if (!top || r.value > top->value) top = &r;
    }
  }
  size_t unplaced = 0;
  for (const CpuRooflinePoint& p : chart.points) {
    if (!p.gflops || !p.intensity || *p.gflops <= 0 || *p.intensity <= 0) {
      ++unplaced;
      continue;
    }
    if (!std::isinf(*p.intensity)) {
      i_min = std::min(i_min, *p.intensity / 2);
      i_max = std::max(i_max, *p.intensity * 2);
    }
    p_min = std::min(p_min, *p.gflops / 2);
    p_max = std::max(p_max, *p.gflops * 2);
  }
  if (chart.ridge_intensity) i_max = std::max(i_max, *chart.ridge_intensity * 10);
  for (const CpuRoof& r : chart.roofs) {
    if (!r.compute) p_min = std::min(p_min, r.value * i_min);
  }
  if (p_max <= 0) p_max = 1000;
  p_max *= 2;
  if (p_min >= p_max) p_min = p_max / 1e4;

  Axes a;
  a.x0 = std::floor(std::log10(i_min));
  a.x1 = std::ceil(std::log10(i_max));
  a.y0 = std::floor(std::log10(p_min));
  a.y1 = std::ceil(std::log10(p_max));
  a.right = width - 20;
  a.bottom = height - 50;
  const std::string w = std::to_string(width), h = std::to_string(height);

  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
                  "\" viewBox=\"0 0 " + w + " " + h +
                  "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" fill=\"white\"/>\n";
  // Decade grid and tick labels.
  for (double e = a.x0; e <= a.x1 + 1e-9; e += 1) {
    const double v = std::pow(10.0, e), x = a.X(v);
    s += "<line x1=\"" + Num(x) + "\" y1=\"" + Num(a.top) + "\" x2=\"" + Num(x) + "\" y2=\"" +
         Num(a.bottom) + "\" stroke=\"#ddd\"/>\n";
    s += "<text x=\"" + Num(x) + "\" y=\"" + Num(a.bottom + 15) + "\" text-anchor=\"middle\">" +
         TickLabel(v) + "</text>\n";
  }
  for (double e = a.y0; e <= a.y1 + 1e-9; e += 1) {
    const double v = std::pow(10.0, e), y = a.Y(v);
    s += "<line x1=\"" + Num(a.left) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(a.right) +
         "\" y2=\"" + Num(y) + "\" stroke=\"#ddd\"/>\n";
    s += "<text x=\"" + Num(a.left - 5) + "\" y=\"" + Num(y + 4) + "\" text-anchor=\"end\">" +
         TickLabel(v) + "</text>\n";
  }
  s += "<text x=\"" + Num((a.left + a.right) / 2) + "\" y=\"" + Num(height - 12.0) +
       "\" text-anchor=\"middle\">arithmetic intensity [flop/byte]</text>\n";
  s += "<text x=\"15\" y=\"" + Num((a.top + a.bottom) / 2) + "\" text-anchor=\"middle\" " +
       "transform=\"rotate(-90 15 " + Num((a.top + a.bottom) / 2) +
       ")\">performance [GFLOP/s]</text>\n";

  const double xlo = std::pow(10.0, a.x0), xhi = std::pow(10.0, a.x1);
  const double pi_top = top ? top->value : std::pow(10.0, a.y1);
  // Bandwidth roofs: y = beta * I, up to the highest compute roof.
  static const char* kLevelColour[] = {"#1f77b4", "#2ca02c", "#9467bd", "#d62728"};
  for (const CpuRoof& r : chart.roofs) {
    if (r.compute || r.value <= 0) continue;
    int c = 3;
    if (r.level == "L1") c = 0;
    if (r.level == "L2") c = 1;
    if (r.level == "L3") c = 2;
    const double x_end = std::min(xhi, pi_top / r.value);
    if (x_end <= xlo) continue;
    s += "<line x1=\"" + Num(a.X(xlo)) + "\" y1=\"" + Num(a.Y(r.value * xlo)) + "\" x2=\"" +
         Num(a.X(x_end)) + "\" y2=\"" + Num(a.Y(r.value * x_end)) + "\" stroke=\"" +
         kLevelColour[c] + "\" stroke-width=\"1.5\"" +
         (r.source == "configured" ? " stroke-dasharray=\"2 2\"" : "") + "><title>" +
         EscapeHtml(r.name + ": " + FormatG(r.value, 4) + " GB/s (" + r.source + ")") +
         "</title></line>\n";
    s += "<text x=\"" + Num(a.X(xlo) + 4) + "\" y=\"" + Num(a.Y(r.value * xlo) - 4) + "\" fill=\"" +
         kLevelColour[c] + "\">" + EscapeHtml(r.level) + " " + FormatG(r.value, 3) +
         " GB/s</text>\n";
  }
  // Compute roofs: from where the DRAM roof meets them.
  const CpuRoof* dram = nullptr;
  for (const CpuRoof& r : chart.roofs) {
    if (!r.compute && r.level == "DRAM" && (!dram || r.source == "configured")) dram = &r;
  }
  int row = 0;
  for (const CpuRoof& r : chart.roofs) {
    if (!r.compute || r.value <= 0) continue;
    const double x_start = dram ? std::clamp(r.value / dram->value, xlo, xhi) : xlo;
    const double y = a.Y(r.value);
    s += "<line x1=\"" + Num(a.X(x_start)) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(a.right) +
         "\" y2=\"" + Num(y) + "\" stroke=\"black\" stroke-width=\"1.5\"" +
         (r.source == "measured" ? "" : " stroke-dasharray=\"5 3\"") + "><title>" +
         EscapeHtml(r.name + ": " + FormatG(r.value, 4) + " GFLOP/s (" + r.source + ")") +
         "</title></line>\n";
    s += "<text x=\"" + Num(a.right - 2) + "\" y=\"" + Num(y - 3 - 11.0 * (row++ % 2)) +
         "\" text-anchor=\"end\">" + EscapeHtml(r.level) + " " + EscapeHtml(r.source) + " " +
         FormatG(r.value, 3) + "</text>\n";
  }
  // Points: intervals small and grey, regions coloured and labelled, the run a black diamond.
  for (const CpuRooflinePoint& p : chart.points) {
    if (!p.gflops || !p.intensity || *p.gflops <= 0 || *p.intensity <= 0) continue;
    const double xi = std::isinf(*p.intensity) ? a.right - 6 : a.X(*p.intensity);
    const double y = a.Y(*p.gflops);
    std::string flags;
    for (const std::string& f : p.flags) flags += (flags.empty() ? "" : ", ") + f;
    const std::string tip =
        EscapeHtml(p.label + " (" + p.scope + "): " + FormatG(*p.gflops, 4) + " GFLOP/s, I = " +
                   (std::isinf(*p.intensity) ? std::string("inf") : FormatG(*p.intensity, 4)) +
                   " flop/B" + (flags.empty() ? "" : "; " + flags));
    if (p.scope == "run") {
      s += "<path d=\"M" + Num(xi) + " " + Num(y - 6) + " l6 6 l-6 6 l-6 -6 z\" fill=\"black\">" +
           "<title>" + tip + "</title></path>\n";
    } else if (p.scope == "region") {
      s += "<circle cx=\"" + Num(xi) + "\" cy=\"" + Num(y) +
           "\" r=\"5\" fill=\"#ff7f0e\" stroke=\"black\"><title>" + tip + "</title></circle>\n";
      s += "<text x=\"" + Num(xi + 7) + "\" y=\"" + Num(y - 6) + "\">" + EscapeHtml(p.label) +
           "</text>\n";
    } else {
      s += "<circle cx=\"" + Num(xi) + "\" cy=\"" + Num(y) +
           "\" r=\"2.5\" fill=\"#888\" fill-opacity=\"0.6\"><title>" + tip + "</title></circle>\n";
    }
  }
  if (unplaced > 0) {
    s += "<text x=\"" + Num(a.left) + "\" y=\"" + Num(height - 30.0) + "\" fill=\"#a00\">" +
         std::to_string(unplaced) +
         " point(s) without FLOPs or memory traffic are not plotted (see the table)</text>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace flopspy::cpuroof
