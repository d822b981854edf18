// Number and time formatting shared by the text outputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace flopspy::tools {

// 1234567 -> "1,234,567"
std::string Grouped(uint64_t value);
// Nanoseconds to "850 ns", "12.3 us", "4.56 ms", "7.89 s".
std::string Duration(double ns);
// CLOCK_REALTIME nanoseconds to "2026-11-21 10:24:03 UTC".
std::string UtcTime(uint64_t realtime_ns);
// 1.5e12 -> "1.50 T" (with a unit appended by the caller).
std::string SiValue(double value);

// Breaks `text` into lines of at most `width` characters; lines after the first start with
// `indent` spaces.
std::string Wrap(const std::string& text, size_t width, size_t indent);

}  // namespace flopspy::tools
