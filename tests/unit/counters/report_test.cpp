// The report's use of counter-measured figures (docs/gpu-counters.md): a kernel the catalog cannot
// model takes the counters' figures (source counters) for every launch, coverage counts its time,
// where both exist the report shows both and flags a catalog more than 10% off, and the extra
// GPU records of a replayed launch count once.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "flopspy/analyzers/trace_analysis.h"
#include "report/counter_check.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "report/trace_report.h"
#include "subprocess.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

using analyzers::KernelGroup;
using trace::ChunkSource;
using trace::FigureSource;

// The catalog models this one (1 FLOP, 12 bytes per element)...
constexpr const char* kReportMulKernel = kAtenMulKernel;
// ...but not this one.
constexpr char kCustom[] = "my_custom_stencil(float const*, float*, int)";
constexpr uint32_t kThread = 7;

class CounterReport : public ::testing::Test {
 protected:
  CounterReport() {
    b_.String(1, kReportMulKernel).String(2, kCustom);
    trace::FunctionDef mul{};
    mul.id = 1;
    mul.mangled_name = mul.demangled_name = 1;
    mul.param_count = 3;
    mul.layout_count = 3;
    mul.param_offset[0] = 0, mul.param_size[0] = 4;
    mul.param_offset[1] = 4, mul.param_size[1] = 1;
    mul.param_offset[2] = 8, mul.param_size[2] = 24;
    b_.Add(mul);
    trace::FunctionDef custom{};
    custom.id = 2;
    custom.mangled_name = custom.demangled_name = 2;
    custom.param_count = 0xFFFF;
    b_.Add(custom);
    Signature(1, 1, 977);
    Signature(2, 2, 64);
  }

  void Signature(uint32_t id, uint32_t function, uint32_t grid) {
    trace::KernelSignatureDef s{};
    s.id = id;
    s.function = function;
    s.grid[0] = grid, s.grid[1] = s.grid[2] = 1;
    s.block[0] = 256, s.block[1] = s.block[2] = 1;
    b_.Add(s);
  }

  void Launch(uint32_t signature, uint64_t correlation, uint32_t n) {
    trace::KernelLaunchRecord l{};
    l.api = static_cast<uint16_t>(trace::Api::kCudaLaunchKernel);
    l.enter_ns = correlation * 1000;
    l.duration_ns = 4000;
    l.correlation = correlation;
    l.signature = signature;
    l.param_bytes = 4;
    std::memcpy(l.params, &n, 4);
    b_.Chunk(ChunkSource::kThread, kThread).Add(l);
  }

  void Metrics(uint32_t signature, uint64_t correlation, uint16_t sample, double fp32,
               double dram_read, double dram_write,
               uint32_t valid = trace::kMetricsFp32 | trace::kMetricsDram) {
    trace::KernelMetricsRecord m{};
    m.samples = sample;
    m.passes = 1;
    m.correlation = correlation;
    m.signature = signature;
    m.valid = valid;
    m.flops_fp32 = fp32;
    m.dram_read_bytes = dram_read;
    m.dram_write_bytes = dram_write;
    b_.Chunk(ChunkSource::kThread, kThread).Add(m);
  }

  void Gpu(uint32_t signature, uint64_t correlation, uint64_t ns) {
    trace::GpuActivityRecord g{};
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    g.start_ns = correlation * 1000 + 20'000;
    g.end_ns = g.start_ns + ns;
    g.correlation = correlation;
    g.signature = signature;
    b_.Chunk(ChunkSource::kGpuActivity).Add(g);
  }

  analyzers::TraceAnalysis Analyze() {
    trace::TraceReader reader(trace::MemorySource(b_.Bytes()));
    analyzers::TraceAnalyzer analyzer;
    const analyzers::StringLookup strings = [&](uint32_t id) { return reader.String(id); };
    reader.ForEachRecord([&](const trace::RecordView& r) { analyzer.Add(r, strings); });
    return analyzer.Finish({});
  }

  static const KernelGroup* Named(const analyzers::TraceAnalysis& run, std::string_view name) {
    for (const auto& g : run.kernels) {
      if (g.name == name) return &g;
    }
    return nullptr;
  }

  TraceBuilder b_;
};

