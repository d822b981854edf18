// CRC-32C (Castagnoli), the checksum of file headers and chunks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flopspy::trace {

// Continues `crc` (0 to start) over `size` bytes. Crc32c(b, Crc32c(a)) == Crc32c(a + b).
uint32_t Crc32c(const void* data, size_t size, uint32_t crc = 0);

}  // namespace flopspy::trace
