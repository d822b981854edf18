#include "python_safe_read.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flopspy::interpose {

SafeReader::~SafeReader() {
  if (pipe_[0] >= 0) close(pipe_[0]);
  if (pipe_[1] >= 0) close(pipe_[1]);
}

bool SafeReader::Read(uintptr_t address, void* out, size_t size) {
  if (size == 0) return true;
  if (address == 0 || address + size < address) return false;
  const int saved_errno = errno;
  bool ok = false;
  if (!use_pipe_) {
    // The kernel copies from this process to itself and says EFAULT where a page is missing.
    iovec local{out, size};
    iovec remote{reinterpret_cast<void*>(address), size};
    const ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (n == static_cast<ssize_t>(size)) {
      ok = true;
    } else if (n < 0 && errno != EFAULT && errno != ESRCH) {
      use_pipe_ = true;
    }
  }
  if (use_pipe_) ok = ReadThroughPipe(address, out, size);
  errno = saved_errno;
  return ok;
}

// write() from an unmapped address fails with EFAULT instead of faulting: the bytes go through
// a pipe of this process and back.
bool SafeReader::ReadThroughPipe(uintptr_t address, void* out, size_t size) {
  if (pipe_[0] < 0 && pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    pipe_[0] = pipe_[1] = -1;
    return false;
  }
  auto* dst = static_cast<uint8_t*>(out);
  size_t done = 0;
  while (done < size) {
    const size_t chunk = size - done < 4096 ? size - done : 4096;  // below any pipe's capacity
    const ssize_t w = write(pipe_[1], reinterpret_cast<const void*>(address + done), chunk);
    if (w <= 0) return false;
    const ssize_t r = read(pipe_[0], dst + done, static_cast<size_t>(w));
    if (r != w) {
      // Bytes left in the pipe would come out of the next read: start over with a new one.
      close(pipe_[0]);
      close(pipe_[1]);
      pipe_[0] = pipe_[1] = -1;
      return false;
    }
    done += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace flopspy::interpose
