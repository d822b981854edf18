// Where traces go: flopspy-<host>-<pid>[-r<rank>].fspy in the output folder, created exclusively
// (O_EXCL|O_NOFOLLOW, mode 0600) so that processes sharing a folder never clobber each other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace flopspy::interpose {

inline constexpr std::string_view kTraceExtension = ".fspy";

struct TraceFileIdentity {
  std::string_view host;
  uint32_t pid = 0;
  int32_t rank = -1;
};

// The file name for `attempt` 0, 1, 2...: later attempts add ".1", ".2" (an exec'd image keeps
// the pid of the image before it). The host name is reduced to characters safe in a file name.
std::string TraceFileName(const TraceFileIdentity& id, int attempt);

// Creates `dir` (and parents) if missing and checks it is writable. False with `error` set if not.
bool PrepareOutputFolder(const std::string& dir, std::string* error);

// Creates the trace file; returns its descriptor (close-on-exec) or -1 with `error` set.
int CreateTraceFile(const std::string& dir, const TraceFileIdentity& id, std::string* path,
                    std::string* error);

}  // namespace flopspy::interpose
