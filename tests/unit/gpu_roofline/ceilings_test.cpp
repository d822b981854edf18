// The measured-ceilings file: parsing, writing, keys, and merging into roofs so that measured
// roofs are preferred while the datasheet figures stay beside them.
#include "flopspy/gpu_roofline/ceilings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "flopspy/gpu_roofline/device_table.h"

namespace flopspy::gpuroof {
namespace {

using analyzers::ComputePath;
using analyzers::MemoryLevel;
using analyzers::RoofPreference;
using analyzers::RoofSource;
using P = ComputePath;

// The example of docs/gpu-peaks.md, "Measured ceilings file".
constexpr const char* kExample = R"({
  "format": "flopspy-gpu-ceilings",
  "version": 1,
  "devices": [
    {
      "uuid": "GPU-3f1c2a9e-0000-4000-8000-000000000001",
      "driver_version": "580.159.03",
      "name": "NVIDIA H200",
      "measured_at": "2026-10-28T12:00:00Z",
      "tool": "flopspy ceilings 0.1.0",
      "sm_clock_mhz": 1980,
      "flops": {
        "bf16_tensor": {"value": 7.88e14, "method": "cublasLt bf16 8192x8192x8192"},
        "fp32": {"value": 5.9e13, "method": "FFMA loop"}
      },
      "bandwidth": {
        "dram": {"value": 4.3e12, "method": "device-to-device copy, bytes read + written"}
      }
    }
  ]
})";

MeasuredCeilings H200Ceilings() {
  MeasuredCeilings c;
  c.uuid = "GPU-3f1c2a9e-0000-4000-8000-000000000001";
  c.driver_version = "580.159.03";
  c.name = "NVIDIA H200";
  c.measured_at = "2026-10-28T12:00:00Z";
  c.tool = "flopspy ceilings 0.1.0";
  c.sm_clock_mhz = 1980;
  c.flops[P::kBf16Tensor] = {7.88e14, "cublasLt bf16 8192x8192x8192"};
  c.flops[P::kFp32] = {5.9e13, "FFMA loop"};
  c.bandwidth[MemoryLevel::kDram] = {4.3e12, "device-to-device copy, bytes read + written"};
  return c;
}

void ExpectSame(const MeasuredCeilings& a, const MeasuredCeilings& b) {
  EXPECT_EQ(a.uuid, b.uuid);
  EXPECT_EQ(a.driver_version, b.driver_version);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.measured_at, b.measured_at);
  EXPECT_EQ(a.tool, b.tool);
  EXPECT_DOUBLE_EQ(a.sm_clock_mhz, b.sm_clock_mhz);
  ASSERT_EQ(a.flops.size(), b.flops.size());
  for (const auto& [path, v] : a.flops) {
    ASSERT_TRUE(b.flops.count(path));
    EXPECT_DOUBLE_EQ(v.value, b.flops.at(path).value);
    EXPECT_EQ(v.method, b.flops.at(path).method);
  }
  ASSERT_EQ(a.bandwidth.size(), b.bandwidth.size());
  for (const auto& [level, v] : a.bandwidth) {
    EXPECT_DOUBLE_EQ(v.value, b.bandwidth.at(level).value);
  }
}

TEST(CeilingsFile, ParsesTheDocumentedExample) {
  const CeilingsLoad load = ParseCeilings(kExample);
  ASSERT_TRUE(load.file) << load.error;
  EXPECT_TRUE(load.warnings.empty());
  ASSERT_EQ(load.file->devices.size(), 1u);
  ExpectSame(load.file->devices[0], H200Ceilings());
}

