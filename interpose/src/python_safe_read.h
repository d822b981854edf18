// Reads of memory that may not be mapped, without a fault: used to check a CPython layout on the
// real frame chain before python_frames.cpp trusts it with plain loads (docs/call-sites.md).
// System calls: the cold path only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace flopspy::interpose {

class SafeReader {
 public:
  // `through_pipe`: skip process_vm_readv (tests use it to check the fallback).
  explicit SafeReader(bool through_pipe = false) : use_pipe_(through_pipe) {}
  ~SafeReader();
  SafeReader(const SafeReader&) = delete;
  SafeReader& operator=(const SafeReader&) = delete;

  // Copies `size` bytes at `address` into `out`; false when any of them cannot be read. Leaves
  // errno as it was.
  bool Read(uintptr_t address, void* out, size_t size);

 private:
  bool ReadThroughPipe(uintptr_t address, void* out, size_t size);

  bool use_pipe_ = false;  // process_vm_readv refused (seccomp, old kernel)
  int pipe_[2] = {-1, -1};
};

// Plain loads, once a layout has been checked.
struct PlainReader {
  bool Read(uintptr_t address, void* out, size_t size) {
    if (address == 0) return false;
    std::memcpy(out, reinterpret_cast<const void*>(address), size);
    return true;
  }
};

}  // namespace flopspy::interpose
