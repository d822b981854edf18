// Turning command-line arguments into trace files: files as given, folders searched for *.fspy.
#pragma once

#include <string>
#include <vector>

namespace flopspy::tools {

struct TraceInputs {
  std::vector<std::string> files;
  std::vector<std::string> errors;  // arguments that are neither a file nor a folder
};

// Folders contribute their *.fspy files (sorted, not recursive).
TraceInputs ExpandTraceArguments(const std::vector<std::string>& arguments);

}  // namespace flopspy::tools