TEST(CeilingsFile, RoundTrips) {
  CeilingsFile file;
  file.devices.push_back(H200Ceilings());
  MeasuredCeilings t4;
  t4.uuid = "GPU-t4";
  t4.driver_version = "535.104.05";
  t4.bandwidth[MemoryLevel::kL2] = {1.1e12, ""};
  file.devices.push_back(t4);
  const CeilingsLoad load = ParseCeilings(SerializeCeilings(file));
  ASSERT_TRUE(load.file) << load.error;
  ASSERT_EQ(load.file->devices.size(), 2u);
  ExpectSame(load.file->devices[0], file.devices[0]);
  ExpectSame(load.file->devices[1], file.devices[1]);
}

TEST(CeilingsFile, RefusesWhatItCannotRead) {
  EXPECT_FALSE(ParseCeilings("{not json").file);
  EXPECT_FALSE(ParseCeilings("[]").file);
  EXPECT_FALSE(ParseCeilings(R"({"format": "other", "version": 1, "devices": []})").file);
  const CeilingsLoad newer =
      ParseCeilings(R"({"format": "flopspy-gpu-ceilings", "version": 2, "devices": []})");
  EXPECT_FALSE(newer.file);
  EXPECT_NE(newer.error.find("version 2"), std::string::npos);
  EXPECT_FALSE(
      ParseCeilings(R"({"format": "flopspy-gpu-ceilings", "version": 1, "devices": {}})").file);
}

TEST(CeilingsFile, SkipsBadEntriesWithWarnings) {
  const CeilingsLoad load = ParseCeilings(R"({
    "format": "flopspy-gpu-ceilings", "version": 1,
    "devices": [
      {"driver_version": "1"},
      {"uuid": "GPU-a", "driver_version": "1",
       "flops": {"fp32": {"value": -3}, "fp7_tensor": {"value": 1e12}, "fp64": 9e12,
                 "bf16_tensor": {"value": "fast"}},
       "bandwidth": {"dram": {"value": 1e12}, "l3": {"value": 1e12}}}
    ]})");
  ASSERT_TRUE(load.file) << load.error;
  ASSERT_EQ(load.file->devices.size(), 1u);  // the one without a uuid is skipped
  const MeasuredCeilings& c = load.file->devices[0];
  ASSERT_EQ(c.flops.size(), 1u);  // only fp64 (a bare number is accepted)
  EXPECT_DOUBLE_EQ(c.flops.at(P::kFp64).value, 9e12);
  ASSERT_EQ(c.bandwidth.size(), 1u);
  EXPECT_EQ(load.warnings.size(), 5u);  // no uuid, negative, unknown path, not a number, l3
}

TEST(CeilingsFile, KeyedByUuidAndDriver) {
  CeilingsFile file;
  UpsertCeilings(file, H200Ceilings());
  MeasuredCeilings again = H200Ceilings();
  again.flops[P::kBf16Tensor].value = 7.9e14;
  UpsertCeilings(file, again);  // same key: replaced
  ASSERT_EQ(file.devices.size(), 1u);
  EXPECT_DOUBLE_EQ(file.devices[0].flops.at(P::kBf16Tensor).value, 7.9e14);

  MeasuredCeilings new_driver = H200Ceilings();
  new_driver.driver_version = "590.10";
  UpsertCeilings(file, new_driver);  // new key: added
  ASSERT_EQ(file.devices.size(), 2u);

  const std::string uuid = H200Ceilings().uuid;
  EXPECT_EQ(FindCeilings(file, uuid, "580.159.03"), &file.devices[0]);
  EXPECT_EQ(FindCeilings(file, uuid, "590.10"), &file.devices[1]);
  EXPECT_EQ(FindCeilings(file, uuid, "470.0"), nullptr);
  EXPECT_EQ(FindCeilings(file, "GPU-other", "580.159.03"), nullptr);
  EXPECT_EQ(FindCeilingsAnyDriver(file, uuid), &file.devices[1]);
  EXPECT_EQ(FindCeilingsAnyDriver(file, "GPU-other"), nullptr);
}

