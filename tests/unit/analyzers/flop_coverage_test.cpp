// The FLOP coverage by source and the largest unknown kernels with what would know them
// (analyzers/src/flop_coverage.cpp). Each expected number is worked out in a comment.
#include "flopspy/analyzers/flop_coverage.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flopspy::analyzers {
namespace {

using trace::FigureSource;

// A row of `gpu_ns` whose launches in `known_ns` of it have FLOPs from `source`.
KernelGroup CoverageRow(const std::string& name, const std::string& family,
                        const std::string& category, double gpu_ns,
                        FigureSource source = FigureSource::kUnknown, double known_ns = 0,
                        int32_t device = 0) {
  KernelGroup g;
  g.name = name;
  g.family = family;
  g.category = category;
  g.device = device;
  g.launches = g.executions = 1;
  g.gpu_ns = gpu_ns;
  g.timed.flops_source = source;
  g.timed.flops_ns = known_ns;
  if (source != FigureSource::kUnknown) g.timed.flops = 1e9;
  return g;
}

KernelGroup TemplateRow(double gpu_ns) {
  KernelGroup g = CoverageRow("triton_tem_fused_mm_3", "triton", "triton", gpu_ns);
  g.functor = "template";
  return g;
}

std::vector<KernelGroup> CoverageRows() {
  return {
      CoverageRow("ampere_sgemm_128x64_nn", "unknown", "gemm", 50e6, FigureSource::kAnalytic, 50e6),
      TemplateRow(20e6),
      CoverageRow(
          "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
          "elementwise_vectorized", "elementwise", 15e6, FigureSource::kCatalog, 15e6),
      CoverageRow("my_kernel(float*)", "unknown", "unknown", 10e6),
      CoverageRow("void at::native::some_new_kernel<float>(float*, int)", "unknown", "other", 5e6),
  };
}

// 100 ms of kernels: 50 analytic, 15 catalog, 35 unknown (20 + 10 + 5).
TEST(FlopCoverage, SplitsKernelTimeBySourceOfItsFlops) {
  const std::vector<KernelGroup> rows = CoverageRows();
  const FlopCoverage c = ComputeFlopCoverage(rows);
  EXPECT_DOUBLE_EQ(c.kernel_ns, 100e6);
  EXPECT_DOUBLE_EQ(c.Share(FigureSource::kAnalytic), 0.50);
  EXPECT_DOUBLE_EQ(c.Share(FigureSource::kCatalog), 0.15);
  EXPECT_DOUBLE_EQ(c.Share(FigureSource::kCounters), 0.0);
  EXPECT_DOUBLE_EQ(c.Share(FigureSource::kUnknown), 0.35);
  EXPECT_DOUBLE_EQ(c.KnownShare(), 0.65);
}

TEST(FlopCoverage, ListsTheLargestUnknownKernelsFirstWithWhatWouldKnowThem) {
  const std::vector<KernelGroup> rows = CoverageRows();
  const FlopCoverage c = ComputeFlopCoverage(rows);
  ASSERT_EQ(c.largest_unknown.size(), 3u);
  EXPECT_EQ(c.unknown_rows, 3u);
  EXPECT_EQ(c.largest_unknown[0].row, 1u);  // the Triton template, 20 ms = 20%
  EXPECT_DOUBLE_EQ(c.largest_unknown[0].share, 0.20);
  // A template's FLOPs are in the inductor cache when inductor benchmarked it.
  EXPECT_EQ(c.largest_unknown[0].remedy, CoverageRemedy::kInductorCache);
  EXPECT_EQ(CoverageRemedyName(c.largest_unknown[0].remedy), "inductor_cache");
  EXPECT_EQ(c.largest_unknown[1].row, 3u);  // nothing knows its name: counters
  EXPECT_EQ(c.largest_unknown[1].remedy, CoverageRemedy::kCounters);
  EXPECT_EQ(c.largest_unknown[2].row, 4u);  // an ATen kernel: a catalog entry
  EXPECT_EQ(c.largest_unknown[2].remedy, CoverageRemedy::kCatalogEntry);
  EXPECT_EQ(CoverageRemedyName(c.largest_unknown[2].remedy), "catalog_entry");
}

TEST(FlopCoverage, ListsAtMostTheAskedNumberAndCountsTheRest) {
  const std::vector<KernelGroup> rows = CoverageRows();
  const FlopCoverage c = ComputeFlopCoverage(rows, std::nullopt, 1);
  ASSERT_EQ(c.largest_unknown.size(), 1u);
  EXPECT_EQ(c.unknown_rows, 3u);
  EXPECT_DOUBLE_EQ(c.Share(FigureSource::kUnknown), 0.35);  // the figure counts every row
}

// A row with FLOPs for 30 of its 40 ms: 10 ms unknown, listed with that time only.
TEST(FlopCoverage, APartlyKnownRowCountsOnlyItsLaunchesWithoutFlops) {
  const std::vector<KernelGroup> rows = {
      CoverageRow("k", "reduce", "reduction", 40e6, FigureSource::kCatalog, 30e6)};
  const FlopCoverage c = ComputeFlopCoverage(rows);
  EXPECT_DOUBLE_EQ(c.Share(FigureSource::kCatalog), 0.75);
  EXPECT_DOUBLE_EQ(c.Share(FigureSource::kUnknown), 0.25);
  ASSERT_EQ(c.largest_unknown.size(), 1u);
  EXPECT_DOUBLE_EQ(c.largest_unknown[0].unknown_ns, 10e6);
}

TEST(FlopCoverage, CountersThatRanWithoutFlopsAskForEveryMetric) {
  KernelGroup g = CoverageRow("triton_poi_fused_add_0", "triton", "triton", 10e6);
  g.functor = "pointwise";
  // Nothing but counters knows a Triton kernel's FLOPs (the inductor cache is not read).
  EXPECT_EQ(RemedyFor(g), CoverageRemedy::kCounters);
  g.counter_samples = 2;
  EXPECT_EQ(RemedyFor(g), CoverageRemedy::kCountersAllMetrics);
  g.counter_samples = 0;
  g.inside_library = true;
  g.family = "unknown";
  g.category = "elementwise";
  EXPECT_EQ(RemedyFor(g), CoverageRemedy::kCounters);  // a library's kernel: not the catalog's
}

TEST(FlopCoverage, OneDeviceCountsOnlyItsRows) {
  std::vector<KernelGroup> rows = CoverageRows();
  rows.push_back(CoverageRow("x", "unknown", "unknown", 100e6, FigureSource::kUnknown, 0, 1));
  const FlopCoverage all = ComputeFlopCoverage(rows);
  const FlopCoverage first = ComputeFlopCoverage(rows, 0);
  const FlopCoverage second = ComputeFlopCoverage(rows, 1);
  EXPECT_DOUBLE_EQ(all.kernel_ns, 200e6);
  EXPECT_DOUBLE_EQ(first.Share(FigureSource::kUnknown), 0.35);
  EXPECT_DOUBLE_EQ(second.Share(FigureSource::kUnknown), 1.0);
  EXPECT_DOUBLE_EQ(all.Share(FigureSource::kUnknown), 135e6 / 200e6);
}

TEST(FlopCoverage, NoKernelTimeIsNoCoverage) {
  const FlopCoverage c = ComputeFlopCoverage({});
  EXPECT_DOUBLE_EQ(c.kernel_ns, 0);
  EXPECT_DOUBLE_EQ(c.KnownShare(), 0);
  EXPECT_TRUE(c.largest_unknown.empty());
}

}  // namespace
}  // namespace flopspy::analyzers
