#include "report/trace_inputs.h"

#include <algorithm>
#include <filesystem>

namespace flopspy::tools {

TraceInputs ExpandTraceArguments(const std::vector<std::string>& arguments) {
  namespace fs = std::filesystem;
  TraceInputs inputs;
  for (const std::string& arg : arguments) {
    std::error_code ec;
    const fs::file_status status = fs::status(arg, ec);
    if (ec || !fs::exists(status)) {
      inputs.errors.push_back(arg + ": no such file or folder");
    } else if (fs::is_directory(status)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(arg, ec)) {
        if (entry.path().extension() == ".fspy") found.push_back(entry.path().string());
      }
      if (ec) inputs.errors.push_back(arg + ": " + ec.message());
      std::sort(found.begin(), found.end());
      if (found.empty()) inputs.errors.push_back(arg + ": no .fspy trace files in this folder");
      inputs.files.insert(inputs.files.end(), found.begin(), found.end());
    } else {
      inputs.files.push_back(arg);
    }
  }
  return inputs;
}

}  // namespace flopspy::tools