TEST(CeilingsFile, SavesAndLoads) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("flopspy_ceilings_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "gpu-ceilings.json").string();
  CeilingsFile file;
  file.devices.push_back(H200Ceilings());
  std::string error;
  ASSERT_TRUE(SaveCeilingsFile(path, file, platform::Destination::kUserNamed, &error)) << error;
  const CeilingsLoad load = LoadCeilingsFile(path);
  ASSERT_TRUE(load.file) << load.error;
  ExpectSame(load.file->devices.at(0), file.devices[0]);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);  // no temporary left behind

  EXPECT_FALSE(LoadCeilingsFile((dir / "missing.json").string()).file);
  std::ofstream((dir / "a-file").string()) << "not a folder";
  EXPECT_FALSE(SaveCeilingsFile((dir / "a-file" / "dir.json").string(), file,
                                platform::Destination::kUserNamed, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(LoadCeilingsFile("/dev/zero").file) << "a device is never read as ceilings";
  std::filesystem::remove_all(dir);
}

TEST(Merge, MeasuredRoofsArePreferredAndDatasheetFiguresKept) {
  DeviceProperties props;
  props.name = "NVIDIA H200";
  props.cc_major = 9;
  props.cc_minor = 0;
  analyzers::DeviceRoofs roofs = RoofsForDevice(props);
  EXPECT_EQ(MergeMeasuredCeilings(roofs, H200Ceilings()), 3);

  const analyzers::Roof& bf16 = roofs.Flops(P::kBf16Tensor);
  EXPECT_DOUBLE_EQ(bf16.nominal, 989.5e12);  // datasheet, kept
  EXPECT_EQ(bf16.nominal_source, RoofSource::kDatasheet);
  EXPECT_DOUBLE_EQ(bf16.measured, 7.88e14);
  EXPECT_EQ(bf16.Source(), RoofSource::kMeasured);
  EXPECT_DOUBLE_EQ(roofs.Bandwidth(MemoryLevel::kDram).Value(), 4.3e12);
  EXPECT_DOUBLE_EQ(roofs.Bandwidth(MemoryLevel::kDram).Value(RoofPreference::kNominalOnly), 4.8e12);
  // Ridge against the measured roofs: 7.88e14 / 4.3e12 = 183.26 FLOP/B; datasheet: 206.15.
  EXPECT_NEAR(*analyzers::RidgePoint(roofs, P::kBf16Tensor), 183.255813953, 1e-6);
  EXPECT_NEAR(*analyzers::RidgePoint(roofs, P::kBf16Tensor, MemoryLevel::kDram,
                                     RoofPreference::kNominalOnly),
              206.145833333, 1e-6);
  // A path the ceilings did not measure keeps its datasheet roof.
  EXPECT_EQ(roofs.Flops(P::kFp16Tensor).Source(), RoofSource::kDatasheet);
  ASSERT_FALSE(roofs.notes.empty());
  EXPECT_NE(roofs.notes.back().find("580.159.03"), std::string::npos);
}

TEST(Merge, MeasuredAboveNominalIsNoted) {
  analyzers::DeviceRoofs roofs = RoofsFromSpec(*FindKnownDeviceByKey("t4"));
  MeasuredCeilings c;
  c.uuid = "GPU-t4";
  c.driver_version = "1";
  c.bandwidth[MemoryLevel::kDram] = {400e9, ""};  // 125% of 320 GB/s
  c.flops[P::kFp64Tensor] = {1e12, ""};           // a path with no nominal figure
  EXPECT_EQ(MergeMeasuredCeilings(roofs, c), 2);
  bool noted = false;
  for (const auto& n : roofs.notes) noted |= n.find("125%") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(analyzers::ResolvePeak(roofs, P::kFp64Tensor)->path, P::kFp64Tensor);
  EXPECT_EQ(analyzers::ResolvePeak(roofs, P::kFp64Tensor, RoofPreference::kNominalOnly)->path,
            P::kFp64);
}

}  // namespace
}  // namespace flopspy::gpuroof
