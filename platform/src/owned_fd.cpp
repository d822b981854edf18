#include "flopspy/platform/owned_fd.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>

namespace flopspy::platform {

int HighDescriptorFloor() {
  constexpr rlim_t kPreferred = 1000;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kPreferred;
  // Leave room above the floor for flopspy's few descriptors (a trace, a folder, counters).
  if (limit.rlim_cur > kPreferred + 64) return kPreferred;
  if (limit.rlim_cur > 64) return static_cast<int>(limit.rlim_cur / 2);
  return 3;
}

bool SameFile(int fd, dev_t device, ino_t inode) {
  if (fd < 0) return false;
  const int saved_errno = errno;  // a query: the caller's errno (often the program's) is kept
  bool same = false;
  struct statx st {};
  if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO, &st) == 0) {
    same = makedev(st.stx_dev_major, st.stx_dev_minor) == device && st.stx_ino == inode;
  } else if (errno == ENOSYS || errno == EPERM) {
    // A kernel or a seccomp sandbox without statx: fstat, which a network file system may make
    // wait for its server.
    struct stat plain {};
    same = fstat(fd, &plain) == 0 && plain.st_dev == device && plain.st_ino == inode;
  }
  errno = saved_errno;
  return same;
}

OwnedFd OwnedFd::Adopt(int fd) {
  OwnedFd owned;
  if (fd < 0) return owned;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, HighDescriptorFloor());
  if (high >= 0) {
    close(fd);  // just opened by flopspy: the low number is still ours
  } else {
    high = fd;  // no room up there (a tiny RLIMIT_NOFILE): keep the number we have
    fcntl(high, F_SETFD, FD_CLOEXEC);
  }
  struct stat st {};
  if (fstat(high, &st) != 0) {
    close(high);
    return owned;
  }
  owned.fd_ = high;
  owned.device_ = st.st_dev;
  owned.inode_ = st.st_ino;
  return owned;
}

bool OwnedFd::StillOurs() const {
  return SameFile(fd_, device_, inode_);
}

void OwnedFd::CloseIfOurs() {
  if (StillOurs()) close(fd_);
  fd_ = -1;
}

}  // namespace flopspy::platform
