// `flopspy ceilings` from the outside: the CPU ceilings measured here (no PMU needed), saved at
// the path flopspy-report reads for this CPU model and used by it for a trace's CPU roofline,
// drawn as SVG; and the GPU half saying clearly that there is no device.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ceilings_fake_gpu.h"
#include "subprocess.h"
#include "test_programs.h"
#include "trace_builder.h"

namespace flopspy::testing {
namespace {

using nlohmann::json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The best GFLOP/s of a precision on `threads` threads (0: the all-core runs).
double Peak(const json& c, const std::string& precision, int threads) {
  const int want = threads == 0 ? c.at("threads_all").get<int>() : threads;
  double best = 0;
  for (const json& f : c.at("flops")) {
    if (f.at("precision") == precision && f.at("threads") == want) {
      best = std::max(best, f.at("gflops").get<double>());
    }
  }
  return best;
}

// The best bandwidth of a level on one thread, any kernel.
double Bandwidth(const json& c, const std::string& level) {
  double best = 0;
  for (const json& b : c.at("bandwidth")) {
    if (b.at("level") == level && b.at("threads") == 1) {
      best = std::max(best, b.at("gbytes_per_s").get<double>());
    }
  }
  return best;
}

// The checks of one quick CPU run (about 5 s; one run for all of them, since every test runs in
// a process of its own). `c` is what `--json` printed.
void ExpectPositivePeaksPerCoreAndForAllCores(const json& c) {
  EXPECT_EQ(c.at("kind"), "flopspy-cpu-ceilings");
  EXPECT_TRUE(c.at("quick").get<bool>());
  for (const char* precision : {"dp", "sp"}) {
    EXPECT_GT(Peak(c, precision, 1), 0) << precision;
    EXPECT_GT(Peak(c, precision, 0), 0) << precision;
  }
  bool scalar = false;
  for (const json& f : c.at("flops")) scalar = scalar || f.at("isa") == "scalar";
  EXPECT_TRUE(scalar);  // the scalar FMA chains run on every CPU
}

void ExpectL1FasterThanDram(const json& c) {
  const double l1 = Bandwidth(c, "L1"), dram = Bandwidth(c, "DRAM");
  EXPECT_GT(dram, 0);
  EXPECT_GT(l1, dram) << "L1 " << l1 << " GB/s, DRAM " << dram << " GB/s";
}

// A measured peak well above what the core can do means a wrong FLOP count. The theoretical
// figure is at the nominal clock and turbo legitimately beats it (about 1.4x on the Zen 4 VM of
// docs/cpu-roofline.md), so the bound is 1.2x the peak at the highest clock the CPU publishes, or
// 1.2 x 1.5 x the nominal-clock peak where it publishes none: a doubled FLOP count fails either.
void ExpectPeaksBelowTheoretical(const json& c) {
  const json& t = c.at("theoretical");
  const double nominal = t.at("nominal_ghz").get<double>();
  const double max = t.at("max_ghz").get<double>();
  const double clock_ratio = max > 0 && nominal > 0 ? max / nominal : 1.5;
  int compared = 0;
  for (const json& f : c.at("flops")) {
    const double theoretical = f.at("theoretical_gflops").get<double>();
    if (!(theoretical > 0)) continue;
    ++compared;
    EXPECT_LE(f.at("gflops").get<double>(), 1.2 * clock_ratio * theoretical)
        << f.dump() << " nominal " << nominal << " GHz, max " << max << " GHz";
  }
  EXPECT_GT(compared, 0) << "no theoretical peak for this CPU";
}

void ExpectSavedWhereTheReportLooks(const json& c, const std::string& cache_home) {
  const std::string key = c.at("cpu_key");
  ASSERT_FALSE(key.empty());
  const std::string saved = cache_home + "/flopspy/ceilings-cpu-" + key + ".json";
  ASSERT_TRUE(std::filesystem::exists(saved));
  EXPECT_EQ(json::parse(ReadFile(saved)), c);
}

void ExpectSvgOfTheRoofs(const std::string& path) {
  const std::string svg = ReadFile(path);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 200);
  EXPECT_NE(svg.find("DRAM"), std::string::npos);
  EXPECT_NE(svg.find("FP64"), std::string::npos);
}

// A trace taken on this CPU model gets the measured roofs in its CPU roofline.
void ExpectTheReportUsesThem(const json& c, const std::string& cache_home) {
  TraceBuilder b;
  b.Metadata(json{{"cpu_roofline", {{"capabilities", {{"cpu_key", c.at("cpu_key")}}}}}}.dump());
  trace::CpuSampleRecord sample{};
  sample.scope = static_cast<uint8_t>(trace::CpuSampleScope::kRun);
  sample.begin_ns = 1'000'000'000;
  sample.end_ns = 2'000'000'000;
  sample.valid = trace::kCpuFlopsDp | trace::kCpuBytesAny;
  sample.flops_dp = 1e9;
  sample.bytes_any = 1e9;
  sample.running_fraction = 1;
  b.Chunk(trace::ChunkSource::kCpuSampler).Add(sample);
  const std::string trace_path = cache_home + "/cpu.fspy";
  b.WriteTo(trace_path);

  ChildOptions options;
  options.env["XDG_CACHE_HOME"] = cache_home;
  const auto r = RunChild({kReport, "--json", trace_path}, options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out;
  const json& roofline = report.at("traces").at(0).at("cpu_roofline");
  const double peak = Peak(c, "dp", 0) * 1e9;  // the report speaks FLOP/s
  bool measured_fp64 = false;
  for (const json& roof : roofline.at("roofs")) {
    if (roof.at("source") == "measured" && roof.at("level") == "fp64") {
      measured_fp64 = true;
      EXPECT_NEAR(roof.at("value").get<double>(), peak, 1e-6 * peak);
    }
  }
  EXPECT_TRUE(measured_fp64) << roofline.dump(1);
}

TEST(CpuCeilingsCommand, MeasuresSavesDrawsAndFeedsTheReport) {
  TempDir dir;
  ChildOptions options;
  options.env["XDG_CACHE_HOME"] = dir.path();  // where the default path goes, privately
  options.timeout = std::chrono::milliseconds(120000);
  const std::string svg = dir.path() + "/roofs.svg";
  const auto r =
      RunChild({kLauncher, "ceilings", "--cpu", "--quick", "--json", "--svg", svg}, options);
  ASSERT_TRUE(r.exited) << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json c = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(c.is_object()) << r.out;
  {
    SCOPED_TRACE("peaks");
    ExpectPositivePeaksPerCoreAndForAllCores(c);
  }
  {
    SCOPED_TRACE("bandwidth");
    ExpectL1FasterThanDram(c);
  }
  {
    SCOPED_TRACE("theoretical");
    ExpectPeaksBelowTheoretical(c);
  }
  {
    SCOPED_TRACE("saved");
    ExpectSavedWhereTheReportLooks(c, dir.path());
  }
  {
    SCOPED_TRACE("svg");
    ExpectSvgOfTheRoofs(svg);
  }
  {
    SCOPED_TRACE("report");
    ExpectTheReportUsesThem(c, dir.path());
  }
}

// A cudaMemcpyAsync's DMA runs after the call returned, where the sampler cannot see it: the
// report flags the CPU points that CUPTI's copy records overlap, and only those.
TEST(CpuRooflineReport, PointsDuringTheGpusHostCopiesAreFlagged) {
  TraceBuilder b;
  auto interval = [](uint64_t begin_ms) {
    trace::CpuSampleRecord s{};
    s.scope = static_cast<uint8_t>(trace::CpuSampleScope::kInterval);
    s.begin_ns = begin_ms * 1'000'000;
    s.end_ns = (begin_ms + 100) * 1'000'000;
    s.valid = trace::kCpuFlopsDp | trace::kCpuBytesAny;
    s.flops_dp = 1e9;
    s.bytes_any = 1e9;
    s.running_fraction = 1;
    return s;
  };
  b.Chunk(trace::ChunkSource::kCpuSampler).Add(interval(1000)).Add(interval(1100));
  trace::GpuActivityRecord copy{};
  copy.kind = static_cast<uint8_t>(trace::GpuActivityKind::kMemcpy);
  copy.copy_kind = static_cast<uint8_t>(trace::CopyKind::kHostToDevice);
  copy.start_ns = 1'150'000'000;  // inside the second interval only
  copy.end_ns = 1'160'000'000;
  copy.bytes = 1 << 30;
  trace::GpuActivityRecord on_device = copy;  // device to device: no host DRAM traffic
  on_device.copy_kind = static_cast<uint8_t>(trace::CopyKind::kDeviceToDevice);
  on_device.start_ns = 1'050'000'000;
  on_device.end_ns = 1'060'000'000;
  b.Chunk(trace::ChunkSource::kGpuActivity).Add(copy).Add(on_device);
  const std::string path = ::testing::TempDir() + "/flopspy-copy-overlap.fspy";
  b.WriteTo(path);

  const auto r = RunChild({kReport, "--json", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out;
  const json& points = report.at("traces").at(0).at("cpu_roofline").at("points");
  ASSERT_EQ(points.size(), 2u) << points.dump(1);
  auto flagged = [](const json& p) {
    for (const json& f : p.at("flags")) {
      if (f == "overlaps_gpu_copies") return true;
    }
    return false;
  };
  EXPECT_FALSE(flagged(points.at(0))) << points.dump(1);
  EXPECT_TRUE(flagged(points.at(1))) << points.dump(1);
}

TEST(GpuCeilingsCommand, WithoutADeviceSaysSoAndFails) {
  TempDir dir;
  ChildOptions options;
  options.env["CUDA_VISIBLE_DEVICES"] = "";  // hides any GPU this machine may have
  options.env["XDG_CACHE_HOME"] = dir.path();
  const auto r = RunChild({kLauncher, "ceilings", "--gpu"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("flopspy ceilings --gpu: no CUDA device"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/flopspy/gpu-ceilings.json"));
}

#ifdef FLOPSPY_FAKE_GPU_DIR
// The GPU half on a simulated device (ceilings_fake_gpu.h): every benchmark must come back at
// exactly the rate the simulation ran it at, which holds only if flopspy launched each kernel with
// the arguments it meant, timed it right and counted its FLOPs or bytes right.
class SimulatedGpu : public ::testing::Test {
 protected:
  ChildResult Run(const std::vector<std::string>& args) {
    ChildOptions options;
    options.env["LD_LIBRARY_PATH"] = FLOPSPY_FAKE_GPU_DIR;
    options.env["XDG_CACHE_HOME"] = dir_.path();
    options.unset.push_back("FLOPSPY_CEILINGS");
    std::vector<std::string> argv{kLauncher, "ceilings", "--gpu", "--quick"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunChild(argv, options);
  }
  TempDir dir_;
};

const json* Result(const json& run, const std::string& id) {
  for (const json& r : run.at("results")) {
    if (r.at("id") == id) return &r;
  }
  return nullptr;
}

TEST_F(SimulatedGpu, EveryBenchmarkComesBackAtItsSimulatedRate) {
  namespace fg = fakegpu;
  const auto r = Run({"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json run = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(run.is_object()) << r.out;
  EXPECT_EQ(run.at("device").at("uuid"), fg::kUuid);
  EXPECT_EQ(run.at("device").at("table_key"), "a100-sxm4-80gb");
  EXPECT_NEAR(run.at("sm_clock_mhz").get<double>(), fg::kClockHz / 1e6, 0.01);
  const std::pair<const char*, double> expected[] = {{"fma_fp32", fg::kFp32},
                                                     {"fma_fp64", fg::kFp64},
                                                     {"fma_fp16", fg::kFp16},
                                                     {"fma_bf16", fg::kBf16},
                                                     {"copy_dram", fg::kCopy},
                                                     {"read_dram", fg::kDramRead},
                                                     {"read_l2", fg::kL2Read},
                                                     {"gemm_fp16", fg::kGemmFp16},
                                                     {"gemm_fp16_fp16acc", fg::kGemmFp16Acc},
                                                     {"gemm_bf16", fg::kGemmBf16},
                                                     {"gemm_tf32", fg::kGemmTf32},
                                                     {"gemm_int8", fg::kGemmInt8},
                                                     {"gemm_fp32", fg::kGemmFp32},
                                                     {"gemm_fp64", fg::kGemmFp64}};
  for (const auto& [id, rate] : expected) {
    const json* result = Result(run, id);
    ASSERT_NE(result, nullptr) << id;
    ASSERT_FALSE(result->contains("skipped")) << result->dump();
    EXPECT_NEAR(result->at("best_rate").get<double>(), rate, 1e-5 * rate) << id;
    EXPECT_GE(result->at("repetitions").get<int>(), 3) << id;
  }
  // An A100 has no FP8 tensor cores: skipped, and said why.
  const json* fp8 = Result(run, "gemm_fp8");
  ASSERT_NE(fp8, nullptr);
  EXPECT_NE(fp8->value("skipped", "").find("compute capability 8.9"), std::string::npos);
  // Against the A100 datasheet: FP32 19.5 TFLOP/s, 2039 GB/s.
  EXPECT_NEAR(Result(run, "fma_fp32")->at("fraction_of_nominal").get<double>(), fg::kFp32 / 19.5e12,
              1e-5);
  EXPECT_NEAR(Result(run, "copy_dram")->at("fraction_of_nominal").get<double>(), fg::kCopy / 2039e9,
              1e-5);
  // The ceilings: best per path and level; an A100's FP64 GEMM runs on its tensor cores.
  const json& c = run.at("ceilings");
  EXPECT_NEAR(c.at("flops").at("fp32").at("value").get<double>(), fg::kFp32, 1e-5 * fg::kFp32);
  EXPECT_NE(c.at("flops").at("fp32").at("method").get<std::string>().find("FMA chains"),
            std::string::npos);
  EXPECT_TRUE(c.at("flops").contains("fp64_tensor"));
  EXPECT_NEAR(c.at("bandwidth").at("dram").at("value").get<double>(), fg::kDramRead,
              1e-5 * fg::kDramRead);
  EXPECT_FALSE(c.at("flops").contains("fp8_tensor"));
}

TEST_F(SimulatedGpu, SavesWhereTheReportLooksKeyedByDevice) {
  const auto r = Run({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string path = dir_.path() + "/flopspy/gpu-ceilings.json";
  EXPECT_NE(r.out.find("saved to " + path), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fma_fp32"), std::string::npos);
  EXPECT_NE(r.out.find("(datasheet)"), std::string::npos);
  // A second run replaces its own entry and nothing else.
  ASSERT_EQ(Run({}).exit_code, 0);
  const json file = json::parse(ReadFile(path), nullptr, false);
  ASSERT_TRUE(file.is_object()) << ReadFile(path);
  EXPECT_EQ(file.at("format"), "flopspy-gpu-ceilings");
  ASSERT_EQ(file.at("devices").size(), 1u);
  const json& entry = file.at("devices").at(0);
  EXPECT_EQ(entry.at("uuid"), fakegpu::kUuid);
  // No /proc/driver/nvidia/version on the fake: the report finds the entry by UUID alone.
  EXPECT_EQ(entry.at("driver_version"), "unknown");
  EXPECT_TRUE(entry.at("flops").contains("bf16_tensor"));
}

// The cache is the user's private folder: one that is a link (planted where ~/.cache or
// /tmp/flopspy is shared) is refused, and nothing is written where it points.
TEST_F(SimulatedGpu, ACacheFolderThatIsALinkIsRefused) {
  const std::string elsewhere = dir_.path() + "/elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::filesystem::create_directory_symlink(elsewhere, dir_.path() + "/flopspy");
  const auto r = Run({});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not saved: " + dir_.path() + "/flopspy is a link"), std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
}

// Whatever is at the cache's name is replaced by a new file, never read or written through: a
// FIFO there would block the command for ever.
TEST_F(SimulatedGpu, AFifoAtTheCacheIsReplacedWithoutBeingOpened) {
  std::filesystem::create_directories(dir_.path() + "/flopspy");
  const std::string path = dir_.path() + "/flopspy/gpu-ceilings.json";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const auto r = Run({});
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(path));
  EXPECT_TRUE(json::parse(ReadFile(path), nullptr, false).is_object());
}

TEST_F(SimulatedGpu, AnotherDeviceIndexIsRefused) {
  const auto r = Run({"--device", "3"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no CUDA device 3: the driver sees 1"), std::string::npos) << r.err;
}
#endif

TEST(CpuCeilingsCommand, ACacheFolderThatIsALinkIsRefused) {
  TempDir dir;
  const std::string elsewhere = dir.path() + "/elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::filesystem::create_directory_symlink(elsewhere, dir.path() + "/flopspy");
  ChildOptions options;
  options.env["XDG_CACHE_HOME"] = dir.path();
  options.timeout = std::chrono::milliseconds(120000);
  const auto r = RunChild({kLauncher, "ceilings", "--cpu", "--quick"}, options);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not saved: " + dir.path() + "/flopspy is a link"), std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
}

// Neither --cpu nor --gpu: both, and a missing GPU is a remark, not a failure.
TEST(CeilingsCommand, WithoutFlagsMeasuresWhatThereIs) {
  TempDir dir;
  ChildOptions options;
  options.env["CUDA_VISIBLE_DEVICES"] = "";
  options.env["XDG_CACHE_HOME"] = dir.path();
  options.timeout = std::chrono::milliseconds(120000);
  const auto r = RunChild({kLauncher, "ceilings", "--quick", "--no-save"}, options);
  ASSERT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CPU ceilings"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("GPU skipped: no CUDA device"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/flopspy"));  // --no-save
}

TEST(CeilingsCommand, RejectsOptionsThatDoNotFit) {
  const auto both = RunChild({kLauncher, "ceilings", "-o", "/tmp/x.json"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("-o names one file"), std::string::npos) << both.err;
  const auto svg = RunChild({kLauncher, "ceilings", "--gpu", "--svg", "/tmp/x.svg"});
  EXPECT_EQ(svg.exit_code, 2);
  EXPECT_NE(svg.err.find("--svg draws the CPU roofs"), std::string::npos) << svg.err;
  const auto device = RunChild({kLauncher, "ceilings", "--gpu", "--device", "-1"});
  EXPECT_EQ(device.exit_code, 2) << device.err;
}

}  // namespace
}  // namespace flopspy::testing
