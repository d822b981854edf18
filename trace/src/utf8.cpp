#include "flopspy/trace/utf8.h"

#include <cstdint>

namespace flopspy::trace {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Bytes of the well-formed sequence starting at `s[0]`, or 0 with `*bad` set to the length of
// its maximal ill-formed subpart (at least 1).
size_t SequenceLength(std::string_view s, size_t* bad) {
  const uint8_t lead = static_cast<uint8_t>(s[0]);
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // the second byte's range (Unicode table 3-7)
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    *bad = 1;
    return 0;
  }
  size_t i = 1;
  for (; i < length && i < s.size(); ++i) {
    const uint8_t c = static_cast<uint8_t>(s[i]);
    if (c < (i == 1 ? low : 0x80) || c > (i == 1 ? high : 0xBF)) break;
  }
  if (i == length) return length;
  *bad = i;
  return 0;
}

}  // namespace

std::string ValidUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t pos = 0; pos < bytes.size();) {
    size_t bad = 0;
    const size_t n = SequenceLength(bytes.substr(pos), &bad);
    if (n > 0) {
      out.append(bytes.substr(pos, n));
      pos += n;
    } else {
      out.append(kReplacement);
      pos += bad;
    }
  }
  return out;
}

}  // namespace flopspy::trace
