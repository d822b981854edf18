// Makes a mutated trace pass the reader's integrity checks again. A fuzzer's mutation almost
// always breaks a checksum, and a chunk that fails its checksum is never decoded, so without this
// the fuzzer would spend its time on the checksum test alone.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flopspy::fuzz {

struct RepairOptions {
  bool record_counts = true;  // also set each chunk's record_count to what its framing holds
};

// Recomputes the header checksum and each chunk's checksum (and record count), in place, from the
// start of the file up to the first chunk whose size cannot be right. Returns the chunks repaired.
size_t RepairChecksums(uint8_t* data, size_t size, RepairOptions options = {});

}  // namespace flopspy::fuzz