TEST_F(CounterReport, ACounterOnlyKernelTakesTheMeasuredFiguresForEveryLaunch) {
  // Ten launches; counter mode measured the first three (samples 1..3), the rest ran untouched.
  for (uint64_t c = 1; c <= 10; ++c) {
    Launch(2, c, 0);
    if (c <= 3) Metrics(2, c, static_cast<uint16_t>(c), 2e6, 3e6, 1e6);
    Gpu(2, c, 50'000);
  }
  const auto run = Analyze();
  const KernelGroup* g = Named(run, kCustom);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->launches, 10u);
  EXPECT_EQ(g->counter_samples, 3u);
  EXPECT_EQ(g->timed.flops_source, FigureSource::kCounters);
  EXPECT_EQ(g->timed.bytes_source, FigureSource::kCounters);
  EXPECT_DOUBLE_EQ(g->timed.flops, 10 * 2e6);  // the mean stands for every launch
  EXPECT_DOUBLE_EQ(g->timed.bytes, 10 * 4e6);
  EXPECT_EQ(g->timed.launches_with_flops, 10u);
  EXPECT_EQ(g->all.flops_source, FigureSource::kCounters);
  EXPECT_DOUBLE_EQ(g->all.flops, 10 * 2e6);
  // Coverage: all of this device's kernel time has FLOPs from counters.
  ASSERT_EQ(run.devices.size(), 1u);
  const auto& by_source = run.devices[0].kernel_ns_by_source;
  EXPECT_DOUBLE_EQ(by_source[static_cast<int>(FigureSource::kCounters)], 10 * 50'000);
  EXPECT_DOUBLE_EQ(by_source[static_cast<int>(FigureSource::kUnknown)], 0);
  EXPECT_DOUBLE_EQ(run.devices[0].counter_flops, 10 * 2e6);
}

// Counter mode measures a sample one pass group per launch; each launch's record carries the
// sample so far. The fullest record of a sample counts once; a sample cut short by the end of the
// program (its records marked partial) gives its DRAM bytes but not its FLOPs.
TEST_F(CounterReport, ASampleOfSeveralLaunchesCountsOnceAndPartsCountWhereMeasured) {
  constexpr uint32_t kPart = trace::kMetricsPartialSample;
  constexpr uint32_t kFp = trace::kMetricsFp32;
  constexpr uint32_t kBoth = trace::kMetricsFp32 | trace::kMetricsDram;
  // Sample 1: FLOPs from launch 1, then DRAM bytes from launch 2, which completes it.
  Launch(2, 1, 0), Metrics(2, 1, 1, 2e6, 0, 0, kFp | kPart), Gpu(2, 1, 1000);
  Launch(2, 2, 0), Metrics(2, 2, 1, 2e6, 3e6, 1e6, kBoth), Gpu(2, 2, 1000);
  // Sample 2: the FP group only (the program ended before its other groups): FP32 FLOPs that may
  // lack a tensor or FP16 part are not the kernel's FLOPs.
  Launch(2, 3, 0), Metrics(2, 3, 2, 4e6, 0, 0, kFp | kPart), Gpu(2, 3, 1000);
  // Sample 3: the DRAM group only: its bytes are whole.
  Launch(2, 4, 0), Metrics(2, 4, 3, 0, 5e6, 1e6, trace::kMetricsDram | kPart), Gpu(2, 4, 1000);
  const auto run = Analyze();
  const KernelGroup* g = Named(run, kCustom);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->counter_samples, 3u);
  EXPECT_EQ(g->counter_flops_samples, 1u);
  EXPECT_EQ(g->counter_bytes_samples, 2u);
  EXPECT_DOUBLE_EQ(g->counter_flops, 2e6);  // sample 1's only
  EXPECT_DOUBLE_EQ(g->counter_bytes, 5e6);  // the mean of 4e6 and 6e6
  EXPECT_EQ(g->counter_valid & kPart, 0u);
  EXPECT_DOUBLE_EQ(g->timed.bytes, 4 * 5e6);
  EXPECT_DOUBLE_EQ(g->timed.flops, 4 * 2e6);
}

