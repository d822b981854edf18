#include "flopspy/platform/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <streambuf>

#include "flopspy/platform/safe_file.h"

namespace flopspy::platform {
namespace {

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// A name for one of the process's descriptors (/dev/stdout, /dev/fd/3, /proc/self/fd/1): it may
// lead to a regular file (stdout redirected to one), which must be written into, never replaced
// (that would make files in /dev). Other names under /dev (/dev/shm/x) are ordinary.
bool NamesADescriptor(const std::string& path) {
  if (path == "/dev/stdin" || path == "/dev/stdout" || path == "/dev/stderr") return true;
  if (path.starts_with("/dev/fd/")) return true;
  if (!path.starts_with("/proc/")) return false;
  const size_t fd = path.find("/fd/", 6);
  if (fd == std::string::npos) return false;
  const std::string process = path.substr(6, fd - 6);
  return process == "self" || process == "thread-self" ||
         (!process.empty() && process.find_first_not_of("0123456789") == std::string::npos);
}

// Whether a symlink at `path` may be followed to a device: only if nobody but its folder's owner
// could have put it there.
bool LinkIsTrusted(const std::string& path) {
  struct stat folder {};
  if (stat(FolderOf(path).c_str(), &folder) != 0) return false;
  return (folder.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// Whether `path` is to be written into as it is rather than replaced.
bool WriteInPlace(const std::string& path, const struct stat& target, bool exists) {
  if (NamesADescriptor(path)) return true;
  if (!exists || S_ISREG(target.st_mode)) return false;
  struct stat link {};
  const bool is_link = lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  return !is_link || LinkIsTrusted(path);
}

}  // namespace

// A stream buffer over a descriptor that keeps the first write error: the stream goes bad and
// Commit says why.
class OutputFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd) { setp(data_, data_ + sizeof(data_)); }
  int error() const { return error_; }

 protected:
  int overflow(int c) override {
    if (!Drain()) return traits_type::eof();
    if (c != traits_type::eof()) {
      *pptr() = static_cast<char>(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    // Large pieces go straight to the descriptor rather than through the buffer.
    if (n < static_cast<std::streamsize>(sizeof(data_))) return std::streambuf::xsputn(s, n);
    if (!Drain()) return 0;
    if (!WriteAll(fd_, s, static_cast<size_t>(n))) {
      error_ = errno;
      return 0;
    }
    return n;
  }
  int sync() override { return Drain() ? 0 : -1; }

 private:
  bool Drain() {
    const auto size = static_cast<size_t>(pptr() - pbase());
    if (size > 0 && error_ == 0 && !WriteAll(fd_, pbase(), size)) error_ = errno;
    setp(data_, data_ + sizeof(data_));
    return error_ == 0;
  }

  int fd_;
  int error_ = 0;
  char data_[64 * 1024];
};

OutputFile::OutputFile() = default;

OutputFile::~OutputFile() {
  if (fd_ >= 0) close(fd_);
  if (!temp_.empty()) unlink(temp_.c_str());
}

bool OutputFile::Open(const std::string& path, mode_t mode, std::string* error, Rule rule) {
  path_ = path;
  struct stat target {};
  const bool exists = stat(path.c_str(), &target) == 0;
  if (exists && S_ISDIR(target.st_mode)) {
    if (error) *error = "cannot write " + path + ": it is a folder";
    return false;
  }
  if (rule == Rule::kAsNamed && WriteInPlace(path, target, exists)) {
    fd_ = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) {
      if (error) *error = "cannot write " + path + ": " + std::strerror(errno);
      return false;
    }
  } else {
    const std::string folder = FolderOf(path);
    std::random_device random;
    for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
      temp_ = folder + "/.flopspy-" + std::to_string(random()) + ".tmp";
      fd_ = CreateExclusive(AT_FDCWD, temp_, mode);
      if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ < 0) {
      if (error) *error = "cannot create a file in " + folder + ": " + std::strerror(errno);
      temp_.clear();
      return false;
    }
  }
  buffer_ = std::make_unique<Buffer>(fd_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
  return true;
}

std::ostream& OutputFile::stream() {
  return *stream_;
}

bool OutputFile::Commit(std::string* error) {
  stream_->flush();
  int err = buffer_->error();
  if (close(fd_) != 0 && err == 0) err = errno;
  fd_ = -1;
  if (err == 0 && !temp_.empty() && rename(temp_.c_str(), path_.c_str()) != 0) err = errno;
  if (err != 0) {
    if (error) *error = "cannot write " + path_ + ": " + std::strerror(err);
    return false;  // the destructor removes the new file
  }
  temp_.clear();
  return true;
}

}  // namespace flopspy::platform
