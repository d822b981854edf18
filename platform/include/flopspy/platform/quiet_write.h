// Writing flopspy's own lines to a descriptor the program owns (stderr) without harming it: when
// stderr is a pipe whose reader is gone, a plain write(2) raises SIGPIPE, whose default action
// kills the program, for a line the program never asked for.
#pragma once

#include <cstddef>

namespace flopspy::platform {

// Writes every byte (retrying EINTR and short writes) with SIGPIPE blocked in this thread; a
// SIGPIPE this write raised is taken back, one the program had pending before is left alone.
// Returns false (errno set: EPIPE, EBADF...) if not everything was written; errno is untouched
// on success. Async-signal-safe.
bool WriteWithoutSigpipe(int fd, const void* data, size_t size);

}  // namespace flopspy::platform
