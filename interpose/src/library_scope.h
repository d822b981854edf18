// Whether this thread is inside a cuBLAS, cuBLASLt or cuDNN call, so that the kernels the call
// launches are marked as the call's (KernelLaunchRecord flag kLaunchInsideLibrary). The call and
// its launches are then joined by thread and time in the report.
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

// Whether this thread is inside a recorded cuDNN call. A library call cuDNN makes inside it
// (its own API, cuBLAS) is forwarded without a record of its own: the cuDNN call's figures
// already count that work, and its kernels are the cuDNN call's.
extern thread_local uint32_t tls_dnn_depth __attribute__((tls_model("initial-exec")));

inline bool InsideDnnCall() {
  return tls_dnn_depth != 0;
}

class DnnCallScope {
 public:
  DnnCallScope() { ++tls_dnn_depth; }
  ~DnnCallScope() { --tls_dnn_depth; }
  DnnCallScope(const DnnCallScope&) = delete;
  DnnCallScope& operator=(const DnnCallScope&) = delete;
};

}  // namespace flopspy::interpose
