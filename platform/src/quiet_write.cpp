#include "flopspy/platform/quiet_write.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace flopspy::platform {

bool WriteWithoutSigpipe(int fd, const void* data, size_t size) {
  sigset_t pipe_only, old_mask, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  // A SIGPIPE already pending (for the thread or the process) is the program's: never take it.
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);

  const auto* bytes = static_cast<const char*>(data);
  size_t done = 0;
  int err = 0;
  while (done < size) {
    const ssize_t w = write(fd, bytes + done, size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(w);
  }
  if (err == EPIPE && !was_pending) {
    // The write raised SIGPIPE at this thread; it is blocked, so it waits here: take it.
    const timespec no_wait{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &no_wait) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (err != 0) errno = err;  // on success the caller's errno is left as it was
  return err == 0;
}

}  // namespace flopspy::platform
