// Whether this thread is inside a cuBLAS or cuBLASLt call, so that the kernels the call launches
// are marked as the call's (KernelLaunchRecord flag kLaunchInsideLibrary). The call and its
// launches are then joined by thread and time in the report.
#pragma once

#include <cstdint>

namespace flopspy::interpose {

extern thread_local uint32_t tls_library_depth __attribute__((tls_model("initial-exec")));

inline bool InsideLibraryCall() {
  return tls_library_depth != 0;
}

// Marks the thread as inside a library call for the scope's lifetime (nests).
class LibraryCallScope {
 public:
  LibraryCallScope() { ++tls_library_depth; }
  ~LibraryCallScope() { --tls_library_depth; }
  LibraryCallScope(const LibraryCallScope&) = delete;
  LibraryCallScope& operator=(const LibraryCallScope&) = delete;
};

}  // namespace flopspy::interpose
