#include "trace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "flopspy/platform/safe_file.h"

namespace flopspy::interpose {

std::string TraceFileName(const TraceFileIdentity& id, int attempt) {
  std::string host;
  for (char c : id.host) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    host += safe ? c : '_';
  }
  if (host.empty() || host == "." || host == "..") host = "host";
  std::string name = "flopspy-" + host + "-" + std::to_string(id.pid);
  if (id.rank >= 0) name += "-r" + std::to_string(id.rank);
  if (attempt > 0) name += "." + std::to_string(attempt);
  name += kTraceExtension;
  return name;
}

bool PrepareOutputFolder(const std::string& dir, std::string* error) {
  // mkdir -p: the folders above a file in `dir`.
  if (!platform::PrepareFolderFor(dir + "/", platform::Destination::kUserNamed, error)) {
    return false;
  }
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = "it is not a folder";
    return false;
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    *error = std::string("no permission to write there (") + std::strerror(errno) + ")";
    return false;
  }
  return true;
}

int CreateTraceFile(const std::string& dir, const TraceFileIdentity& id, std::string* path,
                    std::string* error) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    *path = dir + "/" + TraceFileName(id, attempt);
    const int fd = platform::CreateExclusive(AT_FDCWD, *path, platform::kPrivateFileMode);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      *error = "cannot create " + *path + ": " + std::strerror(errno);
      return -1;
    }
  }
  *error = "100 trace files for pid " + std::to_string(id.pid) + " already exist in " + dir;
  return -1;
}

}  // namespace flopspy::interpose
