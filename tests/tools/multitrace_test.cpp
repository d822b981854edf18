// flopspy-report on the four traces of a distributed job, one rank a straggler: the whole run,
// the per-rank table aligned on the wall clock, the straggler named with its numbers (text and
// JSON); and --diff between two such runs.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "flopspy/analyzers/blas_routine.h"
#include "flopspy/analyzers/blas_types.h"
#include "subprocess.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

const std::string kReport = FLOPSPY_REPORT_PATH;
constexpr char kGemm[] = "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32";
constexpr char kOther[] = "void layer_norm_kernel<float>(float*, int)";
constexpr uint32_t kThread = 7;
constexpr uint64_t kUs = 1000, kMs = 1'000'000;

struct RankSpec {
  int rank = 0;
  uint64_t gemm_ns = 6 * kMs;   // per step
  uint64_t other_ns = 1 * kMs;  // per step
  uint64_t step_ns = 8 * kMs;   // region length
  uint32_t other_grid = 1;      // another grid is another kernel signature
  int steps = 10;
};

// One rank: 10 "step" regions, each an SGEMM (2048^3, through cuBLAS) then a layer-norm kernel,
// on an H100. Each rank's monotonic clock has its own origin; the wall clock starts 10 ms apart.
std::vector<uint8_t> RankTrace(const RankSpec& spec) {
  trace::FileIdentity id = TraceBuilder::DefaultIdentity();
  id.pid = 5000 + spec.rank;
  id.rank = spec.rank;
  id.local_rank = spec.rank;
  id.host = "node0";
  id.start_realtime_ns = 1'700'000'000'000'000'000ull + spec.rank * 10 * kMs;
  const uint64_t base = (100 + 7 * spec.rank) * 1'000'000'000ull;  // monotonic origin
  id.start_monotonic_ns = base;
  TraceBuilder b(id);
  b.Metadata(R"({"process":{"command":["python","train.py"]},)"
             R"("devices":[{"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0,)"
             R"("sm_count":132,"clock_khz":1980000,"memory_clock_khz":2619000,)"
             R"("memory_bus_width_bits":5120,"l2_bytes":52428800,)"
             R"("total_memory_bytes":85520809984,"uuid":"GPU-)" +
             std::to_string(spec.rank) + R"(","driver_version":"580.0"}]})");
  b.String(1, kGemm).String(2, kOther).String(3, "cublasSgemm_v2").String(4, "step");
  for (uint32_t f = 1; f <= 2; ++f) {
    trace::FunctionDef fn{};
    fn.id = f;
    fn.mangled_name = f;
    fn.demangled_name = f;
    fn.param_count = 0xFFFF;
    b.Add(fn);
  }
  const auto signature = [&](uint32_t sig, uint32_t function, uint32_t grid) {
    trace::KernelSignatureDef s{};
    s.id = sig;
    s.function = function;
    s.grid[0] = grid, s.grid[1] = 1, s.grid[2] = 1;
    s.block[0] = 128, s.block[1] = 1, s.block[2] = 1;
    b.Add(s);
  };
  signature(1, 1, 256);
  signature(2, 2, spec.other_grid);
  const auto region = [&](trace::RegionEdge edge, uint64_t at) {
    trace::RegionRecord r{};
    r.edge = static_cast<uint8_t>(edge);
    r.time_ns = at;
    r.name = 4;
    b.Chunk(trace::ChunkSource::kThread, kThread).Add(r);
  };
  const auto launch = [&](uint32_t sig, uint64_t correlation, uint64_t at, bool in_library) {
    trace::KernelLaunchRecord l{};
    l.h.flags = in_library ? trace::kLaunchInsideLibrary : 0;
    l.api = static_cast<uint16_t>(trace::Api::kCudaLaunchKernel);
    l.enter_ns = at;
    l.duration_ns = 5 * kUs;
    l.correlation = correlation;
    l.signature = sig;
    b.Chunk(trace::ChunkSource::kThread, kThread).Add(l);
  };
  const auto gpu = [&](uint32_t sig, uint64_t correlation, uint64_t start, uint64_t ns) {
    trace::GpuActivityRecord g{};
    g.kind = static_cast<uint8_t>(trace::GpuActivityKind::kKernel);
    g.start_ns = start;
    g.end_ns = start + ns;
    g.correlation = correlation;
    g.signature = sig;
    g.stream = 7;
    b.Chunk(trace::ChunkSource::kGpuActivity).Add(g);
  };
  for (int s = 0; s < spec.steps; ++s) {
    const uint64_t t0 = base + kMs + s * spec.step_ns;
    const uint64_t correlation = 100 + 2 * s;
    region(trace::RegionEdge::kBegin, t0);
    launch(1, correlation, t0 + 10 * kUs, true);
    trace::LibraryCallRecord c{};
    c.routine = static_cast<uint16_t>(analyzers::BlasRoutine::kGemm);
    c.enter_ns = t0 + 9 * kUs;
    c.exit_ns = t0 + 20 * kUs;
    c.m = c.n = c.k = 2048;
    c.batch = 1;
    c.lda = c.ldb = c.ldc = 2048;
    c.type_a = c.type_b = c.type_c = c.type_d = analyzers::cuda_type::kR32F;
    c.compute_type = analyzers::compute_type::k32F;
    c.flags = trace::kLibBetaKnown;
    c.name = 3;
    c.flops = 2.0 * 2048 * 2048 * 2048;
    c.bytes = 3.0 * 2048 * 2048 * 4;
    c.source = static_cast<uint8_t>(trace::FigureSource::kAnalytic);
    b.Chunk(trace::ChunkSource::kThread, kThread).Add(c);
    gpu(1, correlation, t0 + 30 * kUs, spec.gemm_ns);
    launch(2, correlation + 1, t0 + 25 * kUs, false);
    gpu(2, correlation + 1, t0 + 30 * kUs + spec.gemm_ns, spec.other_ns);
    region(trace::RegionEdge::kEnd, t0 + spec.step_ns);
  }
  trace::TraceEndRecord end{};
  end.reason = static_cast<uint8_t>(trace::EndReason::kExit);
  end.time_ns = base + kMs + spec.steps * spec.step_ns + kMs;
  b.Chunk(trace::ChunkSource::kProcess).Add(end);
  return b.Bytes();
}

