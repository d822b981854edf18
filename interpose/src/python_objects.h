// Reading CPython str and bytes objects through a PythonLayout, with either reader of
// python_safe_read.h: the safe one while a layout is being checked, plain loads after.
#pragma once

#include <cstddef>
#include <cstdint>

#include "python_layout.h"

namespace flopspy::interpose {

template <class R>
bool ReadWord(R& r, uintptr_t address, uintptr_t* out) {
  return r.Read(address, out, sizeof(*out));
}

// Appends code point `c` as UTF-8 if it fits in `cap`; lone surrogates become U+FFFD and NUL
// becomes '?' (the trace's texts hold no NULs). False when it did not fit.
inline bool AppendUtf8(uint32_t c, char* out, size_t cap, size_t* n) {
  if (c == 0) c = '?';
  if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) c = 0xFFFD;
  char b[4];
  size_t k;
  if (c < 0x80) {
    b[0] = static_cast<char>(c);
    k = 1;
  } else if (c < 0x800) {
    b[0] = static_cast<char>(0xC0 | (c >> 6));
    b[1] = static_cast<char>(0x80 | (c & 0x3F));
    k = 2;
  } else if (c < 0x10000) {
    b[0] = static_cast<char>(0xE0 | (c >> 12));
    b[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    b[2] = static_cast<char>(0x80 | (c & 0x3F));
    k = 3;
  } else {
    b[0] = static_cast<char>(0xF0 | (c >> 18));
    b[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    b[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    b[3] = static_cast<char>(0x80 | (c & 0x3F));
    k = 4;
  }
  if (*n + k > cap) return false;
  for (size_t i = 0; i < k; ++i) out[(*n)++] = b[i];
  return true;
}

// Length of `text` cut so that it does not end inside a UTF-8 sequence.
inline size_t TrimPartialUtf8(const char* text, size_t n) {
  size_t start = n;
  while (start > 0 && (static_cast<uint8_t>(text[start - 1]) & 0xC0) == 0x80 && n - start < 3) {
    --start;
  }
  if (start == 0) return n;
  const auto lead = static_cast<uint8_t>(text[start - 1]);
  const size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return n - start + 1 < need ? start - 1 : n;
}

enum class TextRead : uint8_t { kOk, kNotStr, kNotCompact };

// A str object as UTF-8 into `out`, at most `cap` bytes (cut at a character). `str_type` is
// &PyUnicode_Type, or 0 to skip that check.
template <class R>
TextRead ReadStr(R& r, const PythonLayout& l, uintptr_t str, uintptr_t str_type, char* out,
                 size_t cap, size_t* n) {
  *n = 0;
  uintptr_t type = 0;
  if (!ReadWord(r, str + l.ob_type, &type) || type == 0) return TextRead::kNotStr;
  if (str_type != 0 && type != str_type) return TextRead::kNotStr;
  uint32_t state = 0;
  int64_t length = 0;
  if (!r.Read(str + l.unicode_state, &state, sizeof(state)) ||
      !r.Read(str + l.unicode_length, &length, sizeof(length)) || length < 0 ||
      length > (int64_t{1} << 30)) {
    return TextRead::kNotStr;
  }
  const uint32_t kind = (state >> l.unicode_kind_shift) & 7u;
  const bool compact = ((state >> (l.unicode_kind_shift + 3)) & 1u) != 0;
  const bool ascii = ((state >> (l.unicode_kind_shift + 4)) & 1u) != 0;
  if (kind != 1 && kind != 2 && kind != 4) return TextRead::kNotStr;
  if (!compact) return TextRead::kNotCompact;
  const auto count = static_cast<size_t>(length);
  auto copy_bytes = [&](uintptr_t data, size_t bytes) {
    const size_t take = bytes < cap ? bytes : cap;
    if (!r.Read(data, out, take)) return false;
    *n = bytes > cap ? TrimPartialUtf8(out, take) : take;
    for (size_t i = 0; i < *n; ++i) {
      if (out[i] == '\0') out[i] = '?';
    }
    return true;
  };
  if (ascii) {
    return copy_bytes(str + l.unicode_ascii_size, count) ? TextRead::kOk : TextRead::kNotStr;
  }
  uintptr_t utf8 = 0;
  int64_t utf8_length = 0;
  if (!ReadWord(r, str + l.unicode_utf8, &utf8)) return TextRead::kNotStr;
  if (utf8 != 0) {
    if (!r.Read(str + l.unicode_utf8 - 8, &utf8_length, sizeof(utf8_length)) || utf8_length < 0 ||
        utf8_length > (int64_t{1} << 32)) {
      return TextRead::kNotStr;
    }
    return copy_bytes(utf8, static_cast<size_t>(utf8_length)) ? TextRead::kOk : TextRead::kNotStr;
  }
  const uintptr_t data = str + l.unicode_compact_size;
  for (size_t i = 0; i < count; ++i) {
    uint32_t c = 0;
    if (kind == 1) {
      uint8_t v;
      if (!r.Read(data + i, &v, 1)) return TextRead::kNotStr;
      c = v;
    } else if (kind == 2) {
      uint16_t v;
      if (!r.Read(data + 2 * i, &v, 2)) return TextRead::kNotStr;
      c = v;
    } else if (!r.Read(data + 4 * i, &c, 4)) {
      return TextRead::kNotStr;
    }
    if (!AppendUtf8(c, out, cap, n)) break;
  }
  return TextRead::kOk;
}

// A bytes object's size and where its bytes are; false when it is not one. `bytes_type` is
// &PyBytes_Type, or 0 to skip that check.
template <class R>
bool ReadBytesObject(R& r, const PythonLayout& l, uintptr_t bytes, uintptr_t bytes_type,
                     uintptr_t* data, size_t* size) {
  uintptr_t type = 0;
  int64_t n = 0;
  if (!ReadWord(r, bytes + l.ob_type, &type) || type == 0) return false;
  if (bytes_type != 0 && type != bytes_type) return false;
  if (!r.Read(bytes + l.ob_size, &n, sizeof(n)) || n < 0 || n > (int64_t{1} << 30)) return false;
  *data = bytes + l.bytes_sval;
  *size = static_cast<size_t>(n);
  return true;
}

}  // namespace flopspy::interpose
