// --window START:END: units, open ends, and what is refused.
#include "report/time_window.h"

#include <gtest/gtest.h>

namespace flopspy::tools {
namespace {

TEST(TimeWindow, ParsesUnitsAndOpenEnds) {
  std::string error;
  auto w = ParseTimeWindow("2s:5s", &error);
  ASSERT_TRUE(w) << error;
  EXPECT_DOUBLE_EQ(w->start_ns, 2e9);
  EXPECT_DOUBLE_EQ(w->end_ns, 5e9);
  w = ParseTimeWindow("1500ms:2500ms", &error);
  ASSERT_TRUE(w) << error;
  EXPECT_DOUBLE_EQ(w->start_ns, 1.5e9);
  EXPECT_DOUBLE_EQ(w->end_ns, 2.5e9);
  w = ParseTimeWindow("250us:1.5ms", &error);
  ASSERT_TRUE(w) << error;
  EXPECT_DOUBLE_EQ(w->start_ns, 250e3);
  EXPECT_DOUBLE_EQ(w->end_ns, 1.5e6);
  w = ParseTimeWindow("1min:", &error);
  ASSERT_TRUE(w) << error;
  EXPECT_DOUBLE_EQ(w->start_ns, 60e9);
  EXPECT_TRUE(w->Meets(1e15, 1e15));
  w = ParseTimeWindow(":100ns", &error);
  ASSERT_TRUE(w) << error;
  EXPECT_TRUE(w->Meets(0, 0));
  EXPECT_TRUE(w->Meets(50, 500));
  EXPECT_FALSE(w->Meets(101, 500));
}

TEST(TimeWindow, RefusesWhatIsNotAWindow) {
  for (const char* bad : {"", ":", "2s", "2:5", "2s:5", "5s:2s", "2s:2s", "-1s:2s", "1s:2s:3s",
                          "1 s:2s", "abc:1s", "1sec:2s", "nans:1s", "infs:1s"}) {
    std::string error;
    EXPECT_FALSE(ParseTimeWindow(bad, &error)) << bad;
    EXPECT_EQ(error.rfind("--window", 0), 0u) << bad << ": " << error;
  }
}

}  // namespace
}  // namespace flopspy::tools
