#include "flopspy/platform/safe_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "subprocess.h"

namespace flopspy::platform {
namespace {

class SafeFileTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  static std::string Contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  testing::TempDir dir_;
};

TEST_F(SafeFileTest, CreateExclusiveRefusesPlantedLinksAndFiles) {
  Write(Path("victim"), "victim's data");
  ASSERT_EQ(symlink(Path("victim").c_str(), Path("link").c_str()), 0);
  EXPECT_EQ(CreateExclusive(AT_FDCWD, Path("link"), kPrivateFileMode), -1);
  EXPECT_EQ(CreateExclusive(AT_FDCWD, Path("victim"), kPrivateFileMode), -1);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_EQ(Contents(Path("victim")), "victim's data");
}

TEST_F(SafeFileTest, CreateExclusiveMakesAPrivateFile) {
  const mode_t old = umask(0);
  const int fd = CreateExclusive(AT_FDCWD, Path("new"), kPrivateFileMode);
  umask(old);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  close(fd);
}

TEST_F(SafeFileTest, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(mkfifo(Path("pipe.fspy").c_str(), 0600), 0);
  std::string error;
  EXPECT_EQ(OpenRegularForReading(Path("pipe.fspy"), &error), -1);
  EXPECT_EQ(error, Path("pipe.fspy") + " is a FIFO, not a file");
  EXPECT_EQ(NotARegularFile(Path("pipe.fspy")), error);
}

TEST_F(SafeFileTest, DevicesAndFoldersAreRefused) {
  std::string error;
  EXPECT_EQ(OpenRegularForReading("/dev/zero", &error), -1);
  EXPECT_EQ(error, "/dev/zero is a device, not a file");
  EXPECT_EQ(OpenRegularForReading(dir_.path(), &error), -1);
  EXPECT_EQ(error, dir_.path() + " is a folder, not a file");
  EXPECT_EQ(OpenRegularForReading(Path("missing"), &error), -1);
  EXPECT_EQ(error, "cannot open " + Path("missing") + ": No such file or directory");
}

TEST_F(SafeFileTest, ReadRegularFileHonoursItsBound) {
  Write(Path("small"), "12345");
  std::string out, error;
  ASSERT_TRUE(ReadRegularFile(Path("small"), 5, &out, &error)) << error;
  EXPECT_EQ(out, "12345");
  EXPECT_FALSE(ReadRegularFile(Path("small"), 4, &out, &error));
  EXPECT_EQ(error, Path("small") + " is larger than 4 bytes, the most read");
  EXPECT_FALSE(ReadRegularFile("/dev/zero", 1 << 20, &out, &error));
}

TEST_F(SafeFileTest, ReplaceFileReplacesALinkNotItsTarget) {
  Write(Path("victim"), "victim's data");
  ASSERT_EQ(symlink(Path("victim").c_str(), Path("report.html").c_str()), 0);
  std::string error;
  ASSERT_TRUE(ReplaceFile(Path("report.html"), "<html>", kSharedFileMode, &error)) << error;
  EXPECT_EQ(Contents(Path("victim")), "victim's data");
  EXPECT_EQ(Contents(Path("report.html")), "<html>");
  struct stat st {};
  ASSERT_EQ(lstat(Path("report.html").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(dir_.Files(".tmp").size(), 0u) << "no temporary file is left behind";
}

TEST_F(SafeFileTest, ReplaceFileSaysWhyItFailed) {
  std::string error;
  EXPECT_FALSE(ReplaceFile(Path("missing/report.html"), "x", kSharedFileMode, &error));
  EXPECT_NE(error.find("cannot create a file in " + Path("missing")), std::string::npos) << error;
  ASSERT_EQ(mkdir(Path("a-folder").c_str(), 0700), 0);
  EXPECT_FALSE(ReplaceFile(Path("a-folder"), "x", kSharedFileMode, &error));
  EXPECT_NE(error.find("cannot write " + Path("a-folder")), std::string::npos) << error;
}

TEST_F(SafeFileTest, WriteOutputFileWritesIntoDevicesAndSaysWhenFull) {
  std::string error;
  EXPECT_TRUE(WriteOutputFile("/dev/null", "report", kSharedFileMode, &error)) << error;
  EXPECT_FALSE(WriteOutputFile("/dev/full", "report", kSharedFileMode, &error));
  EXPECT_EQ(error, "cannot write /dev/full: No space left on device");
  ASSERT_TRUE(WriteOutputFile(Path("out.json"), "{}", kSharedFileMode, &error)) << error;
  EXPECT_EQ(Contents(Path("out.json")), "{}");
}

TEST_F(SafeFileTest, WriteOutputFileNeverFollowsALinkOthersCouldHavePlanted) {
  ASSERT_EQ(chmod(dir_.path().c_str(), 01777), 0);  // like /tmp
  ASSERT_EQ(symlink("/dev/null", Path("report.html").c_str()), 0);
  std::string error;
  ASSERT_TRUE(WriteOutputFile(Path("report.html"), "<html>", kSharedFileMode, &error)) << error;
  struct stat st {};
  ASSERT_EQ(lstat(Path("report.html").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode)) << "the planted link is replaced, /dev/null not written";
  EXPECT_EQ(Contents(Path("report.html")), "<html>");
}

TEST_F(SafeFileTest, WriteOutputFileFollowsALinkInAFolderOnlyItsOwnerWrites) {
  ASSERT_EQ(chmod(dir_.path().c_str(), 0755), 0);  // like /dev, where /dev/stdout lives
  ASSERT_EQ(symlink("/dev/null", Path("out").c_str()), 0);
  std::string error;
  ASSERT_TRUE(WriteOutputFile(Path("out"), "x", kSharedFileMode, &error)) << error;
  struct stat st {};
  ASSERT_EQ(lstat(Path("out").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the user's own link to a device is written through";
}

TEST_F(SafeFileTest, ReadRegularFileRefusesAnOversizeFileBeforeReadingIt) {
  Write(Path("big"), "");
  ASSERT_EQ(truncate(Path("big").c_str(), 1 << 30), 0);  // sparse: 1 GiB that costs nothing
  std::string out, error;
  EXPECT_FALSE(ReadRegularFile(Path("big"), 1 << 20, &out, &error));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(error, Path("big") + " is larger than 1048576 bytes, the most read");
}

TEST_F(SafeFileTest, DevStdoutLeadingToAFileIsAppendedToNotReplaced) {
  const std::string out = Path("stdout.txt");
  Write(out, "report text\n");
  const int fd = open(out.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  const std::string name = "/proc/self/fd/" + std::to_string(fd);
  std::string error;
  EXPECT_TRUE(WriteOutputFile(name, "<html>", kSharedFileMode, &error)) << error;
  close(fd);
  EXPECT_EQ(Contents(out), "report text\n<html>");
}

}  // namespace
}  // namespace flopspy::platform
