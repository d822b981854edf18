// The program owns every descriptor: after it closes or dup2s over the sampler's counters and
// its FLOPSPY_CPU_RECORD file (close_range, "dup2 my log over every fd above 2"), the sampler
// must never read, write, ioctl or close those numbers again, and says so once.
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>

#include "clock_backend.h"
#include "fake_perf.h"
#include "flopspy/cpu_roofline/perf_backend.h"
#include "flopspy/cpu_roofline/sampler.h"
#include "program_files.h"
#include "software_events.h"

namespace flopspy::cpuroof {
namespace {

using testing::DescriptorsNaming;
using testing::ProgramFile;
using testing::TaskClockPlan;

constexpr char kProgramBytes[] = "the program's own log\nline two\n";
constexpr char kPerfLink[] = "anon_inode:[perf_event]";

size_t Count(const std::vector<int>& calls, int fd) {
  return static_cast<size_t>(std::count(calls.begin(), calls.end(), fd));
}

std::vector<int> NewDescriptors(const std::vector<int>& before, const std::vector<int>& after) {
  std::vector<int> fresh;
  for (int fd : after) {
    if (std::find(before.begin(), before.end(), fd) == before.end()) fresh.push_back(fd);
  }
  return fresh;
}

struct Warnings {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      lines.push_back(line);
    };
  }
  size_t Mentioning(const std::string& word) {
    std::lock_guard<std::mutex> lock(mu);
    return static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [&](const auto& l) {
      return l.find(word) != std::string::npos;
    }));
  }
};

// The two ways a counter's number becomes the program's: dup2 over it, or a close (close_range)
// after which the program's next file lands on the freed number.
enum class Takeover { kDup2Over, kCloseThenReuse };

void TakeNumber(int number, const ProgramFile& file, Takeover how) {
  if (how == Takeover::kDup2Over) {
    ASSERT_EQ(dup2(file.fd(), number), number);
  } else {
    ASSERT_EQ(close(number), 0);
    ASSERT_EQ(fcntl(file.fd(), F_DUPFD, number), number);
  }
}

class FakeCounters : public ::testing::TestWithParam<Takeover> {};

TEST_P(FakeCounters, AReplacedCounterIsNeverReadIoctledOrClosed) {
  testing::FakePerf fake;
  auto backend = PerfEventBackend::Open(TaskClockPlan(), fake.Syscalls(), {});
  ASSERT_EQ(backend->channels().size(), 2u);
  Snapshot s;
  ASSERT_TRUE(backend->Read(1, false, &s));
  EXPECT_EQ(backend->LostReason(), "");

  ProgramFile log(kProgramBytes);
  const off_t offset = log.Offset();
  const int taken = fake.events.begin()->first;  // the group leader: the one read
  TakeNumber(taken, log, GetParam());
  fake.reads.clear();
  fake.ioctls.clear();

  EXPECT_FALSE(backend->Read(2, false, &s));
  EXPECT_NE(backend->LostReason().find("closed or replaced"), std::string::npos);
  EXPECT_FALSE(backend->Read(3, true, &s));  // stays stopped, touches nothing
  EXPECT_EQ(Count(fake.reads, taken), 0u);
  EXPECT_EQ(Count(fake.ioctls, taken), 0u);
  backend.reset();
  EXPECT_EQ(Count(fake.closed, taken), 0u);
  EXPECT_EQ(Count(fake.ioctls, taken), 0u);  // no PERF_EVENT_IOC_DISABLE on the program's file
  EXPECT_EQ(fake.closed.size(), 1u);         // the other counter, still ours, was closed
  EXPECT_TRUE(log.NamedBy(taken)) << "the program's descriptor was closed";
  EXPECT_EQ(log.Content(), kProgramBytes);
  EXPECT_EQ(log.Offset(), offset);
  close(taken);
}

INSTANTIATE_TEST_SUITE_P(TakenDescriptors, FakeCounters,
                         ::testing::Values(Takeover::kDup2Over, Takeover::kCloseThenReuse));

