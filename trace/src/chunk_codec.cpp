#include "chunk_codec.h"

#include <algorithm>
#include <cstring>

#include "flopspy/trace/schema.h"
#include "zstd_library.h"

namespace flopspy::trace {

ChunkCompressor::~ChunkCompressor() {
  if (context_ != nullptr) Zstd().freeCCtx(context_);
}

std::span<uint8_t> ChunkCompressor::Compress(std::span<const uint8_t> raw, size_t header_room,
                                             size_t limit) {
  if (unavailable_ || raw.empty()) return {};
  const ZstdLibrary& z = Zstd();
  if (context_ == nullptr) {
    context_ = z.loaded ? z.createCCtx() : nullptr;
    if (context_ == nullptr) {
      unavailable_ = true;
      return {};
    }
  }
  const size_t bound = z.compressBound(raw.size());
  if (out_.size() < header_room + bound + kRecordAlign) {
    out_.resize(header_room + bound + kRecordAlign);
  }
  const size_t frame =
      z.compressCCtx(context_, out_.data() + header_room, bound, raw.data(), raw.size(), level_);
  if (z.isError(frame) != 0) return {};
  const size_t padded = AlignRecordSize(frame);
  if (padded >= limit) return {};
  std::fill(out_.begin() + static_cast<std::ptrdiff_t>(header_room + frame),
            out_.begin() + static_cast<std::ptrdiff_t>(header_room + padded), uint8_t{0});
  return {out_.data(), header_room + padded};
}

ChunkDecompressor::~ChunkDecompressor() {
  if (context_ != nullptr) Zstd().freeDCtx(context_);
}

bool ChunkDecompressor::Decompress(std::span<const uint8_t> stored, size_t raw_size,
                                   std::vector<uint8_t>* out, std::string* error) {
  const ZstdLibrary& z = Zstd();
  if (!z.loaded) {
    *error = "needs libzstd.so.1 to be read, which cannot be loaded here";
    return false;
  }
  if (context_ == nullptr) context_ = z.createDCtx();
  if (context_ == nullptr) {
    *error = "cannot be read: no memory for zstd";
    return false;
  }
  // A zstd frame of today's format only: no skippable frame, no legacy format's decoder.
  uint32_t magic = 0;
  if (stored.size() >= sizeof(magic)) std::memcpy(&magic, stored.data(), sizeof(magic));
  if (magic != ZSTD_MAGICNUMBER) {
    *error = "is not a zstd frame";
    return false;
  }
  const size_t frame = z.findFrameCompressedSize(stored.data(), stored.size());
  if (z.isError(frame) != 0) {
    *error = std::string("is not a zstd frame (") + z.getErrorName(frame) + ")";
    return false;
  }
  if (!std::all_of(stored.begin() + static_cast<std::ptrdiff_t>(frame), stored.end(),
                   [](uint8_t b) { return b == 0; })) {
    *error = "has bytes after its zstd frame";
    return false;
  }
  // What the frame says it holds is checked before any memory is given to it.
  const unsigned long long content = z.getFrameContentSize(stored.data(), frame);
  if (content != raw_size) {
    *error = "decompresses to " +
             (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR
                  ? std::string("an unknown size")
                  : std::to_string(content) + " bytes") +
             ", not the " + std::to_string(raw_size) + " its header says";
    return false;
  }
  out->resize(raw_size);
  const size_t got = z.decompressDCtx(context_, out->data(), raw_size, stored.data(), frame);
  if (z.isError(got) != 0 || got != raw_size) {
    *error = std::string("fails to decompress (") +
             (z.isError(got) != 0 ? z.getErrorName(got) : "short") + ")";
    return false;
  }
  return true;
}

}  // namespace flopspy::trace
