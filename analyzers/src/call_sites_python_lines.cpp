// PythonLineOf: a Python instruction's line from the code object's co_linetable, in the two
// formats CPython has written since 3.10 (docs/call-sites.md). The table comes from the traced
// process, so every read is bounds-checked: a cut or damaged table gives 0 (unknown), never a
// read past its end.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flopspy/analyzers/call_sites.h"

namespace flopspy::analyzers {
namespace {

using trace::PyLinetableFormat;

// 3.10: (byte delta, line delta) pairs over the bytecode; a line delta of -128 means "no line"
// for that range and leaves the running line as it was.
int Line310(std::string_view table, int first_line, uint32_t offset) {
  uint64_t start = 0;
  int64_t line = first_line;
  for (size_t i = 0; i + 1 < table.size(); i += 2) {
    const auto bytes = static_cast<uint8_t>(table[i]);
    const auto delta = static_cast<int8_t>(table[i + 1]);
    const bool no_line = delta == -128;
    if (!no_line) line += delta;
    const uint64_t end = start + bytes;
    if (offset >= start && offset < end)
      return no_line || line <= 0 || line > INT32_MAX ? 0 : static_cast<int>(line);
    start = end;
  }
  return 0;
}

// 3.11 and later: location entries, one per run of 2-byte code units. An entry's first byte is
// 1CCCCLLL (code, length - 1); what follows depends on the code. Varints are 6-bit groups with
// 0x40 as the "more" bit, low group first; a signed varint keeps its sign in bit 0.
class LocationReader {
 public:
  explicit LocationReader(std::string_view table) : table_(table) {}
  bool AtEnd() const { return pos_ >= table_.size(); }
  bool Byte(uint8_t* out) {
    if (pos_ >= table_.size()) return false;
    *out = static_cast<uint8_t>(table_[pos_++]);
    return true;
  }
  bool Varint(uint64_t* out) {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 6) {
      uint8_t b = 0;
      if (!Byte(&b)) return false;
      value |= uint64_t{b & 0x3Fu} << shift;
      if ((b & 0x40) == 0) {
        *out = value;
        return true;
      }
    }
    return false;  // longer than any real table writes
  }
  bool SignedVarint(int64_t* out) {
    uint64_t raw = 0;
    if (!Varint(&raw)) return false;
    // No real line delta comes near 2^31; larger ones are refused before they can overflow.
    if ((raw >> 1) > uint64_t{INT32_MAX}) return false;
    const auto magnitude = static_cast<int64_t>(raw >> 1);
    *out = (raw & 1) ? -magnitude : magnitude;
    return true;
  }
  bool Skip(size_t n) {
    if (table_.size() - pos_ < n) return false;
    pos_ += n;
    return true;
  }

 private:
  std::string_view table_;
  size_t pos_ = 0;
};

int Line311(std::string_view table, int first_line, uint32_t offset) {
  const uint64_t unit = offset / 2;
  LocationReader in(table);
  uint64_t start = 0;
  int64_t line = first_line;
  while (!in.AtEnd()) {
    uint8_t head = 0;
    if (!in.Byte(&head) || (head & 0x80) == 0) return 0;  // not an entry's first byte
    const int code = (head >> 3) & 0x0F;
    const uint64_t end = start + (head & 0x07) + 1;
    bool no_line = false;
    if (code <= 9) {  // short form: same line, one byte of columns
      if (!in.Skip(1)) return 0;
    } else if (code <= 12) {  // one-line form: line delta 0 to 2, two bytes of columns
      line += code - 10;
      if (!in.Skip(2)) return 0;
    } else if (code == 13) {  // no columns
      int64_t delta = 0;
      if (!in.SignedVarint(&delta)) return 0;
      line += delta;
    } else if (code == 14) {  // long form: line delta, end line delta, start and end columns
      int64_t delta = 0;
      uint64_t ignored = 0;
      if (!in.SignedVarint(&delta) || !in.Varint(&ignored) || !in.Varint(&ignored) ||
          !in.Varint(&ignored)) {
        return 0;
      }
      line += delta;
    } else {  // 15: no location
      no_line = true;
    }
    // A hostile table could walk the line anywhere: keep it in a range that cannot overflow.
    if (line < INT32_MIN || line > INT32_MAX) return 0;
    if (unit >= start && unit < end) return no_line || line <= 0 ? 0 : static_cast<int>(line);
    start = end;
  }
  return 0;
}

}  // namespace

int PythonLineOf(const PyCode& code, uint32_t instr_offset) {
  PyLinetableFormat format = code.format;
  if (format == PyLinetableFormat::kUnknown) {
    // An older writer may leave the format out; the version says which table CPython wrote.
    if (code.python_version == 0x030A) format = PyLinetableFormat::kPy310;
    if (code.python_version >= 0x030B && (code.python_version >> 8) == 3) {
      format = PyLinetableFormat::kPy311;
    }
  }
  switch (format) {
    case PyLinetableFormat::kPy310:
      return Line310(code.linetable, code.first_line, instr_offset);
    case PyLinetableFormat::kPy311:
      return Line311(code.linetable, code.first_line, instr_offset);
    case PyLinetableFormat::kUnknown:
      break;
  }
  return 0;
}

}  // namespace flopspy::analyzers
