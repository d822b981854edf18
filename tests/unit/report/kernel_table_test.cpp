// The kernels table of the text report and the kernel rows of the JSON: every row
// shows FLOPs, bytes, arithmetic intensity and where they come from, and each GPU's line says
// how much kernel time has FLOPs from each source.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/json_report.h"
#include "report/text_sections.h"

namespace flopspy::tools {
namespace {

using analyzers::KernelGroup;
using trace::FigureSource;

analyzers::DeviceRoofs T4() {
  analyzers::DeviceRoofs r;
  r.flops[static_cast<size_t>(analyzers::ComputePath::kFp32)] = {
      8.1e12, analyzers::RoofSource::kDatasheet, 0};
  r.bandwidth[static_cast<size_t>(analyzers::MemoryLevel::kDram)] = {
      320e9, analyzers::RoofSource::kDatasheet, 0};
  return r;
}

KernelGroup Group(const std::string& name, const std::string& functor, double gpu_ns, double flops,
                  FigureSource flops_source, double bytes, FigureSource bytes_source) {
  KernelGroup g;
  g.name = name;
  g.functor = functor;
  g.device = 0;
  g.launches = g.executions = 1;
  g.gpu_ns = gpu_ns;
  g.launch_ns = 5000;
  for (analyzers::WorkFigures* w : {&g.all, &g.timed}) {
    w->flops = flops;
    w->bytes = bytes;
    w->flops_source = flops_source;
    w->bytes_source = bytes_source;
    w->launches_with_flops = flops_source != FigureSource::kUnknown ? 1 : 0;
    w->launches_with_bytes = bytes_source != FigureSource::kUnknown ? 1 : 0;
  }
  return g;
}

// The seed workload's sin (8192^2 fp32: 67 MFLOP, 537 MB), a kernel with bytes but no FLOP model,
// and a Triton kernel with nothing known; no GPU placement on the last two.
TraceReport Report() {
  TraceReport t;
  t.header_ok = true;
  t.read.records = 10;
  t.run.gpu_timing = true;
  KernelGroup sin =
      Group("void at::native::vectorized_elementwise_kernel<4, sin>(int)", "sin", 1'900'000,
            67108864, FigureSource::kCatalog, 536870912, FigureSource::kCatalog);
  sin.shape_key = "n=67108864";
  analyzers::WorkSample w;
  w.flops = sin.timed.flops;
  w.bytes = sin.timed.bytes;
  w.path = analyzers::ComputePath::kFp32;
  w.gpu_time_ns = sin.gpu_ns;
  w.mean_launch_ns = 5000;
  sin.placement = analyzers::PlaceOnRoofline(T4(), w);
  t.run.kernels.push_back(sin);
  KernelGroup bytes_only =
      Group("void at::native::vectorized_elementwise_kernel<4, entr>(int)", "", 1'000'000, 0,
            FigureSource::kUnknown, 4000, FigureSource::kCatalog);
  bytes_only.shape_key = "n=1000";
  t.run.kernels.push_back(bytes_only);
  t.run.kernels.push_back(Group("triton_poi_fused_add_0", "pointwise", 100'000, 0,
                                FigureSource::kUnknown, 0, FigureSource::kUnknown));
  analyzers::DeviceActivity d;
  d.device = 0;
  d.first_ns = 0;
  d.last_ns = 3'000'000;
  d.kernel_ns = 3'000'000;
  d.kernel_ns_by_source = {100'000, 0, 2'900'000, 0};  // unknown, analytic, catalog, counters
  t.run.devices.push_back(d);
  t.run.launches = 3;
  return t;
}

std::string LineWith(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return "";
}

// A kernel's row: the line naming it, with the line before it, since a name that does not fit
// goes on a line of its own under its figures.
std::string RowFor(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string previous, line;
  while (std::getline(in, line)) {
    // The run summary's FLOP coverage lists unknown kernels by label too: not table rows.
    if (line.starts_with("  unknown   ")) continue;
    if (line.find(name) != std::string::npos) return previous + " " + line + " ";
    previous = line;
  }
  return "";
}

// The same with the line after it: the launch shape and roof go there when the name is long.
std::string RowWithDetails(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string previous, line, next;
  while (std::getline(in, line)) {
    if (line.starts_with("  unknown   ")) continue;  // the run summary's, not a table row
    if (line.find(name) != std::string::npos) {
      std::getline(in, next);
      return previous + " " + line + " " + next + " ";
    }
    previous = line;
  }
  return "";
}

TEST(KernelTable, EveryRowShowsFlopsBytesIntensityAndSource) {
  std::ostringstream out;
  WriteAnalysisSections(Report(), out);
  const std::string text = out.str();
  const std::string header = LineWith(text, "FLOP/B");
  for (const char* column : {"FLOPs", "bytes", "FLOP/B", "FLOP/s", "%roof", "regime", "src"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column << "\n" << text;
  }
  // sin: 67.1 MFLOP over 537 MB = 0.125 FLOP/B, from the catalog.
  const std::string sin = RowFor(text, "sin [n=67108864] · vectorized");
  EXPECT_NE(sin.find("67.1 M"), std::string::npos) << text;
  EXPECT_NE(sin.find("537 M"), std::string::npos) << sin;
  EXPECT_NE(sin.find("0.125"), std::string::npos) << sin;
  EXPECT_NE(sin.find(" cat "), std::string::npos) << sin;
  // Bytes from the catalog, FLOPs unknown: "-" for FLOPs and intensity, "?/cat".
  const std::string bytes_only = RowFor(text, "[n=1000] · vectorized");
  EXPECT_NE(bytes_only.find("4 k"), std::string::npos) << bytes_only;
  EXPECT_NE(bytes_only.find(" ?/cat "), std::string::npos) << bytes_only;
  // Nothing known.
  const std::string triton = RowFor(text, "pointwise · triton_poi");
  EXPECT_NE(triton.find(" ? "), std::string::npos) << triton;
  // Coverage of the GPU time by source.
  // sin's 1.9 ms of 3 ms has catalog FLOPs; the other two rows none.
  EXPECT_NE(text.find("FLOPs known for 63.3% of kernel time: analytic 0.0%, catalog 63.3%, "
                      "counters 0.0%;\n            unknown 36.7%"),
            std::string::npos)
      << text;
}

TEST(KernelTable, RowsShowTheirGridAndTheRoofWithItsSource) {
  TraceReport t = Report();
  t.run.kernels[0].grid = {65536, 1, 1};
  t.run.kernels[0].block = {256, 1, 1};
  std::ostringstream out;
  WriteAnalysisSections(t, out);
  const std::string sin = RowWithDetails(out.str(), "sin [n=67108864] · vectorized");
  EXPECT_NE(sin.find("<<<65536, 256>>>"), std::string::npos) << out.str();
  EXPECT_NE(sin.find("roof fp32-cuda datasheet"), std::string::npos) << sin;

  // Measured ceilings: the row says its roof is measured, the GPU line which roofs are.
  analyzers::DeviceRoofs measured = T4();
  measured.Flops(analyzers::ComputePath::kFp32).measured = 7.5e12;
  t.roofs[0] = measured;
  analyzers::WorkSample w;
  w.flops = t.run.kernels[0].timed.flops;
  w.bytes = t.run.kernels[0].timed.bytes;
  w.path = analyzers::ComputePath::kFp32;
  w.gpu_time_ns = t.run.kernels[0].gpu_ns;
  t.run.kernels[0].placement = analyzers::PlaceOnRoofline(measured, w);
  std::ostringstream measured_out;
  WriteAnalysisSections(t, measured_out);
  const std::string text = measured_out.str();
  EXPECT_NE(
      RowWithDetails(text, "sin [n=67108864]").find("roof fp32-cuda measured, dram datasheet"),
      std::string::npos)
      << text;
  EXPECT_NE(LineWith(text, "GPU 0").find("measured: fp32-cuda"), std::string::npos) << text;
}

TEST(KernelTable, NoRateWhereTheRowHasNoFlops) {
  // A placement with a rate but a row without FLOPs (the two views disagreed once): no rate.
  TraceReport t = Report();
  analyzers::KernelGroup& entr = t.run.kernels[1];
  analyzers::WorkSample w;
  w.flops = 1e9;
  w.bytes = 4000;
  w.path = analyzers::ComputePath::kFp32;
  w.gpu_time_ns = entr.gpu_ns;
  entr.placement = analyzers::PlaceOnRoofline(T4(), w);
  ASSERT_TRUE(entr.placement->achieved_flops.has_value());
  std::ostringstream out;
  WriteAnalysisSections(t, out);
  const std::string row = RowFor(out.str(), "[n=1000] · vectorized");
  EXPECT_EQ(row.find(" 1 T "), std::string::npos) << row;  // 1e9 FLOPs in 1 ms
  EXPECT_NE(row.find(" ?/cat "), std::string::npos) << row;
}

TEST(KernelTable, JsonRowsCarryIntensityAndReason) {
  TraceReport t = Report();
  t.run.kernels[0].reason = "one special-function call";
  const nlohmann::json j = BuildJsonReport({t});
  const auto& kernels = j["traces"][0]["kernels"];
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_DOUBLE_EQ(kernels[0]["intensity"].get<double>(), 0.125);
  EXPECT_EQ(kernels[0]["reason"], "one special-function call");
  EXPECT_EQ(kernels[0]["all"]["flops_source"], "catalog");
  EXPECT_EQ(kernels[0]["all"]["bytes"], 536870912.0);
  EXPECT_TRUE(kernels[1]["intensity"].is_null());
  EXPECT_EQ(kernels[1]["all"]["bytes_source"], "catalog");
  const auto& by_source = j["traces"][0]["devices"][0]["gpu_ns_by_source"];
  EXPECT_EQ(by_source["catalog"], 2'900'000.0);
  EXPECT_EQ(by_source["unknown"], 100'000.0);
}

}  // namespace
}  // namespace flopspy::tools