void Write(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

// Four ranks; rank 3's SGEMM takes 8 ms instead of 6 (its steps 10 ms instead of 8).
std::string WriteJob(const std::string& dir, bool fast) {
  std::filesystem::create_directories(dir);
  for (int r = 0; r < 4; ++r) {
    RankSpec spec;
    spec.rank = r;
    if (fast) {
      spec.gemm_ns = 5 * kMs;
      spec.step_ns = 7 * kMs;
      spec.other_grid = 2;
    } else if (r == 3) {
      spec.gemm_ns = 8 * kMs;
      spec.step_ns = 10 * kMs;
    }
    Write(dir + "/rank" + std::to_string(r) + ".fspy", RankTrace(spec));
  }
  return dir;
}

// The text with wrapped lines joined: "a\n    b" -> "a b".
std::string Unwrapped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

class MultiTraceTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(MultiTraceTest, TextNamesTheStragglerAndShowsEveryRank) {
  const std::string job = WriteJob(dir_.path() + "/job", false);
  const auto r = RunChild({kReport, job, "--color", "never"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // The run sections come before the first trace's.
  const std::string run = r.out.substr(0, r.out.find("\ntrace "));
  const std::string out = Unwrapped(run);
  EXPECT_NE(out.find("whole run: 4 traces merged"), std::string::npos) << out;
  EXPECT_NE(out.find("4 processes, 4 ranks on 1 host, 4 GPUs (NVIDIA H100"), std::string::npos)
      << out;
  // 3 ranks x 10 x 6 ms + 10 x 8 ms of SGEMM, 40 x 1 ms of layer norm.
  EXPECT_NE(out.find("300 ms of GPU time in 80 launches"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 3 takes 10 ms per step, 25% over the median 8 ms"), std::string::npos)
      << out;
  EXPECT_NE(out.find("the kernel time that differs most is"), std::string::npos) << out;
  EXPECT_NE(out.find("8 ms vs 6 ms per step"), std::string::npos) << out;
  EXPECT_NE(out.find("step: the region \"step\""), std::string::npos) << out;
  // Rank 2 started 20 ms after rank 0 on the wall clock.
  EXPECT_NE(out.find("+20 ms"), std::string::npos) << out;
  EXPECT_NE(out.find("(step time (region \"step\") of 4 ranks: median 8 ms, a rank stands out "
                     "above 8.8 ms)"),
            std::string::npos)
      << out;
  // Every line of the run sections fits 100 columns.
  size_t start = 0;
  while (start < run.size()) {
    size_t end = run.find('\n', start);
    if (end == std::string::npos) end = run.size();
    const std::string line = run.substr(start, end - start);
    size_t width = 0;
    for (const char c : line) width += (c & 0xC0) != 0x80;
    EXPECT_LE(width, 100u) << line;
    start = end + 1;
  }
}

TEST_F(MultiTraceTest, JsonHasAggregateRanksAndStragglers) {
  const std::string job = WriteJob(dir_.path() + "/job", false);
  const auto r = RunChild({kReport, "--json", job});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 2);
  const auto& a = j["aggregate"];
  EXPECT_EQ(a["processes"], 4);
  EXPECT_EQ(a["ranks"], 4);
  EXPECT_EQ(a["gpus"], 4);
  EXPECT_EQ(a["mixed_devices"], false);
  EXPECT_DOUBLE_EQ(a["kernel_gpu_ns"].get<double>(), 300.0 * kMs);
  EXPECT_EQ(a["step_region"], "step");
  ASSERT_EQ(a["devices"].size(), 1u);
  EXPECT_EQ(a["devices"][0]["gpus"], 4);
  // The SGEMM shape merged over the four ranks: 40 calls, 260 ms, placed on the H100's roofs.
  ASSERT_EQ(a["library_calls"].size(), 1u);
  const auto& gemm = a["library_calls"][0];
  EXPECT_EQ(gemm["calls"], 40);
  EXPECT_EQ(gemm["traces"], 4);
  EXPECT_DOUBLE_EQ(gemm["gpu_ns"].get<double>(), 260.0 * kMs);
  ASSERT_TRUE(gemm["placement"].is_object());
  EXPECT_NEAR(gemm["placement"]["achieved_flops_per_s"].get<double>(),
              40 * 2.0 * 2048 * 2048 * 2048 / 0.260, 1e6);
  ASSERT_EQ(a["kernels"].size(), 2u);
  EXPECT_EQ(a["kernels"][0]["name"], kGemm);
  EXPECT_EQ(a["kernels"][0]["executions"], 40);
  // MFU: 40 SGEMMs' FLOPs over the four GPUs' active spans x the FP32 peak.
  EXPECT_TRUE(a["mfu"].is_number());

  const auto& ranks = j["ranks"];
  ASSERT_EQ(ranks.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(ranks[i]["rank"], i);
    EXPECT_EQ(ranks[i]["pid"], 5000 + i);
    EXPECT_EQ(ranks[i]["start_offset_ns"], i * 10 * kMs);
    EXPECT_EQ(ranks[i]["step"]["count"], 10);
    EXPECT_EQ(ranks[i]["end"], "exit 0");
  }
  EXPECT_DOUBLE_EQ(ranks[0]["step"]["mean_ns"].get<double>(), 8.0 * kMs);
  EXPECT_DOUBLE_EQ(ranks[3]["step"]["mean_ns"].get<double>(), 10.0 * kMs);
  EXPECT_DOUBLE_EQ(ranks[3]["kernel_gpu_ns"].get<double>(), 90.0 * kMs);
  // Busy: 10 x 9 ms of work in a window of 9 x 10 + 9 ms.
  EXPECT_NEAR(ranks[3]["busy_fraction"].get<double>(), 90.0 / 99.0, 1e-9);

  const auto& s = j["stragglers"];
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0]["rank"], 3);
  EXPECT_EQ(s[0]["metric"], "step_time");
  EXPECT_DOUBLE_EQ(s[0]["value"].get<double>(), 10.0 * kMs);
  EXPECT_DOUBLE_EQ(s[0]["reference"].get<double>(), 8.0 * kMs);
  EXPECT_NEAR(s[0]["excess"].get<double>(), 0.25, 1e-12);
  EXPECT_EQ(s[0]["kernel_ns"], 8 * kMs);
  EXPECT_EQ(s[0]["kernel_reference_ns"], 6 * kMs);
}

TEST_F(MultiTraceTest, EvenRanksHaveNoStraggler) {
  const std::string job = WriteJob(dir_.path() + "/job", true);
  const auto r = RunChild({kReport, "--json", job});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["stragglers"].empty());
}

TEST_F(MultiTraceTest, OneTraceHasNoRunSections) {
  const std::string job = WriteJob(dir_.path() + "/job", false);
  const auto r = RunChild({kReport, "--json", job + "/rank0.fspy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.contains("aggregate"));
  EXPECT_FALSE(j.contains("ranks"));
}

TEST_F(MultiTraceTest, DiffComparesKernelsAndSteps) {
  const std::string a = WriteJob(dir_.path() + "/a", false);
  const std::string b = WriteJob(dir_.path() + "/b", true);
  const auto r = RunChild({kReport, "--diff", a, b, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("diff")) << r.out;
  const auto& d = j["diff"];
  EXPECT_EQ(d["a"]["readable"], 4);
  EXPECT_DOUBLE_EQ(d["kernel_gpu_ns_a"].get<double>(), 300.0 * kMs);
  EXPECT_DOUBLE_EQ(d["kernel_gpu_ns_b"].get<double>(), 240.0 * kMs);
  // Steps: A (30 x 8 + 10 x 10) / 40 = 8.5 ms, B 7 ms.
  EXPECT_DOUBLE_EQ(d["step_a"]["mean_ns"].get<double>(), 8.5 * kMs);
  EXPECT_DOUBLE_EQ(d["step_b"]["mean_ns"].get<double>(), 7.0 * kMs);
  EXPECT_NEAR(d["step_change_pct"].get<double>(), 100 * (7 - 8.5) / 8.5, 1e-9);
  // SGEMM kernel: 260 ms -> 200 ms, the largest change; the layer norm changed grid, so it is
  // one kernel only in A and another only in B (40 ms each).
  const auto& k = d["kernels"];
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0]["name"], kGemm);
  EXPECT_EQ(k[0]["presence"], "both");
  EXPECT_DOUBLE_EQ(k[0]["change_ns"].get<double>(), -60.0 * kMs);
  EXPECT_NEAR(k[0]["change_pct"].get<double>(), -60.0 / 260 * 100, 1e-9);
  EXPECT_EQ(k[0]["a"]["count"], 40);
  EXPECT_DOUBLE_EQ(k[0]["a"]["mean_ns"].get<double>(), 6.5 * kMs);
  EXPECT_DOUBLE_EQ(k[0]["b"]["mean_ns"].get<double>(), 5.0 * kMs);
  std::set<std::string> presence = {k[1]["presence"], k[2]["presence"]};
  EXPECT_EQ(presence, (std::set<std::string>{"only_a", "only_b"}));
  ASSERT_EQ(d["library_calls"].size(), 1u);
  EXPECT_NEAR(d["library_calls"][0]["rate_change_pct"].get<double>(), (260.0 / 200 - 1) * 100,
              1e-9);
}

TEST_F(MultiTraceTest, DiffText) {
  const std::string a = WriteJob(dir_.path() + "/a", false);
  const std::string b = WriteJob(dir_.path() + "/b", true);
  const auto r = RunChild({kReport, "--diff", a, b});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Kernel GPU time: A 300 ms, B 240 ms (-20.0%)."), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("A 8.5 ms, B 7 ms (-17.6%)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("only A"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("only B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-60 ms"), std::string::npos) << r.out;
}

TEST_F(MultiTraceTest, DiffNeedsTwoPaths) {
  const std::string a = WriteJob(dir_.path() + "/a", false);
  const auto r = RunChild({kReport, "--diff", a});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give exactly two paths"), std::string::npos) << r.err;
  const auto missing = RunChild({kReport, "--diff", a, dir_.path() + "/nothing"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nothing to compare"), std::string::npos) << missing.err;
}

TEST_F(MultiTraceTest, HtmlAndCsvCarryTheRunSections) {
  const std::string job = WriteJob(dir_.path() + "/job", false);
  const std::string html = dir_.path() + "/r.html";
  const std::string csv = dir_.path() + "/csv";
  const auto r = RunChild({kReport, job, "--html", html, "--csv", csv, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<h3>Whole run</h3>"), std::string::npos);
  EXPECT_NE(page.find(R"(id="run-ranks")"), std::string::npos);
  EXPECT_NE(page.find("rank 3 takes 10 ms per step"), std::string::npos);
  EXPECT_NE(page.find(R"(id="t4-gpu0-roofline")"), std::string::npos);  // the aggregate chart
  for (const char* f : {"run_ranks.csv", "run_stragglers.csv", "run_aggregate.csv",
                        "run_aggregate_kernels.csv", "run_aggregate_library_calls.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(csv + "/" + f)) << f;
  }
  const std::string diff_html = dir_.path() + "/d.html";
  const auto d =
      RunChild({kReport, "--diff", job, WriteJob(dir_.path() + "/b", true), "--html", diff_html});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  std::ifstream din(diff_html);
  const std::string dpage((std::istreambuf_iterator<char>(din)), std::istreambuf_iterator<char>());
  EXPECT_NE(dpage.find("two runs compared"), std::string::npos);
  EXPECT_NE(dpage.find(R"(id="diff-kernels")"), std::string::npos);
  EXPECT_NE(dpage.find("B only"), std::string::npos);
}

}  // namespace
}  // namespace flopspy::testing
