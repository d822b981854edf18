// The ceilings cache (~/.cache/flopspy/ceilings-cpu-<key>.json, or /tmp/flopspy/ without HOME)
// is written without ever following a planted link or truncating a file in place, into a real
// folder of the user's; a ceilings file to read is never a FIFO or a device.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "flopspy/cpu_roofline/ceilings.h"
#include "test_paths.h"

namespace flopspy::cpuroof {
namespace {

namespace fs = std::filesystem;

constexpr char kVictim[] = "somebody else's file\n";

class CeilingsCache : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    auto loaded = LoadCeilings(testing::DataDir() + "/ceilings/skx_synthetic.json", &error);
    ASSERT_TRUE(loaded) << error;
    ceilings_ = *loaded;
    dir_ = fs::path(::testing::TempDir()) /
           ("flopspy-ceilings-cache-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  CpuCeilings ceilings_;
  fs::path dir_;
};

TEST_F(CeilingsCache, APlantedLinkIsReplacedNotFollowed) {
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << kVictim;
  fs::create_directories(dir_ / "flopspy");
  const fs::path cache = dir_ / "flopspy" / "ceilings-cpu-x.json";
  fs::create_symlink(victim, cache);
  // Where a predictable temporary name would be (the name plus the writer's pid).
  const fs::path temporary = cache.string() + ".tmp." + std::to_string(getpid());
  fs::create_symlink(victim, temporary);

  std::string error;
  ASSERT_TRUE(SaveCeilings(ceilings_, cache.string(), &error)) << error;
  EXPECT_EQ(Read(victim), kVictim);
  EXPECT_FALSE(fs::is_symlink(cache));
  EXPECT_TRUE(fs::is_symlink(temporary));
  auto back = LoadCeilings(cache.string(), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(CeilingsToJson(*back), CeilingsToJson(ceilings_));
}

// A second name for the cache file (a hard link someone made) keeps its bytes: the cache file is
// replaced by name, never truncated and rewritten in place.
TEST_F(CeilingsCache, AnExistingFileIsNeverTruncatedInPlace) {
  fs::create_directories(dir_ / "flopspy");
  const fs::path cache = dir_ / "flopspy" / "ceilings-cpu-x.json";
  std::ofstream(cache) << kVictim;
  const fs::path other_name = dir_ / "other-name.txt";
  fs::create_hard_link(cache, other_name);

  std::string error;
  ASSERT_TRUE(SaveCeilings(ceilings_, cache.string(), &error)) << error;
  EXPECT_EQ(Read(other_name), kVictim);
  EXPECT_NE(Read(cache), kVictim);
}

TEST_F(CeilingsCache, AFolderThatIsALinkIsRefused) {
  const fs::path elsewhere = dir_ / "elsewhere";
  fs::create_directories(elsewhere);
  fs::create_directory_symlink(elsewhere, dir_ / "flopspy");

  std::string error;
  EXPECT_FALSE(SaveCeilings(ceilings_, (dir_ / "flopspy" / "c.json").string(), &error));
  EXPECT_NE(error.find("is a link"), std::string::npos) << error;
  EXPECT_TRUE(fs::is_empty(elsewhere));
}

TEST_F(CeilingsCache, MissingFoldersAreCreatedAsRealFolders) {
  const fs::path cache = dir_ / "a" / "flopspy" / "c.json";
  std::string error;
  ASSERT_TRUE(SaveCeilings(ceilings_, cache.string(), &error)) << error;
  struct stat st {};
  ASSERT_EQ(lstat(cache.parent_path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0022, 0u);  // nobody else can plant a name in it
}

TEST_F(CeilingsCache, AFolderOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another user";
  const fs::path folder = dir_ / "flopspy";
  fs::create_directories(folder);
  ASSERT_EQ(chown(folder.c_str(), 65534, 65534), 0);
  std::string error;
  EXPECT_FALSE(SaveCeilings(ceilings_, (folder / "c.json").string(), &error));
  EXPECT_NE(error.find("belongs to another user"), std::string::npos) << error;
  EXPECT_TRUE(fs::is_empty(folder));
}

// -o FILE names a file the user chose: a device such as /dev/null is written into as it is.
TEST_F(CeilingsCache, AUserNamedDeviceIsWrittenInto) {
  std::string error;
  EXPECT_TRUE(SaveCeilings(ceilings_, "/dev/null", &error, platform::Destination::kUserNamed))
      << error;
}

TEST_F(CeilingsCache, ADeviceIsNeverReadAsCeilings) {
  std::string error;
  EXPECT_FALSE(LoadCeilings("/dev/zero", &error));
  EXPECT_NE(error.find("/dev/zero is a device"), std::string::npos) << error;
}

}  // namespace
}  // namespace flopspy::cpuroof
