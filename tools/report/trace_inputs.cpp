#include "report/trace_inputs.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "flopspy/platform/safe_file.h"

namespace flopspy::tools {
namespace {

// The *.fspy entries of a folder, sorted. Every filesystem call takes an error_code: a folder
// that cannot be listed (or stops listing half way) is one error line, never an exception.
std::vector<std::string> TracesInFolder(const std::string& folder,
                                        std::vector<std::string>& errors) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".fspy") continue;
    std::string path = it->path().string();
    // A FIFO or device named *.fspy (anyone who can write to a shared folder can make one)
    // would block or never end the read: named and left out, never opened.
    if (std::string why = platform::NotARegularFile(path); !why.empty()) {
      errors.push_back(why + "; not read");
      continue;
    }
    found.push_back(std::move(path));
  }
  if (ec) errors.push_back(folder + ": " + ec.message());
  std::sort(found.begin(), found.end());
  if (found.empty() && !ec) errors.push_back(folder + ": no .fspy trace files in this folder");
  return found;
}

}  // namespace

TraceInputs ExpandTraceArguments(const std::vector<std::string>& arguments) {
  TraceInputs inputs;
  for (const std::string& arg : arguments) {
    struct stat st {};
    if (stat(arg.c_str(), &st) != 0) {
      // A symlink loop or a folder we may not enter says so; only a missing path is "missing".
      inputs.errors.push_back(errno == ENOENT ? arg + ": no such file or folder"
                                              : arg + ": " + std::strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
      const std::vector<std::string> found = TracesInFolder(arg, inputs.errors);
      inputs.files.insert(inputs.files.end(), found.begin(), found.end());
    } else if (!S_ISREG(st.st_mode)) {
      const std::string why = platform::NotARegularFile(arg);
      inputs.errors.push_back((why.empty() ? arg + " is not a file" : why) + "; not read");
    } else {
      inputs.files.push_back(arg);
    }
  }
  return inputs;
}

}  // namespace flopspy::tools
