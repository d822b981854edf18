// Names the NVTX receiver hands out and keeps: domains and registered strings live as long as the
// process (their handles may be used from any thread at any time, and records on their way to
// the flusher point at their text), and wide text becomes UTF-8 (docs/nvtx.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace flopspy::interpose {

// An nvtxDomainHandle_t points at one of these (nullptr is NVTX's default domain).
struct NvtxDomain {
  uint32_t slot;     // index of the domain's nesting depth in each thread (0: default domain)
  const char* name;  // NUL-terminated UTF-8, never freed
};

// The one domain of this name, made at its first sight; nullptr when memory runs out.
// Thread-safe; takes a lock and may allocate (domains are made once, off the hot path).
const NvtxDomain* NvtxDomainNamed(std::string_view name) noexcept;

// The registered string for `text` in `domain`: NUL-terminated UTF-8 that is never freed, and
// the same pointer for the same text. nullptr when memory runs out. Thread-safe, cold.
const char* NvtxRegisteredString(const NvtxDomain* domain, std::string_view text) noexcept;

// Writes `wide` (UTF-32, NUL-terminated) as UTF-8 into `out`, whole characters only, at most
// `capacity` bytes (no NUL added); returns the bytes written. Invalid code points become U+FFFD.
size_t WideToUtf8(const wchar_t* wide, char* out, size_t capacity) noexcept;

// Nesting slots per thread: domains beyond the first ones share the last slot.
inline constexpr uint32_t kNvtxDepthSlots = 64;

}  // namespace flopspy::interpose
