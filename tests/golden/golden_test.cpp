// Golden reports: deterministic traces in, the text and the JSON of flopspy-report
// out, compared with tests/data/golden/<case>.txt and .json. Every section has a case: the run
// summary, kernels, library calls with diagnostics, launch overhead, copies, CUDA graphs, CPU
// roofline, counters against the catalog, warnings, advice, many traces with a straggler, and
// --diff.
//
// FLOPSPY_UPDATE_GOLDEN=1 rewrites the files instead of comparing; read the diff before
// committing it: a golden pins behaviour, wrong numbers included. tests/data/golden/README.md.
//
// Every line of every text report here must also fit 100 columns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "demo_trace.h"
#include "golden_traces.h"
#include "rank_trace.h"
#include "report/json_report.h"
#include "report/trace_report.h"
#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

const std::string kGoldenDir = FLOPSPY_GOLDEN_DIR;
const std::string kDataDir = FLOPSPY_TEST_DATA_DIR;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

std::string SixDigits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Numbers to six significant digits, so that the last bits of a double computed in another order
// do not fail the test; the version of flopspy is not pinned.
void NormaliseJson(nlohmann::json& j) {
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (key == "flopspy_version") {
        value = "<version>";
      } else {
        NormaliseJson(value);
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) NormaliseJson(e);
  } else if (j.is_number_float()) {
    const double v = j.get<double>();
    if (std::isfinite(v)) j = std::stod(SixDigits(v));
  }
}

// Lines wider than 100 columns (UTF-8 characters), with their widths.
std::vector<std::string> WideLines(const std::string& text) {
  std::vector<std::string> wide;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t width = 0;
    for (const char c : line) width += (c & 0xC0) != 0x80 ? 1 : 0;
    if (width > 100) wide.push_back(std::to_string(width) + ": " + line);
  }
  return wide;
}

class GoldenReport : public ::testing::Test {
 protected:
  GoldenReport() {
    // CPU ceilings are looked up under the cache folder by CPU model: the golden CPU's there.
    const std::string cache = dir_.path() + "/cache/flopspy";
    std::filesystem::create_directories(cache);
    std::filesystem::copy_file(kDataDir + "/cpu_roofline/ceilings/skx_synthetic.json",
                               cache + "/ceilings-cpu-" + kGoldenCpuKey + ".json");
    options_.env = {{"XDG_CACHE_HOME", dir_.path() + "/cache"}, {"HOME", dir_.path()}};
    options_.unset = {"FLOPSPY_CEILINGS"};
  }

  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = dir_.path() + "/" + name;
    WriteFile(path, bytes);
    return path;
  }

  // Runs the report on `args` as text and as JSON, checks the text's width, and compares both
  // with the golden files of `name`.
  void Check(const std::string& name, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kReport, "--color", "never"};
    argv.insert(argv.end(), args.begin(), args.end());
    const ChildResult text = RunChild(argv, options_);
    ASSERT_TRUE(text.exited) << name;
    std::string got = text.out;
    if (!text.err.empty()) got += "--- stderr\n" + text.err;
    got += "--- exit status " + std::to_string(text.exit_code) + "\n";
    ReplaceAll(got, dir_.path(), "<dir>");
    for (const std::string& line : WideLines(text.out)) ADD_FAILURE() << name << ": " << line;
    Compare(name + ".txt", got);

    argv.push_back("--json");
    const ChildResult json = RunChild(argv, options_);
    ASSERT_TRUE(json.exited) << name;
    nlohmann::json doc = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << name << ": not JSON\n" << json.out;
    NormaliseJson(doc);
    std::string dumped = doc.dump(1) + "\n";
    ReplaceAll(dumped, dir_.path(), "<dir>");
    Compare(name + ".json", dumped);
  }

  static void Compare(const std::string& file, const std::string& got) {
    const std::string path = kGoldenDir + "/" + file;
    if (std::getenv("FLOPSPY_UPDATE_GOLDEN") != nullptr) {
      std::ofstream(path, std::ios::binary) << got;
      return;
    }
    ASSERT_TRUE(std::filesystem::exists(path))
        << "missing " << path << " (run with FLOPSPY_UPDATE_GOLDEN=1, then review it)";
    const std::string want = ReadFile(path);
    if (got == want) return;
    // The first line that differs, then the whole output for the log.
    std::istringstream g(got), w(want);
    std::string gl, wl;
    int line = 1;
    while (std::getline(g, gl) && std::getline(w, wl) && gl == wl) ++line;
    ADD_FAILURE() << file << " differs at line " << line << ":\n  want: " << wl
                  << "\n  got:  " << gl << "\n(FLOPSPY_UPDATE_GOLDEN=1 rewrites it; review the "
                  << "diff)\n--- got\n"
                  << got;
  }

  TempDir dir_;
  ChildOptions options_;
};

// Kernels, cuBLAS with shape diagnostics, launch overhead, copies, advice: an H100 trace.
TEST_F(GoldenReport, SingleGpuTrace) {
  Check("single_gpu", {Write("demo.fspy", DemoTrace())});
}

