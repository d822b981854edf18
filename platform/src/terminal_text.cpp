#include "flopspy/platform/terminal_text.h"

#include <cstdint>

namespace flopspy::platform {
namespace {

// Length of the UTF-8 sequence that starts at `text[i]` when its continuation bytes are all
// there (2 to 4), else 1. Only the shape is checked: a control hides in no longer sequence.
size_t SequenceLength(std::string_view text, size_t i) {
  const auto lead = static_cast<uint8_t>(text[i]);
  size_t length = 1;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  if (i + length > text.size()) return 1;
  for (size_t k = 1; k < length; ++k) {
    const auto next = static_cast<uint8_t>(text[i + k]);
    if (next < 0x80 || next > 0xBF) return 1;
  }
  return length;
}

// Whether the sequence of `length` bytes at `text[i]` is a control: C0, DEL, C1 as UTF-8
// (C2 80..C2 9F) or a stray byte 0x80..0x9F.
bool IsControl(std::string_view text, size_t i, size_t length) {
  const auto byte = static_cast<uint8_t>(text[i]);
  if (length == 2) return byte == 0xC2 && static_cast<uint8_t>(text[i + 1]) <= 0x9F;
  if (length != 1) return false;
  return byte < 0x20 || byte == 0x7F || (byte >= 0x80 && byte <= 0x9F);
}

// The visible form of one control byte: \t, \n, \r or \xNN. Returns its length (2 or 4).
size_t Visible(uint8_t byte, char* out) {
  out[0] = '\\';
  switch (byte) {
    case '\t':
      out[1] = 't';
      return 2;
    case '\n':
      out[1] = 'n';
      return 2;
    case '\r':
      out[1] = 'r';
      return 2;
    default:
      break;
  }
  constexpr char kHex[] = "0123456789abcdef";
  out[1] = 'x';
  out[2] = kHex[byte >> 4];
  out[3] = kHex[byte & 0xF];
  return 4;
}

}  // namespace

bool HasControls(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = SequenceLength(text, i);
    if (IsControl(text, i, length)) return true;
    i += length;
  }
  return false;
}

size_t EscapeControlsInto(std::string_view text, char* out, size_t capacity) {
  size_t n = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t length = SequenceLength(text, i);
    if (!IsControl(text, i, length)) {
      if (n + length > capacity) break;
      for (size_t k = 0; k < length; ++k) out[n++] = text[i + k];
      i += length;
      continue;
    }
    // A C1 control written as UTF-8 (C2 8x) shows its code point, \x8x.
    const auto code = static_cast<uint8_t>(text[i + length - 1]);
    char visible[4];
    const size_t shown = Visible(code, visible);
    if (n + shown > capacity) break;
    for (size_t k = 0; k < shown; ++k) out[n++] = visible[k];
    i += length;
  }
  return n;
}

std::string EscapeControls(std::string_view text) {
  if (!HasControls(text)) return std::string(text);
  std::string out(text.size() * 4, '\0');
  out.resize(EscapeControlsInto(text, out.data(), out.size()));
  return out;
}

}  // namespace flopspy::platform