std::unique_ptr<PerfEventBackend> OpenRealOrNull(std::vector<int>* fds) {
  const std::vector<int> before = DescriptorsNaming(kPerfLink);
  auto backend = PerfEventBackend::Open(TaskClockPlan(), RealPerfSyscalls(), {});
  if (backend->channels().size() != 2) return nullptr;
  *fds = NewDescriptors(before, DescriptorsNaming(kPerfLink));
  return backend;
}

TEST(TakenDescriptors, RealCountersReplacedByTheProgramsFileAreLeftAlone) {
  std::vector<int> counters;
  auto backend = OpenRealOrNull(&counters);
  if (!backend) GTEST_SKIP() << "perf_event_open of software events is not permitted here";
  ASSERT_EQ(counters.size(), 2u);
  for (int fd : counters) EXPECT_GE(fd, platform::HighDescriptorFloor()) << "kept low";

  ProgramFile log(kProgramBytes);
  const off_t offset = log.Offset();
  for (int fd : counters) ASSERT_EQ(dup2(log.fd(), fd), fd);
  Snapshot s;
  EXPECT_FALSE(backend->Read(1, false, &s));
  EXPECT_NE(backend->LostReason(), "");
  backend.reset();
  for (int fd : counters) {
    EXPECT_TRUE(log.NamedBy(fd)) << fd << " was closed";
    close(fd);
  }
  EXPECT_EQ(log.Content(), kProgramBytes);
  EXPECT_EQ(log.Offset(), offset) << "a read moved the program's file offset";
}

// Every perf descriptor shares one anonymous inode with eventfds, epoll and timerfds: the file
// identity alone cannot tell them apart, the event id does. A read of 8 bytes from an eventfd
// would take its count from the program.
TEST(TakenDescriptors, AnEventfdOfTheProgramIsNotMistakenForACounter) {
  std::vector<int> counters;
  auto backend = OpenRealOrNull(&counters);
  if (!backend) GTEST_SKIP() << "perf_event_open of software events is not permitted here";
  const int event = eventfd(5, EFD_NONBLOCK);
  ASSERT_GE(event, 0);
  for (int fd : counters) ASSERT_EQ(dup2(event, fd), fd);
  Snapshot s;
  EXPECT_FALSE(backend->Read(1, false, &s));
  backend.reset();
  uint64_t count = 0;
  ASSERT_EQ(read(event, &count, sizeof(count)), static_cast<ssize_t>(sizeof(count)));
  EXPECT_EQ(count, 5u) << "the sampler consumed the program's eventfd";
  for (int fd : counters) {
    EXPECT_NE(fcntl(fd, F_GETFD), -1) << fd << " was closed";
    close(fd);
  }
  close(event);
}

// As /proc/self/fd spells it (no "//"), so that DescriptorsNaming finds it.
std::string TempPath(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / (name + "-" + std::to_string(getpid())))
      .lexically_normal()
      .string();
}

