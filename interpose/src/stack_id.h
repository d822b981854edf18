// The id of a stack: a 64-bit hash of its kind and frames, never 0 (trace::StackRecord).
#pragma once

#include <cstddef>
#include <cstdint>

#include "flopspy/trace/schema.h"

namespace flopspy::interpose {

inline uint64_t MixWord(uint64_t h, uint64_t word) {
  h ^= word + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

inline uint64_t FinishHash(uint64_t h) {
  h ^= h >> 30;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 31;
  return h != 0 ? h : 1;
}

inline uint64_t StackIdOf(trace::StackKind kind, const uint64_t* words, size_t count) {
  uint64_t h = MixWord(0x6A09E667F3BCC908ull, static_cast<uint64_t>(kind));
  for (size_t i = 0; i < count; ++i) h = MixWord(h, words[i]);
  return FinishHash(MixWord(h, count));
}

}  // namespace flopspy::interpose
