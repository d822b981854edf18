// What a program does to descriptors it did not open (close_range, dup2 over every number above
// 2), for tests of what the sampler holds: a file of the program's with known bytes, and the
// numbers that name a given file.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace flopspy::cpuroof::testing {

// The open descriptors whose /proc/self/fd link reads `target` (a path, or
// "anon_inode:[perf_event]" for perf counters).
inline std::vector<int> DescriptorsNaming(const std::string& target) {
  std::vector<int> found;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return found;
  const int own = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    const int fd = atoi(entry->d_name);
    if (entry->d_name[0] == '.' || fd == own) continue;
    char link[4096];
    const ssize_t n = readlinkat(own, entry->d_name, link, sizeof(link) - 1);
    if (n > 0 && std::string(link, static_cast<size_t>(n)) == target) found.push_back(fd);
  }
  closedir(dir);
  return found;
}

// A file the program writes (its log, its output), open for reading and writing.
class ProgramFile {
 public:
  explicit ProgramFile(const std::string& content) {
    char name[] = "/tmp/flopspy-program-file-XXXXXX";
    fd_ = mkstemp(name);
    path_ = name;
    if (fd_ >= 0 && write(fd_, content.data(), content.size()) < 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~ProgramFile() {
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
  }
  ProgramFile(const ProgramFile&) = delete;
  ProgramFile& operator=(const ProgramFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  off_t Offset() const { return lseek(fd_, 0, SEEK_CUR); }
  // Every byte of the file, read without moving the program's offset.
  std::string Content() const {
    std::string out;
    char block[4096];
    for (off_t at = 0;;) {
      const ssize_t n = pread(fd_, block, sizeof(block), at);
      if (n <= 0) return out;
      out.append(block, static_cast<size_t>(n));
      at += n;
    }
  }
  // Whether `number` is open and refers to this file.
  bool NamedBy(int number) const {
    struct stat mine {
    }, theirs{};
    return fstat(fd_, &mine) == 0 && fstat(number, &theirs) == 0 && mine.st_dev == theirs.st_dev &&
           mine.st_ino == theirs.st_ino;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace flopspy::cpuroof::testing
