#include "flopspy/platform/terminal_text.h"

#include <gtest/gtest.h>

namespace flopspy::platform {
namespace {

TEST(EscapeControlsTest, PlainAndUnicodeTextIsUnchanged) {
  EXPECT_EQ(EscapeControls("volta_sgemm_128x64_nn"), "volta_sgemm_128x64_nn");
  EXPECT_EQ(EscapeControls("caf\xC3\xA9 \xE2\x80\x9C\xE2\x80\x9D \xF0\x9F\x94\xA5"),
            "caf\xC3\xA9 \xE2\x80\x9C\xE2\x80\x9D \xF0\x9F\x94\xA5");
  EXPECT_FALSE(HasControls("\xE2\x80\x9F"));  // the 0x9F is a continuation byte
}

TEST(EscapeControlsTest, TerminalSequencesBecomeVisible) {
  EXPECT_EQ(EscapeControls("\x1B]0;pwned\x07\x1B[2J\r"), "\\x1b]0;pwned\\x07\\x1b[2J\\r");
  EXPECT_EQ(EscapeControls("a\nb\tc\x7F"), "a\\nb\\tc\\x7f");
  EXPECT_TRUE(HasControls("x\n"));
}

TEST(EscapeControlsTest, C1ControlsAsUtf8OrStrayBytes) {
  EXPECT_EQ(EscapeControls("\xC2\x9B"
                           "2J"),
            "\\x9b2J");  // CSI as UTF-8
  EXPECT_EQ(EscapeControls("\x9B"
                           "2J"),
            "\\x9b2J");                               // CSI as one byte
  EXPECT_EQ(EscapeControls("\xC2\xA0"), "\xC2\xA0");  // no-break space is text
}

TEST(EscapeControlsTest, IntoABufferNeverCutsAnEscape) {
  char out[8];
  const size_t n = EscapeControlsInto(
      "ab\x1B"
      "cd",
      out, 5);
  EXPECT_EQ(std::string(out, n), "ab");  // "\x1b" needs four bytes, only three are left
  EXPECT_EQ(EscapeControlsInto("ab\x1B"
                               "cd",
                               out, 8),
            8u);
  EXPECT_EQ(std::string(out, 8), "ab\\x1bcd");
}

}  // namespace
}  // namespace flopspy::platform
