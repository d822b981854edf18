// The loaded objects native frames lie in (docs/call-sites.md): path, GNU build id, bias and the
// address range of each, for the trace's ModuleRecords. The report symbolises from them; the
// process never looks a symbol up.
//
// One list per process, append-only, under a mutex: only a new stack (the cold path) asks it.
// An address outside every known object makes it list the loaded objects again
// (dl_iterate_phdr), so libraries opened later are found when their frames first appear.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flopspy::interpose {

inline constexpr int kNoModule = -1;

// The index of the object holding `address` (listing the loaded objects again when none does),
// or kNoModule. Indexes are stable for the life of the process. Never throws.
int ModuleIndexOf(uint64_t address) noexcept;

// Writes the trace::ModuleRecord of module `index` (fixed part, path, build id, zero padding)
// into `out`, at most `capacity` bytes. Returns its size, or 0 (no such module, too small).
size_t DescribeModule(int index, uint8_t* out, size_t capacity) noexcept;

// [start, end) of the object that holds `address` (found with dladdr), or {0, 0}. Used once, to
// tell flopspy's own frames apart.
struct AddressRange {
  uint64_t start = 0;
  uint64_t end = 0;
};
AddressRange ObjectRangeOf(const void* address) noexcept;

// In a fork child: forget the parent's list (its mutex may be held by a thread the child does
// not have); the next lookup lists the objects again.
void ResetModuleMapInChild() noexcept;

}  // namespace flopspy::interpose
