// Text that reaches a terminal or a one-line message: names, host names, command lines and
// environment values come from programs and traces flopspy does not control. A raw ESC can set
// the terminal's title or clear it, a CR or LF breaks a table or splits a one-line message.
#pragma once

#include <string>
#include <string_view>

namespace flopspy::platform {

// `text` with every control character made visible: C0 controls (TAB, CR, LF included), DEL and
// the C1 controls (as UTF-8, U+0080..U+009F, or as stray bytes 0x80..0x9F) become \t, \r, \n or
// \xNN. Everything else, valid UTF-8 and other bytes alike, passes unchanged.
std::string EscapeControls(std::string_view text);

// Whether EscapeControls would change `text`.
bool HasControls(std::string_view text);

// EscapeControls into a caller's buffer (no allocation: usable in a signal handler). Writes at
// most `capacity` bytes, never cutting an escape in two; returns the bytes written.
size_t EscapeControlsInto(std::string_view text, char* out, size_t capacity);

}  // namespace flopspy::platform
