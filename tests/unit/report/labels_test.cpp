// The labels every output shares (labels.h) and the schema's enum names (trace/src/names.cpp):
// the HTML page writes a kernel and a grouped GEMM as the text report does, and the text report
// spells an unknown memory kind "?" where the JSON says "unknown".
#include "report/labels.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/html_util.h"
#include "report/json_report.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;

analyzers::KernelGroup Mul() {
  analyzers::KernelGroup g;
  g.name = "void at::native::vectorized_elementwise_kernel<4, mul>(int)";
  g.functor = "mul";
  g.shape_key = "n=1000";
  return g;
}

analyzers::LibraryGroup ThreeGroups() {
  analyzers::LibraryGroup g;
  g.routine = "cublasGemmGroupedBatchedEx";
  g.shape.flags = trace::kLibGrouped;
  g.shape.m = 64, g.shape.n = 128, g.shape.k = 32, g.shape.batch = 3;
  g.groups_known = true;
  g.groups.push_back({});
  g.groups.back().m = 64, g.groups.back().n = 128, g.groups.back().k = 32;
  g.groups.back().count = 2;
  g.groups.push_back({});
  g.groups.back().m = 16, g.groups.back().n = 8, g.groups.back().k = 256;
  g.groups.back().count = 1;
  g.groups.push_back({});
  g.groups.back().m = 100, g.groups.back().n = 10, g.groups.back().k = 10;
  g.groups.back().count = 3;
  return g;
}

TEST(Labels, KernelLabelPutsTheCatalogsReadingFirst) {
  EXPECT_EQ(KernelLabel(Mul()), "mul [n=1000] · vectorized_elementwise_kernel");
  EXPECT_EQ(KernelLabel("", "mul", "n=1"), "(unnamed kernel)");
  EXPECT_EQ(KernelLabel("triton_poi_fused_add_0", "", ""), "triton_poi_fused_add_0");
}

TEST(Labels, TheHtmlPageWritesAKernelAsTheTextReportDoes) {
  const json kernel = KernelJson(Mul(), 0);
  EXPECT_EQ(html::KernelLabel(kernel), KernelLabel(Mul()));
}

TEST(Labels, AGroupedGemmShowsItsGroupsInEveryOutput) {
  const analyzers::LibraryGroup g = ThreeGroups();
  const std::string shape = LibraryShapeText(g);
  EXPECT_EQ(shape, "3 groups, 6 problems: 64x128x32 b2, 16x8x256, 100x10x10 b3");
  // The HTML label reads the shape from the JSON's groups.summary, not from m, n, k.
  const std::string html_label = html::LibraryLabel(LibraryJson(g));
  EXPECT_EQ(html_label.rfind(g.routine + " " + shape, 0), 0u) << html_label;
}

TEST(Labels, AnUngroupedShapeIsItsDimensions) {
  EXPECT_EQ(LibraryDims(64, 128, 32, 1), "64x128x32");
  EXPECT_EQ(LibraryDims(64, 128, 32, 4), "64x128x32 b4");
}

TEST(Labels, UnknownIsSpeltOnceForTheJsonAndOnceForTheText) {
  EXPECT_EQ(trace::MemoryKindName(trace::MemoryKind::kUnknown), "unknown");
  EXPECT_EQ(MemoryText(trace::MemoryKind::kUnknown), "?");
  EXPECT_EQ(MemoryText(static_cast<trace::MemoryKind>(200)), "?");
  EXPECT_EQ(MemoryText(trace::MemoryKind::kPinned),
            trace::MemoryKindName(trace::MemoryKind::kPinned));
  EXPECT_EQ(trace::CopyKindName(trace::CopyKind::kHostToDevice), "HtoD");
  EXPECT_EQ(CopyDirectionText(trace::CopyKind::kHostToDevice), "host to device");
  EXPECT_EQ(CopyDirectionText(trace::CopyKind::kUnknown), "?");
}

TEST(Labels, RegimesHaveOneTagOneColourAndOneTextEach) {
  analyzers::Placement p;
  p.regime = analyzers::Regime::kMemoryBound;
  EXPECT_EQ(RegimeTag(p), "memory");
  EXPECT_EQ(RegimeTag(std::nullopt), "-");
  const std::string_view name = analyzers::RegimeName(analyzers::Regime::kMemoryBound);
  EXPECT_EQ(RegimeText(name), "memory bound");
  EXPECT_NE(RegimeColor(name), RegimeColor("unknown"));
  EXPECT_NE(RegimeColor(name),
            RegimeColor(analyzers::RegimeName(analyzers::Regime::kComputeBound)));
}

}  // namespace
}  // namespace flopspy::tools
