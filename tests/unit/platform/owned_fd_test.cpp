#include "flopspy/platform/owned_fd.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "subprocess.h"

namespace flopspy::platform {
namespace {

class OwnedFdTest : public ::testing::Test {
 protected:
  int OpenNew(const std::string& name) {
    return open((dir_.path() + "/" + name).c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  }
  testing::TempDir dir_;
};

TEST_F(OwnedFdTest, MovesToAHighNumberAndKnowsItsFile) {
  const int low = OpenNew("ours");
  ASSERT_GE(low, 0);
  OwnedFd fd = OwnedFd::Adopt(low);
  ASSERT_TRUE(fd.valid());
  EXPECT_GE(fd.get(), HighDescriptorFloor());
  EXPECT_EQ(fcntl(low, F_GETFD), -1) << "the low number is given back";
  EXPECT_TRUE(fd.StillOurs());
  EXPECT_TRUE(fcntl(fd.get(), F_GETFD) & FD_CLOEXEC);
  fd.CloseIfOurs();
}

TEST_F(OwnedFdTest, ClosedNumberIsNotOurs) {
  OwnedFd fd = OwnedFd::Adopt(OpenNew("ours"));
  ASSERT_TRUE(fd.valid());
  close(fd.get());  // as close_range(3, ~0U) in the program
  EXPECT_FALSE(fd.StillOurs());
}

TEST_F(OwnedFdTest, NumberTakenByTheProgramIsNeitherOursNorClosed) {
  OwnedFd fd = OwnedFd::Adopt(OpenNew("ours"));
  ASSERT_TRUE(fd.valid());
  const int number = fd.get();
  const int program_file = OpenNew("program");
  ASSERT_EQ(dup2(program_file, number), number);  // the program's dup2 over "unknown" numbers
  close(program_file);
  EXPECT_FALSE(fd.StillOurs());
  fd.CloseIfOurs();
  EXPECT_NE(fcntl(number, F_GETFD), -1) << "the program's descriptor was closed";
  EXPECT_EQ(write(number, "x", 1), 1);
  close(number);
}

TEST_F(OwnedFdTest, ForgetLeavesTheNumberAlone) {
  OwnedFd fd = OwnedFd::Adopt(OpenNew("ours"));
  const int number = fd.get();
  fd.Forget();
  EXPECT_FALSE(fd.valid());
  EXPECT_NE(fcntl(number, F_GETFD), -1);
  close(number);
}

TEST(HighDescriptorFloorTest, StaysBelowTheLimit) {
  const int floor = HighDescriptorFloor();
  EXPECT_GE(floor, 3);
  EXPECT_LE(floor, 1000);
}

}  // namespace
}  // namespace flopspy::platform
