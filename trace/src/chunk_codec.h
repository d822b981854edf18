// zstd for chunk payloads (format 6, docs/trace-format.md, "Compressed chunks"). The writer
// compresses on the flusher thread at a fast level; the reader decompresses one chunk at a
// time into a buffer it keeps, never beyond kMaxChunkPayload. libzstd.so.1 is opened on first
// use (zstd_library.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace flopspy::trace {

class ChunkCompressor {
 public:
  explicit ChunkCompressor(int level) : level_(level) {}
  ~ChunkCompressor();
  ChunkCompressor(const ChunkCompressor&) = delete;
  ChunkCompressor& operator=(const ChunkCompressor&) = delete;

  // `input` compressed into one zstd frame, zero-padded to 8 bytes, after `header_room` bytes
  // left free for the caller's chunk header. Empty when it would not be smaller than `limit`
  // bytes (the chunk's records as they are), or zstd failed or cannot be loaded.
  std::span<uint8_t> Compress(std::span<const uint8_t> input, size_t header_room, size_t limit);
  // libzstd.so.1 could not be loaded (or gave no context): nothing will be compressed.
  bool unavailable() const { return unavailable_; }

 private:
  ZSTD_CCtx_s* context_ = nullptr;
  int level_;
  bool unavailable_ = false;
  std::vector<uint8_t> out_;
};

class ChunkDecompressor {
 public:
  ChunkDecompressor() = default;
  ~ChunkDecompressor();
  ChunkDecompressor(const ChunkDecompressor&) = delete;
  ChunkDecompressor& operator=(const ChunkDecompressor&) = delete;

  // Decompresses the zstd frame at the start of `stored` (padding after it must be zeros) into
  // `out`, which must come to exactly `raw_size` bytes. False with `error` saying why.
  bool Decompress(std::span<const uint8_t> stored, size_t raw_size, std::vector<uint8_t>* out,
                  std::string* error);

 private:
  ZSTD_DCtx_s* context_ = nullptr;
};

}  // namespace flopspy::trace
