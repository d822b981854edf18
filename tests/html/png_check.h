// Reads what the browser test needs from a PNG screenshot: its size, and (with zlib) its pixels.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace flopspy::testing {

struct PngImage {
  bool ok = false;
  std::string error;
  uint32_t width = 0, height = 0;
  bool decoded = false;                        // pixels read (needs zlib)
  std::vector<std::array<uint8_t, 3>> pixels;  // RGB, row by row, when decoded
};

PngImage ReadPng(const std::string& path);

}  // namespace flopspy::testing
