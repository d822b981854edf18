// The trace file as the flusher writes it, inside a program that owns every descriptor number.
//
// The file is created when the process starts (so a later chdir, daemon() or privilege drop does
// not lose it) and held at a high descriptor number by identity (platform::OwnedFd). Before every
// write the number is checked to still be the trace file: a program that closed it (close_range,
// a closefrom loop) or put its own file there (dup2) never gets a byte of trace in its files.
// The file is then reopened by its absolute path, or, if that fails, writing stops with one
// warning. A process that recorded nothing removes its empty file when it ends.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "flopspy/platform/owned_fd.h"
#include "trace_file.h"

namespace flopspy::interpose {

class TraceSink {
 public:
  // Creates the file in `dir` (an absolute path) now. False with `error` set.
  bool Create(const std::string& dir, const TraceFileIdentity& id, std::string* error);

  // Whether a file is held (created, and not given up on).
  bool is_open() const { return fd_.valid(); }
  const std::string& path() const { return path_; }
  // Bytes written and kept: the file's length as flopspy knows it.
  uint64_t size() const { return good_offset_; }

  // Appends `size` bytes at the end of what was kept (pwrite: the descriptor's offset plays no
  // part). On failure a partial write is cut off (the file stays readable up to the last good
  // chunk), `error` holds errno and false is returned. A descriptor found closed or replaced is
  // reopened first; if that is impossible, the sink closes for good (is_open false).
  bool Write(const uint8_t* bytes, size_t size, int* error);

  // A process that recorded nothing leaves no file: removes it if nothing was ever written and
  // the name still leads to it, then closes.
  void RemoveIfEmpty();
  // The same from a signal handler: system calls only, the file checked to be empty, the
  // descriptor left open (the process is about to die).
  void UnlinkIfEmpty();

  // In a fork() child: the parent's file is not this process's to write. Forgets it without any
  // system call (fork must not wait on a file system); CloseInherited closes it later.
  void ForgetAfterFork();
  // Closes the descriptors inherited across fork (the parent's trace, a grandparent's not yet
  // closed), each only if its number is still that file. Called off the program's path (by the
  // child's flusher).
  void CloseInherited();

 private:
  // The descriptor still refers to the trace file, or was reopened to it.
  bool EnsureOurs();
  bool Reopen(const char* what_happened);
  void GiveUp(const std::string& why);
  bool Unlink();

  platform::OwnedFd fd_;
  // Up to four generations of ancestors' trace descriptors not yet closed; beyond that the
  // oldest stays open, untouched, until exit or exec (close-on-exec).
  std::array<platform::OwnedFd, 4> inherited_;
  std::string path_;
  uint64_t good_offset_ = 0;
  // Reopens in the current window: a program that closes every descriptor in a loop would
  // have the trace reopened again and again.
  uint64_t reopen_window_start_ns_ = 0;
  int reopens_in_window_ = 0;
};

}  // namespace flopspy::interpose
