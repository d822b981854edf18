// Small numeric and text helpers several analyses share, in one place (a unity build puts their
// files in one translation unit, where private copies would collide).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace flopspy::analyzers::helpers {

// The middle value; the mean of the two middle values for an even count; 0 for none.
inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// A usable rate, peak or duration: finite and above zero.
inline bool PositiveFinite(double v) {
  return std::isfinite(v) && v > 0;
}

inline bool IsAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}

// ASCII letters in lower case; other bytes (UTF-8 included) as they are.
inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace flopspy::analyzers::helpers
