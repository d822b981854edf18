#include "flopspy/platform/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "flopspy/platform/output_file.h"

namespace flopspy::platform {
namespace {

std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

std::string Describe(const std::string& path, mode_t mode) {
  const std::string kind = KindOf(mode);
  return path + " is " + (kind.starts_with("a ") ? kind + ", not a file" : kind);
}

}  // namespace

int CreateExclusive(int dir_fd, const std::string& path, mode_t mode) {
  return openat(dir_fd, path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

std::string NotARegularFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "";  // the open that follows says why
  return S_ISREG(st.st_mode) ? "" : Describe(path, st.st_mode);
}

int OpenRegularForReading(const std::string& path, std::string* error) {
  if (std::string why = NotARegularFile(path); !why.empty()) {
    if (error) *error = why;
    errno = EINVAL;
    return -1;
  }
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (error) *error = "cannot open " + path + ": " + std::strerror(err);
    errno = err;
    return -1;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (error) *error = Describe(path, st.st_mode);
    close(fd);
    errno = EINVAL;
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

bool ReadRegularFile(const std::string& path, uint64_t max_bytes, std::string* out,
                     std::string* error) {
  const int fd = OpenRegularForReading(path, error);
  if (fd < 0) return false;
  struct stat st {};
  if (fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > max_bytes) {
    if (error) {
      *error = path + " is larger than " + std::to_string(max_bytes) + " bytes, the most read";
    }
    close(fd);
    return false;
  }
  out->clear();
  char block[65536];
  for (;;) {
    const ssize_t n = read(fd, block, sizeof(block));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (error) *error = "cannot read " + path + ": " + std::strerror(errno);
      close(fd);
      return false;
    }
    if (n == 0) break;
    if (out->size() + static_cast<uint64_t>(n) > max_bytes) {
      if (error) {
        *error = path + " is larger than " + std::to_string(max_bytes) + " bytes, the most read";
      }
      close(fd);
      return false;
    }
    out->append(block, static_cast<size_t>(n));
  }
  close(fd);
  return true;
}

bool WriteAll(int fd, const void* data, size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t w = write(fd, bytes + done, size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return false;
    if (w == 0) {
      errno = ENOSPC;
      return false;
    }
    done += static_cast<size_t>(w);
  }
  return true;
}

namespace {

bool WriteWhole(const std::string& path, std::string_view content, mode_t mode,
                OutputFile::Rule rule, std::string* error) {
  OutputFile file;
  if (!file.Open(path, mode, error, rule)) return false;
  file.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  return file.Commit(error);
}

}  // namespace

bool ReplaceFile(const std::string& path, std::string_view content, mode_t mode,
                 std::string* error) {
  return WriteWhole(path, content, mode, OutputFile::Rule::kReplace, error);
}

bool WriteOutputFile(const std::string& path, std::string_view content, mode_t mode,
                     std::string* error) {
  return WriteWhole(path, content, mode, OutputFile::Rule::kAsNamed, error);
}

bool PrepareFolderFor(const std::string& path, Destination destination, std::string* error) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return true;  // the current folder, or /
  const std::string folder = path.substr(0, slash);
  for (size_t pos = folder.find('/', 1);; pos = folder.find('/', pos + 1)) {
    const std::string part = folder.substr(0, pos);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
      if (error) *error = "cannot create " + part + ": " + std::strerror(errno);
      return false;
    }
    if (pos == std::string::npos) break;
  }
  if (destination != Destination::kPrivateCache) return true;
  struct stat st {};
  if (lstat(folder.c_str(), &st) != 0) {
    if (error) *error = "cannot create " + folder + ": " + std::strerror(errno);
    return false;
  }
  if (S_ISLNK(st.st_mode)) {
    if (error) *error = folder + " is a link; flopspy's cache is written only into a real folder";
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    if (error) *error = folder + " is not a folder";
    return false;
  }
  if (st.st_uid != geteuid()) {
    if (error) {
      *error = folder + " belongs to another user (uid " + std::to_string(st.st_uid) +
               "); flopspy's cache is written only into a folder of yours";
    }
    return false;
  }
  return true;
}

bool SaveFile(const std::string& path, std::string_view content, Destination destination,
              std::string* error) {
  if (!PrepareFolderFor(path, destination, error)) return false;
  return destination == Destination::kPrivateCache
             ? ReplaceFile(path, content, kSharedFileMode, error)
             : WriteOutputFile(path, content, kSharedFileMode, error);
}

}  // namespace flopspy::platform
