// GPU ceilings results: reduction to the ceilings-file entry (best per path and level), nominal
// figures and percentages in the table, the JSON of a run, and saving an entry into a file that
// other devices and drivers share.
#include "flopspy/gpu_roofline/ceilings_results.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "flopspy/gpu_roofline/device_table.h"

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
using analyzers::MemoryLevel;
using analyzers::RoofSource;

DeviceProperties H200() {
  DeviceProperties p;
  p.name = "NVIDIA H200";
  p.cc_major = 9;
  p.cc_minor = 0;
  p.sm_count = 132;
  p.l2_bytes = 60u << 20;
  p.total_memory_bytes = 150'000'000'000ull;
  p.uuid = "GPU-11111111-2222-3333-4444-555555555555";
  p.driver_version = "580.159.03";
  return p;
}

GpuBenchResult Flops(std::string id, ComputePath path, double flops_per_s, std::string name) {
  GpuBenchResult r;
  r.id = std::move(id);
  r.name = std::move(name);
  r.path = path;
  r.work = flops_per_s * 0.01;        // 10 ms at that rate ...
  r.seconds = {0.0125, 0.01, 0.011};  // ... is the best of three
  return r;
}

GpuBenchResult Bytes(std::string id, MemoryLevel level, double bytes_per_s, std::string name) {
  GpuBenchResult r;
  r.id = std::move(id);
  r.name = std::move(name);
  r.level = level;
  r.work = bytes_per_s * 0.002;
  r.seconds = {0.002, 0.0021};
  return r;
}

GpuBenchResult Skipped(std::string id, ComputePath path, std::string why) {
  GpuBenchResult r;
  r.id = std::move(id);
  r.name = r.id;
  r.path = path;
  r.skipped = std::move(why);
  return r;
}

GpuCeilingsRun SampleRun() {
  GpuCeilingsRun run;
  run.device = H200();
  run.sm_clock_mhz = 1980;
  run.results = {
      Flops("fma_fp32", ComputePath::kFp32, 60e12, "fp32 FMA chains, 8 per thread"),
      Flops("gemm_fp32", ComputePath::kFp32, 50e12, "cublasLt fp32 8192x8192x8192 TN"),
      Flops("gemm_bf16", ComputePath::kBf16Tensor, 750e12, "cublasLt bf16 8192x8192x8192 TN"),
      Flops("gemm_int8", ComputePath::kInt8Tensor, 1400e12, "cublasLt int8 8192x8192x8192 TN"),
      Flops("gemm_fp16_fp16acc", ComputePath::kFp16TensorHalfAcc, 700e12, "cublasLt fp16"),
      Bytes("copy_dram", MemoryLevel::kDram, 4.0e12, "device-to-device copy"),
      Bytes("read_dram", MemoryLevel::kDram, 4.3e12, "read-only kernel"),
      Bytes("read_l2", MemoryLevel::kL2, 11e12, "read-only kernel over half the L2"),
      Skipped("gemm_fp64", ComputePath::kFp64Tensor, "cuBLASLt offers no algorithm"),
  };
  return run;
}

TEST(GpuBenchResult, RatesFromWorkAndTimes) {
  const GpuBenchResult r = Flops("fma_fp32", ComputePath::kFp32, 60e12, "x");
  EXPECT_TRUE(r.Measured());
  EXPECT_DOUBLE_EQ(r.BestRate(), 60e12);
  EXPECT_DOUBLE_EQ(r.MedianRate(), 60e12 * 0.01 / 0.011);
  const GpuBenchResult s = Skipped("gemm_fp8", ComputePath::kFp8Tensor, "needs 8.9");
  EXPECT_FALSE(s.Measured());
  EXPECT_EQ(s.BestRate(), 0);
  GpuBenchResult no_time = r;
  no_time.seconds = {0, -1};
  EXPECT_FALSE(no_time.Measured());
}

