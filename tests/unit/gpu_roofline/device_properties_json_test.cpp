// Device properties read from a trace's metadata: numbers outside a field's range are ignored
// (converting 1e300 to an int is undefined behaviour; the fuzzer's UBSan found it), numbers in
// range are read as before.
#include "flopspy/gpu_roofline/device_properties_json.h"

#include <gtest/gtest.h>

namespace flopspy::gpuroof {
namespace {

TEST(DevicePropertiesJson, ReadsNumbersInRange) {
  const auto p = DevicePropertiesFromJson(nlohmann::json::parse(
      R"({"name":"NVIDIA H100 80GB HBM3","cc_major":9,"cc_minor":0.0,"sm_count":132,)"
      R"("clock_khz":1980000.7,"l2_bytes":52428800,"total_memory_bytes":18446744073709551615,)"
      R"("uuid":"GPU-1"})"));
  EXPECT_EQ(p.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(p.cc_major, 9);
  EXPECT_EQ(p.cc_minor, 0);
  EXPECT_EQ(p.sm_count, 132);
  EXPECT_EQ(p.clock_khz, 1980000);
  EXPECT_EQ(p.l2_bytes, 52428800u);
  EXPECT_EQ(p.total_memory_bytes, UINT64_MAX);
  EXPECT_EQ(p.uuid, "GPU-1");
}

TEST(DevicePropertiesJson, IgnoresNumbersOutOfRange) {
  const auto p = DevicePropertiesFromJson(nlohmann::json::parse(
      R"({"cc_major":1e300,"cc_minor":-1e300,"sm_count":2147483648,"clock_khz":-2147483649,)"
      R"("memory_clock_khz":2147483648.0,"memory_bus_width_bits":-2147483648.0,)"
      R"("l2_bytes":-1,"total_memory_bytes":1.8446744073709552e19})"));
  EXPECT_EQ(p.cc_major, 0);
  EXPECT_EQ(p.cc_minor, 0);
  EXPECT_EQ(p.sm_count, 0);
  EXPECT_EQ(p.clock_khz, 0);
  EXPECT_EQ(p.memory_clock_khz, 0);
  EXPECT_EQ(p.memory_bus_width_bits, -2147483647 - 1);  // INT_MIN itself is in range
  EXPECT_EQ(p.l2_bytes, 0u);
  EXPECT_EQ(p.total_memory_bytes, 0u);  // 2^64 does not fit
}

TEST(DevicePropertiesJson, IgnoresOtherTypes) {
  const auto p = DevicePropertiesFromJson(
      nlohmann::json::parse(R"({"name":5,"cc_major":"9","sm_count":[132],"uuid":null})"));
  EXPECT_EQ(p.name, "");
  EXPECT_EQ(p.cc_major, 0);
  EXPECT_EQ(p.sm_count, 0);
  EXPECT_EQ(p.uuid, "");
}

}  // namespace
}  // namespace flopspy::gpuroof
