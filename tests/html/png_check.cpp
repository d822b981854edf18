#include "png_check.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#ifdef FLOPSPY_HAVE_ZLIB
#include <zlib.h>
#endif

namespace flopspy::testing {
namespace {

uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

#ifdef FLOPSPY_HAVE_ZLIB
uint8_t Paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return static_cast<uint8_t>(a);
  return static_cast<uint8_t>(pb <= pc ? b : c);
}

bool Decode(const std::vector<uint8_t>& idat, int channels, PngImage& img) {
  const size_t stride = static_cast<size_t>(img.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, idat.data(), idat.size()) != Z_OK || size != raw.size()) {
    img.error = "cannot inflate the image data";
    return false;
  }
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  img.pixels.reserve(static_cast<size_t>(img.width) * img.height);
  for (uint32_t y = 0; y < img.height; ++y) {
    const uint8_t* line = &raw[y * (stride + 1)];
    const uint8_t filter = line[0];
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= static_cast<size_t>(channels) ? cur[x - channels] : 0;
      const int b = prev[x];
      const int c = x >= static_cast<size_t>(channels) ? prev[x - channels] : 0;
      int v = line[1 + x];
      switch (filter) {
        case 1:
          v += a;
          break;
        case 2:
          v += b;
          break;
        case 3:
          v += (a + b) / 2;
          break;
        case 4:
          v += Paeth(a, b, c);
          break;
        default:
          break;
      }
      cur[x] = static_cast<uint8_t>(v);
    }
    for (uint32_t x = 0; x < img.width; ++x) {
      const uint8_t* p = &cur[static_cast<size_t>(x) * channels];
      if (channels == 4 && p[3] != 255) {
        // Over white, as the page would show.
        const auto over = [&](uint8_t v) {
          return static_cast<uint8_t>((v * p[3] + 255 * (255 - p[3])) / 255);
        };
        img.pixels.push_back({over(p[0]), over(p[1]), over(p[2])});
      } else {
        img.pixels.push_back({p[0], p[1], p[2]});
      }
    }
    prev.swap(cur);
  }
  img.decoded = true;
  return true;
}
#endif

}  // namespace

PngImage ReadPng(const std::string& path) {
  PngImage img;
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 33 || !std::equal(kSignature, kSignature + 8, bytes.begin())) {
    img.error = "not a PNG file";
    return img;
  }
  size_t at = 8;
  std::vector<uint8_t> idat;
  int channels = 0;
  bool interlaced = false;
  while (at + 12 <= bytes.size()) {
    const uint32_t length = Be32(&bytes[at]);
    const std::string type(reinterpret_cast<const char*>(&bytes[at + 4]), 4);
    if (at + 12 + length > bytes.size()) break;
    const uint8_t* data = &bytes[at + 8];
    if (type == "IHDR") {
      img.width = Be32(data);
      img.height = Be32(data + 4);
      const uint8_t depth = data[8], color = data[9];
      interlaced = data[12] != 0;
      if (depth == 8 && color == 2) channels = 3;
      if (depth == 8 && color == 6) channels = 4;
    } else if (type == "IDAT") {
      idat.insert(idat.end(), data, data + length);
    } else if (type == "IEND") {
      img.ok = img.width > 0 && img.height > 0 && !idat.empty();
      break;
    }
    at += 12 + length;
  }
  if (!img.ok) {
    img.error = "no image header, data or end";
    return img;
  }
#ifdef FLOPSPY_HAVE_ZLIB
  if (channels > 0 && !interlaced) Decode(idat, channels, img);
#else
  (void)channels;
  (void)interlaced;
#endif
  return img;
}

}  // namespace flopspy::testing
