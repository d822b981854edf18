#include "report/ceilings_input.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace flopspy::tools {

std::optional<gpuroof::CeilingsFile> LoadGpuCeilings(const std::string& path, bool named,
                                                     std::vector<std::string>* warnings) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    // Never measured (or HOME is not a folder): the datasheet roofs are the rule, not news,
    // unless the user named this very file.
    if (named || (errno != ENOENT && errno != ENOTDIR)) {
      warnings->push_back("ignoring measured ceilings: cannot read " + path + ": " +
                          std::strerror(errno) + "; using datasheet roofs");
    }
    return std::nullopt;
  }
  // Bounded, and a FIFO or device refused without being opened (gpuroof::LoadCeilingsFile).
  gpuroof::CeilingsLoad load = gpuroof::LoadCeilingsFile(path);
  if (!load.file) {
    warnings->push_back("ignoring measured ceilings: " + load.error + "; using datasheet roofs");
  }
  for (const std::string& w : load.warnings) warnings->push_back(path + ": " + w);
  return std::move(load.file);
}

}  // namespace flopspy::tools
