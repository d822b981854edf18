// flopspy-report on the four traces of a distributed job, one rank a straggler: the whole run,
// the per-rank table aligned on the wall clock, the straggler named with its numbers (text and
// JSON); and --diff between two such runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "comm_trace.h"
#include "rank_trace.h"
#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

constexpr uint64_t kMs = 1'000'000;

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
  const std::string job = WriteRankJob(dir_.path() + "/job", false);
  const auto r = RunChild({kReport, job, "--color", "never"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Above two traces, the run stands for them: no trace's own report without --per-trace.
  EXPECT_EQ(r.out.find("\ntrace "), std::string::npos) << r.out;
  const std::string run = r.out;
  const std::string out = Unwrapped(run);
  EXPECT_NE(out.find("Add --per-trace to see each one."), std::string::npos) << out;
  // The ranks compared: FLOP/s over the known FLOPs' time, the straggler marked, the top kernel
  // named once. Rank 3: 172 GFLOP in 80 ms of SGEMM.
  EXPECT_NE(run.find("rank  GPU busy  kernel time  FLOP/s  %peak  steps  step mean  stands out  "
                     "top kernel"),
            std::string::npos)
      << run;
  EXPECT_NE(run.find("     3       91%        90 ms  2.15 T   0.4%     10      10 ms  step        "
                     "k1 89%"),
            std::string::npos)
      << run;
  EXPECT_NE(run.find("  k1  sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32\n"),
            std::string::npos)
      << run;
  // Advice on the merged run: the SGEMM kernel of every rank, 260 ms.
  EXPECT_NE(out.find("Advice for the whole run"), std::string::npos) << out;
  EXPECT_NE(out.find("roof over 260 ms"), std::string::npos) << out;
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
  const std::string job = WriteRankJob(dir_.path() + "/job", false);
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
  EXPECT_EQ(a["kernels"][0]["name"], kRankGemmKernel);
  EXPECT_EQ(a["kernels"][0]["executions"], 40);
  // MFU: 40 SGEMMs' FLOPs over the four GPUs' active spans x the FP32 peak.
  EXPECT_TRUE(a["counted_flops_of_peak"].is_number());

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
  // 40 x 2 x 2048^3 / 4 FLOPs per rank over its 80 ms of SGEMM (the layer norm has none).
  EXPECT_NEAR(ranks[3]["flops_per_s"].get<double>(), 10 * 2.0 * 2048 * 2048 * 2048 / 0.080, 1e3);
  EXPECT_EQ(ranks[3]["top_kernel"]["label"], kRankGemmKernel);
  EXPECT_NEAR(ranks[3]["top_kernel"]["share"].get<double>(), 80.0 / 90, 1e-12);
  EXPECT_EQ(ranks[3]["straggler"], nlohmann::json::array({"step_time"}));
  EXPECT_TRUE(ranks[0]["straggler"].empty());
  // Advice on the merged run: the rules see the SGEMM kernel of the four ranks together.
  ASSERT_FALSE(j["advice"].empty());
  EXPECT_EQ(j["advice"][0]["kind"], "far_from_roof");
  EXPECT_NEAR(j["advice"][0]["share"].get<double>(), 260.0 / 300, 1e-9);

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

TEST_F(MultiTraceTest, PerTraceAddsEachTracesFullReport) {
  const std::string job = WriteRankJob(dir_.path() + "/job", false);
  const auto r = RunChild({kReport, job, "--per-trace", "--color", "never"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t sections = 0;
  for (size_t at = r.out.find("\ntrace "); at != std::string::npos;
       at = r.out.find("\ntrace ", at + 1)) {
    ++sections;
  }
  EXPECT_EQ(sections, 4u) << r.out;
  EXPECT_LT(r.out.find("whole run:"), r.out.find("\ntrace ")) << r.out;
  EXPECT_EQ(r.out.find("Add --per-trace"), std::string::npos) << r.out;

  // The JSON: each trace's facts only by default, the whole trace with --per-trace.
  const auto slim = nlohmann::json::parse(RunChild({kReport, "--json", job}).out);
  ASSERT_EQ(slim["traces"].size(), 4u);
  EXPECT_EQ(slim["view"]["per_trace"], false);
  EXPECT_EQ(slim["aggregate"]["traces_in_full"], false);
  for (const auto& t : slim["traces"]) {
    EXPECT_TRUE(t.contains("process"));
    EXPECT_TRUE(t.contains("summary"));
    EXPECT_FALSE(t.contains("kernels"));
    EXPECT_FALSE(t.contains("advice"));
  }
  const auto full = nlohmann::json::parse(RunChild({kReport, "--json", "--per-trace", job}).out);
  EXPECT_EQ(full["aggregate"]["traces_in_full"], true);
  for (const auto& t : full["traces"]) {
    EXPECT_EQ(t["kernels"].size(), 2u);
    EXPECT_TRUE(t.contains("advice"));
  }
}

TEST_F(MultiTraceTest, TwoTracesKeepTheirFullReports) {
  const std::string job = WriteRankJob(dir_.path() + "/job", false);
  const auto r = RunChild({kReport, job + "/rank0.fspy", job + "/rank1.fspy", "--color", "never"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("whole run: 2 traces merged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ntrace "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Add --per-trace"), std::string::npos) << r.out;
}

TEST_F(MultiTraceTest, EvenRanksHaveNoStraggler) {
  const std::string job = WriteRankJob(dir_.path() + "/job", true);
  const auto r = RunChild({kReport, "--json", job});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["stragglers"].empty());
}

TEST_F(MultiTraceTest, OneTraceHasNoRunSections) {
  const std::string job = WriteRankJob(dir_.path() + "/job", false);
  const auto r = RunChild({kReport, "--json", job + "/rank0.fspy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.contains("aggregate"));
  EXPECT_FALSE(j.contains("ranks"));
}

TEST_F(MultiTraceTest, DiffComparesKernelsAndSteps) {
  const std::string a = WriteRankJob(dir_.path() + "/a", false);
  const std::string b = WriteRankJob(dir_.path() + "/b", true);
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
  // Both runs mark the step (40 steps each): ranked per step. SGEMM kernel: 260 ms -> 200 ms,
  // 6.5 -> 5 ms per step, the largest change; the layer norm changed grid but keeps its name:
  // one row, 1 ms per step in both.
  EXPECT_EQ(d["match"], "name");
  EXPECT_EQ(d["basis"], "per_step");
  const auto& k = d["kernels"];
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0]["name"], kRankGemmKernel);
  EXPECT_EQ(k[0]["presence"], "both");
  EXPECT_DOUBLE_EQ(k[0]["change_ns"].get<double>(), -60.0 * kMs);
  EXPECT_DOUBLE_EQ(k[0]["rank_change_ns"].get<double>(), -1.5 * kMs);
  EXPECT_DOUBLE_EQ(k[0]["a"]["per_step_ns"].get<double>(), 6.5 * kMs);
  EXPECT_DOUBLE_EQ(k[0]["b"]["per_step_ns"].get<double>(), 5.0 * kMs);
  EXPECT_NEAR(k[0]["change_pct"].get<double>(), -60.0 / 260 * 100, 1e-9);
  EXPECT_EQ(k[0]["a"]["count"], 40);
  EXPECT_DOUBLE_EQ(k[0]["a"]["mean_ns"].get<double>(), 6.5 * kMs);
  EXPECT_DOUBLE_EQ(k[0]["b"]["mean_ns"].get<double>(), 5.0 * kMs);
  EXPECT_EQ(k[1]["presence"], "both");
  EXPECT_EQ(k[1]["label"], "layer_norm_kernel");
  EXPECT_DOUBLE_EQ(k[1]["rank_change_ns"].get<double>(), 0);

  // --match signature keeps launch shapes apart: the layer norm is one kernel only in A and
  // another only in B (40 ms each).
  const auto s = RunChild({kReport, "--diff", a, b, "--json", "--match", "signature"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const auto by_signature = nlohmann::json::parse(s.out);
  const auto& ks = by_signature["diff"]["kernels"];
  ASSERT_EQ(ks.size(), 3u);
  std::set<std::string> presence = {ks[1]["presence"], ks[2]["presence"]};
  EXPECT_EQ(presence, (std::set<std::string>{"only_a", "only_b"}));
  ASSERT_EQ(d["library_calls"].size(), 1u);
  EXPECT_NEAR(d["library_calls"][0]["rate_change_pct"].get<double>(), (260.0 / 200 - 1) * 100,
              1e-9);
}

TEST_F(MultiTraceTest, DiffText) {
  const std::string a = WriteRankJob(dir_.path() + "/a", false);
  const std::string b = WriteRankJob(dir_.path() + "/b", true);
  const auto r = RunChild({kReport, "--diff", a, b});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Kernel GPU time: A 300 ms, B 240 ms (-20.0%)."), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("A 8.5 ms, B 7 ms (-17.6%)"), std::string::npos) << r.out;
  // Per step, with the mean per call beside it.
  EXPECT_NE(r.out.find("Kernels by name, largest change per step first"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" change     %  step A  step B  mean A  mean B"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("-1.5 ms  -23%  6.5 ms    5 ms  6.5 ms    5 ms"), std::string::npos)
      << r.out;
  const auto s = RunChild({kReport, "--diff", a, b, "--match", "signature"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("Kernels by signature"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("only A"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("only B"), std::string::npos) << s.out;
}

TEST_F(MultiTraceTest, BadMatchOrPerTraceWithDiffIsAUsageError) {
  const std::string a = WriteRankJob(dir_.path() + "/a", false);
  const std::string b = WriteRankJob(dir_.path() + "/b", true);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{kReport, "--diff", a, b, "--match", "foo"},
        std::vector<std::string>{kReport, a, "--match", "name"},
        std::vector<std::string>{kReport, "--diff", a, b, "--per-trace"}}) {
    const auto r = RunChild(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_EQ(r.err.rfind("flopspy-report: ", 0), 0u) << r.err;
    EXPECT_EQ(r.out, "");
  }
  EXPECT_NE(RunChild({kReport, "--diff", a, b, "--match", "foo"})
                .err.find("--match foo: use name or signature"),
            std::string::npos);
}

TEST_F(MultiTraceTest, DiffNeedsTwoPaths) {
  const std::string a = WriteRankJob(dir_.path() + "/a", false);
  const auto r = RunChild({kReport, "--diff", a});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give exactly two paths"), std::string::npos) << r.err;
  const auto missing = RunChild({kReport, "--diff", a, dir_.path() + "/nothing"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nothing to compare"), std::string::npos) << missing.err;
}

TEST_F(MultiTraceTest, HtmlAndCsvCarryTheRunSections) {
  const std::string job = WriteRankJob(dir_.path() + "/job", false);
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
  const auto d = RunChild({kReport, "--diff", job, WriteRankJob(dir_.path() + "/b", true),
                           "--match", "signature", "--html", diff_html});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  std::ifstream din(diff_html);
  const std::string dpage((std::istreambuf_iterator<char>(din)), std::istreambuf_iterator<char>());
  EXPECT_NE(dpage.find("two runs compared"), std::string::npos);
  EXPECT_NE(dpage.find(R"(id="diff-kernels")"), std::string::npos);
  EXPECT_NE(dpage.find("B only"), std::string::npos);
}

// Two ranks of a data-parallel job, rank 1 reaching each of 5 all-reduces 300 us late: each
// trace's communication table (bytes, bandwidths, the share compute hid) and, across ranks, the
// skew and the straggler, in text and JSON (docs/nccl.md).
TEST_F(MultiTraceTest, CommunicationPerTraceAndAcrossRanks) {
  const std::string job = WriteCommJob(dir_.path() + "/comm", 300'000);
  const auto text = RunChild({kReport, job, "--color", "never"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::string out = Unwrapped(text.out);
  EXPECT_NE(out.find("Communication across ranks (the same collective on every rank)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(out.find("5 collectives matched by communicator and call number; start skew (last "
                     "rank's start minus the first's) 300 us on average, 300 us at most."),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Rank 1 started last in 5 of 5 collectives"), std::string::npos) << out;
  EXPECT_NE(out.find("Communication (NCCL)"), std::string::npos) << out;
  // Rank 1: 5 calls of 4 MiB, kernels 0.5 ms each: 8.39 GB/s; half of it under compute.
  EXPECT_NE(out.find("5 calls, 21 MB in all; collective kernels 2.5 ms (18% of kernel time)"),
            std::string::npos)
      << out;
  EXPECT_NE(
      out.find("all_reduce  R_32F  4.19 MB      2      5  2.5 ms  500 us  8.39 GB/s  8.39 GB/s"),
      std::string::npos)
      << text.out;
  EXPECT_NE(out.find("50% of it hidden under compute kernels on other streams, 50% exposed"),
            std::string::npos)
      << out;
  // The all-reduce is not in the library table (no roofline for it).
  EXPECT_EQ(out.find("cuBLAS, cuBLASLt and cuDNN calls by GPU time"), std::string::npos) << out;

  const auto json_run = RunChild({kReport, job, "--json"});
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const auto doc = nlohmann::json::parse(json_run.out);
  const auto& skew = doc.at("communication_across_ranks");
  EXPECT_EQ(skew.at("matched"), 5);
  EXPECT_NEAR(skew.at("mean_skew_ns").get<double>(), 300'000, 1);
  EXPECT_EQ(skew.at("straggler").at("rank"), 1);
  for (const auto& t : doc.at("traces")) {
    const auto& comm = t.at("communication");
    const auto& row = comm.at("rows").at(0);
    EXPECT_EQ(row.at("collective"), "all_reduce");
    EXPECT_EQ(row.at("bytes"), 4.0 * 1048576);
    EXPECT_EQ(row.at("nranks"), 2);
    const double gpu = t.at("process").at("pid") == 6000 ? 800'000 : 500'000;  // rank 0 waited
    EXPECT_NEAR(row.at("busbw_bytes_per_s").get<double>(), 4.0 * 1048576 / (gpu * 1e-9), 1);
  }
}

}  // namespace
}  // namespace flopspy::testing
