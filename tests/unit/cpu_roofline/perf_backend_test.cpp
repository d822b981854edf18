// The perf_event_open backend against a fake kernel: attributes, group reads, multiplexing, and
// every failure path with injected errno values (docs/cpu-roofline.md, "What flopspy says when
// something is missing").
#include "flopspy/cpu_roofline/perf_backend.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_perf.h"
#include "flopspy/cpu_roofline/roofline_method.h"
#include "flopspy/trace/schema.h"
#include "test_paths.h"

namespace flopspy::cpuroof {
namespace {

using testing::FakePerf;

EventPlan Plan(const char* cpuid, const char* tree) {
  std::string error;
  auto cpu = ParseCpuIdOverride(cpuid, &error);
  EXPECT_TRUE(cpu) << error;
  return BuildEventPlan(*cpu, SysfsView(testing::FakeHost(tree)), {});
}

struct Opened {
  std::unique_ptr<PerfEventBackend> backend;
  Capabilities caps;
};

Opened Open(const EventPlan& plan, FakePerf* fake, int paranoid = 2) {
  PerfEventBackend::Options o;
  o.paranoid = paranoid;
  Opened out;
  out.backend = PerfEventBackend::Open(plan, fake->Syscalls(), o);
  out.backend->Describe(&out.caps);
  return out;
}

bool IsUncore(const perf_event_attr&, int cpu) {
  return cpu >= 0;
}
bool IsHardware(const perf_event_attr& a, int) {
  return a.type != PERF_TYPE_SOFTWARE;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

TEST(PerfBackend, OpensProcessWideInheritedGroupsAndSystemWideUncore) {
  FakePerf fake;
  const EventPlan plan = Plan("GenuineIntel:6:0x55", "skx_2s");
  Opened o = Open(plan, &fake);
  // task-clock, cycles, instructions, ref-cycles, 8 FP events, 2 controllers x 2 sockets x 2.
  EXPECT_EQ(o.backend->channels().size(), 1u + 3u + 8u + 8u);
  for (const auto& [fd, e] : fake.events) {
    if (e.cpu >= 0) {
      EXPECT_EQ(e.pid, -1);
      EXPECT_EQ(e.attr.inherit, 0u);
      EXPECT_EQ(e.attr.exclude_kernel, 0u) << "uncore PMUs reject exclude bits";
      EXPECT_TRUE(e.cpu == 0 || e.cpu == 28);
    } else {
      EXPECT_EQ(e.pid, 0);
      EXPECT_EQ(e.attr.inherit, 1u);
      EXPECT_EQ(e.attr.inherit_thread, 1u);
      EXPECT_EQ(e.attr.remove_on_exec, 1u);
      EXPECT_EQ(e.attr.exclude_kernel, 1u);
    }
    EXPECT_TRUE(e.attr.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
    EXPECT_EQ(e.attr.disabled, e.group_fd < 0 ? 1u : 0u);
    if (e.group_fd >= 0) {
      // A group never spans PMUs or CPUs (the kernel would refuse it).
      const testing::FakeEvent& leader = fake.events.at(e.group_fd);
      EXPECT_EQ(leader.cpu, e.cpu);
      EXPECT_EQ(leader.attr.type == PERF_TYPE_HARDWARE ? 4u : leader.attr.type,
                e.attr.type == PERF_TYPE_HARDWARE ? 4u : e.attr.type);
    }
  }
  EXPECT_TRUE(o.caps.time.available);
  EXPECT_TRUE(o.caps.cycles.available);
  EXPECT_TRUE(o.caps.work.available);
  EXPECT_TRUE(o.caps.traffic.available);
  EXPECT_TRUE(o.caps.valid_mask & trace::kCpuFlopsDp);
  EXPECT_TRUE(o.caps.valid_mask & trace::kCpuFlopsSp);
  EXPECT_TRUE(o.caps.valid_mask & trace::kCpuBytesRead);
  EXPECT_TRUE(o.caps.traffic_flags & trace::kCpuSystemWideMemory);
  EXPECT_EQ(o.caps.Lines().size(), 1u) << Joined(o.caps.Lines());  // the summary only
  EXPECT_FALSE(fake.enabled.empty());
}

TEST(PerfBackend, GroupReadsAreScaledWhenMultiplexed) {
  FakePerf fake;
  const EventPlan plan = Plan("GenuineIntel:6:0x55", "skx_2s");
  Opened o = Open(plan, &fake);
  Snapshot a, b;
  ASSERT_TRUE(o.backend->Read(0, false, &a));
  // 1e9 256-bit packed doubles, counted half the time: 4 flops each, scaled by 2.
  fake.SetAll(0, 1'000'000'000, 1'000'000'000);
  fake.Set(4, 0x01c7, 0, 1'000'000'000, 500'000'000);  // the DP group's leader
  fake.Set(4, 0x10c7, 1'000'000'000, 1'000'000'000, 500'000'000);
  fake.Set(14, 0x0304, 1'000'000, 1'000'000'000, 1'000'000'000);
  fake.Set(15, 0x0304, 1'000'000, 1'000'000'000, 1'000'000'000);
  ASSERT_TRUE(o.backend->Read(1'000'000'000, false, &b));
  const auto r =
      ComputeSample(o.backend->channels(), a, b, o.caps, trace::CpuSampleScope::kInterval, {});
  ASSERT_TRUE(r.valid & trace::kCpuFlopsDp);
  // The fake group shares the leader's times: the whole DP group is scaled by 2.
  EXPECT_DOUBLE_EQ(r.flops_dp, 8e9);
  EXPECT_TRUE(r.flags & trace::kCpuMultiplexed);
  EXPECT_DOUBLE_EQ(r.running_fraction, 0.5);
  // 1e6 reads per controller per socket: 2 x 2 x 1e6 x 64 B.
  EXPECT_DOUBLE_EQ(r.bytes_read, 4 * 1e6 * 64);
}

struct ErrnoCase {
  const char* name;
  int err;
  bool (*which)(const perf_event_attr&, int);
  int paranoid;
  bool time_cpu, cycles, work, traffic;
  const char* expect;  // in the joined capability lines
};

class PerfErrno : public ::testing::TestWithParam<ErrnoCase> {};

TEST_P(PerfErrno, DegradesEachQuantityOnItsOwn) {
  const ErrnoCase& c = GetParam();
  FakePerf fake;
  fake.error_for = [&c](const perf_event_attr& a, int cpu) { return c.which(a, cpu) ? c.err : 0; };
  const EventPlan plan = Plan("GenuineIntel:6:0x55", "skx_2s");
  Opened o;
  ASSERT_NO_THROW(o = Open(plan, &fake, c.paranoid));
  EXPECT_TRUE(o.caps.time.available) << "the wall clock always works";
  EXPECT_EQ((o.caps.valid_mask & trace::kCpuTaskClock) != 0, c.time_cpu);
  EXPECT_EQ(o.caps.cycles.available, c.cycles);
  EXPECT_EQ(o.caps.work.available, c.work);
  EXPECT_EQ(o.caps.traffic.available, c.traffic);
  const std::vector<std::string> lines = o.caps.Lines();
  for (const std::string& l : lines) {
    EXPECT_EQ(l.rfind("flopspy: ", 0), 0u) << l;
  }
  // One line per unavailable quantity (plus the summary and a task-clock caveat).
  const size_t unavailable = !c.cycles + !c.work + !c.traffic;
  EXPECT_EQ(lines.size(), 1 + unavailable + !c.time_cpu) << Joined(lines);
  EXPECT_NE(Joined(lines).find(c.expect), std::string::npos) << Joined(lines);
  // Reads still work with whatever opened.
  Snapshot s;
  EXPECT_TRUE(o.backend->Read(1, false, &s));
}

bool All(const perf_event_attr&, int) {
  return true;
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, PerfErrno,
    ::testing::Values(ErrnoCase{"no_pmu", ENOENT, IsHardware, 2, true, false, false, false,
                                "failed with ENOENT: this CPU or kernel does not know the event"},
                      ErrnoCase{"uncore_eacces", EACCES, IsUncore, 2, true, true, true, false,
                                "CAP_PERFMON or kernel.perf_event_paranoid <= 0 (now 2)"},
                      ErrnoCase{"paranoid_4", EACCES, All, 4, false, false, false, false,
                                "kernel.perf_event_paranoid is 4"},
                      ErrnoCase{"seccomp", EPERM, All, 2, false, false, false, false,
                                "--cap-add PERFMON"},
                      ErrnoCase{"uncore_eopnotsupp", EOPNOTSUPP, IsUncore, 2, true, true, true,
                                false, "does not support this mode"},
                      ErrnoCase{"ebusy", EBUSY, IsHardware, 2, true, false, false, false,
                                "used exclusively by another tool"},
                      ErrnoCase{"enodev", ENODEV, IsUncore, 2, true, true, true, false, "seccomp"},
                      ErrnoCase{"enosys", ENOSYS, All, 2, false, false, false, false,
                                "perf_event_open is not available"},
                      ErrnoCase{"e2big", E2BIG, All, 2, false, false, false, false, "attr size"}),
    [](const ::testing::TestParamInfo<ErrnoCase>& p) { return p.param.name; });

TEST(PerfBackend, NoPmuOnTheZen4VmSaysSo) {
  FakePerf fake;
  fake.error_for = [](const perf_event_attr& a, int) {
    return a.type == PERF_TYPE_SOFTWARE ? 0 : ENOENT;
  };
  Opened o = Open(Plan("AuthenticAMD:0x19:0x11", "zen4_vm"), &fake);
  EXPECT_NE(o.caps.work.reason.find("no hardware PMU"), std::string::npos) << o.caps.work.reason;
  EXPECT_NE(o.caps.cycles.reason.find("virtual PMU"), std::string::npos);
  EXPECT_NE(o.caps.traffic.reason.find("no memory-controller PMU"), std::string::npos);
  EXPECT_EQ(o.caps.valid_mask, static_cast<uint32_t>(trace::kCpuTaskClock));
}

TEST(PerfBackend, EmfileLeavesWhatOpened) {
  FakePerf fake;
  fake.max_fds = 6;
  Opened o = Open(Plan("GenuineIntel:6:0x55", "skx_2s"), &fake);
  EXPECT_TRUE(o.caps.cycles.available);
  EXPECT_FALSE(o.caps.traffic.available);
  EXPECT_NE(o.caps.traffic.reason.find("ulimit -n"), std::string::npos) << o.caps.traffic.reason;
}

TEST(PerfBackend, OldKernelsWithoutInheritThreadAreRetried) {
  FakePerf fake;
  fake.error_for = [](const perf_event_attr& a, int) { return a.inherit_thread ? EINVAL : 0; };
  Opened o = Open(Plan("GenuineIntel:6:0x55", "skx_2s"), &fake);
  EXPECT_FALSE(o.backend->thread_inherit());
  EXPECT_TRUE(o.caps.work.available);
  EXPECT_NE(Joined(o.caps.Lines()).find("forked child processes are counted too"),
            std::string::npos);
  for (const auto& [fd, e] : fake.events) {
    EXPECT_EQ(e.attr.inherit_thread, 0u);
  }
}

TEST(PerfBackend, KernelsRefusingInheritedGroupReadsFallBackToSingleReads) {
  FakePerf fake;
  fake.error_for = [](const perf_event_attr& a, int) {
    return (a.inherit && (a.read_format & PERF_FORMAT_GROUP)) ? EINVAL : 0;
  };
  const EventPlan plan = Plan("GenuineIntel:6:0x55", "skx_2s");
  Opened o = Open(plan, &fake);
  EXPECT_TRUE(o.caps.work.available);
  Snapshot a, b;
  ASSERT_TRUE(o.backend->Read(0, false, &a));
  fake.SetAll(0, 100, 100);
  fake.Set(4, 0x40c7, 10, 100, 100);
  ASSERT_TRUE(o.backend->Read(100, false, &b));
  const auto r =
      ComputeSample(o.backend->channels(), a, b, o.caps, trace::CpuSampleScope::kInterval, {});
  EXPECT_DOUBLE_EQ(r.flops_dp, 80);  // 10 x 512-bit packed double
}

TEST(PerfBackend, APartialPrecisionIsLeftOut) {
  FakePerf fake;
  // Single-precision FP events fail; double precision opens.
  fake.error_for = [](const perf_event_attr& a, int) {
    const bool sp = a.type == 4 && (a.config == 0x02c7 || a.config == 0x08c7 ||
                                    a.config == 0x20c7 || a.config == 0x80c7);
    return sp ? EINVAL : 0;
  };
  Opened o = Open(Plan("GenuineIntel:6:0x55", "skx_2s"), &fake);
  EXPECT_TRUE(o.caps.work.available);
  EXPECT_TRUE(o.caps.valid_mask & trace::kCpuFlopsDp);
  EXPECT_FALSE(o.caps.valid_mask & trace::kCpuFlopsSp);
  EXPECT_NE(o.caps.work.reason.find("some precisions missing"), std::string::npos);
}

TEST(PerfBackend, APartialSetOfControllersCountsNoQ) {
  FakePerf fake;
  fake.error_for = [](const perf_event_attr& a, int cpu) {
    return a.type == 15 && cpu == 28 ? EACCES : 0;  // one controller of the second socket
  };
  Opened o = Open(Plan("GenuineIntel:6:0x55", "skx_2s"), &fake);
  EXPECT_FALSE(o.caps.traffic.available);
  for (const Channel& c : o.backend->channels()) {
    if (c.quantity == Quantity::kBytes) {
      EXPECT_FALSE(c.counted) << c.name;
    }
  }
  Snapshot a, b;
  o.backend->Read(0, false, &a);
  fake.SetAll(1000, 10, 10);
  o.backend->Read(10, false, &b);
  const auto r =
      ComputeSample(o.backend->channels(), a, b, o.caps, trace::CpuSampleScope::kInterval, {});
  EXPECT_FALSE(r.valid & trace::kCpuBytesAny);
}

TEST(PerfBackend, FailedReadsInvalidateOnlyTheirGroup) {
  FakePerf fake;
  Opened o = Open(Plan("AuthenticAMD:0x19:0x11", "zen4_umc"), &fake);
  Snapshot a, b;
  ASSERT_TRUE(o.backend->Read(0, false, &a));
  fake.SetAll(100, 10'000'000, 10'000'000);
  for (auto& [fd, e] : fake.events) {
    if (e.attr.type == 4 && e.attr.config == 0x0f03) e.read_fails = true;
  }
  ASSERT_TRUE(o.backend->Read(10'000'000, false, &b));
  const auto r =
      ComputeSample(o.backend->channels(), a, b, o.caps, trace::CpuSampleScope::kInterval, {});
  EXPECT_FALSE(r.valid & trace::kCpuFlopsAny);
  EXPECT_TRUE(r.valid & trace::kCpuCycles);
  EXPECT_TRUE(r.valid & trace::kCpuBytesAny);
}

TEST(PerfBackend, ReopenInChildNeverDisablesTheParentsCounters) {
  FakePerf fake;
  Opened o = Open(Plan("AuthenticAMD:0x19:0x11", "zen4_umc"), &fake);
  const size_t opened = fake.events.size();
  fake.disabled.clear();
  std::string why;
  ASSERT_TRUE(o.backend->ReopenInChild(&why)) << why;
  EXPECT_TRUE(fake.disabled.empty());
  EXPECT_EQ(fake.closed.size(), opened);
  EXPECT_EQ(fake.events.size(), opened);
}

TEST(PerfBackend, AChildDestroyingTheBackendLeavesTheParentsCountersOn) {
  FakePerf fake;
  Opened o = Open(Plan("AuthenticAMD:0x19:0x11", "zen4_umc"), &fake);
  const pid_t pid = fork();
  if (pid == 0) {
    o.backend.reset();  // e.g. static destructors in a child that never reopened
    _exit(fake.disabled.empty() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(PerfErrorText, NamesTheErrnoAndTheFix) {
  PlannedEvent uncore;
  uncore.name = "uncore_imc_0/cas_count_read/@cpu0";
  uncore.cpu = 0;
  const std::string eacces = DescribePerfError(EACCES, uncore, true, 2);
  EXPECT_NE(eacces.find("perf_event_open(uncore_imc_0/cas_count_read/@cpu0) failed with EACCES"),
            std::string::npos);
  EXPECT_NE(eacces.find("sysctl kernel.perf_event_paranoid=0"), std::string::npos);
  PlannedEvent cycles;
  cycles.name = "cycles";
  cycles.kind = EventTypeKind::kHardware;
  EXPECT_NE(DescribePerfError(ENOENT, cycles, false, 2).find("virtual PMU"), std::string::npos);
  EXPECT_EQ(ErrnoName(EMFILE), "EMFILE");
  EXPECT_EQ(ErrnoName(12345), "errno 12345");
}

}  // namespace
}  // namespace flopspy::cpuroof
