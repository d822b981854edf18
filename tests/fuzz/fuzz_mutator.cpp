// libFuzzer's own mutations, then the checksums repaired (checksum_repair.h) so that most mutated
// inputs reach the record decoders and the analyzers. One input in eight keeps what the mutation
// made of its checksums, and one in three keeps its record counts, so those checks stay fuzzed.
#include <cstddef>
#include <cstdint>

#include "checksum_repair.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 8 != 0) {
    flopspy::fuzz::RepairChecksums(data, size, {.record_counts = seed % 3 != 0});
  }
  return size;
}
