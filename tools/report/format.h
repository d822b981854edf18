// Number and time formatting shared by the text outputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace flopspy::tools {

// 1234567 -> "1,234,567"
std::string Grouped(uint64_t value);
// A count that arrives as a double (a JSON number, a share of launches), grouped: negative or NaN
// reads 0 and anything past the largest uint64_t reads that, where a plain cast would be
// undefined (a damaged trace can carry any number).
std::string GroupedCount(double value);
// Nanoseconds to "850 ns", "12.3 us", "4.56 ms", "7.89 s".
std::string Duration(double ns);
// CLOCK_REALTIME nanoseconds to "2026-11-21 10:24:03 UTC".
std::string UtcTime(uint64_t realtime_ns);
// 1.5e12 -> "1.50 T" (with a unit appended by the caller).
std::string SiValue(double value);
// A plain number, three significant digits and never an exponent: "0.0833", "12.5", "813",
// "1,020" (whole from 1,000 on), "1.5 M" from a million, "0.0000667", "-" when not finite. FLOP
// per byte, ratios.
std::string Significant(double value);

// "1 call", "24,000 calls": a count with its noun, singular or plural.
std::string Counted(uint64_t n, std::string_view singular, std::string_view plural);

// "... 5 more kernel signatures (--json has all)": what a table left out.
std::string MoreLine(uint64_t n, std::string_view singular, std::string_view plural);

// Display width of UTF-8 text: continuation bytes do not count.
size_t DisplayWidth(std::string_view text);

// Breaks `text` into lines of at most `width` characters; lines after the first start with
// `indent` spaces. A word longer than a line is cut. Control characters in `text` (it may come
// from a trace) are made visible (platform::EscapeControls), here and in Paragraph.
std::string Wrap(const std::string& text, size_t width, size_t indent);

// `text` as a paragraph of lines no wider than `width` columns, broken at spaces (a word longer
// than a line is cut): the first line starts with `first`, the others with `rest`. Every line
// ends with a newline.
std::string Paragraph(std::string_view text, std::string_view first, std::string_view rest,
                      size_t width = 100);
// The indent of lines under a 10-column label that is itself indented 2.
inline constexpr std::string_view kLabelPad = "            ";

}  // namespace flopspy::tools
