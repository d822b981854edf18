// FLOPSPY_CPU_ROOFLINE=replay:FILE is read before the program's main: a name that is not a
// regular file (a FIFO nobody writes, /dev/zero, a folder) must be refused at once, in one line,
// without blocking and without reading an endless device into memory. The same for the
// pcm-memory CSV of pcm-csv.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "flopspy/cpu_roofline/backend_factory.h"
#include "flopspy/cpu_roofline/pcm_source.h"
#include "flopspy/cpu_roofline/replay_backend.h"

namespace flopspy::cpuroof {
namespace {

// Runs `check` in a child with 10 s and 1 GiB of address space: a hang or an unbounded read
// ends the child instead of the test program. True when `check` returned true.
bool InABoundedChild(const std::function<bool()>& check) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(10);
    const rlimit memory{rlim_t{1} << 30, rlim_t{1} << 30};
    setrlimit(RLIMIT_AS, &memory);
    _exit(check() ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool RefusedSaying(const std::string& path, const std::string& what) {
  std::string error;
  return !LoadReplay(path, &error) && error.find(path + " is " + what) != std::string::npos;
}

TEST(ReplayInput, ADeviceIsRefusedWithoutReadingIt) {
  EXPECT_TRUE(InABoundedChild([] { return RefusedSaying("/dev/zero", "a device"); }));
}

TEST(ReplayInput, AFifoIsRefusedWithoutBlocking) {
  const std::string fifo = ::testing::TempDir() + "/flopspy-replay-" + std::to_string(getpid());
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(InABoundedChild([&] { return RefusedSaying(fifo, "a FIFO"); }));
  unlink(fifo.c_str());
}

// pcm-csv follows a file pcm-memory appends to; a FIFO in its place is refused the same way.
TEST(ReplayInput, APcmCsvThatIsAFifoIsRefusedWithoutBlocking) {
  const std::string fifo = ::testing::TempDir() + "/flopspy-pcm-" + std::to_string(getpid());
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(InABoundedChild([&] {
    std::string why;
    return !PcmCsvBackend::Open(fifo, &why) && why.find(fifo + " is a FIFO") != std::string::npos;
  }));
  unlink(fifo.c_str());
}

TEST(ReplayInput, AFolderIsRefused) {
  EXPECT_TRUE(RefusedSaying("/tmp", "a folder"));
}

TEST(ReplayInput, TheSamplerSaysSoInOneLine) {
  SamplerConfig config;
  config.mode = BackendMode::kReplay;
  config.replay_path = "/dev/zero";
  const OpenedBackend opened = OpenBackend(config);
  EXPECT_FALSE(opened.backend);
  const std::vector<std::string> lines = opened.capabilities.Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "flopspy: CPU roofline (replay) unavailable: replay file: /dev/zero is a device, not a "
            "file; no CPU roofline for this process");
}

}  // namespace
}  // namespace flopspy::cpuroof