// GPU counters against the catalog, cuBLASLt with an epilogue on measured roofs, one kernel on
// two grids, warnings, lost records and marked regions.
TEST_F(GoldenReport, CountersCeilingsWarningsRegions) {
  const std::string ceilings = dir_.path() + "/gpu-ceilings.json";
  std::string error;
  ASSERT_TRUE(gpuroof::SaveCeilingsFile(ceilings, GoldenCeilings(),
                                        platform::Destination::kUserNamed, &error))
      << error;
  Check("counters", {Write("counters.fspy", CountersTrace()), "--ceilings", ceilings});
}

TEST_F(GoldenReport, CpuRooflineFromReplayedCounters) {
  const std::vector<uint8_t> bytes =
      CpuRooflineTrace(kDataDir + "/cpu_roofline/replay/dgemm_skx.jsonl");
  ASSERT_FALSE(bytes.empty());
  Check("cpu_roofline", {Write("cpu.fspy", bytes)});
}

// Captured and built CUDA graphs replayed: kernels per replay with their figures, the launch time
// saved, a captured cuBLASLt call counted at each replay.
TEST_F(GoldenReport, CudaGraphReplays) {
  Check("cuda_graphs", {Write("graphs.fspy", CudaGraphsTrace())});
}

// Sampled GPU timing: what was timed, the estimates for every launch, no launch-overhead verdict.
TEST_F(GoldenReport, SampledGpuTiming) {
  Check("sampled_gpu_timing", {Write("sampled.fspy", SampledGpuTimingTrace())});
}

TEST_F(GoldenReport, LaunchesWithoutGpuTimes) {
  Check("no_gpu_times", {Write("nogpu.fspy", NoGpuTimesTrace())});
}

// With fewer files than cores the report runs the launch-overhead analysis on a second thread,
// a chunk at a time: the answers must be those of one thread, on the golden traces below.
TEST_F(GoldenReport, ParallelAnalysesGiveTheSameReport) {
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> traces = {
      {"demo.fspy", DemoTrace()},
      {"counters.fspy", CountersTrace()},
      {"nogpu.fspy", NoGpuTimesTrace()},
      {"graphs.fspy", CudaGraphsTrace()},
      {"cpu.fspy", CpuRooflineTrace(kDataDir + "/cpu_roofline/replay/dgemm_skx.jsonl")}};
  for (const auto& [name, bytes] : traces) {
    const std::string path = Write(name, bytes);
    tools::ReportOptions serial, parallel;
    serial.parallel_analyses = false;
    parallel.parallel_analyses = true;
    const std::string one = tools::BuildJsonReport({tools::AnalyzeTrace(path, serial)}).dump(1);
    const std::string two = tools::BuildJsonReport({tools::AnalyzeTrace(path, parallel)}).dump(1);
    EXPECT_EQ(one, two) << name;
    EXPECT_GT(one.size(), 1000u) << name;
  }
}

// NVTX ranges (nesting, a range ending on another thread, one never closed) and the steps they
// mark, warm-up apart, with MFU from the model FLOPs the trace recorded.
TEST_F(GoldenReport, NvtxRangesAndSteps) {
  Check("steps", {Write("train.fspy", StepsTrace())});
}

TEST_F(GoldenReport, TruncatedTrace) {
  std::vector<uint8_t> bytes = DemoTrace();
  bytes.resize(bytes.size() - 100);
  Check("truncated", {Write("cut.fspy", bytes)});
}

// Four ranks, rank 3 a straggler: the whole run, ranks, stragglers, then each trace.
TEST_F(GoldenReport, ManyRanksWithAStraggler) {
  Check("multi_rank", {WriteRankJob(dir_.path() + "/job", false)});
}

TEST_F(GoldenReport, DiffOfTwoRuns) {
  Check("diff", {"--diff", WriteRankJob(dir_.path() + "/a", false),
                 WriteRankJob(dir_.path() + "/b", true)});
}

// Not golden: the text of traces built to be awkward (long names with and without spaces, huge
// shapes and counts, another GPU model beside the H100, a diff between them) fits 100 columns.
TEST_F(GoldenReport, EveryLineFitsAHundredColumnsUnderStress) {
  const std::string stress = Write("stress.fspy", StressTrace());
  std::filesystem::create_directories(dir_.path() + "/mixed");
  WriteFile(dir_.path() + "/mixed/h100.fspy", DemoTrace(4242, 0));
  WriteFile(dir_.path() + "/mixed/a100.fspy", StressTrace());
  WriteFile(dir_.path() + "/empty.fspy", {});
  const std::vector<std::vector<std::string>> runs = {
      {stress},
      {dir_.path() + "/mixed"},
      {"--diff", stress, Write("demo.fspy", DemoTrace())},
      {dir_.path() + "/empty.fspy", stress},
  };
  for (const auto& args : runs) {
    std::vector<std::string> argv = {kReport, "--color", "never"};
    argv.insert(argv.end(), args.begin(), args.end());
    const ChildResult r = RunChild(argv, options_);
    ASSERT_EQ(r.exit_code, 0) << args[0] << "\n" << r.err;
    EXPECT_NE(r.out.find("\n"), std::string::npos);
    for (const std::string& line : WideLines(r.out)) ADD_FAILURE() << args[0] << ": " << line;
  }
}

}  // namespace
}  // namespace flopspy::testing
