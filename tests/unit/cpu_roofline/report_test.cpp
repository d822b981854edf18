// The CPU chart: roofs from ceilings and overrides, points placed by analyzers::PlaceRate, the SVG.
#include <gtest/gtest.h>

#include <cmath>

#include "flopspy/cpu_roofline/cpu_roofline_report.h"
#include "test_paths.h"

namespace flopspy::cpuroof {
namespace {

trace::CpuSampleRecord Point(double seconds, double flops_dp, double flops_sp, double bytes,
                             uint8_t scope = 2) {
  trace::CpuSampleRecord r{};
  r.scope = scope;
  r.begin_ns = 1'000'000'000;
  r.end_ns = r.begin_ns + static_cast<uint64_t>(seconds * 1e9);
  r.valid = trace::kCpuFlopsDp | trace::kCpuFlopsSp | trace::kCpuFlopsAny;
  r.flops_dp = flops_dp;
  r.flops_sp = flops_sp;
  r.flops_any = flops_dp + flops_sp;
  if (bytes >= 0) {
    r.valid |= trace::kCpuBytesAny;
    r.bytes_any = bytes;
  }
  return r;
}

CpuCeilings Synthetic() {
  std::string error;
  auto c = LoadCeilings(testing::DataDir() + "/ceilings/skx_synthetic.json", &error);
  EXPECT_TRUE(c) << error;
  return *c;
}

TEST(CpuRoofline, RoofsComeFromCeilingsAndOverrides) {
  const CpuCeilings c = Synthetic();
  CpuRooflineInputs in;
  in.ceilings = &c;
  CpuRooflineChart chart = BuildCpuRoofline({}, in);
  int compute = 0, bandwidth = 0;
  for (const CpuRoof& r : chart.roofs) (r.compute ? compute : bandwidth)++;
  EXPECT_EQ(compute, 4);    // FP64 and FP32, measured and theoretical
  EXPECT_EQ(bandwidth, 4);  // L1, L2, L3, DRAM
  EXPECT_DOUBLE_EQ(*chart.ridge_intensity, 4000.0 / 180);

  in.peak_gflops = 1000;
  in.bandwidth_gbs = 100;
  chart = BuildCpuRoofline({}, in);
  EXPECT_DOUBLE_EQ(*chart.ridge_intensity, 10);  // configured roofs win
}

TEST(CpuRoofline, PlacesPointsUnderTheRightRoof) {
  const CpuCeilings c = Synthetic();
  CpuRooflineInputs in;
  in.ceilings = &c;
  std::vector<LabeledSample> s = {
      {Point(1, 1e12, 0, 1e9), "dp-compute"},  // I = 1000: compute bound, FP64 roof
      {Point(1, 0, 1e12, 1e9), "sp-compute"},  // FP32 roof
      {Point(1, 1e9, 0, 1e10), "dp-memory"},   // I = 0.1: 18 GFLOP/s attainable
      {Point(1, 1e9, 0, 0), "no-traffic"},     // I = inf: compute bound
      {Point(1, 1e9, 0, -1), "no-q"},          // Q unknown: held to the compute roof
  };
  const CpuRooflineChart chart = BuildCpuRoofline(s, in);
  ASSERT_EQ(chart.points.size(), 5u);
  using analyzers::Regime;
  const analyzers::Placement& dp = chart.points[0].placement;
  EXPECT_EQ(dp.regime, Regime::kComputeBound);
  EXPECT_DOUBLE_EQ(*dp.attainable_flops, 2000e9);
  EXPECT_DOUBLE_EQ(*dp.pct_of_attainable, 50);
  EXPECT_DOUBLE_EQ(*dp.ridge, 2000.0 / 180);  // the FP64 roof over DRAM
  EXPECT_DOUBLE_EQ(*chart.points[1].placement.attainable_flops, 4000e9);
  EXPECT_EQ(chart.points[1].precision, "sp");
  EXPECT_EQ(chart.points[2].placement.regime, Regime::kMemoryBound);
  EXPECT_DOUBLE_EQ(*chart.points[2].placement.attainable_flops, 18e9);
  EXPECT_DOUBLE_EQ(*chart.points[2].placement.pct_of_attainable, 100.0 / 18);
  EXPECT_TRUE(std::isinf(*chart.points[3].intensity));
  EXPECT_EQ(chart.points[3].placement.regime, Regime::kComputeBound);
  EXPECT_DOUBLE_EQ(*chart.points[3].placement.attainable_flops, 2000e9);
  EXPECT_FALSE(chart.points[4].intensity);
  EXPECT_EQ(chart.points[4].scope, "region");
  EXPECT_EQ(chart.points[4].placement.regime, Regime::kComputeBound);
  EXPECT_DOUBLE_EQ(*chart.points[4].placement.attainable_flops, 2000e9);
}

TEST(CpuRoofline, PointsWithoutWorkOrRoofsAreNotPlaced) {
  trace::CpuSampleRecord only_time{};
  only_time.scope = 1;
  only_time.end_ns = 100'000'000;
  only_time.valid = trace::kCpuTaskClock;
  const CpuCeilings c = Synthetic();
  CpuRooflineInputs in;
  in.ceilings = &c;
  // No W: no rate to place, even under roofs.
  CpuRooflineChart chart = BuildCpuRoofline({{only_time, "interval 0"}}, in);
  ASSERT_EQ(chart.points.size(), 1u);
  EXPECT_FALSE(chart.points[0].gflops);
  EXPECT_EQ(chart.points[0].placement.regime, analyzers::Regime::kUnknown);
  EXPECT_FALSE(chart.points[0].placement.attainable_flops);
  // A rate but no roofs at all.
  chart = BuildCpuRoofline({{Point(1, 1e9, 0, 1e9), "p"}}, {});
  EXPECT_TRUE(chart.points[0].gflops);
  EXPECT_EQ(chart.points[0].placement.regime, analyzers::Regime::kUnknown);
  EXPECT_FALSE(chart.points[0].placement.pct_of_attainable);
  EXPECT_FALSE(chart.roofs.size());
  EXPECT_EQ(chart.notes.size(), 1u);  // says how to measure roofs
}

TEST(CpuRoofline, PointsMeetingAnAsyncCopyAreFlagged) {
  // Interval points [0,10) [10,20) [20,30) [30,40) ms, a region [12,18) ms, and a whole-run point
  // whose span meets no copy: "whole run" is flagged when the run had any copy at all.
  auto span = [](uint64_t begin_ms, uint64_t end_ms, uint8_t scope) {
    trace::CpuSampleRecord r = Point(0.001, 1, 0, 1, scope);
    r.begin_ns = begin_ms * 1'000'000;
    r.end_ns = end_ms * 1'000'000;
    return LabeledSample{r, ""};
  };
  constexpr auto kInterval = static_cast<uint8_t>(trace::CpuSampleScope::kInterval);
  constexpr auto kRegion = static_cast<uint8_t>(trace::CpuSampleScope::kRegion);
  constexpr auto kRun = static_cast<uint8_t>(trace::CpuSampleScope::kRun);
  std::vector<LabeledSample> s = {span(0, 10, kInterval),  span(10, 20, kInterval),
                                  span(20, 30, kInterval), span(30, 40, kInterval),
                                  span(12, 18, kRegion),   span(45, 50, kRun)};
  s[3].record.flags = trace::kCpuOverlapsGpuCopies;  // the sampler flagged it already
  // Unsorted, one reversed; [21,25) meets the third interval only, [8,9) the first only; the long
  // copy [1,11) reaches into the second interval though a later-starting copy ends earlier.
  const size_t flagged = FlagPointsOverlappingGpuCopies(
      s, {{21'000'000, 25'000'000}, {9'000'000, 8'000'000}, {1'000'000, 11'000'000}});
  EXPECT_EQ(flagged, 4u);  // intervals 1, 2, 3 and the whole run; not the region, not again 4
  for (size_t i : {0u, 1u, 2u, 3u, 5u}) {
    EXPECT_TRUE(s[i].record.flags & trace::kCpuOverlapsGpuCopies) << i;
  }
  EXPECT_FALSE(s[4].record.flags & trace::kCpuOverlapsGpuCopies);
  // No copies: nothing changes, not even the whole run.
  std::vector<LabeledSample> quiet = {span(0, 40, kRun)};
  EXPECT_EQ(FlagPointsOverlappingGpuCopies(quiet, {}), 0u);
  EXPECT_EQ(quiet[0].record.flags, 0u);
}

TEST(CpuRoofline, IntervalsCanBeLeftOut) {
  CpuRooflineInputs in;
  in.include_intervals = false;
  const auto chart =
      BuildCpuRoofline({{Point(1, 1, 1, 1, 1), "i"}, {Point(1, 1, 1, 1, 3), "run"}}, in);
  ASSERT_EQ(chart.points.size(), 1u);
  EXPECT_EQ(chart.points[0].label, "run");
}

TEST(CeilingsTable, ListsMeasuredBesideTheoretical) {
  const std::string t = FormatCeilingsTable(Synthetic());
  EXPECT_NE(t.find("avx512"), std::string::npos);
  EXPECT_NE(t.find("DRAM"), std::string::npos);
  EXPECT_NE(t.find("0.65"), std::string::npos);  // 2000 of 3072 GFLOP/s
}

}  // namespace
}  // namespace flopspy::cpuroof

