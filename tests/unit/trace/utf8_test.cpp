// Text from a trace made valid UTF-8: valid text unchanged, each ill-formed subpart one U+FFFD.
#include "flopspy/trace/utf8.h"

#include <gtest/gtest.h>

#include <vector>

#include "flopspy/trace/reader.h"
#include "trace_builder.h"

namespace flopspy::trace {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(ValidUtf8, ValidTextIsUnchanged) {
  for (const std::string& text : std::vector<std::string>{
           "", "plain ascii", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80", "\xED\x9F\xBF",
           "\xF4\x8F\xBF\xBF", std::string("nul\0inside", 10)}) {
    EXPECT_EQ(ValidUtf8(text), text);
  }
}

TEST(ValidUtf8, IllFormedSequencesBecomeReplacementCharacters) {
  EXPECT_EQ(ValidUtf8("\xFF"), kFffd);
  EXPECT_EQ(ValidUtf8("a\x97z"), "a" + kFffd + "z");  // stray continuation byte
  EXPECT_EQ(ValidUtf8("\xE2\x82"), kFffd);            // cut at the end: one subpart
  EXPECT_EQ(ValidUtf8("\xE2\x82"
                      "A"),
            kFffd + "A");                                       // cut before a new character
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), kFffd + kFffd);              // overlong '/': C0 never starts one
  EXPECT_EQ(ValidUtf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);  // overlong 3-byte form
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);  // a UTF-16 surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // above U+10FFFF
  EXPECT_EQ(ValidUtf8("\xF0\x9F\x98"), kFffd);
  EXPECT_EQ(ValidUtf8("caf\xE9 cr\xE8me"), "caf" + kFffd + " cr" + kFffd + "me");  // Latin-1
}

TEST(ValidUtf8, ReaderStringsAreValid) {
  testing::TraceBuilder b;
  b.String(1, "kernel\xFF<int>").String(2, "ok \xC3\xA9");
  TraceReader reader(MemorySource(b.Bytes()));
  reader.ForEachRecord(nullptr);
  EXPECT_EQ(reader.String(1), "kernel" + kFffd + "<int>");
  EXPECT_EQ(reader.String(2), "ok \xC3\xA9");
}

}  // namespace
}  // namespace flopspy::trace
