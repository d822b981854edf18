// CPU identification from FLOPSPY_CPUID strings, /proc/cpuinfo text and fake sysfs trees.
#include "flopspy/cpu_roofline/cpu_identity.h"

#include <gtest/gtest.h>

#include "flopspy/cpu_roofline/sysfs_pmu.h"
#include "test_paths.h"

namespace flopspy::cpuroof {
namespace {

TEST(CpuIdOverride, ParsesX86AndArm) {
  std::string error;
  auto spr = ParseCpuIdOverride("GenuineIntel:6:0x8F:8", &error);
  ASSERT_TRUE(spr) << error;
  EXPECT_EQ(spr->vendor, CpuVendor::kIntel);
  EXPECT_EQ(spr->family, 6u);
  EXPECT_EQ(spr->model, 0x8Fu);
  EXPECT_EQ(spr->stepping, 8u);

  auto zen = ParseCpuIdOverride("AuthenticAMD:0x19:0x11", &error);
  ASSERT_TRUE(zen) << error;
  EXPECT_EQ(zen->vendor, CpuVendor::kAmd);
  EXPECT_EQ(zen->family, 0x19u);

  auto v1 = ParseCpuIdOverride("ARM:0x41:0xd40:256", &error);
  ASSERT_TRUE(v1) << error;
  EXPECT_EQ(v1->vendor, CpuVendor::kArm);
  EXPECT_EQ(v1->arm_part, 0xd40u);
  EXPECT_EQ(v1->sve_vector_bits, 256u);
}

TEST(CpuIdOverride, RejectsBadStrings) {
  std::string error;
  EXPECT_FALSE(ParseCpuIdOverride("Cyrix:6:1", &error));
  EXPECT_NE(error.find("unknown vendor"), std::string::npos);
  EXPECT_FALSE(ParseCpuIdOverride("GenuineIntel:6", &error));
  EXPECT_FALSE(ParseCpuIdOverride("GenuineIntel:six:0x8f", &error));
  EXPECT_FALSE(ParseCpuIdOverride("ARM:0x41", &error));
}

TEST(ProcCpuinfo, ParsesTheZen4Vm) {
  auto text = ReadSmallFile(testing::DataDir() + "/proc/zen4_vm/cpuinfo");
  ASSERT_TRUE(text);
  const CpuIdentity cpu = ParseProcCpuinfo(*text);
  EXPECT_EQ(cpu.vendor, CpuVendor::kAmd);
  EXPECT_EQ(cpu.family, 25u);
  EXPECT_EQ(cpu.model, 17u);
  EXPECT_EQ(cpu.model_name, "AMD EPYC");
  EXPECT_EQ(cpu.logical_cpus, 2);
  EXPECT_EQ(cpu.physical_cores, 2);
  EXPECT_EQ(cpu.sockets, 1);
  EXPECT_NEAR(cpu.nominal_mhz, 2596.144, 1e-6);
  EXPECT_TRUE(cpu.features.avx512f);
  EXPECT_TRUE(cpu.features.fma);
}

TEST(ProcCpuinfo, ParsesIntelSocketsAndHyperthreads) {
  auto text = ReadSmallFile(testing::DataDir() + "/proc/intel_spr/cpuinfo");
  ASSERT_TRUE(text);
  const CpuIdentity cpu = ParseProcCpuinfo(*text);
  EXPECT_EQ(cpu.vendor, CpuVendor::kIntel);
  EXPECT_EQ(cpu.model, 143u);
  EXPECT_EQ(cpu.logical_cpus, 3);
  EXPECT_EQ(cpu.physical_cores, 2);  // cpu 0 and 1 share core 0 of package 0
  EXPECT_EQ(cpu.sockets, 2);
  EXPECT_NEAR(cpu.nominal_mhz, 3800, 1e-9);  // "cpu MHz" of the first CPU
}

TEST(ProcCpuinfo, ParsesArm) {
  auto text = ReadSmallFile(testing::DataDir() + "/proc/arm_v1/cpuinfo");
  ASSERT_TRUE(text);
  const CpuIdentity cpu = ParseProcCpuinfo(*text);
  EXPECT_EQ(cpu.vendor, CpuVendor::kArm);
  EXPECT_EQ(cpu.arm_implementer, 0x41u);
  EXPECT_EQ(cpu.arm_part, 0xd40u);
  EXPECT_TRUE(cpu.features.sve);
  EXPECT_TRUE(cpu.features.neon);
}

TEST(DetectCpuIdentity, UsesFixtureTreesWithoutCpuid) {
  const CpuIdentity cpu = DetectCpuIdentity(testing::FakeHost("zen4_vm", "zen4_vm"));
  EXPECT_EQ(cpu.vendor, CpuVendor::kAmd);
  EXPECT_EQ(cpu.model, 0x11u);
  EXPECT_EQ(cpu.logical_cpus, 2);
  EXPECT_EQ(cpu.physical_cores, 2);
  EXPECT_FALSE(cpu.hybrid);
  const CpuIdentity adl = DetectCpuIdentity(testing::FakeHost("adl_hybrid", "zen4_vm"));
  EXPECT_TRUE(adl.hybrid);
}

TEST(DetectCpuIdentity, DescribesAndKeysTheRealHost) {
  const CpuIdentity cpu = DetectCpuIdentity();
  EXPECT_GT(cpu.logical_cpus, 0);
  EXPECT_FALSE(DescribeCpu(cpu).empty());
  const std::string key = CpuModelKey(cpu);
  EXPECT_FALSE(key.empty());
  for (char c : key) {
    EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') << key;
  }
}

TEST(CpuModelKey, IsStableAndFileNameSafe) {
  CpuIdentity cpu;
  cpu.vendor = CpuVendor::kAmd;
  cpu.vendor_string = "AuthenticAMD";
  cpu.family = 0x19;
  cpu.model = 0x11;
  cpu.model_name = "AMD EPYC 9654 96-Core Processor";
  EXPECT_EQ(CpuModelKey(cpu), "authenticamd-19-11-amd-epyc-9654-96-core-processor");
}

TEST(PerfEventParanoid, ReadsTheFixture) {
  EXPECT_EQ(ReadPerfEventParanoid(testing::FakeHost("zen4_vm")), 2);
  HostPaths none;
  none.procfs_root = "/nonexistent";
  EXPECT_FALSE(ReadPerfEventParanoid(none));
}

}  // namespace
}  // namespace flopspy::cpuroof
