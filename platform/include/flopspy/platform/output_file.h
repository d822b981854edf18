// A file flopspy writes for the user, written as a stream (a Chrome export can be far larger
// than memory should hold), under the rules of safe_file.h:
//  - a name that leads to a device or FIFO (/dev/null, a pipe the user made), and a name of one
//    of the process's descriptors (/dev/stdout, /dev/fd/3, /proc/self/fd/1, which lead to a
//    regular file when stdout is redirected to one), is written into as it is: opened without
//    O_CREAT or O_TRUNC, appending;
//  - anything else is written into a new file beside the name, renamed over it at Commit: a
//    symlink at the name is replaced as a name, its target untouched, and no reader ever sees
//    half a file. A symlink that leads to a device is followed only when its folder is writable
//    by its owner alone (a link planted in /tmp or a shared folder is replaced instead);
//  - every write error (a full disk, /dev/full) is kept and reported by Commit; a file that
//    failed is removed, the old one left as it was.
#pragma once

#include <sys/types.h>

#include <memory>
#include <ostream>
#include <string>

namespace flopspy::platform {

class OutputFile {
 public:
  enum class Rule {
    kAsNamed,  // the rules above
    kReplace,  // always a new file renamed over the name (flopspy's own cache)
  };

  OutputFile();
  ~OutputFile();  // without a successful Commit, the new file is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // False with `error` when the file cannot be opened or created.
  bool Open(const std::string& path, mode_t mode, std::string* error, Rule rule = Rule::kAsNamed);
  // Where to write, valid after a successful Open.
  std::ostream& stream();
  // Flushes, closes and puts the file in place. False with `error` ("cannot write PATH: No space
  // left on device") when any write failed.
  bool Commit(std::string* error);

 private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
  std::string path_;
  std::string temp_;  // empty when writing into the named file itself
  int fd_ = -1;
};

}  // namespace flopspy::platform
