// FLOPSPY_CPU_RECORD is created safely: never through a planted link, never over an existing
// file (its own from another process of the run included), readable by the user alone.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "clock_backend.h"
#include "flopspy/cpu_roofline/replay_backend.h"
#include "flopspy/cpu_roofline/sampler.h"

namespace flopspy::cpuroof {
namespace {

namespace fs = std::filesystem;

class RecordFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("flopspy-record-file-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A sampler recording to `record_path`, stopped at once; the warnings it gave.
  std::vector<std::string> Record(const std::string& record_path) {
    SamplerConfig config;
    config.record_path = record_path;
    std::vector<std::string> warnings;
    Sampler::Options options;
    options.start_thread = false;
    options.backend = std::make_unique<testing::ClockBackend>();
    options.capabilities = testing::AllCaps();
    options.clock = [] { return uint64_t{1'000'000'000}; };
    options.warn = [&warnings](const std::string& line) { warnings.push_back(line); };
    auto sampler = Sampler::Start(config, nullptr, std::move(options));
    EXPECT_TRUE(sampler);
    if (sampler) {
      sampler->SampleOnce(1'100'000'000);
      sampler->Stop(1'200'000'000);
    }
    return warnings;
  }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

constexpr char kVictimText[] = "somebody else's file\n";

TEST_F(RecordFile, APlantedLinkIsNeverFollowed) {
  const std::string victim = Path("victim.txt");
  std::ofstream(victim) << kVictimText;
  const std::string planted = Path("cpu-" + std::to_string(getpid()) + ".jsonl");
  fs::create_symlink(victim, planted);

  const auto warnings = Record(Path("cpu-%p.jsonl"));
  EXPECT_EQ(Read(victim), kVictimText);
  EXPECT_TRUE(fs::is_symlink(planted));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(planted + " already exists"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("no recording is written"), std::string::npos) << warnings[0];
}

TEST_F(RecordFile, APlantedLinkWithoutPidGetsTheRecordingBesideIt) {
  const std::string victim = Path("victim.txt");
  std::ofstream(victim) << kVictimText;
  const std::string planted = Path("cpu.jsonl");
  fs::create_symlink(victim, planted);

  const auto warnings = Record(planted);
  EXPECT_EQ(Read(victim), kVictimText);
  const std::string beside = planted + "." + std::to_string(getpid());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("recording to " + beside), std::string::npos) << warnings[0];
  std::string error;
  EXPECT_TRUE(LoadReplay(beside, &error)) << error;
}

TEST_F(RecordFile, IsTheUsersAloneWhateverTheUmask) {
  const mode_t old_umask = umask(0);
  const auto warnings = Record(Path("private.jsonl"));
  umask(old_umask);
  EXPECT_TRUE(warnings.empty());
  struct stat st {};
  ASSERT_EQ(stat(Path("private.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// Without %p every process of a run (an exec'd image, a later run) names the same file: the
// first keeps it whole, the next records beside it, and after that a process records nothing.
TEST_F(RecordFile, ALaterProcessNeverClobbersTheFirst) {
  const std::string name = Path("shared.jsonl");
  EXPECT_TRUE(Record(name).empty());
  const std::string first = Read(name);
  ASSERT_FALSE(first.empty());

  const auto second = Record(name);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(second[0].find("recording to " + name + "." + std::to_string(getpid())),
            std::string::npos)
      << second[0];
  const auto third = Record(name);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_NE(third[0].find("no recording is written"), std::string::npos) << third[0];

  EXPECT_EQ(Read(name), first);
  std::string error;
  EXPECT_TRUE(LoadReplay(name, &error)) << error;
}

TEST_F(RecordFile, AnUncreatableNameSaysWhyInOneLine) {
  const auto warnings = Record(Path("no/such/folder/rec.jsonl"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cannot create FLOPSPY_CPU_RECORD file"), std::string::npos);
  EXPECT_NE(warnings[0].find("No such file or directory; no recording is written"),
            std::string::npos)
      << warnings[0];
}

}  // namespace
}  // namespace flopspy::cpuroof
