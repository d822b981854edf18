// What flopspy-report writes besides the files the user names (written by platform's
// OutputFile and WriteOutputFile): the report on stdout, whose failed write is never silent (the
// caller says so in one line and exits 1), and no output over one of its own inputs.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flopspy::tools {

// Writes all of `text` to standard output (fd 1, where std::cout's buffer would hide the error).
// False with `error` saying why ("No space left on device").
bool WriteStandardOutput(std::string_view text, std::string* error);

// The traces being read, by identity, so that no output replaces one of them
// (`flopspy-report self.fspy --html self.fspy` once did).
class InputFiles {
 public:
  InputFiles() = default;
  explicit InputFiles(const std::vector<std::string>& paths);
  // Whether `output` is one of the inputs: the same file (device and inode), whatever the path.
  bool Contains(const std::string& output) const;

 private:
  std::vector<std::pair<dev_t, ino_t>> files_;
};

}  // namespace flopspy::tools