namespace flopspy::cpuroof {
namespace {

TEST(CpuRooflineSvg, DrawsRoofsAndPoints) {
  const CpuCeilings c = Synthetic();
  CpuRooflineInputs in;
  in.ceilings = &c;
  trace::CpuSampleRecord no_q = Point(1, 1e9, 0, -1);
  const auto chart = BuildCpuRoofline({{Point(1, 1e12, 0, 1e9), "gemm <big>"},
                                       {Point(1, 1e9, 0, 1e10, 1), "interval 0"},
                                       {Point(2, 1e9, 0, 1e10, 3), "run"},
                                       {no_q, "no-q"}},
                                      in);
  const std::string svg = CpuRooflineSvg(chart);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("DRAM 180 GB/s"), std::string::npos);
  EXPECT_NE(svg.find("gemm &lt;big&gt;"), std::string::npos);  // escaped
  EXPECT_NE(svg.find("<path"), std::string::npos);             // the run's diamond
  EXPECT_NE(svg.find("1 point(s) without"), std::string::npos);
  // An empty chart still draws axes.
  const std::string empty = CpuRooflineSvg(BuildCpuRoofline({}, {}));
  EXPECT_NE(empty.find("arithmetic intensity"), std::string::npos);
}

}  // namespace
}  // namespace flopspy::cpuroof