TEST(CeilingsFromRun, BestRatePerPathAndLevelWithItsMethod) {
  const MeasuredCeilings c =
      CeilingsFromRun(SampleRun(), "2026-01-02T03:04:05Z", "flopspy ceilings 0.1.0", "unknown");
  EXPECT_EQ(c.uuid, "GPU-11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(c.driver_version, "580.159.03");
  EXPECT_EQ(c.name, "NVIDIA H200");
  EXPECT_EQ(c.measured_at, "2026-01-02T03:04:05Z");
  EXPECT_EQ(c.sm_clock_mhz, 1980);
  // The FMA chains beat the SGEMM on the fp32 path; the read-only kernel beats the copy.
  ASSERT_TRUE(c.flops.count(ComputePath::kFp32));
  EXPECT_DOUBLE_EQ(c.flops.at(ComputePath::kFp32).value, 60e12);
  EXPECT_EQ(c.flops.at(ComputePath::kFp32).method, "fp32 FMA chains, 8 per thread");
  EXPECT_DOUBLE_EQ(c.flops.at(ComputePath::kBf16Tensor).value, 750e12);
  EXPECT_DOUBLE_EQ(c.bandwidth.at(MemoryLevel::kDram).value, 4.3e12);
  EXPECT_EQ(c.bandwidth.at(MemoryLevel::kDram).method, "read-only kernel");
  EXPECT_DOUBLE_EQ(c.bandwidth.at(MemoryLevel::kL2).value, 11e12);
  // Skipped benchmarks leave no value.
  EXPECT_FALSE(c.flops.count(ComputePath::kFp64Tensor));
  EXPECT_EQ(c.flops.size(), 4u);

  GpuCeilingsRun no_driver = SampleRun();
  no_driver.device.driver_version.clear();
  EXPECT_EQ(CeilingsFromRun(no_driver, "", "", "unknown").driver_version, "unknown");
}

TEST(NominalFor, DatasheetFiguresWithTheFallbackChain) {
  const analyzers::DeviceRoofs roofs = RoofsForDevice(H200());
  ASSERT_EQ(roofs.table_key, "h200-sxm");
  const GpuCeilingsRun run = SampleRun();
  auto nominal = NominalFor(run.results[0], roofs);  // fma_fp32
  ASSERT_TRUE(nominal.has_value());
  EXPECT_DOUBLE_EQ(nominal->value, 67e12);
  EXPECT_EQ(nominal->source, RoofSource::kDatasheet);
  EXPECT_EQ(nominal->what, "fp32");
  // FP16 with FP16 accumulate has no figure of its own on an H200: FP16 tensor's.
  nominal = NominalFor(run.results[4], roofs);
  ASSERT_TRUE(nominal.has_value());
  EXPECT_DOUBLE_EQ(nominal->value, 989.5e12);
  EXPECT_EQ(nominal->what, "fp16_tensor (fallback for fp16_tensor_fp16acc)");
  nominal = NominalFor(run.results[5], roofs);  // copy_dram
  ASSERT_TRUE(nominal.has_value());
  EXPECT_DOUBLE_EQ(nominal->value, 4800e9);
  // NVIDIA publishes no L2 bandwidth for Hopper.
  EXPECT_FALSE(NominalFor(run.results[7], roofs).has_value());
}

TEST(FormatRate, UnitsPerKind) {
  const GpuCeilingsRun run = SampleRun();
  EXPECT_EQ(FormatRate(run.results[0], 60e12), "60.00 TFLOP/s");
  EXPECT_EQ(FormatRate(run.results[0], 250e9), "250.0 GFLOP/s");
  EXPECT_EQ(FormatRate(run.results[3], 1400e12), "1400.00 TOP/s");  // int8 counts operations
  EXPECT_EQ(FormatRate(run.results[5], 4.0e12), "4000 GB/s");
}

TEST(FormatGpuCeilingsTable, MeasuredBesideNominalWithPercent) {
  GpuCeilingsRun run = SampleRun();
  run.notes.push_back("cuBLASLt 130000 from libcublasLt.so.13");
  const std::string table = FormatGpuCeilingsTable(run, RoofsForDevice(run.device));
  EXPECT_NE(table.find("GPU 0: NVIDIA H200, sm_90, 132 SMs, GPU-11111111"), std::string::npos)
      << table;
  EXPECT_NE(table.find("device table entry h200-sxm"), std::string::npos);
  EXPECT_NE(table.find("SM clock during the FP32 FMA run: 1980 MHz (nominal boost 1980 MHz)"),
            std::string::npos);
  // fp32: 60 of 67 TFLOP/s = 89.6%; bf16: 750 of 989.5 = 75.8%; copy: 4000 of 4800 GB/s = 83.3%.
  EXPECT_NE(table.find("67.00 TFLOP/s (datasheet)"), std::string::npos) << table;
  EXPECT_NE(table.find("89.6%"), std::string::npos) << table;
  EXPECT_NE(table.find("75.8%"), std::string::npos) << table;
  EXPECT_NE(table.find("83.3%"), std::string::npos) << table;
  EXPECT_NE(table.find("skipped: cuBLASLt offers no algorithm"), std::string::npos) << table;
  EXPECT_NE(table.find("note: cuBLASLt 130000"), std::string::npos);
  // The L2 row has no nominal figure to compare with.
  const size_t l2 = table.find("read_l2");
  ASSERT_NE(l2, std::string::npos);
  EXPECT_NE(table.substr(l2, table.find('\n', l2) - l2).find("none"), std::string::npos);
}

TEST(GpuCeilingsRunJson, EveryResultWithRatesAndNominals) {
  const GpuCeilingsRun run = SampleRun();
  const auto roofs = RoofsForDevice(run.device);
  const MeasuredCeilings entry = CeilingsFromRun(run, "2026-01-02T03:04:05Z", "t", "unknown");
  const auto j = nlohmann::json::parse(GpuCeilingsRunJson(run, roofs, entry, "/tmp/x.json"));
  EXPECT_EQ(j.at("format"), "flopspy-gpu-ceilings-run");
  EXPECT_EQ(j.at("device").at("uuid"), run.device.uuid);
  EXPECT_EQ(j.at("device").at("table_key"), "h200-sxm");
  EXPECT_EQ(j.at("saved_to"), "/tmp/x.json");
  ASSERT_EQ(j.at("results").size(), run.results.size());
  const auto& fp32 = j.at("results").at(0);
  EXPECT_EQ(fp32.at("id"), "fma_fp32");
  EXPECT_EQ(fp32.at("kind"), "flops");
  EXPECT_EQ(fp32.at("path"), "fp32");
  EXPECT_EQ(fp32.at("repetitions"), 3);
  EXPECT_DOUBLE_EQ(fp32.at("best_rate").get<double>(), 60e12);
  EXPECT_DOUBLE_EQ(fp32.at("nominal").get<double>(), 67e12);
  EXPECT_EQ(fp32.at("nominal_source"), "datasheet");
  EXPECT_NEAR(fp32.at("fraction_of_nominal").get<double>(), 60.0 / 67.0, 1e-12);
  const auto& copy = j.at("results").at(5);
  EXPECT_EQ(copy.at("kind"), "bandwidth");
  EXPECT_EQ(copy.at("level"), "dram");
  const auto& skipped = j.at("results").at(8);
  EXPECT_EQ(skipped.at("skipped"), "cuBLASLt offers no algorithm");
  EXPECT_FALSE(skipped.contains("best_rate"));
  // The entry, as the ceilings file holds it.
  EXPECT_EQ(j.at("ceilings").at("uuid"), run.device.uuid);
  EXPECT_DOUBLE_EQ(j.at("ceilings").at("flops").at("bf16_tensor").at("value").get<double>(),
                   750e12);
}

class SaveCeilingsEntryTest : public ::testing::Test {
 protected:
  static constexpr platform::Destination kCache = platform::Destination::kPrivateCache;
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("flopspy_ceilings_entry_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path() const { return (dir_ / "sub" / "gpu-ceilings.json").string(); }

  static MeasuredCeilings Entry(std::string uuid, std::string driver, double bf16) {
    MeasuredCeilings c;
    c.uuid = std::move(uuid);
    c.driver_version = std::move(driver);
    c.flops[ComputePath::kBf16Tensor] = MeasuredValue{bf16, "cublasLt bf16"};
    return c;
  }

  std::filesystem::path dir_;
};

TEST_F(SaveCeilingsEntryTest, ANewFileInNewFolders) {
  std::string note, error;
  ASSERT_TRUE(SaveCeilingsEntry(Path(), Entry("GPU-a", "580.1", 7e14), kCache, &note, &error))
      << error;
  EXPECT_TRUE(note.empty());
  const CeilingsLoad load = LoadCeilingsFile(Path());
  ASSERT_TRUE(load.file.has_value()) << load.error;
  ASSERT_EQ(load.file->devices.size(), 1u);
  EXPECT_DOUBLE_EQ(load.file->devices[0].flops.at(ComputePath::kBf16Tensor).value, 7e14);
}

TEST_F(SaveCeilingsEntryTest, ARerunReplacesOnlyItsOwnEntry) {
  std::string note, error;
  ASSERT_TRUE(SaveCeilingsEntry(Path(), Entry("GPU-a", "580.1", 7e14), kCache, &note, &error));
  ASSERT_TRUE(SaveCeilingsEntry(Path(), Entry("GPU-b", "580.1", 6e14), kCache, &note, &error));
  ASSERT_TRUE(SaveCeilingsEntry(Path(), Entry("GPU-a", "590.2", 7.5e14), kCache, &note, &error));
  ASSERT_TRUE(SaveCeilingsEntry(Path(), Entry("GPU-a", "580.1", 7.2e14), kCache, &note, &error));
  const CeilingsLoad load = LoadCeilingsFile(Path());
  ASSERT_TRUE(load.file.has_value()) << load.error;
  ASSERT_EQ(load.file->devices.size(), 3u);
  const auto value = [&](const char* uuid, const char* driver) {
    const MeasuredCeilings* c = FindCeilings(*load.file, uuid, driver);
    return c ? c->flops.at(ComputePath::kBf16Tensor).value : 0.0;
  };
  EXPECT_DOUBLE_EQ(value("GPU-a", "580.1"), 7.2e14);  // replaced
  EXPECT_DOUBLE_EQ(value("GPU-b", "580.1"), 6e14);    // another device: kept
  EXPECT_DOUBLE_EQ(value("GPU-a", "590.2"), 7.5e14);  // another driver: kept
}

TEST_F(SaveCeilingsEntryTest, AnUnreadableFileIsKeptAside) {
  std::filesystem::create_directories(dir_ / "sub");
  std::ofstream(Path()) << "{ not json";
  std::string note, error;
  ASSERT_TRUE(SaveCeilingsEntry(Path(), Entry("GPU-a", "580.1", 7e14), kCache, &note, &error))
      << error;
  EXPECT_NE(note.find("not valid JSON"), std::string::npos) << note;
  EXPECT_NE(note.find(".unreadable"), std::string::npos) << note;
  std::ifstream aside(Path() + ".unreadable");
  std::string kept((std::istreambuf_iterator<char>(aside)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "{ not json");
  EXPECT_TRUE(LoadCeilingsFile(Path()).file.has_value());
}

TEST_F(SaveCeilingsEntryTest, ALinkPlantedInTheCacheIsReplacedNeverReadOrFollowed) {
  std::filesystem::create_directories(dir_ / "sub");
  const std::string victim = (dir_ / "victim").string();
  std::ofstream(victim) << "victim's data";
  std::filesystem::create_symlink(victim, Path());
  std::string note, error;
  ASSERT_TRUE(SaveCeilingsEntry(Path(), Entry("GPU-a", "580.1", 7e14), kCache, &note, &error))
      << error;
  EXPECT_TRUE(note.empty()) << "the link's target was read: " << note;
  std::ifstream in(victim);
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "victim's data");
  EXPECT_FALSE(std::filesystem::is_symlink(Path()));
  EXPECT_TRUE(LoadCeilingsFile(Path()).file.has_value());
}

TEST_F(SaveCeilingsEntryTest, AFolderThatCannotBeMadeIsAnError) {
  std::filesystem::create_directories(dir_);
  std::ofstream((dir_ / "sub").string()) << "a file, not a folder";
  std::string note, error;
  EXPECT_FALSE(SaveCeilingsEntry(Path(), Entry("GPU-a", "580.1", 7e14), kCache, &note, &error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace flopspy::gpuroof
