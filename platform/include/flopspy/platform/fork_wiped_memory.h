// Memory a fork() child gets as zeros instead of a copy (MADV_WIPEONFORK, Linux 4.14+).
//
// flopspy's record buffers and chunk builders are written all the time by the program's threads
// and the flusher. An ordinary private mapping is write-protected in the parent at every fork
// (copy-on-write), so each page written next costs a fault and a copy, and fork() itself copies
// its page tables. A fork child throws flopspy's records away anyway: wiped memory spares both.
// On a kernel without MADV_WIPEONFORK it is ordinary memory.
#pragma once

#include <cstddef>
#include <memory_resource>

namespace flopspy::platform {

// Maps `bytes` (rounded up to pages), zero-filled and wiped on fork; nullptr when mmap fails.
// errno is kept on success.
void* MapForkWiped(size_t bytes);
void UnmapForkWiped(void* memory, size_t bytes);

// The same as a memory resource, for large long-lived buffers (every allocation is its own
// mapping: a megabyte, not small objects). Throws std::bad_alloc when mmap fails.
std::pmr::memory_resource* ForkWipedMemory();

}  // namespace flopspy::platform
