// Finding libcupti: version numbers in file names, where the CUPTI matching a libcudart lives,
// and the one the process already loaded winning over everything else.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cupti_locate.h"

namespace flopspy::testing {
namespace {

using interpose::CuptiCandidatesBesideCudart;
using interpose::LibraryMajor;

TEST(LocateCupti, MajorFromFileName) {
  EXPECT_EQ(LibraryMajor("/usr/local/cuda/lib64/libcudart.so.13.0.96", "libcudart.so"), 13);
  EXPECT_EQ(LibraryMajor("libcudart.so.12", "libcudart.so"), 12);
  EXPECT_EQ(LibraryMajor("/x/libcudart.so", "libcudart.so"), -1);
  EXPECT_EQ(LibraryMajor("/x/libcudart.so.", "libcudart.so"), -1);
  EXPECT_EQ(LibraryMajor("/x/libcudart_static.a", "libcudart.so"), -1);
  EXPECT_EQ(LibraryMajor("/libcudart.so.13/libcublas.so.13", "libcudart.so"), -1);
}

TEST(LocateCupti, CandidatesBesideCudart) {
  // Toolkit 13 and cu13 wheels keep both in one folder; toolkit 12 in extras/CUPTI; cu12 wheels
  // in a sibling package.
  EXPECT_THAT(CuptiCandidatesBesideCudart("/usr/local/cuda/lib64/libcudart.so.13", 13),
              ::testing::ElementsAre("/usr/local/cuda/lib64/libcupti.so.13",
                                     "/usr/local/cuda/lib64/../extras/CUPTI/lib64/libcupti.so.13",
                                     "/usr/local/cuda/lib64/../../cuda_cupti/lib/libcupti.so.13"));
  EXPECT_EQ(CuptiCandidatesBesideCudart(
                "/venv/lib/python3.12/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12", 12)
                .back(),
            "/venv/lib/python3.12/site-packages/nvidia/cuda_runtime/lib/../../cuda_cupti/lib/"
            "libcupti.so.12");
}

TEST(LocateCupti, ConfiguredPathThenTheCopyAlreadyLoaded) {
  if (std::string(FLOPSPY_REAL_CUPTI).empty()) GTEST_SKIP() << "no libcupti in the toolkit";
  const interpose::CuptiLibrary first = interpose::LocateCupti(FLOPSPY_REAL_CUPTI);
  ASSERT_NE(first.handle, nullptr) << first.error;
  // Whether this process had it loaded already (another test) or it came from the setting, the
  // file is the toolkit's.
  EXPECT_THAT(first.path, ::testing::HasSubstr("libcupti.so"));
  // Now it is loaded: found as such, whatever the setting says.
  const interpose::CuptiLibrary again = interpose::LocateCupti("/nonexistent/libcupti.so.13");
  ASSERT_NE(again.handle, nullptr) << again.error;
  EXPECT_EQ(again.origin, "loaded by the program");
  EXPECT_EQ(again.handle, first.handle);
}

TEST(LocateCupti, NoDriverIsLoadedHere) {
  // Unit tests never load libcuda.so.1; LoadedDriver must not load it either.
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr) GTEST_SKIP();
  EXPECT_EQ(interpose::LoadedDriver(), nullptr);
  EXPECT_EQ(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD), nullptr);
}

}  // namespace
}  // namespace flopspy::testing
