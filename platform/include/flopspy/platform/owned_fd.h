// A descriptor flopspy opened and holds inside a program that may close or replace any
// descriptor it likes (close_range, closefrom loops, dup2 over "unknown" numbers, daemons).
//
// The number alone proves nothing: after the program closes it, the next file the program opens
// gets the same number. So an OwnedFd remembers what it refers to (device and inode) and checks
// before every use that the number still refers to that; a number that now belongs to the program
// is never written to, read from or closed. It lives at a high number, away from the low numbers
// programs open, dup2 onto and hand to children.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace flopspy::platform {

class OwnedFd {
 public:
  OwnedFd() = default;

  // Takes `fd`, just opened by flopspy: moves it to a high number (close-on-exec) and remembers
  // what it refers to. Returns an empty OwnedFd (and closes `fd`) if fstat fails.
  static OwnedFd Adopt(int fd);

  bool valid() const { return fd_ >= 0; }
  int get() const { return fd_; }
  dev_t device() const { return device_; }
  ino_t inode() const { return inode_; }

  // True while the number still refers to the file it was adopted for. One statx call that
  // never waits for a network file system to answer (AT_STATX_DONT_SYNC); async-signal-safe.
  bool StillOurs() const;

  // Closes the descriptor if it is still ours; forgets it either way.
  void CloseIfOurs();

  // Forgets the number without touching it (after fork, the program's if it was replaced).
  void Forget() { fd_ = -1; }

 private:
  int fd_ = -1;
  dev_t device_ = 0;
  ino_t inode_ = 0;
};

// The lowest number Adopt moves descriptors to: 1000, or less under a low RLIMIT_NOFILE.
int HighDescriptorFloor();

// Whether `fd` refers to the file with this device and inode (statx, never waits on NFS).
bool SameFile(int fd, dev_t device, ino_t inode);

}  // namespace flopspy::platform
