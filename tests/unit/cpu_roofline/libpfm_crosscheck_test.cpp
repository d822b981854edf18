// The built-in W tables against libpfm4's own encodings (LIBPFM_ENCODE_INACTIVE=1 encodes PMUs
// this host lacks), and FLOPSPY_CPU_EVENTS parsing and encoding. Skipped without libpfm4.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstdlib>

#include "flopspy/cpu_roofline/event_catalog.h"
#include "flopspy/cpu_roofline/extra_events.h"
#include "test_paths.h"

#if __has_include(<perfmon/pfmlib_perf_event.h>)
#include <perfmon/pfmlib_perf_event.h>
// Our private copy of pfm_perf_encode_arg_t must match the library's.
static_assert(sizeof(pfm_perf_encode_arg_t) == 40);
#endif

namespace flopspy::cpuroof {
namespace {

Libpfm* LoadPfm() {
  static std::unique_ptr<Libpfm> lib = [] {
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    std::string error;
    return Libpfm::Load(&error);
  }();
  return lib.get();
}

TEST(LibpfmCrossCheck, BuiltinTablesEncodeLikeLibpfm) {
  Libpfm* pfm = LoadPfm();
  if (!pfm) GTEST_SKIP() << "libpfm4 is not installed";
  const CpuFamily families[] = {CpuFamily::kIntelSnb, CpuFamily::kIntelBdw, CpuFamily::kIntelSkl,
                                CpuFamily::kIntelSkx, CpuFamily::kIntelIcl, CpuFamily::kIntelIcx,
                                CpuFamily::kIntelSpr, CpuFamily::kIntelGnr, CpuFamily::kAmdZen1,
                                CpuFamily::kAmdZen2,  CpuFamily::kAmdZen3,  CpuFamily::kAmdZen4};
  int checked = 0;
  for (CpuFamily f : families) {
    for (const FpEventSpec& s : BuiltinFpTable(f).events) {
      if (s.pfm.empty()) continue;
      std::string error;
      auto enc = pfm->Encode(s.pfm, &error);
      ASSERT_TRUE(enc) << error;
      EXPECT_EQ(enc->type, static_cast<uint32_t>(PERF_TYPE_RAW)) << s.pfm;
      EXPECT_EQ(enc->config, s.config) << s.pfm << " (" << s.name << ")";
      ++checked;
    }
  }
  EXPECT_GE(checked, 70);
}

TEST(LibpfmCrossCheck, KnownGapsOfLibpfm413) {
  Libpfm* pfm = LoadPfm();
  if (!pfm) GTEST_SKIP() << "libpfm4 is not installed";
  std::string error;
  // Ice Lake and later refuse combined umasks: one fd per umask.
  EXPECT_FALSE(pfm->Encode("icl::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE:128B_PACKED_DOUBLE", &error));
  EXPECT_NE(error.find("invalid combination"), std::string::npos) << error;
  // Skylake allows it: 0x55c7 for all four DP umasks (docs/cpu-counters-notes.md).
  auto skl = pfm->Encode(
      "skl::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE:128B_PACKED_DOUBLE:256B_PACKED_DOUBLE:512B_PACKED_"
      "DOUBLE",
      &error);
  ASSERT_TRUE(skl) << error;
  EXPECT_EQ(skl->config, 0x55c7u);
  // Haswell has no FP_ARITH event at all.
  EXPECT_FALSE(pfm->Encode("hsw::FP_ARITH_INST_RETIRED", &error));
  EXPECT_NE(error.find("not found"), std::string::npos) << error;
  // Zen 4's ANY includes bfloat16 (0x1F); the table uses 0x0F.
  auto any = pfm->Encode("amd64_fam19h_zen4::RETIRED_SSE_AVX_FLOPS:ANY", &error);
  ASSERT_TRUE(any) << error;
  EXPECT_EQ(any->config, 0x1f03u);
}

TEST(ExtraEvents, ParsesRolesWeightsAndPerfStyleNames) {
  std::vector<std::string> warnings;
  auto specs = ParseExtraEvents(
      "amd64_fam19h_zen4::RETIRED_SSE_AVX_FLOPS:ANY@flops, "
      "uncore_imc_0/event=0x04,umask=0x03/@bytes_read,"
      "skx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE@flops_dp*8,"
      "noroles,bad@what,x@flops*-1",
      &warnings);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].quantity, Quantity::kFlops);
  EXPECT_EQ(specs[0].precision, Precision::kAny);
  EXPECT_EQ(specs[1].event, "uncore_imc_0/event=0x04,umask=0x03/");
  EXPECT_EQ(specs[1].direction, Direction::kRead);
  EXPECT_EQ(specs[1].weight, 64);  // bytes default to one cache line per count
  EXPECT_EQ(specs[2].precision, Precision::kDp);
  EXPECT_EQ(specs[2].weight, 8);
  EXPECT_EQ(warnings.size(), 3u);
}

TEST(ExtraEvents, ReplaceBuiltinWAndQ) {
  std::string error;
  auto cpu = ParseCpuIdOverride("GenuineIntel:6:0x55", &error);
  SysfsView sysfs(testing::FakeHost("skx_2s"));
  EventPlan plan = BuildEventPlan(*cpu, sysfs, {});
  std::vector<std::string> warnings;
  auto specs = ParseExtraEvents(
      "uncore_imc_0/cas_count_read/@bytes_read,cpu/event=0xc7,umask=0x55/@flops_dp*2", &warnings);
  ASSERT_TRUE(warnings.empty());
  AddExtraEvents(specs, sysfs, &plan, &warnings);
  ASSERT_TRUE(warnings.empty()) << warnings.front();
  int flops = 0, bytes = 0;
  for (const PlannedEvent& e : plan.events) {
    if (e.quantity == Quantity::kFlops) {
      ++flops;
      EXPECT_TRUE(e.from_user);
      EXPECT_EQ(e.config, 0x55c7u);
      EXPECT_EQ(e.weight, 2);
    }
    if (e.quantity == Quantity::kBytes) {
      ++bytes;
      EXPECT_EQ(e.config, 0x0304u);  // the alias, expanded with the PMU's format
      EXPECT_TRUE(e.cpu == 0 || e.cpu == 28);
    }
  }
  EXPECT_EQ(flops, 1);
  EXPECT_EQ(bytes, 2);  // one per socket of uncore_imc_0's cpumask
}

TEST(ExtraEvents, LibpfmNamesEncodeOrWarn) {
  if (!LoadPfm()) GTEST_SKIP() << "libpfm4 is not installed";
  std::string error;
  auto cpu = ParseCpuIdOverride("AuthenticAMD:0x19:0x11", &error);
  SysfsView sysfs(testing::FakeHost("zen4_vm"));
  EventPlan plan = BuildEventPlan(*cpu, sysfs, {});
  std::vector<std::string> warnings;
  AddExtraEvents(ParseExtraEvents("amd64_fam19h_zen4::RETIRED_SSE_AVX_FLOPS:MAC_FLOPS@flops,"
                                  "nosuch::EVENT@flops,nopmu/event=1/@bytes",
                                  &warnings),
                 sysfs, &plan, &warnings);
  EXPECT_EQ(warnings.size(), 2u);
  int flops = 0;
  for (const PlannedEvent& e : plan.events) {
    if (e.quantity != Quantity::kFlops) continue;
    ++flops;
    EXPECT_EQ(e.config, 0x0803u);
  }
  EXPECT_EQ(flops, 1);
}

}  // namespace
}  // namespace flopspy::cpuroof
