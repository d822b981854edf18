#include "flopspy/platform/html_text.h"

#include <gtest/gtest.h>

namespace flopspy::platform {
namespace {

TEST(EscapeHtml, MarkupCharactersBecomeEntities) {
  EXPECT_EQ(EscapeHtml("gemm<float> & \"a\" 'b'"),
            "gemm&lt;float&gt; &amp; &quot;a&quot; &#39;b&#39;");
}

TEST(EscapeHtml, ControlCharactersOtherThanTabAndNewlineAreDropped) {
  EXPECT_EQ(EscapeHtml(std::string("a\tb\nc\x01\x7f"
                                   "d")),
            "a\tb\ncd");
}

}  // namespace
}  // namespace flopspy::platform
