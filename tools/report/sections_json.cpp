#include "report/sections_json.h"

#include <cmath>
#include <string>

#include "report/json_values.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;

json Scaled(const std::optional<double>& v, double scale) {
  return v ? NumberOrNull(*v * scale) : json(nullptr);
}

}  // namespace

json TimelineJson(const TraceReport& t) {
  const analyzers::LaunchOverheadReport& r = t.launch_overhead;
  if (r.timeline_bins == 0 || r.timeline_bin_ns == 0) return nullptr;
  json tracks = json::array();
  for (const analyzers::StreamOverhead& s : r.streams) {
    if (s.timeline.empty()) continue;
    std::string label =
        "GPU " + std::to_string(s.device) + " · stream " + std::to_string(s.cupti_stream);
    if (s.handle == 0 && s.stream_def != 0) label += " (default)";
    json bins = json::array();
    for (const float f : s.timeline) bins.push_back(std::round(f * 1000.0) / 1000.0);
    tracks.push_back({{"device", s.device},
                      {"stream", s.cupti_stream},
                      {"label", label},
                      {"kernels", s.kernels},
                      {"copies", s.copies + s.sets},
                      {"busy_ns", s.busy_ns},
                      {"busy_fraction", s.busy_fraction},
                      {"bins", bins}});
  }
  return {{"start_ns", r.timeline_start_ns},
          {"end_ns", r.timeline_start_ns + r.timeline_bin_ns * r.timeline_bins},
          {"bin_ns", r.timeline_bin_ns},
          {"tracks", tracks}};
}

json CpuRooflineJson(const cpuroof::CpuRooflineChart& chart) {
  json roofs = json::array();
  for (const cpuroof::CpuRoof& r : chart.roofs) {
    roofs.push_back({{"name", r.compute ? r.name : r.level},
                     {"description", r.name},
                     {"kind", r.compute ? "flops" : "bandwidth"},
                     {"level", r.level},
                     {"value", r.value * 1e9},
                     {"source", r.source},
                     {"threads", r.threads}});
  }
  json points = json::array();
  for (const cpuroof::CpuRooflinePoint& p : chart.points) {
    json flags = json::array();
    for (const auto& f : p.flags) flags.push_back(f);
    points.push_back({{"name", p.label},
                      {"scope", p.scope},
                      {"begin_ns", p.begin_ns},
                      {"end_ns", p.end_ns},
                      {"time_ns", p.seconds * 1e9},
                      {"precision", p.precision},
                      {"intensity", NumberOrNull(p.intensity)},
                      {"intensity_read", NumberOrNull(p.intensity_read)},
                      {"intensity_write", NumberOrNull(p.intensity_write)},
                      {"flops_per_s", Scaled(p.gflops, 1e9)},
                      {"bytes_per_s", Scaled(p.gbytes_per_s, 1e9)},
                      {"flops_per_cycle", NumberOrNull(p.flops_per_cycle)},
                      {"ghz", NumberOrNull(p.ghz)},
                      {"attainable_flops_per_s", NumberOrNull(p.placement.attainable_flops)},
                      {"fraction_of_roof", Scaled(p.placement.pct_of_attainable, 0.01)},
                      {"regime", p.placement.regime == analyzers::Regime::kUnknown
                                     ? ""
                                     : std::string(analyzers::RegimeName(p.placement.regime))},
                      {"flags", flags}});
  }
  json notes = json::array();
  for (const auto& n : chart.notes) notes.push_back(n);
  return {{"roofs", roofs},
          {"points", points},
          {"ridge_intensity", NumberOrNull(chart.ridge_intensity)},
          {"notes", notes}};
}

json RegionsJson(const std::vector<analyzers::RegionStats>& regions) {
  json out = json::array();
  for (const analyzers::RegionStats& r : regions) {
    out.push_back({{"name", r.name},
                   {"count", r.count},
                   {"open", r.open},
                   {"total_ns", r.total_ns},
                   {"mean_ns", r.count ? r.total_ns / static_cast<double>(r.count) : 0.0},
                   {"p50_ns", r.durations.Percentile(50)},
                   {"p95_ns", r.durations.Percentile(95)},
                   {"max_ns", r.durations.max()}});
  }
  return out;
}

}  // namespace flopspy::tools