TEST(TakenDescriptors, SamplerStopsWithOneWarningAndLeavesTheProgramsFilesAlone) {
  const std::vector<int> perf_before = DescriptorsNaming(kPerfLink);
  const std::string record = TempPath("flopspy-taken-record.jsonl");
  unlink(record.c_str());
  SamplerConfig config;
  config.mode = BackendMode::kPerf;
  config.record_path = record;
  Warnings warnings;
  Sampler::Options options;
  options.start_thread = false;
  options.warn = warnings.sink();
  auto sampler = Sampler::Start(config, nullptr, std::move(options));
  ASSERT_TRUE(sampler);
  if (!sampler->active()) GTEST_SKIP() << "no counter at all opens here";
  sampler->SampleOnce(MonotonicNowNs());
  std::vector<int> taken = NewDescriptors(perf_before, DescriptorsNaming(kPerfLink));
  const std::vector<int> record_fds = DescriptorsNaming(record);
  ASSERT_EQ(record_fds.size(), 1u);
  taken.push_back(record_fds[0]);

  // The program dup2s its log over every number it did not open.
  ProgramFile log(kProgramBytes);
  const off_t offset = log.Offset();
  for (int fd : taken) ASSERT_EQ(dup2(log.fd(), fd), fd);
  sampler->RegionBegin("after", MonotonicNowNs());
  sampler->SampleOnce(MonotonicNowNs() + 1);
  sampler->RegionEnd("after", MonotonicNowNs() + 2);
  EXPECT_FALSE(sampler->active());
  sampler->Stop();
  sampler.reset();

  EXPECT_EQ(warnings.Mentioning("CPU counters"), 1u);
  EXPECT_EQ(warnings.Mentioning("FLOPSPY_CPU_RECORD"), 1u);
  EXPECT_EQ(warnings.lines.size(), 2u);
  for (int fd : taken) {
    EXPECT_TRUE(log.NamedBy(fd)) << fd << " was closed";
    close(fd);
  }
  EXPECT_EQ(log.Content(), kProgramBytes);
  EXPECT_EQ(log.Offset(), offset);
  unlink(record.c_str());
}

TEST(TakenDescriptors, RecordingReplacedByTheProgramEndsThere) {
  const std::string record = TempPath("flopspy-taken-recording.jsonl");
  unlink(record.c_str());
  SamplerConfig config;
  config.record_path = record;
  Warnings warnings;
  Sampler::Options options;
  options.start_thread = false;
  options.backend = std::make_unique<testing::ClockBackend>();
  options.capabilities = testing::AllCaps();
  options.warn = warnings.sink();
  auto sampler = Sampler::Start(config, nullptr, std::move(options));
  ASSERT_TRUE(sampler);
  sampler->SampleOnce(2'000'000'000);
  const std::vector<int> record_fds = DescriptorsNaming(record);
  ASSERT_EQ(record_fds.size(), 1u);
  const int taken = record_fds[0];

  ProgramFile log(kProgramBytes);
  ASSERT_EQ(dup2(log.fd(), taken), taken);
  sampler->SampleOnce(3'000'000'000);
  sampler->SampleOnce(4'000'000'000);
  sampler->Stop(5'000'000'000);
  sampler.reset();
  EXPECT_EQ(warnings.lines.size(), 1u);
  EXPECT_EQ(warnings.Mentioning("the recording ends here"), 1u);
  EXPECT_TRUE(log.NamedBy(taken));
  EXPECT_EQ(log.Content(), kProgramBytes);
  close(taken);
  unlink(record.c_str());
}

// After fork the child closes its copy of the recording only while the number is still ours: a
// program that dup2'd over it before forking keeps its file in the child.
TEST(TakenDescriptors, ForkedChildClosesNoNumberThatIsNotOurs) {
  const std::string record = TempPath("flopspy-taken-fork.jsonl");
  unlink(record.c_str());
  SamplerConfig config;
  config.record_path = record;
  Sampler::Options options;
  options.start_thread = false;
  options.backend = std::make_unique<testing::ClockBackend>();
  options.capabilities = testing::AllCaps();
  auto sampler = Sampler::Start(config, nullptr, std::move(options));
  ASSERT_TRUE(sampler);
  const std::vector<int> record_fds = DescriptorsNaming(record);
  ASSERT_EQ(record_fds.size(), 1u);
  const int taken = record_fds[0];
  ProgramFile log(kProgramBytes);
  ASSERT_EQ(dup2(log.fd(), taken), taken);

  const pid_t pid = fork();
  if (pid == 0) {
    sampler->AfterForkInChild(1);
    const bool kept = log.NamedBy(taken);
    const bool wrote = pwrite(taken, "child", 5, 1000) == 5;  // the program's own write works
    _exit(kept && wrote ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  sampler->Stop(2);
  sampler.reset();
  EXPECT_TRUE(log.NamedBy(taken));
  close(taken);
  unlink(record.c_str());
}

}  // namespace
}  // namespace flopspy::cpuroof
