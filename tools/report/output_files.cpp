#include "report/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "flopspy/platform/safe_file.h"

namespace flopspy::tools {

bool WriteStandardOutput(std::string_view text, std::string* error) {
  if (platform::WriteAll(STDOUT_FILENO, text.data(), text.size())) return true;
  *error = std::strerror(errno);
  return false;
}

InputFiles::InputFiles(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) files_.emplace_back(st.st_dev, st.st_ino);
  }
}

bool InputFiles::Contains(const std::string& output) const {
  struct stat st {};
  if (stat(output.c_str(), &st) != 0) return false;
  for (const auto& [device, inode] : files_) {
    if (device == st.st_dev && inode == st.st_ino) return true;
  }
  return false;
}

}  // namespace flopspy::tools