TEST_F(CounterReport, WhereTheCatalogModelsTheKernelTheRowKeepsItAndTheCheckShowsBoth) {
  // mul over 1,000,000 floats: the catalog says 1e6 FLOPs and 12e6 bytes per launch. The
  // counters measured 1e6 FLOPs and 15e6 bytes: the catalog's bytes are 20% low.
  for (uint64_t c = 1; c <= 4; ++c) {
    Launch(1, c, 1'000'000);
    if (c <= 2) Metrics(1, c, static_cast<uint16_t>(c), 1e6, 10e6, 5e6);
    Gpu(1, c, 100'000);
  }
  const auto run = Analyze();
  const KernelGroup* g = Named(run, kReportMulKernel);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->timed.flops_source, FigureSource::kCatalog);
  EXPECT_DOUBLE_EQ(g->timed.bytes, 4 * 12e6);
  EXPECT_EQ(g->counter_samples, 2u);
  const tools::CounterCheck c = tools::CheckCounters(*g);
  ASSERT_TRUE(c.catalog_flops && c.catalog_bytes);
  EXPECT_DOUBLE_EQ(*c.catalog_flops, 1e6);
  EXPECT_DOUBLE_EQ(*c.catalog_bytes, 12e6);
  EXPECT_NEAR(*c.flops_diff_pct, 0, 1e-9);
  EXPECT_NEAR(*c.bytes_diff_pct, -20, 1e-9);
  EXPECT_TRUE(c.catalog_off);
  EXPECT_FALSE(c.samples_disagree);
  EXPECT_DOUBLE_EQ(run.devices[0].kernel_ns_by_source[static_cast<int>(FigureSource::kCatalog)],
                   4 * 100'000);
}

TEST_F(CounterReport, ACatalogWithinTenPercentIsNotFlagged) {
  Launch(1, 1, 1'000'000);
  Metrics(1, 1, 1, 1.05e6, 8e6, 4.5e6);  // FLOPs 5% off, bytes 4% off
  Gpu(1, 1, 100'000);
  const auto run = Analyze();
  const tools::CounterCheck c = tools::CheckCounters(*Named(run, kReportMulKernel));
  EXPECT_NEAR(*c.flops_diff_pct, 100 * (1e6 - 1.05e6) / 1.05e6, 1e-9);
  EXPECT_FALSE(c.catalog_off);
}

TEST_F(CounterReport, SamplesThatDisagreeAreMarked) {
  Launch(2, 1, 0), Metrics(2, 1, 1, 1e6, 1e7, 0), Gpu(2, 1, 1000);
  Launch(2, 2, 0), Metrics(2, 2, 2, 1e6, 2e7, 0), Gpu(2, 2, 1000);
  const auto run = Analyze();
  const KernelGroup* g = Named(run, kCustom);
  EXPECT_DOUBLE_EQ(g->counter_bytes, 1.5e7);
  EXPECT_NEAR(analyzers::CounterBytesSpread(*g), 1e7 / 1.5e7, 1e-12);
  EXPECT_EQ(analyzers::CounterFlopsSpread(*g), 0);
  EXPECT_TRUE(tools::CheckCounters(*g).samples_disagree);
}

TEST_F(CounterReport, DramSamplesAFewKilobytesApartAgree) {
  // A compute kernel's DRAM traffic (2 KB, then 5 KB) doubles with other work on the GPU.
  Launch(2, 1, 0), Metrics(2, 1, 1, 1e6, 2048, 0), Gpu(2, 1, 1000);
  Launch(2, 2, 0), Metrics(2, 2, 2, 1e6, 5120, 0), Gpu(2, 2, 1000);
  const auto run = Analyze();
  const KernelGroup* g = Named(run, kCustom);
  EXPECT_EQ(analyzers::CounterBytesSpread(*g), 0);
  EXPECT_FALSE(tools::CheckCounters(*g).samples_disagree);
}

TEST_F(CounterReport, ReplayedGpuRecordsOfAMeasuredLaunchCountOnce) {
  // Kernel replay may run the measured launch once per pass: only one execution counts, in
  // whichever order the records arrive.
  Launch(2, 1, 0);
  Metrics(2, 1, 1, 1e6, 1e6, 0);
  Gpu(2, 1, 1000), Gpu(2, 1, 1000), Gpu(2, 1, 1000);
  Gpu(2, 2, 1000), Gpu(2, 2, 1000);  // GPU records before their launch
  Launch(2, 2, 0);
  Metrics(2, 2, 2, 1e6, 1e6, 0);
  Launch(2, 3, 0);  // not measured: its one record counts
  Gpu(2, 3, 1000);
  const auto run = Analyze();
  const KernelGroup* g = Named(run, kCustom);
  EXPECT_EQ(g->executions, 3u);
  // Two from the first launch, one of the two that came before theirs.
  EXPECT_EQ(run.replayed_gpu_records, 3u);
  EXPECT_EQ(run.unmatched_gpu_records, 0u);
  EXPECT_DOUBLE_EQ(g->timed.flops, 3e6);
}

TEST_F(CounterReport, AnUnmodelledKernelIsPlacedOnTheRoofOfItsMeasuredPrecision) {
  trace::KernelMetricsRecord m{};
  Launch(2, 1, 0);
  m.samples = 1;
  m.correlation = 1;
  m.signature = 2;
  m.valid = trace::kMetricsFp32 | trace::kMetricsFp64;
  m.flops_fp32 = 1e3;  // address arithmetic in fp32, the work in fp64
  m.flops_fp64 = 4e6;
  b_.Chunk(ChunkSource::kThread, kThread).Add(m);
  Gpu(2, 1, 1000);
  const auto run = Analyze();
  EXPECT_EQ(Named(run, kCustom)->path, analyzers::ComputePath::kFp64);
}

TEST_F(CounterReport, WithoutDramCountersTheBytesStayUnknown) {
  trace::KernelMetricsRecord m{};
  Launch(2, 1, 0);
  m.samples = 1;
  m.correlation = 1;
  m.signature = 2;
  m.valid = trace::kMetricsFp32;  // a Tegra GPU: no dram__ bytes
  m.flops_fp32 = 5e5;
  b_.Chunk(ChunkSource::kThread, kThread).Add(m);
  Gpu(2, 1, 1000);
  const auto run = Analyze();
  const KernelGroup* g = Named(run, kCustom);
  EXPECT_EQ(g->timed.flops_source, FigureSource::kCounters);
  EXPECT_EQ(g->timed.bytes_source, FigureSource::kUnknown);
}

TEST_F(CounterReport, TextAndJsonShowBothFiguresAndTheFlag) {
  for (uint64_t c = 1; c <= 2; ++c) {
    Launch(1, c, 1'000'000);
    Metrics(1, c, static_cast<uint16_t>(c), 1e6, 10e6, 5e6);
    Gpu(1, c, 100'000);
  }
  Launch(2, 10, 0), Metrics(2, 10, 1, 7e6, 1e6, 0), Gpu(2, 10, 1000);
  TempDir dir;
  const std::string path = dir.path() + "/t.fspy";
  b_.WriteTo(path);
  const std::vector<tools::TraceReport> reports = {tools::AnalyzeTrace(path)};

  std::ostringstream text;
  tools::WriteTextReport(reports, {}, text);
  const std::string t = text.str();
  EXPECT_NE(t.find("GPU counters against the kernel catalog, per launch"), std::string::npos) << t;
  EXPECT_NE(t.find("-20%"), std::string::npos) << t;
  EXPECT_NE(t.find("! 1 catalog entry is more than 10% from the counters"), std::string::npos) << t;
  EXPECT_NE(t.find(" ctr "), std::string::npos) << t;  // the custom kernel's source column

  const nlohmann::json j = tools::BuildJsonReport(reports);
  const nlohmann::json* mul = nullptr;
  const nlohmann::json* custom = nullptr;
  for (const auto& k : j["traces"][0]["kernels"]) {
    if (k["name"] == kReportMulKernel) mul = &k;
    if (k["name"] == kCustom) custom = &k;
  }
  ASSERT_NE(mul, nullptr);
  ASSERT_NE(custom, nullptr);
  const auto& check = (*mul)["counters"];
  EXPECT_EQ(check["samples"], 2);
  EXPECT_DOUBLE_EQ(check["bytes_per_launch"].get<double>(), 15e6);
  EXPECT_DOUBLE_EQ(check["catalog_bytes_per_launch"].get<double>(), 12e6);
  EXPECT_NEAR(check["catalog_bytes_diff_pct"].get<double>(), -20, 1e-9);
  EXPECT_TRUE(check["catalog_off_by_more_than_10pct"].get<bool>());
  EXPECT_EQ((*mul)["timed"]["flops_source"], "catalog");
  EXPECT_EQ((*custom)["timed"]["flops_source"], "counters");
  EXPECT_TRUE((*custom)["counters"]["catalog_flops_per_launch"].is_null());
}

}  // namespace
}  // namespace flopspy::testing
