#include "flopspy/platform/quiet_write.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "flopspy/platform/safe_file.h"

namespace flopspy::platform {

bool WriteWithoutSigpipe(int fd, const void* data, size_t size) {
  sigset_t pipe_only, old_mask, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  // A SIGPIPE already pending (for the thread or the process) is the program's: never take it.
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);

  const int saved_errno = errno;
  const int err = WriteAll(fd, data, size) ? 0 : errno;
  if (err == EPIPE && !was_pending) {
    // The write raised SIGPIPE at this thread; it is blocked, so it waits here: take it.
    const timespec no_wait{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &no_wait) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  errno = err != 0 ? err : saved_errno;  // on success the caller's errno is left as it was
  return err == 0;
}

}  // namespace flopspy::platform
