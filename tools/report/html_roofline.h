// The log-log roofline chart of the HTML report, drawn as inline SVG by the server (no script
// needed to read it): compute roofs as horizontal lines, bandwidth roofs as diagonals, ridge
// points, and one point per piece of work at (intensity, achieved FLOP/s) with area
// proportional to its time and colour by regime. Used for GPUs and for the CPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace flopspy::tools::html {

struct ChartRoof {
  std::string name;               // "fp32", "bf16_tensor", "dram", "l2"
  double value = 0;               // FLOP/s or bytes/s: the roof drawn (measured when there is one)
  std::string source;             // datasheet, computed, measured
  std::optional<double> nominal;  // the datasheet/computed figure when a measured one replaced it
};

struct ChartPoint {
  std::string kind;        // "kernel", "library", "region"...: a data-kind attribute
  std::string row;         // id of the table row the point stands for; empty if none
  std::string label;       // short name
  std::string regime;      // compute_bound, memory_bound, overhead_bound, unknown
  double intensity = 0;    // FLOP per byte, > 0
  double flops_per_s = 0;  // > 0
  double time_ns = 0;      // sizes the point (area proportional)
  std::string tooltip;     // the <title>: newline-separated lines
};

struct RooflineChart {
  std::string id;     // element id of the <svg>
  std::string title;  // accessible name
  std::string x_title = "arithmetic intensity (FLOP per DRAM byte)";
  std::string y_title = "achieved FLOP/s";
  std::vector<ChartRoof> compute;    // horizontal roofs
  std::vector<ChartRoof> bandwidth;  // diagonal roofs; the first one (DRAM) sets the ridges
  std::vector<ChartPoint> points;    // only finite positive coordinates
};

// Geometry of the chart: decades shown on each axis and the plot rectangle in SVG units.
struct ChartAxes {
  static constexpr double kWidth = 840, kHeight = 480;
  static constexpr double kLeft = 72, kTop = 14, kPlotWidth = 560, kPlotHeight = 400;
  int lx0 = -2, lx1 = 3;  // log10 of the x range
  int ly0 = 9, ly1 = 15;  // log10 of the y range
  double X(double intensity) const;
  double Y(double flops_per_s) const;
};

// Decades that hold every point, every ridge and every compute roof, with some room.
ChartAxes ChooseAxes(const RooflineChart& chart);

// Point radius in SVG units for a time, given the largest time on the chart.
double PointRadius(double time_ns, double max_time_ns);

// The <svg> element. Attributes for tests and scripts: data-lx0/lx1/ly0/ly1 (decades),
// data-plot="left top width height"; each point is a <circle class="pt"> with data-kind,
// data-row, data-intensity, data-flops, data-time-ns, data-regime and a <title>.
std::string RenderRoofline(const RooflineChart& chart);

}  // namespace flopspy::tools::html
