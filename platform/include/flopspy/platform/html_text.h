// Text made safe inside HTML, SVG and XML text and attribute values: the one escaper that every
// markup output uses (the report's HTML, the CPU roofline SVG).
#pragma once

#include <string>
#include <string_view>

namespace flopspy::platform {

// & < > " ' become entities; control characters other than tab and newline are dropped (they are
// not allowed in HTML or XML text).
std::string EscapeHtml(std::string_view text);

}  // namespace flopspy::platform
